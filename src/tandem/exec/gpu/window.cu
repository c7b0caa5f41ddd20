// GPU window operator (gpu_operators_more.h), the twin of exec/cpu/window.cc, window_frames.cc
// and window_functions.cc; the aggregates are in window_aggregates.cu.
//
// As on the CPU, calls are grouped by their (PARTITION BY, ORDER BY) specification and the rows
// are sorted once per specification: the keys are evaluated into a key batch with a row-number
// column, which the GPU Sort orders (stable, CPU-identical order), so the sorted row numbers are
// the layout's permutation. Partition and peer groups start where adjacent sorted keys differ
// (the grouping equality of row_keys.cuh, which is the sort order's equality); an inclusive sum
// of the start flags numbers the groups, and each position's bounds are its group's start and
// the next group's start. Frames, ranks and navigation are one thread per position from those
// bounds. Results are computed in each specification's sorted order; the output is the input in
// the first specification's order, so results of the others are permuted into it.
#include <thrust/count.h>
#include <thrust/execution_policy.h>

#include <algorithm>
#include <new>
#include <stdexcept>

#include "tandem/column/take.h"
#include "tandem/exec/gpu/row_keys.cuh"
#include "tandem/exec/gpu/set_operation_rows.cuh"
#include "tandem/exec/gpu/window_layout.cuh"
#include "tandem/gpu/cuda_util.cuh"
#include "tandem/gpu/gather.h"

namespace tandem::gpu {
namespace window {
namespace {

using BoundKind = WindowFrame::BoundKind;

// group_start[g - 1] = the position where group g (1-based gid) begins.
__global__ void GroupStartsKernel(const int64_t* flags, const int64_t* gid, int64_t* group_start,
                                  int64_t n) {
  TANDEM_GRID_LOOP(i, n) {
    if (flags[i]) group_start[gid[i] - 1] = i;
  }
}

// Each position's group bounds: its group's start and the next group's start (or n).
__global__ void GroupBoundsKernel(const int64_t* gid, const int64_t* group_start, int64_t n,
                                  int64_t* start, int64_t* end) {
  const int64_t groups = gid[n - 1];
  TANDEM_GRID_LOOP(i, n) {
    const int64_t g = gid[i];
    start[i] = group_start[g - 1];
    end[i] = g < groups ? group_start[g] : n;
  }
}

Result<DeviceBuffer> Int64Buffer(int64_t n, const Stream& stream) {
  return keys::Scratch(n * 8, stream);
}

// Bounds of the runs that `flags` start; gid gets the 1-based run number of each position.
Status RunBounds(const DeviceBuffer& flags, int64_t n, DeviceBuffer* start, DeviceBuffer* end,
                 DeviceBuffer* gid, const Stream& stream) {
  const cudaStream_t s = CudaStream(stream);
  TANDEM_ASSIGN_OR_RAISE(*gid, Int64Buffer(n, stream));
  TANDEM_RETURN_NOT_OK(
      InclusiveSumInt64(flags.data_as<int64_t>(), gid->data_as<int64_t>(), n, stream));
  TANDEM_ASSIGN_OR_RAISE(DeviceBuffer group_start, Int64Buffer(n, stream));
  GroupStartsKernel<<<GridFor(n), kBlockThreads, 0, s>>>(
      flags.data_as<int64_t>(), gid->data_as<int64_t>(), group_start.data_as<int64_t>(), n);
  TANDEM_RETURN_NOT_OK(LaunchStatus("window group starts"));
  TANDEM_ASSIGN_OR_RAISE(*start, Int64Buffer(n, stream));
  TANDEM_ASSIGN_OR_RAISE(*end, Int64Buffer(n, stream));
  GroupBoundsKernel<<<GridFor(n), kBlockThreads, 0, s>>>(
      gid->data_as<int64_t>(), group_start.data_as<int64_t>(), n, start->data_as<int64_t>(),
      end->data_as<int64_t>());
  return LaunchStatus("window group bounds");
}

// The layout of `spec`'s PARTITION BY and ORDER BY over the input (n > 0 rows).
Result<Layout> BuildLayout(const WindowCall& spec, const DeviceBatch& input, GpuContext& ctx) {
  const Stream& stream = *ctx.stream;
  const int64_t n = input.num_rows;
  DeviceBatch keyed;
  keyed.num_rows = n;
  PlanNode sort;
  sort.kind = PlanKind::kSort;
  auto add_key = [&](const Expr& e, bool ascending, bool nulls_first) -> Status {
    TANDEM_ASSIGN_OR_RAISE(DeviceColumnPtr col, keys::ColumnOf(e, input, ctx.eval, stream));
    const int index = static_cast<int>(keyed.columns.size());
    keyed.schema.fields.push_back({"k" + std::to_string(index), col->type, true});
    sort.sort_keys.push_back({MakeColumnRef(index, col->type, true), ascending, nulls_first});
    keyed.columns.push_back(std::move(col));
    return Status::OK();
  };
  for (const auto& e : spec.partition_by) TANDEM_RETURN_NOT_OK(add_key(*e, true, true));
  for (const SortKey& k : spec.order_by) {
    TANDEM_RETURN_NOT_OK(add_key(*k.expr, k.ascending, k.nulls_first));
  }
  const int num_keys = static_cast<int>(keyed.columns.size());
  const int num_partition_keys = static_cast<int>(spec.partition_by.size());
  TANDEM_ASSIGN_OR_RAISE(DeviceColumnPtr row_numbers, RowNumberColumn(n, stream));
  keyed.columns.push_back(std::move(row_numbers));
  keyed.schema.fields.push_back({"row", DataType::Int64(), false});
  sort.schema = keyed.schema;
  TANDEM_ASSIGN_OR_RAISE(DeviceBatchPtr sorted, Sort(sort, keyed, ctx));

  Layout layout;
  layout.n = n;
  layout.order = sorted->columns.back();
  std::vector<const DeviceColumn*> partition_keys, order_keys;
  for (int k = 0; k < num_keys; ++k) {
    (k < num_partition_keys ? partition_keys : order_keys).push_back(sorted->columns[k].get());
  }
  TANDEM_ASSIGN_OR_RAISE(DeviceBuffer flags, Int64Buffer(n, stream));
  TANDEM_RETURN_NOT_OK(MarkRunStarts(partition_keys, flags.data_as<int64_t>(), n, false, stream));
  DeviceBuffer part_gid;
  TANDEM_RETURN_NOT_OK(
      RunBounds(flags, n, &layout.part_start, &layout.part_end, &part_gid, stream));
  // Peer groups: runs of equal ORDER BY keys within the partitions.
  TANDEM_RETURN_NOT_OK(MarkRunStarts(order_keys, flags.data_as<int64_t>(), n, true, stream));
  TANDEM_RETURN_NOT_OK(
      RunBounds(flags, n, &layout.peer_start, &layout.peer_end, &layout.peer_number, stream));
  return std::move(layout);
}

// clamp(base + delta, lo, hi) without overflow (|delta| up to INT64_MAX; lo <= base <= hi).
__device__ inline int64_t ClampedAdd(int64_t base, int64_t delta, int64_t lo, int64_t hi) {
  if (delta > 0 && delta > hi - base) return hi;
  if (delta < 0 && delta < lo - base) return lo;
  const int64_t at = base + delta;
  return at < lo ? lo : (at > hi ? hi : at);
}

struct FrameSpec {
  bool rows;
  BoundKind start, end;
  int64_t start_offset, end_offset;
};

// One frame bound of position i (the CPU's `bound` for ROWS and offset-free RANGE frames).
__device__ inline int64_t FrameBound(const FrameSpec& f, BoundKind kind, int64_t offset, int64_t i,
                                     bool is_start, int64_t ps, int64_t pe, int64_t qs,
                                     int64_t qe) {
  switch (kind) {
    case BoundKind::kUnboundedPreceding:
      return ps;
    case BoundKind::kUnboundedFollowing:
      return pe;
    case BoundKind::kCurrentRow:
      if (f.rows) return is_start ? i : i + 1;
      return is_start ? qs : qe;
    case BoundKind::kPreceding:
    case BoundKind::kFollowing: {
      const int64_t delta = kind == BoundKind::kPreceding ? -offset : offset;
      return ClampedAdd(i + (is_start ? 0 : 1), delta, ps, pe);
    }
  }
  return ps;
}

__global__ void FramesKernel(FrameSpec f, const int64_t* part_start, const int64_t* part_end,
                             const int64_t* peer_start, const int64_t* peer_end, int64_t n,
                             int64_t* start, int64_t* end) {
  TANDEM_GRID_LOOP(i, n) {
    const int64_t ps = part_start[i], pe = part_end[i], qs = peer_start[i], qe = peer_end[i];
    const int64_t s = FrameBound(f, f.start, f.start_offset, i, true, ps, pe, qs, qe);
    int64_t e = FrameBound(f, f.end, f.end_offset, i, false, ps, pe, qs, qe);
    if (e < s) e = s;
    start[i] = s;
    end[i] = e;
  }
}

Result<Frames> ComputeFrames(const WindowFrame& frame, const Layout& L, const Stream& stream) {
  const bool rows = frame.unit == WindowFrame::Unit::kRows;
  auto offset_bound = [](BoundKind b) {
    return b == BoundKind::kPreceding || b == BoundKind::kFollowing;
  };
  if (!rows && (offset_bound(frame.start) || offset_bound(frame.end))) {
    return Status::Unsupported("GPU window: window frame RANGE with offsets");
  }
  Frames frames;
  TANDEM_ASSIGN_OR_RAISE(frames.start, Int64Buffer(L.n, stream));
  TANDEM_ASSIGN_OR_RAISE(frames.end, Int64Buffer(L.n, stream));
  const FrameSpec spec{rows, frame.start, frame.end, frame.start_offset, frame.end_offset};
  FramesKernel<<<GridFor(L.n), kBlockThreads, 0, CudaStream(stream)>>>(
      spec, L.part_start.data_as<int64_t>(), L.part_end.data_as<int64_t>(),
      L.peer_start.data_as<int64_t>(), L.peer_end.data_as<int64_t>(), L.n,
      frames.start.data_as<int64_t>(), frames.end.data_as<int64_t>());
  TANDEM_RETURN_NOT_OK(LaunchStatus("window frames"));
  return std::move(frames);
}

struct Bounds {
  const int64_t* part_start;
  const int64_t* part_end;
  const int64_t* peer_start;
  const int64_t* peer_end;
  const int64_t* peer_number;
};

Bounds BoundsOf(const Layout& L) {
  return {L.part_start.data_as<int64_t>(), L.part_end.data_as<int64_t>(),
          L.peer_start.data_as<int64_t>(), L.peer_end.data_as<int64_t>(),
          L.peer_number.data_as<int64_t>()};
}

// ROW_NUMBER, RANK, DENSE_RANK as int64.
__global__ void RankKernel(WindowFunctionKind kind, Bounds b, int64_t n, int64_t* out) {
  TANDEM_GRID_LOOP(i, n) {
    const int64_t ps = b.part_start[i];
    switch (kind) {
      case WindowFunctionKind::kRowNumber:
        out[i] = i - ps + 1;
        break;
      case WindowFunctionKind::kRank:
        out[i] = b.peer_start[i] - ps + 1;
        break;
      default:  // DENSE_RANK: peer groups from the partition's first to this one
        out[i] = b.peer_number[i] - b.peer_number[ps] + 1;
        break;
    }
  }
}

// PERCENT_RANK and CUME_DIST, with the CPU's double arithmetic.
__global__ void RelativeRankKernel(bool cume_dist, Bounds b, int64_t n, double* out) {
  TANDEM_GRID_LOOP(i, n) {
    const int64_t ps = b.part_start[i];
    const double size = static_cast<double>(b.part_end[i] - ps);
    if (cume_dist) {
      out[i] = static_cast<double>(b.peer_end[i] - ps) / size;
    } else {
      out[i] = size > 1 ? static_cast<double>(b.peer_start[i] - ps) / (size - 1) : 0.0;
    }
  }
}

// LAG/LEAD source rows: the input row `offset` positions away within the partition; outside it,
// the default's row (n + input row, in values ++ defaults) or -1 (NULL).
__global__ void ShiftedRowsKernel(const int64_t* perm, Bounds b, int64_t offset, bool with_default,
                                  int64_t n, int64_t* rows) {
  TANDEM_GRID_LOOP(i, n) {
    const bool inside = offset >= 0 ? offset < b.part_end[i] - i : offset >= b.part_start[i] - i;
    rows[i] = inside ? perm[i + offset] : (with_default ? n + perm[i] : -1);
  }
}

// FIRST_VALUE / LAST_VALUE source rows: the frame's first or last row, -1 for an empty frame.
__global__ void FrameEdgeRowsKernel(const int64_t* perm, const int64_t* fs, const int64_t* fe,
                                    bool last, int64_t n, int64_t* rows) {
  TANDEM_GRID_LOOP(i, n) { rows[i] = fs[i] < fe[i] ? perm[last ? fe[i] - 1 : fs[i]] : -1; }
}

__global__ void Int64ToInt32Kernel(const int64_t* in, int64_t n, int32_t* out) {
  TANDEM_GRID_LOOP(i, n) out[i] = static_cast<int32_t>(in[i]);
}

__global__ void Int64ToDoubleKernel(const int64_t* in, int64_t n, double* out) {
  TANDEM_GRID_LOOP(i, n) out[i] = static_cast<double>(in[i]);
}

// A thread per bitmap byte packs one-byte flags into an LSB-first validity bitmap.
__global__ void PackValidityKernel(const uint8_t* valid, int64_t n, uint8_t* bits) {
  TANDEM_GRID_LOOP(j, (n + 7) / 8) {
    unsigned byte = 0;
    for (int k = 0; k < 8 && j * 8 + k < n; ++k) byte |= (valid[j * 8 + k] != 0 ? 1u : 0u) << k;
    bits[j] = static_cast<uint8_t>(byte);
  }
}

// pos_out[j] = the position, in this specification's order, of the row at output position j.
__global__ void InvertKernel(const int64_t* perm, int64_t n, int64_t* inverse) {
  TANDEM_GRID_LOOP(i, n) inverse[perm[i]] = i;
}
__global__ void ComposeKernel(const int64_t* inverse, const int64_t* output_perm, int64_t n,
                              int64_t* out) {
  TANDEM_GRID_LOOP(j, n) out[j] = inverse[output_perm[j]];
}

Result<DeviceColumnPtr> GatherRows(const DeviceColumn& column, const DeviceBuffer& rows, int64_t n,
                                   const Stream& stream) {
  return GatherColumn(column, rows.data_as<const int64_t>(), n, stream);
}

// A constant integer argument as the CPU's ConstantIntArg reads it: row 0's value.
Result<int64_t> ConstantIntArg(const WindowCall& call, size_t i, int64_t fallback, const char* what,
                               const DeviceBatch& input, GpuContext& ctx) {
  if (call.args.size() <= i || input.num_rows == 0) return fallback;
  const Stream& stream = *ctx.stream;
  TANDEM_ASSIGN_OR_RAISE(DeviceColumnPtr col,
                         keys::ColumnOf(*call.args[i], input, ctx.eval, stream));
  DeviceBatch one;
  one.num_rows = col->length;
  one.schema.fields.push_back({"arg", col->type, true});
  one.columns.push_back(col);
  TANDEM_ASSIGN_OR_RAISE(DeviceBatchPtr first, SliceRows(one, 0, 1, stream));
  TANDEM_ASSIGN_OR_RAISE(Table host, ToHost(*first, stream));
  if (host.batches.empty() || host.batches[0]->num_rows < 1) {
    return Status::Internal("window argument row 0 missing");
  }
  const Value v = GetValue(*host.batches[0]->columns[0], 0);
  if (v.is_null) return Status::Invalid(std::string(what) + " must not be NULL");
  if (!v.type.is_integer()) return Status::Invalid(std::string(what) + " must be an integer");
  return v.i64;
}

Result<DeviceColumnPtr> LagLead(const WindowCall& call, const Layout& L, const DeviceBatch& input,
                                GpuContext& ctx) {
  const Stream& stream = *ctx.stream;
  if (call.args.empty()) return Status::Invalid("LAG/LEAD needs a value argument");
  TANDEM_ASSIGN_OR_RAISE(DeviceColumnPtr values,
                         keys::ColumnOf(*call.args[0], input, ctx.eval, stream));
  DeviceColumnPtr defaults;
  if (call.args.size() > 2) {
    TANDEM_ASSIGN_OR_RAISE(defaults, keys::ColumnOf(*call.args[2], input, ctx.eval, stream));
  }
  TANDEM_ASSIGN_OR_RAISE(int64_t offset, ConstantIntArg(call, 1, 1, "LAG/LEAD offset", input, ctx));
  if (call.kind == WindowFunctionKind::kLag) {
    offset = offset == INT64_MIN ? INT64_MAX : -offset;
  }
  DeviceColumnPtr source = values;
  if (defaults) {
    if (defaults->type != values->type) {
      return Status::Internal("LAG/LEAD default type " + defaults->type.ToString() +
                              " differs from the value type " + values->type.ToString());
    }
    TANDEM_ASSIGN_OR_RAISE(source, ConcatColumns(*values, *defaults, stream));
  }
  TANDEM_ASSIGN_OR_RAISE(DeviceBuffer rows, Int64Buffer(L.n, stream));
  ShiftedRowsKernel<<<GridFor(L.n), kBlockThreads, 0, CudaStream(stream)>>>(
      L.perm(), BoundsOf(L), offset, defaults != nullptr, L.n, rows.data_as<int64_t>());
  TANDEM_RETURN_NOT_OK(LaunchStatus("window lag/lead rows"));
  return GatherRows(*source, rows, L.n, stream);
}

Result<DeviceColumnPtr> FirstLast(const WindowCall& call, const Layout& L, const Frames& frames,
                                  const DeviceBatch& input, GpuContext& ctx) {
  const Stream& stream = *ctx.stream;
  if (call.args.empty()) {
    return Status::Invalid("FIRST_VALUE/LAST_VALUE/NTH_VALUE needs a value");
  }
  TANDEM_ASSIGN_OR_RAISE(DeviceColumnPtr values,
                         keys::ColumnOf(*call.args[0], input, ctx.eval, stream));
  TANDEM_ASSIGN_OR_RAISE(DeviceBuffer rows, Int64Buffer(L.n, stream));
  FrameEdgeRowsKernel<<<GridFor(L.n), kBlockThreads, 0, CudaStream(stream)>>>(
      L.perm(), frames.start.data_as<int64_t>(), frames.end.data_as<int64_t>(),
      call.kind == WindowFunctionKind::kLastValue, L.n, rows.data_as<int64_t>());
  TANDEM_RETURN_NOT_OK(LaunchStatus("window first/last rows"));
  return GatherRows(*values, rows, L.n, stream);
}

// One call's result in the layout's sorted order.
Result<DeviceColumnPtr> ComputeCall(const WindowCall& call, const Layout& L, const Frames& frames,
                                    const DeviceBatch& input, GpuContext& ctx) {
  const Stream& stream = *ctx.stream;
  const cudaStream_t s = CudaStream(stream);
  switch (call.kind) {
    case WindowFunctionKind::kRowNumber:
    case WindowFunctionKind::kRank:
    case WindowFunctionKind::kDenseRank: {
      TANDEM_ASSIGN_OR_RAISE(DeviceBuffer out, Int64Buffer(L.n, stream));
      RankKernel<<<GridFor(L.n), kBlockThreads, 0, s>>>(call.kind, BoundsOf(L), L.n,
                                                        out.data_as<int64_t>());
      TANDEM_RETURN_NOT_OK(LaunchStatus("window ranks"));
      return CountResult(call.type, std::move(out), L.n, stream);
    }
    case WindowFunctionKind::kPercentRank:
    case WindowFunctionKind::kCumeDist: {
      TANDEM_ASSIGN_OR_RAISE(DeviceBuffer out, Int64Buffer(L.n, stream));
      RelativeRankKernel<<<GridFor(L.n), kBlockThreads, 0, s>>>(
          call.kind == WindowFunctionKind::kCumeDist, BoundsOf(L), L.n, out.data_as<double>());
      TANDEM_RETURN_NOT_OK(LaunchStatus("window relative ranks"));
      return FixedResult(DataType::Float64(), std::move(out), nullptr, L.n, stream);
    }
    case WindowFunctionKind::kLag:
    case WindowFunctionKind::kLead:
      return LagLead(call, L, input, ctx);
    case WindowFunctionKind::kFirstValue:
    case WindowFunctionKind::kLastValue:
      return FirstLast(call, L, frames, input, ctx);
    case WindowFunctionKind::kAggregate:
      return Aggregate(call, L, frames, input, ctx);
    case WindowFunctionKind::kNtile:
    case WindowFunctionKind::kNthValue:
      break;
  }
  return Status::Unsupported("GPU window: window function " + call.name);
}

std::string SpecKey(const WindowCall& call) {
  std::string key;
  for (const auto& e : call.partition_by) key += e->ToString() + ",";
  key += "|";
  for (const auto& k : call.order_by) {
    key += k.expr->ToString() + (k.ascending ? " a" : " d") + (k.nulls_first ? "f," : "l,");
  }
  return key;
}

// An empty column of `type` (string columns get their one offset).
Result<DeviceColumnPtr> EmptyColumn(const DataType& type, const Stream& stream) {
  DeviceBatch none;
  auto col = std::make_shared<DeviceColumn>();
  col->type = type;
  none.columns.push_back(col);
  TANDEM_ASSIGN_OR_RAISE(auto out, GatherBatch(none, RowSource{}, 0, GatherOptions{}, stream));
  return out->columns[0];
}

// The result rows of a column in one specification's order, moved into the output order.
Result<DeviceColumnPtr> Permute(const DeviceColumnPtr& column, const DeviceBuffer& positions,
                                int64_t n, const Stream& stream) {
  DeviceBatch one;
  one.num_rows = n;
  one.columns.push_back(column);
  GatherOptions options;
  options.full_permutation = true;
  TANDEM_ASSIGN_OR_RAISE(
      auto out,
      GatherBatch(one, RowSource{positions.data_as<const int64_t>(), 0}, n, options, stream));
  return out->columns[0];
}

}  // namespace

Result<DeviceColumnPtr> FixedResult(const DataType& type, DeviceBuffer values, const uint8_t* valid,
                                    int64_t n, const Stream& stream) {
  auto col = std::make_shared<DeviceColumn>();
  col->type = type;
  col->length = n;
  col->values = std::move(values);
  if (valid == nullptr || n == 0) return col;
  int64_t nulls = 0;
  try {
    PoolThrustAllocator alloc(stream);
    nulls = thrust::count(thrust::cuda::par(alloc).on(CudaStream(stream)), valid, valid + n,
                          uint8_t{0});
  } catch (const std::bad_alloc&) {
    return Status::OutOfMemory("GPU out of memory counting window NULLs");
  } catch (const std::exception& e) {
    return Status::IOError(std::string("CUDA window NULL count: ") + e.what());
  }
  col->null_count = nulls;
  if (nulls == 0) return col;
  TANDEM_ASSIGN_OR_RAISE(col->validity, DeviceBuffer::Allocate((n + 7) / 8, stream));
  PackValidityKernel<<<GridFor((n + 7) / 8), kBlockThreads, 0, CudaStream(stream)>>>(
      valid, n, col->validity.data_as<uint8_t>());
  TANDEM_RETURN_NOT_OK(LaunchStatus("window validity"));
  return col;
}

Result<DeviceColumnPtr> CountResult(const DataType& type, DeviceBuffer values, int64_t n,
                                    const Stream& stream) {
  const cudaStream_t s = CudaStream(stream);
  switch (type.id) {
    case TypeId::kInt64:
      return FixedResult(type, std::move(values), nullptr, n, stream);
    case TypeId::kInt32: {
      TANDEM_ASSIGN_OR_RAISE(DeviceBuffer out, keys::Scratch(n * 4, stream));
      Int64ToInt32Kernel<<<GridFor(n), kBlockThreads, 0, s>>>(values.data_as<int64_t>(), n,
                                                              out.data_as<int32_t>());
      TANDEM_RETURN_NOT_OK(LaunchStatus("window int32 result"));
      return FixedResult(type, std::move(out), nullptr, n, stream);
    }
    case TypeId::kFloat64: {
      TANDEM_ASSIGN_OR_RAISE(DeviceBuffer out, keys::Scratch(n * 8, stream));
      Int64ToDoubleKernel<<<GridFor(n), kBlockThreads, 0, s>>>(values.data_as<int64_t>(), n,
                                                               out.data_as<double>());
      TANDEM_RETURN_NOT_OK(LaunchStatus("window float64 result"));
      return FixedResult(type, std::move(out), nullptr, n, stream);
    }
    default:
      break;
  }
  return Status::Unsupported("GPU window: integer result of type " + type.ToString());
}

}  // namespace window

Result<DeviceBatchPtr> Window(const PlanNode& node, const DeviceBatch& input, GpuContext& ctx) {
  const std::string why = WindowUnsupported(node);
  if (!why.empty()) return Status::Unsupported("GPU window: " + why);
  const Stream& stream = *ctx.stream;
  const cudaStream_t s = CudaStream(stream);
  const int64_t n = input.num_rows;
  if (node.windows.empty()) {
    auto same = std::make_shared<DeviceBatch>(input);  // shares the device columns
    same->schema = node.schema;
    return same;
  }
  if (n == 0) {
    TANDEM_ASSIGN_OR_RAISE(auto out, GatherBatch(input, RowSource{}, 0, GatherOptions{}, stream));
    out->schema = node.schema;
    for (const WindowCall& call : node.windows) {
      TANDEM_ASSIGN_OR_RAISE(auto col, window::EmptyColumn(call.type, stream));
      out->columns.push_back(std::move(col));
    }
    return out;
  }

  std::vector<std::string> specs;
  std::vector<int> spec_of(node.windows.size());
  for (size_t w = 0; w < node.windows.size(); ++w) {
    const std::string key = window::SpecKey(node.windows[w]);
    auto it = std::find(specs.begin(), specs.end(), key);
    spec_of[w] = static_cast<int>(it - specs.begin());
    if (it == specs.end()) specs.push_back(key);
  }

  std::vector<DeviceColumnPtr> results(node.windows.size());
  DeviceColumnPtr output_order;  // int64: output position -> input row
  for (size_t sp = 0; sp < specs.size(); ++sp) {
    const WindowCall* first = nullptr;
    for (size_t w = 0; w < node.windows.size() && first == nullptr; ++w) {
      if (spec_of[w] == static_cast<int>(sp)) first = &node.windows[w];
    }
    TANDEM_ASSIGN_OR_RAISE(window::Layout layout, window::BuildLayout(*first, input, ctx));
    DeviceBuffer positions;  // output position -> position in this specification's order
    if (sp == 0) {
      output_order = layout.order;
    } else {
      TANDEM_ASSIGN_OR_RAISE(DeviceBuffer inverse, window::Int64Buffer(n, stream));
      window::InvertKernel<<<GridFor(n), kBlockThreads, 0, s>>>(layout.perm(), n,
                                                                inverse.data_as<int64_t>());
      TANDEM_RETURN_NOT_OK(LaunchStatus("window inverse order"));
      TANDEM_ASSIGN_OR_RAISE(positions, window::Int64Buffer(n, stream));
      window::ComposeKernel<<<GridFor(n), kBlockThreads, 0, s>>>(
          inverse.data_as<int64_t>(), output_order->values.data_as<int64_t>(), n,
          positions.data_as<int64_t>());
      TANDEM_RETURN_NOT_OK(LaunchStatus("window output positions"));
    }
    for (size_t w = 0; w < node.windows.size(); ++w) {
      if (spec_of[w] != static_cast<int>(sp)) continue;
      const WindowCall& call = node.windows[w];
      TANDEM_ASSIGN_OR_RAISE(window::Frames frames,
                             window::ComputeFrames(call.frame, layout, stream));
      TANDEM_ASSIGN_OR_RAISE(DeviceColumnPtr result,
                             window::ComputeCall(call, layout, frames, input, ctx));
      if (result->type != call.type) {
        return Status::Internal("window " + call.name + " produced " + result->type.ToString() +
                                ", expected " + call.type.ToString());
      }
      if (sp != 0) {
        TANDEM_ASSIGN_OR_RAISE(result, window::Permute(result, positions, n, stream));
      }
      results[w] = std::move(result);
    }
  }

  GatherOptions options;
  options.full_permutation = true;
  TANDEM_ASSIGN_OR_RAISE(
      auto out, GatherBatch(input, RowSource{output_order->values.data_as<const int64_t>(), 0}, n,
                            options, stream));
  out->schema = node.schema;
  for (auto& r : results) out->columns.push_back(std::move(r));
  return out;
}

}  // namespace tandem::gpu
