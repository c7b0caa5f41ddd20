// Warp-level helpers of the GPU aggregates' few-groups folds (aggregate_few_groups.cuh) and of
// the fused aggregate kernels generated at run time (fused_aggregate_gen.h): combining the
// partials of lanes that share a group, and carry-propagating atomic adds of 192-bit sums.
// Compiles under nvcc and NVRTC alike (no C++ standard library but <cstdint>).
#pragma once

#include <cstdint>
#if !defined(__CUDACC_RTC__)
#include <cstring>  // memcpy (NVRTC has it built in)
#endif

namespace tandem::gpu::few {

using u64 = unsigned long long;

constexpr unsigned kFullMask = 0xFFFFFFFFu;

// x of lane `src`, word by word (Acc is plain data of whole 32-bit words).
template <typename Acc>
__device__ __forceinline__ Acc ShuffleFrom(const Acc& x, int src) {
  static_assert(sizeof(Acc) % 4 == 0, "partials travel as 32-bit words");
  constexpr int kWords = sizeof(Acc) / 4;
  unsigned w[kWords];
  memcpy(w, &x, sizeof(Acc));
#pragma unroll
  for (int i = 0; i < kWords; ++i) w[i] = __shfl_sync(kFullMask, w[i], src);
  Acc out;
  memcpy(&out, w, sizeof(Acc));
  return out;
}

// Combines x over each set of peer lanes (lanes whose `peers` masks are equal) into the set's
// lowest lane, as a binary tree over the peers' ranks: at each level a surviving lane takes the
// partial of the next surviving peer above it, then the lanes of odd rank drop out. Every lane of
// the warp must call it; the other lanes' results are partial.
template <typename Op>
__device__ __forceinline__ typename Op::Acc ReducePeers(const Op& op, unsigned peers, int lane,
                                                        typename Op::Acc x) {
  unsigned rank = __popc(peers & ((1u << lane) - 1u));
  unsigned above = peers & ~((2u << lane) - 1u);  // lane 31: 2u << 31 wraps to 0, leaving none
  while (__any_sync(kFullMask, above != 0)) {
    const int next = __ffs(above);  // 1-based; 0: no peer above
    const typename Op::Acc theirs = ShuffleFrom(x, next ? next - 1 : lane);
    if (next) x = op.Combine(x, theirs);
    above &= ~__ballot_sync(kFullMask, rank & 1u);
    rank >>= 1;
  }
  return x;
}

// ---- global merges --------------------------------------------------------------------------

// Adds the 192-bit two's complement value (a0, a1, a2) into the words (lo, mid, top); every
// carry goes on as an addition to the next word, so concurrent merges give the exact sum.
__device__ __forceinline__ void AtomicAdd192(u64* lo, u64* mid, u64* top, u64 a0, u64 a1, u64 a2) {
  const u64 old0 = atomicAdd(lo, a0);
  const u64 c0 = old0 + a0 < old0 ? 1 : 0;
  const u64 add1 = a1 + c0;
  u64 c1 = add1 < a1 ? 1 : 0;  // a1 = 2^64 - 1 plus the carry
  if (add1) {
    const u64 old1 = atomicAdd(mid, add1);
    c1 += old1 + add1 < old1 ? 1 : 0;
  }
  const u64 t = a2 + c1;
  if (t) atomicAdd(top, t);
}

}  // namespace tandem::gpu::few
