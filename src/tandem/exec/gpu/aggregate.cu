// GPU hash aggregate (kAggregate), the twin of exec/cpu/hash_aggregate.cc with the CPU's state
// semantics (exec/cpu/aggregate_states.h):
//   1. a fused filter selects the rows (gpu::SelectTrue) and the batch is compacted (Gather);
//   2. group keys get dense group ids from the device group table (aggregate_group_table.cuh);
//      no keys: one group, which exists even for empty input;
//   3. each aggregate folds its rows into per-group state arrays with atomics: counts, exact
//      sums in 128 bits (192 for int128 inputs) as carry-propagating 64-bit words, double sums,
//      variance in two passes (mean, then squared deviations), min/max/any_value as the row
//      index of the best value (a CAS loop comparing values, any type including strings),
//      bool_and/bool_or as atomic min/max of a 3-state byte;
//      with few groups (at most AggregateFewGroupsLimit(), aggregate_tuning.h) the same states
//      are folded per warp in shared memory first and merged once per block
//      (aggregate_few_groups.cuh), so rows do not serialize on a handful of global addresses;
//   4. DISTINCT aggregates first keep one row per (group, value) pair (a second group table);
//      FILTER (WHERE ...) clauses mask rows;
//   5. finalize kernels write the result columns; errors (overflow) and NULL counts come back in
//      one copy at the end.
// Grouping sets are not implemented (AggregateUnsupported says so).
#include <cmath>
#include <type_traits>

#include "tandem/exec/gpu/aggregate_few_groups.cuh"
#include "tandem/exec/gpu/aggregate_group_table.cuh"
#include "tandem/exec/gpu/aggregate_tuning.h"
#include "tandem/exec/gpu/fused_aggregate.cuh"
#include "tandem/exec/gpu/gpu_operators.h"
#include "tandem/gpu/step_timer.h"
#include "tandem/types/decimal_core.h"
#include "tandem/types/type_dispatch.h"

namespace tandem::gpu {
namespace {

using namespace keys;  // NOLINT: this file is the aggregate operator
using decimal::i128;

using few::Pick;
using few::RowSel;

using u64 = unsigned long long;

// ---- accumulation kernels -------------------------------------------------------------------

__global__ void CountRows(RowSel sel, int64_t n, u64* counts) {
  TANDEM_GRID_LOOP(r, n) {
    int64_t g;
    if (sel.Take(r, &g)) atomicAdd(&counts[g], 1ULL);
  }
}

// Adds v into the per-group accumulator (lo, mid[, top]) made of 64-bit words; carries propagate
// word to word, so concurrent adds give the exact two's complement sum. kWide: 192 bits for
// int128 inputs; otherwise 128 bits (mid absorbs sign and carry).
template <bool kWide>
__device__ __forceinline__ void AddExact(u64* lo, u64* mid, u64* top, i128 v) {
  const u64 a0 = static_cast<u64>(v);
  const u64 a1 = static_cast<u64>(static_cast<unsigned __int128>(v) >> 64);
  const u64 old0 = atomicAdd(lo, a0);
  const u64 carry = old0 + a0 < old0 ? 1 : 0;
  if constexpr (!kWide) {
    const u64 add = a1 + carry;
    if (add) atomicAdd(mid, add);
  } else {
    const u64 sign = v < 0 ? ~0ULL : 0ULL;
    u64 c2 = 0;
    if (a1) {
      const u64 old1 = atomicAdd(mid, a1);
      c2 += old1 + a1 < old1 ? 1 : 0;
    }
    if (carry) {
      const u64 old1 = atomicAdd(mid, 1ULL);
      c2 += old1 == ~0ULL ? 1 : 0;
    }
    const u64 t = sign + c2;
    if (t) atomicAdd(top, t);
  }
}

template <typename T>
__global__ void ExactSumRows(RowSel sel, const T* v, int64_t n, u64* lo, u64* mid, u64* top,
                             u64* counts) {
  constexpr bool kWide = sizeof(T) == 16;
  TANDEM_GRID_LOOP(r, n) {
    int64_t g;
    if (!sel.Take(r, &g)) continue;
    AddExact<kWide>(&lo[g], &mid[g], &top[g], static_cast<i128>(v[r]));
    atomicAdd(&counts[g], 1ULL);
  }
}

template <typename T>
__global__ void DoubleSumRows(RowSel sel, const T* v, int64_t n, double divisor, double* sums,
                              u64* counts) {
  TANDEM_GRID_LOOP(r, n) {
    int64_t g;
    if (!sel.Take(r, &g)) continue;
    atomicAdd(&sums[g], few::ToDouble(v[r]) / divisor);
    atomicAdd(&counts[g], 1ULL);
  }
}

template <typename T>
__global__ void SquaredDeviationRows(RowSel sel, const T* v, int64_t n, double divisor,
                                     const double* sums, const u64* counts, double* m2) {
  TANDEM_GRID_LOOP(r, n) {
    int64_t g;
    if (!sel.Take(r, &g)) continue;
    const double mean = sums[g] / static_cast<double>(counts[g]);
    const double d = few::ToDouble(v[r]) / divisor - mean;
    atomicAdd(&m2[g], d * d);
  }
}

// Orders values as the CPU's min/max do: NaN above every number; strings bytewise.
template <typename T>
struct FixedLess {
  const T* v;
  __device__ __forceinline__ bool operator()(int64_t a, int64_t b) const {
    const T x = v[a], y = v[b];
    if constexpr (std::is_floating_point_v<T>) {
      if (y != y) return x == x;
      if (x != x) return false;
    }
    return x < y;
  }
};

struct StringLess {
  const int64_t* offsets;
  const uint8_t* chars;
  __device__ __forceinline__ bool operator()(int64_t a, int64_t b) const {
    const int64_t ab = offsets[a], al = offsets[a + 1] - ab;
    const int64_t bb = offsets[b], bl = offsets[b + 1] - bb;
    const int64_t m = al < bl ? al : bl;
    for (int64_t i = 0; i < m; ++i) {
      const uint8_t x = chars[ab + i], y = chars[bb + i];
      if (x != y) return x < y;
    }
    return al < bl;
  }
};

// best[g]: the row holding the group's current best value (-1: none yet).
template <Pick kMode, typename Less>
__global__ void PickRows(RowSel sel, Less less, int64_t n, u64* best) {
  TANDEM_GRID_LOOP(r, n) {
    int64_t g;
    if (!sel.Take(r, &g)) continue;
    u64 cur = *reinterpret_cast<volatile u64*>(&best[g]);
    for (;;) {
      if (cur != ~0ULL) {
        if constexpr (kMode == Pick::kAny) break;
        const int64_t c = static_cast<int64_t>(cur);
        const bool better = kMode == Pick::kMin ? less(r, c) : less(c, r);
        if (!better) break;
      }
      const u64 prev = atomicCAS(&best[g], cur, static_cast<u64>(r));
      if (prev == cur) break;
      cur = prev;
    }
  }
}

// bool_and: atomicMin over {1 = false, 2 = true} from 3 (none); bool_or: atomicMax from 0.
__global__ void BoolRows(RowSel sel, const uint8_t* v, int64_t n, bool is_and,
                         unsigned int* state) {
  TANDEM_GRID_LOOP(r, n) {
    int64_t g;
    if (!sel.Take(r, &g)) continue;
    const unsigned int x = v[r] ? 2u : 1u;
    if (is_and) {
      atomicMin(&state[g], x);
    } else {
      atomicMax(&state[g], x);
    }
  }
}

// ---- finalize kernels -----------------------------------------------------------------------

enum class ExactOut { kInt64, kDecimal64, kDecimal128, kFloat64 };

struct ExactFinalize {
  bool avg = false;
  ExactOut out = ExactOut::kInt64;
  bool wide = false;   // 192-bit accumulators
  int precision = 0;   // decimal results (0: not checked, AggregateCall.check_precision)
  int up = 0;          // result scale - argument scale
  double divisor = 1;  // 10^argument scale, for double results
};

__global__ void FinalizeExact(ExactFinalize f, const u64* lo, const u64* mid, const u64* top,
                              const u64* counts, int64_t groups, void* out, uint8_t* valid,
                              int* error) {
  TANDEM_GRID_LOOP(g, groups) {
    const int64_t count = static_cast<int64_t>(counts[g]);
    valid[g] = count > 0;
    if (count == 0) continue;
    const i128 sum = static_cast<i128>((static_cast<unsigned __int128>(mid[g]) << 64) | lo[g]);
    if (f.wide && top[g] != (sum < 0 ? ~0ULL : 0ULL)) {
      *error = 1;  // beyond 128 bits
      continue;
    }
    i128 v = 0;
    bool ok = true;
    if (f.out == ExactOut::kFloat64) {
      const double s = static_cast<double>(sum) / f.divisor;
      static_cast<double*>(out)[g] = f.avg ? s / static_cast<double>(count) : s;
      continue;
    }
    if (f.avg) {
      ok = decimal::DivideScaled(sum, f.up, count, &v);
    } else {
      ok = decimal::Rescale(sum, 0, f.up, &v);
    }
    if (f.out == ExactOut::kInt64) {
      const i128 lo64 = static_cast<i128>(INT64_MIN), hi64 = static_cast<i128>(INT64_MAX);
      if (!ok || v < lo64 || v > hi64) ok = false;
      static_cast<int64_t*>(out)[g] = static_cast<int64_t>(v);
    } else {
      if (ok && f.precision > 0 && !decimal::FitsPrecision(v, f.precision)) ok = false;
      if (f.out == ExactOut::kDecimal64) {
        static_cast<int64_t*>(out)[g] = static_cast<int64_t>(v);
      } else {
        static_cast<i128*>(out)[g] = v;
      }
    }
    if (!ok) *error = 1;
  }
}

__global__ void FinalizeDoubleSum(bool avg, bool as_float, const double* sums, const u64* counts,
                                  int64_t groups, void* out, uint8_t* valid) {
  TANDEM_GRID_LOOP(g, groups) {
    const u64 c = counts[g];
    valid[g] = c > 0;
    const double v = c == 0 ? 0.0 : (avg ? sums[g] / static_cast<double>(c) : sums[g]);
    if (as_float) {
      static_cast<float*>(out)[g] = static_cast<float>(v);
    } else {
      static_cast<double*>(out)[g] = v;
    }
  }
}

__global__ void FinalizeVariance(bool sample, bool root, const double* m2, const u64* counts,
                                 int64_t groups, double* out, uint8_t* valid) {
  TANDEM_GRID_LOOP(g, groups) {
    const double count = static_cast<double>(counts[g]);
    const bool ok = !(count == 0 || (sample && count < 2));
    valid[g] = ok;
    double var = ok ? m2[g] / (sample ? count - 1 : count) : 0.0;
    if (var < 0) var = 0;
    out[g] = root ? sqrt(var) : var;
  }
}

__global__ void FinalizeBool(const unsigned int* state, int64_t groups, uint8_t* out,
                             uint8_t* valid) {
  TANDEM_GRID_LOOP(g, groups) {
    const unsigned int s = state[g];
    valid[g] = s == 1 || s == 2;
    out[g] = s == 2;
  }
}

__global__ void CountsToInt64(const u64* counts, int64_t groups, int64_t* out) {
  TANDEM_GRID_LOOP(g, groups) { out[g] = static_cast<int64_t>(counts[g]); }
}

// Packs one byte per group into an LSB bitmap and adds the NULLs to *null_count.
__global__ void PackValidity(const uint8_t* valid, int64_t groups, uint8_t* bitmap,
                             unsigned long long* null_count) {
  const int64_t bytes = (groups + 7) / 8;
  TANDEM_GRID_LOOP(b, bytes) {
    uint8_t bits = 0;
    int nulls = 0;
    for (int k = 0; k < 8; ++k) {
      const int64_t g = b * 8 + k;
      if (g >= groups) break;
      if (valid[g]) {
        bits |= static_cast<uint8_t>(1u << k);
      } else {
        ++nulls;
      }
    }
    bitmap[b] = bits;
    if (nulls) atomicAdd(null_count, static_cast<unsigned long long>(nulls));
  }
}

// Row mask of a FILTER clause: TRUE rows (a NULL predicate is not TRUE).
__global__ void PredicateMask(const uint8_t* values, const uint8_t* validity, int64_t n,
                              uint8_t* mask) {
  TANDEM_GRID_LOOP(r, n) {
    const bool valid = !validity || ((validity[r >> 3] >> (r & 7)) & 1);
    mask[r] = valid && values[r];
  }
}

// DISTINCT: rows that may take part (mask and a non-NULL argument).
__global__ void DistinctCandidates(const uint8_t* mask, const uint8_t* validity, int64_t n,
                                   uint8_t* out) {
  TANDEM_GRID_LOOP(r, n) {
    const bool valid = !validity || ((validity[r >> 3] >> (r & 7)) & 1);
    out[r] = (!mask || mask[r]) && valid;
  }
}

__global__ void MarkRows(const int64_t* rows, int64_t count, uint8_t* mask) {
  TANDEM_GRID_LOOP(i, count) { mask[rows[i]] = 1; }
}

// ---- host side ------------------------------------------------------------------------------

// Calls fn with a value of the type a fixed-width column is stored as on the GPU: VisitStorage's
// (types/type_dispatch.h), booleans as one byte per row.
template <typename Fn>
Status DispatchStorage(const DataType& t, Fn&& fn) {
  return VisitStorage(
      t, Overloaded{
             [&](BoolTag) { return fn(uint8_t{}); },
             [&](StringTag) { return Status::Internal("not a fixed-width type: " + t.ToString()); },
             [&](auto tag) { return fn(typename decltype(tag)::type{}); },
         });
}

// A fused aggregate with group keys and a filter gathers the rows the filter keeps when they are
// fewer than 1 / kGatherBelowFraction of its input, and otherwise builds its group table over
// every input row with the filter's flags as the include mask (TPC-H Q15 keeps 4 % of lineitem,
// Q1 98 %).
constexpr int64_t kGatherBelowFraction = 4;

class Aggregation {
 public:
  Aggregation(const PlanNode& node, GpuContext& ctx)
      : node_(node), ctx_(ctx), stream_(*ctx.stream), s_(Raw(*ctx.stream)) {}

  Result<DeviceBatchPtr> Run(const Expr* filter, const DeviceBatch& input) {
    StepTimer timer("aggregate", stream_);
    timer_ = &timer;
    if (fused::NodeUnsupported(node_).empty() &&
        !(filter && internal::FindUdfCall(*filter) != nullptr)) {
      TANDEM_ASSIGN_OR_RAISE(DeviceBatchPtr out, RunFused(filter, input));
      if (out) return out;
    }
    return RunUnfused(filter, input);
  }

 private:
  Result<DeviceBatchPtr> RunUnfused(const Expr* filter, const DeviceBatch& input) {
    StepTimer& timer = *timer_;
    const DeviceBatch* rows = &input;
    DeviceBatchPtr filtered;
    if (filter) {
      TANDEM_ASSIGN_OR_RAISE(auto sel, SelectTrue(*filter, input, ctx_.eval, stream_));
      timer.Mark([&] { return "filter selection of " + std::to_string(input.num_rows) + " rows"; });
      // Only the columns the keys and aggregates read are gathered (the filter's own are not).
      const DeviceBatch read = ColumnsRead(input);
      TANDEM_ASSIGN_OR_RAISE(filtered,
                             Gather(read, sel.indices.data_as<int64_t>(), sel.count, stream_));
      timer.Mark([&] { return "gather of " + std::to_string(sel.count) + " rows"; });
      rows = filtered.get();
    }
    n_ = rows->num_rows;
    std::vector<DeviceColumnPtr> key_cols;
    for (const auto& k : node_.group_keys) {
      TANDEM_ASSIGN_OR_RAISE(auto c, ColumnOf(*k, *rows, ctx_.eval, stream_));
      key_cols.push_back(std::move(c));
    }
    timer.Mark("group keys");
    GroupTable table;
    if (key_cols.empty()) {
      groups_ = 1;  // one row even for empty input
    } else {
      std::vector<const DeviceColumn*> views;
      for (const auto& c : key_cols) views.push_back(c.get());
      TANDEM_ASSIGN_OR_RAISE(KeySet ks, MakeKeySet(views));
      TANDEM_ASSIGN_OR_RAISE(table,
                             BuildGroupTable(ks, n_, nullptr, /*nulls_equal=*/true, stream_));
      groups_ = table.num_groups;
      gid_ = table.group_of_row.data_as<int64_t>();
      timer.Mark([&] { return "group table: " + std::to_string(groups_) + " groups"; });
    }
    const int64_t num_aggs = static_cast<int64_t>(node_.aggregates.size());
    TANDEM_ASSIGN_OR_RAISE(auto out, StartOutput(key_cols, table));
    std::vector<bool> pending_nulls(static_cast<size_t>(num_aggs), false);
    for (int64_t j = 0; j < num_aggs; ++j) {
      bool counted = false;
      TANDEM_ASSIGN_OR_RAISE(auto col, Aggregate(j, *rows, &counted));
      pending_nulls[j] = counted;
      out->columns.push_back(std::move(col));
      timer.Mark([&] { return node_.aggregates[j].name; });
    }
    return Finish(std::move(out), key_cols.size(), pending_nulls);
  }

  // The fused path (fused_aggregate.cuh): the filter (without keys) and every aggregate in one
  // kernel over the input, no rows gathered. Null when it does not run: its kernel is not ready,
  // or a row raised an error (the unfused path then runs and reports it in the CPU's words).
  Result<DeviceBatchPtr> RunFused(const Expr* filter, const DeviceBatch& input) {
    const bool keyed = !node_.group_keys.empty();
    TANDEM_ASSIGN_OR_RAISE(
        auto prepared, fused::Prepare(node_, keyed ? nullptr : filter, input, ctx_.eval, stream_));
    if (!prepared) return DeviceBatchPtr();
    timer_->Mark("fused kernel ready");
    n_ = input.num_rows;
    gid_ = nullptr;
    std::vector<DeviceColumnPtr> key_cols;
    GroupTable table;
    groups_ = 1;  // without keys: one row even for empty input
    if (keyed) {
      DeviceBuffer flags;  // the filter's rows, as the group table's include mask
      if (filter) {
        // The group table spans every input row it is given: with a selective filter, the
        // rows kept (and only the columns the aggregate reads) are gathered first instead.
        TANDEM_ASSIGN_OR_RAISE(auto sel, SelectTrue(*filter, input, ctx_.eval, stream_,
                                                    SelectionParts::kCountAndFlags));
        timer_->Mark([&] { return "filter flags of " + std::to_string(n_) + " rows"; });
        if (sel.count * kGatherBelowFraction < n_) {
          TANDEM_ASSIGN_OR_RAISE(RowList rows,
                                 SelectRows(sel.flags.data_as<uint8_t>(), n_, true, stream_));
          TANDEM_ASSIGN_OR_RAISE(auto kept, Gather(ColumnsRead(input), rows.rows.data_as<int64_t>(),
                                                   rows.count, stream_));
          timer_->Mark([&] { return "gather of " + std::to_string(sel.count) + " rows"; });
          return RunFused(nullptr, *kept);
        }
        flags = std::move(sel.flags);
      }
      std::vector<const DeviceColumn*> views;
      for (const auto& k : node_.group_keys) {
        TANDEM_ASSIGN_OR_RAISE(auto c, ColumnOf(*k, input, ctx_.eval, stream_));
        views.push_back(c.get());
        key_cols.push_back(std::move(c));
      }
      TANDEM_ASSIGN_OR_RAISE(KeySet ks, MakeKeySet(views));
      TANDEM_ASSIGN_OR_RAISE(table,
                             BuildGroupTable(ks, n_, filter ? flags.data_as<uint8_t>() : nullptr,
                                             /*nulls_equal=*/true, stream_));
      groups_ = table.num_groups;
      gid_ = table.group_of_row.data_as<int64_t>();
      timer_->Mark([&] { return "group table: " + std::to_string(groups_) + " groups"; });
    }
    const int64_t G = groups_;
    std::vector<DeviceBuffer> buffers;
    std::vector<fused::State> states;
    for (const fused::AggregateSlot& slot : prepared->shape.slots) {
      const int words = slot.kind == fused::AccKind::kCount       ? 1
                        : slot.kind == fused::AccKind::kDoubleSum ? 2
                                                                  : 4;
      TANDEM_ASSIGN_OR_RAISE(auto b, Zeroed(G * 8 * words));
      u64* w = b.data_as<u64>();
      fused::State st;
      if (words == 1) {
        st.counts = w;
      } else if (words == 2) {
        st.lo = w;  // double sums
        st.counts = w + G;
      } else {
        st = fused::State{w, w + G, w + 2 * G, w + 3 * G};
      }
      states.push_back(st);
      buffers.push_back(std::move(b));
    }
    TANDEM_ASSIGN_OR_RAISE(auto error, Zeroed(8));
    TANDEM_RETURN_NOT_OK(
        fused::Launch(*prepared, states, gid_, n_, G, error.data_as<int>(), stream_));
    int host_error = 0;
    TANDEM_RETURN_NOT_OK(CopyToHost(&host_error, error.data(), sizeof(int), stream_));
    TANDEM_RETURN_NOT_OK(stream_.Synchronize());
    timer_->Mark([&] { return "fused kernel over " + std::to_string(n_) + " rows"; });
    if (host_error != 0) return DeviceBatchPtr();

    const int64_t num_aggs = static_cast<int64_t>(node_.aggregates.size());
    TANDEM_ASSIGN_OR_RAISE(auto out, StartOutput(key_cols, table));
    std::vector<bool> pending_nulls(static_cast<size_t>(num_aggs), false);
    for (int64_t j = 0; j < num_aggs; ++j) {
      const AggregateCall& a = node_.aggregates[j];
      const fused::State& st = states[j];
      bool counted = false;
      DeviceColumnPtr col;
      switch (prepared->shape.slots[j].kind) {
        case fused::AccKind::kCount: {
          TANDEM_ASSIGN_OR_RAISE(col, FinishCount(st.counts));
          break;
        }
        case fused::AccKind::kDoubleSum: {
          TANDEM_ASSIGN_OR_RAISE(
              col, FinishDoubleSum(a, j, reinterpret_cast<double*>(st.lo), st.counts, &counted));
          break;
        }
        default: {
          TANDEM_ASSIGN_OR_RAISE(
              col, FinishExactSum(a, j, a.arg->type, st.lo, st.mid, st.top, st.counts, &counted));
          break;
        }
      }
      pending_nulls[j] = counted;
      out->columns.push_back(std::move(col));
    }
    return Finish(std::move(out), key_cols.size(), pending_nulls);
  }

  // The result batch with its key columns (one row per group) and the aggregates' zeroed status
  // words: per aggregate [error flag (int), pad] then a NULL count (u64).
  Result<std::shared_ptr<DeviceBatch>> StartOutput(const std::vector<DeviceColumnPtr>& key_cols,
                                                   const GroupTable& table) {
    const int64_t num_aggs = static_cast<int64_t>(node_.aggregates.size());
    TANDEM_ASSIGN_OR_RAISE(status_, Scratch(num_aggs * 16, stream_));
    TANDEM_RETURN_NOT_OK(MemsetDevice(status_.data(), 0, status_.size(), stream_));
    auto out = std::make_shared<DeviceBatch>();
    out->schema = node_.schema;
    out->num_rows = groups_;
    for (const auto& c : key_cols) {
      TANDEM_ASSIGN_OR_RAISE(
          auto k, GatherColumn(*c, table.group_first_row.data_as<int64_t>(), groups_, stream_));
      out->columns.push_back(std::move(k));
    }
    return out;
  }

  // Reads every aggregate's error flag and NULL count (one copy, one synchronization) and
  // completes the result columns.
  Result<DeviceBatchPtr> Finish(std::shared_ptr<DeviceBatch> out, size_t first_agg,
                                const std::vector<bool>& pending_nulls) {
    const int64_t num_aggs = static_cast<int64_t>(node_.aggregates.size());
    std::vector<int64_t> host(static_cast<size_t>(num_aggs) * 2, 0);
    if (num_aggs > 0) {
      TANDEM_RETURN_NOT_OK(CopyToHost(host.data(), status_.data(), num_aggs * 16, stream_));
    }
    TANDEM_RETURN_NOT_OK(stream_.Synchronize());
    for (int64_t j = 0; j < num_aggs; ++j) {
      const AggregateCall& a = node_.aggregates[j];
      if (static_cast<int>(host[2 * j] & 0xFFFFFFFF) != 0) {
        return Status::Invalid(std::string(a.type.is_decimal() ? "decimal" : "integer") +
                               " overflow in " + a.name);
      }
      if (pending_nulls[j]) {
        DeviceColumn& c = *out->columns[first_agg + j];
        c.null_count = host[2 * j + 1];
        if (c.null_count == 0) c.validity = DeviceBuffer();
      }
    }
    if (static_cast<int>(out->columns.size()) != node_.schema.num_fields()) {
      return Status::Internal("GPU aggregate produced " + std::to_string(out->columns.size()) +
                              " columns for a schema of " +
                              std::to_string(node_.schema.num_fields()));
    }
    return out;
  }

  // The input with the columns no group key, aggregate argument or FILTER clause reads left
  // null.
  DeviceBatch ColumnsRead(const DeviceBatch& input) const {
    std::vector<int> used;
    for (const auto& k : node_.group_keys) CollectColumns(*k, &used);
    for (const AggregateCall& a : node_.aggregates) {
      if (a.arg) CollectColumns(*a.arg, &used);
      if (a.filter) CollectColumns(*a.filter, &used);
    }
    DeviceBatch read;
    read.schema = input.schema;
    read.num_rows = input.num_rows;
    read.columns.resize(input.columns.size());
    for (int c : used) {
      if (c >= 0 && c < static_cast<int>(input.columns.size())) read.columns[c] = input.columns[c];
    }
    return read;
  }

  int* ErrorFlag(int64_t j) const {
    return reinterpret_cast<int*>(status_.data_as<uint8_t>() + 16 * j);
  }
  unsigned long long* NullCount(int64_t j) const {
    return reinterpret_cast<unsigned long long*>(status_.data_as<uint8_t>() + 16 * j + 8);
  }

  // Folds the rows `sel` takes with `op` on the few-groups path when the group count allows it
  // (aggregate_few_groups.cuh), else runs `general` (which launches the general kernel).
  template <typename Op, typename General>
  Status Fold(const RowSel& sel, const Op& op, General&& general, const char* what) {
    if (n_ == 0) return Status::OK();
    const int64_t shared =
        few::FewGroupsSharedBytes(groups_, static_cast<int64_t>(sizeof(typename Op::Acc)));
    if (shared >= 0) {
      few::FoldFewGroups<Op><<<few::FewGroupsGrid(n_), kThreads, static_cast<size_t>(shared), s_>>>(
          sel, n_, groups_, op);
      NoteAggregateFewGroupsFold();
    } else {
      general();
    }
    return LaunchStatus(what);
  }

  Result<DeviceBuffer> Zeroed(int64_t bytes) {
    TANDEM_ASSIGN_OR_RAISE(auto b, Scratch(bytes, stream_));
    TANDEM_RETURN_NOT_OK(MemsetDevice(b.data(), 0, b.size(), stream_));
    return std::move(b);
  }

  // A result column of `type` over the groups whose values are in `values` and whose validity
  // comes from one byte per group; the NULL count arrives with the final status copy.
  Result<DeviceColumnPtr> MakeResult(const DataType& type, DeviceBuffer values,
                                     const DeviceBuffer& valid, int64_t j, bool* counted) {
    auto col = std::make_shared<DeviceColumn>();
    col->type = type;
    col->length = groups_;
    col->values = std::move(values);
    TANDEM_ASSIGN_OR_RAISE(col->validity, Scratch((groups_ + 7) / 8, stream_));
    if (groups_ > 0) {
      PackValidity<<<GridFor((groups_ + 7) / 8), kThreads, 0, s_>>>(
          valid.data_as<uint8_t>(), groups_, col->validity.data_as<uint8_t>(), NullCount(j));
      TANDEM_RETURN_NOT_OK(LaunchStatus("aggregate validity"));
    }
    *counted = true;
    return col;
  }

  Result<DeviceColumnPtr> Aggregate(int64_t j, const DeviceBatch& rows, bool* counted) {
    const AggregateCall& a = node_.aggregates[j];
    RowSel sel;
    sel.gid = gid_;
    DeviceColumnPtr arg;
    if (a.kind != AggregateKind::kCountStar) {
      if (!a.arg) return Status::Internal("aggregate " + a.name + " has no argument");
      TANDEM_ASSIGN_OR_RAISE(arg, ColumnOf(*a.arg, rows, ctx_.eval, stream_));
      timer_->Mark([&] { return a.name + " argument"; });
      if (arg->null_count > 0 && arg->has_validity())
        sel.validity = arg->validity.data_as<uint8_t>();
    }
    DeviceBuffer mask;
    if (a.filter) {
      TANDEM_ASSIGN_OR_RAISE(auto pred, ColumnOf(*a.filter, rows, ctx_.eval, stream_));
      if (pred->type.id != TypeId::kBool) {
        return Status::Internal("FILTER clause of " + a.name + " is not boolean");
      }
      TANDEM_ASSIGN_OR_RAISE(mask, Scratch(n_, stream_));
      if (n_ > 0) {
        PredicateMask<<<GridFor(n_), kThreads, 0, s_>>>(pred->values.data_as<uint8_t>(),
                                                        pred->null_count > 0 && pred->has_validity()
                                                            ? pred->validity.data_as<uint8_t>()
                                                            : nullptr,
                                                        n_, mask.data_as<uint8_t>());
        TANDEM_RETURN_NOT_OK(LaunchStatus("aggregate filter"));
      }
      sel.mask = mask.data_as<uint8_t>();
    }
    DeviceBuffer distinct_mask;
    if (a.distinct && arg) {
      TANDEM_ASSIGN_OR_RAISE(distinct_mask, DistinctMask(*arg, sel));
      sel.mask = distinct_mask.data_as<uint8_t>();
      sel.validity = nullptr;  // folded into the mask
    }
    const int64_t n = n_;
    const int64_t G = groups_;
    const unsigned grid = GridFor(n);
    switch (a.kind) {
      case AggregateKind::kCountStar:
      case AggregateKind::kCount: {
        TANDEM_ASSIGN_OR_RAISE(auto counts, Zeroed(G * 8));
        u64* c = counts.data_as<u64>();
        TANDEM_RETURN_NOT_OK(Fold(
            sel, few::CountOp{c}, [&] { CountRows<<<grid, kThreads, 0, s_>>>(sel, n, c); },
            "count"));
        return FinishCount(c);
      }
      case AggregateKind::kSum:
      case AggregateKind::kAvg:
        if (arg->type.is_floating()) return DoubleSum(a, j, *arg, sel, counted);
        return ExactSum(a, j, *arg, sel, counted);
      case AggregateKind::kStddevSamp:
      case AggregateKind::kStddevPop:
      case AggregateKind::kVarSamp:
      case AggregateKind::kVarPop:
        return Variance(a, j, *arg, sel, counted);
      case AggregateKind::kMin:
        return PickValue<Pick::kMin>(*arg, sel);
      case AggregateKind::kMax:
        return PickValue<Pick::kMax>(*arg, sel);
      case AggregateKind::kAnyValue:
        return PickValue<Pick::kAny>(*arg, sel);
      case AggregateKind::kBoolAnd:
      case AggregateKind::kBoolOr: {
        if (arg->type.id != TypeId::kBool) return Status::Invalid("cannot aggregate " + a.name);
        const bool is_and = a.kind == AggregateKind::kBoolAnd;
        TANDEM_ASSIGN_OR_RAISE(auto state, Scratch(G * 4, stream_));
        // "None yet": 0 for bool_or (atomicMax); for bool_and (atomicMin) bytes of 3, i.e. the
        // word 0x03030303, above both values.
        TANDEM_RETURN_NOT_OK(MemsetDevice(state.data(), is_and ? 3 : 0, state.size(), stream_));
        const uint8_t* v = arg->values.data_as<uint8_t>();
        unsigned int* st = state.data_as<unsigned int>();
        TANDEM_RETURN_NOT_OK(Fold(
            sel, few::BoolOp{v, is_and, st},
            [&] { BoolRows<<<grid, kThreads, 0, s_>>>(sel, v, n, is_and, st); }, "bool aggregate"));
        TANDEM_ASSIGN_OR_RAISE(auto values, Scratch(G, stream_));
        TANDEM_ASSIGN_OR_RAISE(auto valid, Scratch(G, stream_));
        if (G > 0) {
          FinalizeBool<<<GridFor(G), kThreads, 0, s_>>>(state.data_as<unsigned int>(), G,
                                                        values.data_as<uint8_t>(),
                                                        valid.data_as<uint8_t>());
        }
        TANDEM_RETURN_NOT_OK(LaunchStatus("bool finalize"));
        return MakeResult(DataType::Bool(), std::move(values), valid, j, counted);
      }
    }
    return Status::Internal("unknown aggregate kind in " + a.name);
  }

  // One row per distinct (group, value) pair among the rows `sel` takes.
  Result<DeviceBuffer> DistinctMask(const DeviceColumn& arg, const RowSel& sel) {
    TANDEM_ASSIGN_OR_RAISE(auto candidates, Scratch(n_, stream_));
    if (n_ > 0) {
      DistinctCandidates<<<GridFor(n_), kThreads, 0, s_>>>(sel.mask, sel.validity, n_,
                                                           candidates.data_as<uint8_t>());
      TANDEM_RETURN_NOT_OK(LaunchStatus("distinct candidates"));
    }
    KeySet ks;
    if (gid_) {
      KeyColumn g;
      g.kind = KeyKind::kFixed;
      g.width = 8;
      g.values = reinterpret_cast<const uint8_t*>(gid_);
      ks.cols[ks.count++] = g;
    }
    TANDEM_ASSIGN_OR_RAISE(ks.cols[ks.count], MakeKeyColumn(arg));
    ++ks.count;
    TANDEM_ASSIGN_OR_RAISE(auto pairs, BuildGroupTable(ks, n_, candidates.data_as<uint8_t>(),
                                                       /*nulls_equal=*/true, stream_));
    TANDEM_ASSIGN_OR_RAISE(auto mask, Zeroed(n_));
    if (pairs.num_groups > 0) {
      MarkRows<<<GridFor(pairs.num_groups), kThreads, 0, s_>>>(
          pairs.group_first_row.data_as<int64_t>(), pairs.num_groups, mask.data_as<uint8_t>());
      TANDEM_RETURN_NOT_OK(LaunchStatus("distinct mark"));
    }
    return std::move(mask);  // `pairs` is freed stream-ordered, after the kernels that use it
  }

  Result<DeviceColumnPtr> ExactSum(const AggregateCall& a, int64_t j, const DeviceColumn& arg,
                                   const RowSel& sel, bool* counted) {
    const DataType& t = arg.type;
    if (!(t.is_integer() || t.is_decimal())) return Status::Invalid("cannot aggregate " + a.name);
    const int64_t G = groups_;
    TANDEM_ASSIGN_OR_RAISE(auto words, Zeroed(G * 8 * 4));  // lo, mid, top, count
    u64* lo = words.data_as<u64>();
    u64* mid = lo + G;
    u64* top = mid + G;
    u64* counts = top + G;
    if (n_ > 0) {
      TANDEM_RETURN_NOT_OK(DispatchStorage(t, [&](auto tag) -> Status {
        using T = decltype(tag);
        if constexpr (std::is_floating_point_v<T>) {
          return Status::Internal("float argument in an exact sum");
        } else {
          const T* v = arg.values.data_as<T>();
          auto general = [&] {
            ExactSumRows<T><<<GridFor(n_), kThreads, 0, s_>>>(sel, v, n_, lo, mid, top, counts);
          };
          if constexpr (sizeof(T) == 16) {
            return Fold(sel, few::WideSumOp{v, lo, mid, top, counts}, general, "exact sum");
          } else {
            return Fold(sel, few::NarrowSumOp<T>{v, lo, mid, counts}, general, "exact sum");
          }
        }
      }));
    }
    return FinishExactSum(a, j, t, lo, mid, top, counts, counted);
  }

  Result<DeviceColumnPtr> FinishCount(const u64* counts) {
    const int64_t G = groups_;
    TANDEM_ASSIGN_OR_RAISE(auto values, Scratch(G * 8, stream_));
    if (G > 0) {
      CountsToInt64<<<GridFor(G), kThreads, 0, s_>>>(counts, G, values.data_as<int64_t>());
    }
    TANDEM_RETURN_NOT_OK(LaunchStatus("count finalize"));
    auto col = std::make_shared<DeviceColumn>();
    col->type = DataType::Int64();
    col->length = G;
    col->values = std::move(values);
    return col;
  }

  // The result of sum/avg `a` (aggregate j) over arguments of type t from its exact state.
  Result<DeviceColumnPtr> FinishExactSum(const AggregateCall& a, int64_t j, const DataType& t,
                                         const u64* lo, const u64* mid, const u64* top,
                                         const u64* counts, bool* counted) {
    const int64_t G = groups_;
    ExactFinalize f;
    f.avg = a.kind == AggregateKind::kAvg;
    f.wide = t.is_wide_decimal();
    const int arg_scale = t.is_decimal() ? t.scale : 0;
    const DataType& rt = a.type;
    int width = 8;
    if (rt.id == TypeId::kInt64) {
      f.out = ExactOut::kInt64;
    } else if (rt.is_decimal()) {
      f.out = rt.is_wide_decimal() ? ExactOut::kDecimal128 : ExactOut::kDecimal64;
      width = rt.is_wide_decimal() ? 16 : 8;
      f.precision = a.check_precision ? rt.precision : 0;
      f.up = rt.scale - arg_scale;
      if (f.up < 0 || f.up > 19) {
        return Status::Internal("unexpected result scale of " + a.name + " on the GPU");
      }
    } else if (rt.id == TypeId::kFloat64) {
      f.out = ExactOut::kFloat64;
      f.divisor = std::pow(10.0, arg_scale);
    } else {
      return Status::Internal("unexpected result type " + rt.ToString() + " of " + a.name);
    }
    TANDEM_ASSIGN_OR_RAISE(auto values, Scratch(G * width, stream_));
    TANDEM_ASSIGN_OR_RAISE(auto valid, Scratch(G, stream_));
    if (G > 0) {
      FinalizeExact<<<GridFor(G), kThreads, 0, s_>>>(f, lo, mid, top, counts, G, values.data(),
                                                     valid.data_as<uint8_t>(), ErrorFlag(j));
      TANDEM_RETURN_NOT_OK(LaunchStatus("sum finalize"));
    }
    return MakeResult(rt, std::move(values), valid, j, counted);
  }

  Result<DeviceColumnPtr> DoubleSum(const AggregateCall& a, int64_t j, const DeviceColumn& arg,
                                    const RowSel& sel, bool* counted) {
    const int64_t G = groups_;
    TANDEM_ASSIGN_OR_RAISE(auto state, Zeroed(G * 16));
    double* sums = state.data_as<double>();
    u64* counts = reinterpret_cast<u64*>(sums + G);
    TANDEM_RETURN_NOT_OK(AccumulateDoubles(arg, sel, 1.0, sums, counts));
    return FinishDoubleSum(a, j, sums, counts, counted);
  }

  Result<DeviceColumnPtr> FinishDoubleSum(const AggregateCall& a, int64_t j, const double* sums,
                                          const u64* counts, bool* counted) {
    const int64_t G = groups_;
    const bool as_float = a.type.id == TypeId::kFloat32;
    TANDEM_ASSIGN_OR_RAISE(auto values, Scratch(G * (as_float ? 4 : 8), stream_));
    TANDEM_ASSIGN_OR_RAISE(auto valid, Scratch(G, stream_));
    if (G > 0) {
      FinalizeDoubleSum<<<GridFor(G), kThreads, 0, s_>>>(a.kind == AggregateKind::kAvg, as_float,
                                                         sums, counts, G, values.data(),
                                                         valid.data_as<uint8_t>());
      TANDEM_RETURN_NOT_OK(LaunchStatus("float sum finalize"));
    }
    return MakeResult(as_float ? a.type : DataType::Float64(), std::move(values), valid, j,
                      counted);
  }

  Status AccumulateDoubles(const DeviceColumn& arg, const RowSel& sel, double divisor, double* sums,
                           u64* counts) {
    if (n_ == 0) return Status::OK();
    return DispatchStorage(arg.type, [&](auto tag) -> Status {
      using T = decltype(tag);
      const T* v = arg.values.data_as<T>();
      return Fold(
          sel, few::DoubleSumOp<T>{v, divisor, sums, counts},
          [&] {
            DoubleSumRows<T><<<GridFor(n_), kThreads, 0, s_>>>(sel, v, n_, divisor, sums, counts);
          },
          "double sum");
    });
  }

  Result<DeviceColumnPtr> Variance(const AggregateCall& a, int64_t j, const DeviceColumn& arg,
                                   const RowSel& sel, bool* counted) {
    const DataType& t = arg.type;
    if (!(t.is_integer() || t.is_decimal() || t.is_floating())) {
      return Status::Invalid("cannot aggregate " + a.name);
    }
    const double divisor = t.is_decimal() ? std::pow(10.0, t.scale) : 1.0;
    const int64_t G = groups_;
    TANDEM_ASSIGN_OR_RAISE(auto state, Zeroed(G * 24));
    double* sums = state.data_as<double>();
    double* m2 = sums + G;
    u64* counts = reinterpret_cast<u64*>(m2 + G);
    TANDEM_RETURN_NOT_OK(AccumulateDoubles(arg, sel, divisor, sums, counts));
    if (n_ > 0) {
      TANDEM_RETURN_NOT_OK(DispatchStorage(t, [&](auto tag) -> Status {
        using T = decltype(tag);
        const T* v = arg.values.data_as<T>();
        return Fold(
            sel, few::SquaredDeviationOp<T>{v, divisor, sums, counts, m2},
            [&] {
              SquaredDeviationRows<T>
                  <<<GridFor(n_), kThreads, 0, s_>>>(sel, v, n_, divisor, sums, counts, m2);
            },
            "variance");
      }));
    }
    const bool sample = a.kind == AggregateKind::kVarSamp || a.kind == AggregateKind::kStddevSamp;
    const bool root = a.kind == AggregateKind::kStddevSamp || a.kind == AggregateKind::kStddevPop;
    TANDEM_ASSIGN_OR_RAISE(auto values, Scratch(G * 8, stream_));
    TANDEM_ASSIGN_OR_RAISE(auto valid, Scratch(G, stream_));
    if (G > 0) {
      FinalizeVariance<<<GridFor(G), kThreads, 0, s_>>>(
          sample, root, m2, counts, G, values.data_as<double>(), valid.data_as<uint8_t>());
      TANDEM_RETURN_NOT_OK(LaunchStatus("variance finalize"));
    }
    return MakeResult(DataType::Float64(), std::move(values), valid, j, counted);
  }

  // min / max / any_value: the best row per group, then the argument gathered at those rows
  // (-1 gives NULL for groups without a value).
  template <Pick kMode>
  Result<DeviceColumnPtr> PickValue(const DeviceColumn& arg, const RowSel& sel) {
    const int64_t G = groups_;
    TANDEM_ASSIGN_OR_RAISE(auto best, Scratch(G * 8, stream_));
    TANDEM_RETURN_NOT_OK(MemsetDevice(best.data(), 0xFF, best.size(), stream_));
    u64* b = best.data_as<u64>();
    auto fold = [&](auto less) -> Status {
      return Fold(
          sel, few::PickOp<kMode, decltype(less)>{less, b},
          [&] { PickRows<kMode><<<GridFor(n_), kThreads, 0, s_>>>(sel, less, n_, b); }, "min/max");
    };
    if (n_ > 0 && arg.type.is_string_like()) {
      TANDEM_RETURN_NOT_OK(
          fold(StringLess{arg.values.data_as<int64_t>(), arg.data.data_as<uint8_t>()}));
    } else if (n_ > 0) {
      TANDEM_RETURN_NOT_OK(DispatchStorage(arg.type, [&](auto tag) -> Status {
        using T = decltype(tag);
        return fold(FixedLess<T>{arg.values.data_as<T>()});
      }));
    }
    return GatherColumn(arg, best.data_as<int64_t>(), G, stream_);
  }

  const PlanNode& node_;
  GpuContext& ctx_;
  const Stream& stream_;
  cudaStream_t s_;
  StepTimer* timer_ = nullptr;  // Run's, while it runs
  int64_t n_ = 0;
  int64_t groups_ = 0;
  const int64_t* gid_ = nullptr;
  DeviceBuffer status_;
};

}  // namespace

Result<DeviceBatchPtr> HashAggregate(const PlanNode& node, const Expr* filter,
                                     const DeviceBatch& input, GpuContext& ctx) {
  const std::string why = AggregateUnsupported(node);
  if (!why.empty()) return Status::Unsupported("GPU aggregate: " + why);
  if (filter) {
    const std::string f = ExprUnsupported(*filter);
    if (!f.empty()) return Status::Unsupported("GPU aggregate filter: " + f);
  }
  if (!ctx.stream) return Status::Invalid("GPU aggregate without a stream");
  Aggregation aggregation(node, ctx);
  return aggregation.Run(filter, input);
}

}  // namespace tandem::gpu
