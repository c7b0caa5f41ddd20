// The device side of fused aggregate kernels (fused_aggregate_gen.h): what every generated
// kernel shares. A fused kernel makes one pass over a batch: per row it takes the row's group
// (the group table's id, or 0 without keys), runs the filter's program and then each aggregate's
// argument program, and folds the values into per-group partials: in shared memory per warp with
// few groups (as aggregate_few_groups.cuh does, lanes of one group first combined in registers),
// else straight into the global state with atomics. The global state words are those the
// aggregate's unfused kernels fill (aggregate.cu), so its finalize kernels serve both.
//
// A partial is a run of 64-bit words per aggregate, all zero when empty:
//   count       [count]
//   narrow sum  [lo, hi, count]         exact sum modulo 2^128 of values of 64 bits or fewer
//   wide sum    [w0, w1, w2, count]     exact sum modulo 2^192 of 128-bit values
//   double sum  [sum (double bits), count]
// Compiles under nvcc and NVRTC alike (no C++ standard library but <cstdint>).
#pragma once

#include <cstdint>

#include "tandem/exec/gpu/warp_peers.cuh"
#include "tandem/expr/gpu/interpreter.cuh"

namespace tandem::gpu::fused {

using u64 = unsigned long long;
using internal::i128;

constexpr int kMaxPrograms = 17;  // the filter and one per aggregate
constexpr int kMaxAggregates = 16;
constexpr int kThreads = 256;

// The global state of one aggregate (aggregate.cu's layout): sums' words and counts; a double
// sum keeps its sum in `lo` as a double.
struct State {
  u64* lo = nullptr;
  u64* mid = nullptr;
  u64* top = nullptr;
  u64* counts = nullptr;
};

struct Params {
  internal::InterpParams prog[kMaxPrograms];
  State state[kMaxAggregates];
  const int64_t* gid = nullptr;  // null: every row is group 0; -1: the row is left out
  int64_t n = 0;
  int64_t groups = 1;
  int few = 1;           // partials in shared memory (few groups), else global atomics
  int* error = nullptr;  // set when a program raised an error on some row
};

__device__ __forceinline__ void Failed(const Params& F) { atomicOr(F.error, 1); }

// ---- one row's partial ----------------------------------------------------------------------

__device__ __forceinline__ void SetNarrow(u64* w, i128 v) {
  const unsigned __int128 u = static_cast<unsigned __int128>(v);
  w[0] = static_cast<u64>(u);
  w[1] = static_cast<u64>(u >> 64);
  w[2] = 1;
}
__device__ __forceinline__ void SetWide(u64* w, i128 v) {
  const unsigned __int128 u = static_cast<unsigned __int128>(v);
  w[0] = static_cast<u64>(u);
  w[1] = static_cast<u64>(u >> 64);
  w[2] = v < 0 ? ~0ULL : 0ULL;
  w[3] = 1;
}
__device__ __forceinline__ void SetDouble(u64* w, double v) {
  w[0] = static_cast<u64>(__double_as_longlong(v));
  w[1] = 1;
}

// ---- combining partials ---------------------------------------------------------------------

__device__ __forceinline__ void CombineCount(u64* c, const u64* a, const u64* b) {
  c[0] = a[0] + b[0];
}
__device__ __forceinline__ void CombineNarrow(u64* c, const u64* a, const u64* b) {
  const u64 s0 = a[0] + b[0];
  c[1] = a[1] + b[1] + (s0 < a[0] ? 1 : 0);
  c[0] = s0;
  c[2] = a[2] + b[2];
}
__device__ __forceinline__ void CombineWide(u64* c, const u64* a, const u64* b) {
  const u64 s0 = a[0] + b[0];
  const u64 c0 = s0 < a[0] ? 1 : 0;
  const u64 s1 = a[1] + b[1];
  const u64 s1c = s1 + c0;
  const u64 c1 = (s1 < a[1] ? 1 : 0) + (s1c < s1 ? 1 : 0);
  c[2] = a[2] + b[2] + c1;
  c[0] = s0;
  c[1] = s1c;
  c[3] = a[3] + b[3];
}
__device__ __forceinline__ void CombineDouble(u64* c, const u64* a, const u64* b) {
  c[0] = static_cast<u64>(__double_as_longlong(__longlong_as_double(static_cast<long long>(a[0])) +
                                               __longlong_as_double(static_cast<long long>(b[0]))));
  c[1] = a[1] + b[1];
}

// ---- merging into the global state ----------------------------------------------------------

__device__ __forceinline__ void MergeCount(const State& s, int64_t g, const u64* a) {
  if (a[0]) atomicAdd(&s.counts[g], a[0]);
}
__device__ __forceinline__ void MergeNarrow(const State& s, int64_t g, const u64* a) {
  if (a[2] == 0) return;
  const u64 old0 = atomicAdd(&s.lo[g], a[0]);
  const u64 add1 = a[1] + (old0 + a[0] < old0 ? 1 : 0);
  if (add1) atomicAdd(&s.mid[g], add1);
  atomicAdd(&s.counts[g], a[2]);
}
__device__ __forceinline__ void MergeWide(const State& s, int64_t g, const u64* a) {
  if (a[3] == 0) return;
  few::AtomicAdd192(&s.lo[g], &s.mid[g], &s.top[g], a[0], a[1], a[2]);
  atomicAdd(&s.counts[g], a[3]);
}
__device__ __forceinline__ void MergeDouble(const State& s, int64_t g, const u64* a) {
  if (a[1] == 0) return;
  atomicAdd(reinterpret_cast<double*>(&s.lo[g]),
            __longlong_as_double(static_cast<long long>(a[0])));
  atomicAdd(&s.counts[g], a[1]);
}

// ---- the row loop ---------------------------------------------------------------------------

// Folds rows [0, F.n). `row_fn(row, st, x)` fills x (zeroed) with the row's partial and returns
// its group, or -1 to leave it out; `op` combines partials (Combine) and `merge(g, x)` adds one
// into the global state. With F.few, `slots` is dynamic shared memory of warps * groups partials.
template <int kStack, typename Acc, typename Op, typename RowFn, typename MergeFn>
__device__ __forceinline__ void FoldRows(const Params& F, Acc* slots, const Op& op, RowFn row_fn,
                                         MergeFn merge) {
  const int warps = static_cast<int>(blockDim.x >> 5);
  const int warp = static_cast<int>(threadIdx.x >> 5);
  const int lane = static_cast<int>(threadIdx.x & 31);
  const Acc zero{};
  if (F.few) {
    for (int64_t i = threadIdx.x; i < warps * F.groups; i += blockDim.x) slots[i] = zero;
    __syncthreads();
  }
  Acc* mine = slots + warp * F.groups;
  const unsigned lanes_below = (1u << lane) - 1u;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  internal::Val st[kStack];
  // `base` is the same for the whole warp, so its lanes loop together (the warp intrinsics need
  // every lane); lanes past the end or without a row carry group -1 and zeros.
  for (int64_t base = static_cast<int64_t>(blockIdx.x) * blockDim.x + warp * 32; base < F.n;
       base += stride) {
    const int64_t r = base + lane;
    Acc x = zero;
    const int64_t g = r < F.n ? row_fn(r, st, x) : -1;
    if (!F.few) {
      if (g >= 0) merge(g, x);
      continue;
    }
    const unsigned peers = __match_any_sync(few::kFullMask, static_cast<unsigned long long>(g));
    x = few::ReducePeers(op, peers, lane, x);
    if (g >= 0 && (peers & lanes_below) == 0) mine[g] = op.Combine(mine[g], x);
    __syncwarp();  // the next row's leader for g may be another lane of this warp
  }
  if (!F.few) return;
  __syncthreads();
  for (int64_t g = threadIdx.x; g < F.groups; g += blockDim.x) {
    Acc a = slots[g];
    for (int w = 1; w < warps; ++w) a = op.Combine(a, slots[w * F.groups + g]);
    merge(g, a);
  }
}

}  // namespace tandem::gpu::fused
