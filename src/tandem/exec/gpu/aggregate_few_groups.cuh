// The GPU hash aggregate's path for few groups (aggregate.cu): when a handful of groups would make
// every row's global atomic land on the same few addresses, each aggregate instead folds its rows
// in three steps that keep the per-group state exact and identical to the general path's:
//   1. within a warp, lanes of the same group (__match_any_sync) combine their values in
//      registers (a tree over the peers, ReducePeers);
//   2. the lowest lane of each peer set adds that into its warp's private slot for the group in
//      shared memory (one slot per warp per group: no atomics, no contention);
//   3. at the end each block combines its warps' slots and merges them into the global state
//      arrays with one atomic (or carry-propagating atomic chain) per group per state word.
// The global state (counts, 128/192-bit sums as 64-bit words, double sums, best rows, bool
// states) is the same the general kernels fill, so finalization and overflow checks are shared.
// Exact sums are sums modulo 2^128 (2^192 for int128 inputs) however they are grouped, so the
// state words come out bit for bit equal; double sums differ only in summation order.
//
// An Op describes one aggregate: Acc (the per-group partial), Identity(), Of(row, group) (one
// row's partial), Combine(a, b) and Merge(group, partial) (the global atomics).
#pragma once

#include <cstdint>

#include "tandem/exec/gpu/aggregate_tuning.h"
#include "tandem/exec/gpu/row_keys.cuh"
#include "tandem/exec/gpu/warp_peers.cuh"
#include "tandem/types/decimal_core.h"

namespace tandem::gpu::few {

using u64 = unsigned long long;
using decimal::i128;
using decimal::u128;

// Dynamic shared memory one block may use without opting in to more.
constexpr int64_t kMaxSharedBytes = 48 * 1024;

// Which rows an aggregate folds and into which group (a NULL argument, a FILTER clause or a
// DISTINCT duplicate leaves a row out).
struct RowSel {
  const int64_t* gid = nullptr;       // null: every row is group 0
  const uint8_t* mask = nullptr;      // FILTER clause / DISTINCT: one byte per row, null = all
  const uint8_t* validity = nullptr;  // the argument's NULLs (null = none or count(*))

  __device__ __forceinline__ bool Take(int64_t r, int64_t* g) const {
    if (mask && !mask[r]) return false;
    if (validity && !((validity[r >> 3] >> (r & 7)) & 1)) return false;
    *g = gid ? gid[r] : 0;
    return *g >= 0;
  }
};

// Dynamic shared memory the few-groups path needs for `groups` groups of `acc_bytes` partials,
// or -1 where it does not apply (no groups, more than AggregateFewGroupsLimit(), or more memory
// than a block may use).
inline int64_t FewGroupsSharedBytes(int64_t groups, int64_t acc_bytes) {
  const int64_t shared = (keys::kThreads / 32) * groups * acc_bytes;
  if (groups <= 0 || groups > AggregateFewGroupsLimit() || shared > kMaxSharedBytes) return -1;
  return shared;
}

// Blocks for the few-groups path: enough to fill the device once (8 blocks of kThreads per
// multiprocessor), so each block merges its partials into the global state only once.
inline unsigned FewGroupsGrid(int64_t n) {
  static const int multiprocessors = [] {
    int device = 0, count = 0;
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device) != cudaSuccess) {
      count = 132;
    }
    return count;
  }();
  const unsigned full = static_cast<unsigned>(multiprocessors) * 8u;
  const unsigned needed = keys::GridFor(n);
  return needed < full ? needed : full;
}

// Folds rows [0, n) into groups [0, groups) with per-warp shared-memory slots; launched with
// kThreads threads and warps * groups * sizeof(Acc) bytes of dynamic shared memory.
template <typename Op>
__global__ void __launch_bounds__(keys::kThreads)
    FoldFewGroups(RowSel sel, int64_t n, int64_t groups, Op op) {
  using Acc = typename Op::Acc;
  extern __shared__ __align__(16) unsigned char few_groups_shared[];
  Acc* slots = reinterpret_cast<Acc*>(few_groups_shared);
  const int warps = static_cast<int>(blockDim.x >> 5);
  const int warp = static_cast<int>(threadIdx.x >> 5);
  const int lane = static_cast<int>(threadIdx.x & 31);
  for (int64_t i = threadIdx.x; i < warps * groups; i += blockDim.x) slots[i] = op.Identity();
  __syncthreads();
  Acc* mine = slots + warp * groups;
  const unsigned lanes_below = (1u << lane) - 1u;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  // `base` is the same for the whole warp, so its lanes loop together (the warp intrinsics need
  // every lane); lanes past the end or without a row carry group -1 and the identity.
  for (int64_t base = static_cast<int64_t>(blockIdx.x) * blockDim.x + warp * 32; base < n;
       base += stride) {
    const int64_t r = base + lane;
    int64_t g = -1;
    Acc x = op.Identity();
    if (r < n && sel.Take(r, &g)) {
      x = op.Of(r, g);
    } else {
      g = -1;
    }
    const unsigned peers = __match_any_sync(kFullMask, static_cast<unsigned long long>(g));
    x = ReducePeers(op, peers, lane, x);
    if (g >= 0 && (peers & lanes_below) == 0) mine[g] = op.Combine(mine[g], x);
    __syncwarp();  // the next row's leader for g may be another lane of this warp
  }
  __syncthreads();
  for (int64_t g = threadIdx.x; g < groups; g += blockDim.x) {
    Acc a = slots[g];
    for (int w = 1; w < warps; ++w) a = op.Combine(a, slots[w * groups + g]);
    op.Merge(g, a);
  }
}

// ---- the ops --------------------------------------------------------------------------------

// count(*) and count(x): rows taken per group.
struct CountOp {
  using Acc = u64;
  u64* counts;
  __device__ __forceinline__ Acc Identity() const { return 0; }
  __device__ __forceinline__ Acc Of(int64_t, int64_t) const { return 1; }
  __device__ __forceinline__ Acc Combine(Acc a, Acc b) const { return a + b; }
  __device__ __forceinline__ void Merge(int64_t g, Acc a) const {
    if (a) atomicAdd(&counts[g], a);
  }
};

// Exact sum and count of integers/decimals of 64 bits or fewer: a block's partial fits 128 bits
// (at most 2^63 rows of 2^63), the state is the sum modulo 2^128 in (lo, mid).
template <typename T>
struct NarrowSumOp {
  struct Acc {
    u64 lo, hi, count;
  };
  const T* v;
  u64* lo;
  u64* mid;
  u64* counts;
  __device__ __forceinline__ Acc Identity() const { return {0, 0, 0}; }
  __device__ __forceinline__ Acc Of(int64_t r, int64_t) const {
    const u128 x = static_cast<u128>(static_cast<i128>(v[r]));
    return {static_cast<u64>(x), static_cast<u64>(x >> 64), 1};
  }
  __device__ __forceinline__ Acc Combine(const Acc& a, const Acc& b) const {
    const u64 s0 = a.lo + b.lo;
    return {s0, a.hi + b.hi + (s0 < a.lo ? 1 : 0), a.count + b.count};
  }
  __device__ __forceinline__ void Merge(int64_t g, const Acc& a) const {
    if (a.count == 0) return;
    const u64 old0 = atomicAdd(&lo[g], a.lo);
    const u64 add1 = a.hi + (old0 + a.lo < old0 ? 1 : 0);
    if (add1) atomicAdd(&mid[g], add1);
    atomicAdd(&counts[g], a.count);
  }
};

// Exact sum and count of int128 values (wide decimals) in 192 bits: (lo, mid, top).
struct WideSumOp {
  struct Acc {
    u64 w0, w1, w2, count;
  };
  const i128* v;
  u64* lo;
  u64* mid;
  u64* top;
  u64* counts;
  __device__ __forceinline__ Acc Identity() const { return {0, 0, 0, 0}; }
  __device__ __forceinline__ Acc Of(int64_t r, int64_t) const {
    const i128 x = v[r];
    const u128 u = static_cast<u128>(x);
    return {static_cast<u64>(u), static_cast<u64>(u >> 64), x < 0 ? ~0ULL : 0ULL, 1};
  }
  __device__ __forceinline__ Acc Combine(const Acc& a, const Acc& b) const {
    const u64 s0 = a.w0 + b.w0;
    const u64 c0 = s0 < a.w0 ? 1 : 0;
    const u64 s1 = a.w1 + b.w1;
    const u64 s1c = s1 + c0;
    const u64 c1 = (s1 < a.w1 ? 1 : 0) + (s1c < s1 ? 1 : 0);
    return {s0, s1c, a.w2 + b.w2 + c1, a.count + b.count};
  }
  __device__ __forceinline__ void Merge(int64_t g, const Acc& a) const {
    if (a.count == 0) return;
    AtomicAdd192(&lo[g], &mid[g], &top[g], a.w0, a.w1, a.w2);
    atomicAdd(&counts[g], a.count);
  }
};

template <typename T>
__device__ __forceinline__ double ToDouble(T v) {
  return static_cast<double>(v);
}

// Double sum (value / divisor) and count.
template <typename T>
struct DoubleSumOp {
  struct Acc {
    double sum;
    u64 count;
  };
  const T* v;
  double divisor;
  double* sums;
  u64* counts;
  __device__ __forceinline__ Acc Identity() const { return {0.0, 0}; }
  __device__ __forceinline__ Acc Of(int64_t r, int64_t) const {
    return {ToDouble(v[r]) / divisor, 1};
  }
  __device__ __forceinline__ Acc Combine(const Acc& a, const Acc& b) const {
    return {a.sum + b.sum, a.count + b.count};
  }
  __device__ __forceinline__ void Merge(int64_t g, const Acc& a) const {
    if (a.count == 0) return;
    atomicAdd(&sums[g], a.sum);
    atomicAdd(&counts[g], a.count);
  }
};

// Variance's second pass: squared deviations from the group's mean (sums / counts).
template <typename T>
struct SquaredDeviationOp {
  struct Acc {
    double m2;
    u64 count;
  };
  const T* v;
  double divisor;
  const double* sums;
  const u64* counts;
  double* m2;
  __device__ __forceinline__ Acc Identity() const { return {0.0, 0}; }
  __device__ __forceinline__ Acc Of(int64_t r, int64_t g) const {
    const double mean = sums[g] / static_cast<double>(counts[g]);
    const double d = ToDouble(v[r]) / divisor - mean;
    return {d * d, 1};
  }
  __device__ __forceinline__ Acc Combine(const Acc& a, const Acc& b) const {
    return {a.m2 + b.m2, a.count + b.count};
  }
  __device__ __forceinline__ void Merge(int64_t g, const Acc& a) const {
    if (a.count) atomicAdd(&m2[g], a.m2);
  }
};

enum class Pick { kMin, kMax, kAny };

// min / max / any_value: the row holding the best value (~0: none yet). Merge is the general
// path's compare-and-swap loop, once per group per block instead of once per row.
template <Pick kMode, typename Less>
struct PickOp {
  using Acc = u64;
  static constexpr u64 kNone = ~0ULL;
  Less less;
  u64* best;
  __device__ __forceinline__ Acc Identity() const { return kNone; }
  __device__ __forceinline__ Acc Of(int64_t r, int64_t) const { return static_cast<u64>(r); }
  __device__ __forceinline__ bool Better(u64 cand, u64 cur) const {
    if (cur == kNone) return true;
    if constexpr (kMode == Pick::kAny) return false;
    const int64_t a = static_cast<int64_t>(cand), b = static_cast<int64_t>(cur);
    return kMode == Pick::kMin ? less(a, b) : less(b, a);
  }
  __device__ __forceinline__ Acc Combine(Acc a, Acc b) const {
    if (b == kNone) return a;
    return Better(b, a) ? b : a;
  }
  __device__ __forceinline__ void Merge(int64_t g, Acc cand) const {
    if (cand == kNone) return;
    u64 cur = *reinterpret_cast<volatile u64*>(&best[g]);
    while (Better(cand, cur)) {
      const u64 prev = atomicCAS(&best[g], cur, cand);
      if (prev == cur) break;
      cur = prev;
    }
  }
};

// bool_and / bool_or over {1 = false, 2 = true}: min from 3 (none) / max from 0 (none).
struct BoolOp {
  using Acc = unsigned int;
  const uint8_t* v;
  bool is_and;
  unsigned int* state;
  __device__ __forceinline__ Acc Identity() const { return is_and ? 3u : 0u; }
  __device__ __forceinline__ Acc Of(int64_t r, int64_t) const { return v[r] ? 2u : 1u; }
  __device__ __forceinline__ Acc Combine(Acc a, Acc b) const {
    return is_and ? (a < b ? a : b) : (a > b ? a : b);
  }
  __device__ __forceinline__ void Merge(int64_t g, Acc a) const {
    if (a == Identity()) return;
    if (is_and) {
      atomicMin(&state[g], a);
    } else {
      atomicMax(&state[g], a);
    }
  }
};

}  // namespace tandem::gpu::few
