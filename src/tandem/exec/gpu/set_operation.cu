// GPU set operations (gpu_operators_more.h), the twin of exec/cpu/set_operation.cc, and the device
// row helpers of set_operation_rows.cuh.
//
// UNION ALL concatenates. The others group equal rows by sorting instead of hashing: the left
// and right rows are concatenated, a row-number column is added, and the GPU Sort orders the rows
// by every column. The sort is stable, so within a run of equal rows the rows keep their
// concatenated order: left rows first, each run starting with its first row in left-then-right
// order, which is the row the CPU emits for the group. Runs start where adjacent sorted rows
// differ by the device row keys' equality (row_keys.cuh, NULLs equal, -0.0 == 0.0, NaN == NaN),
// which is both the CPU set operation's key equality and the equality of the sort's order. Per
// run the left and right counts give the number of copies by SQL's bag rules (as the CPU's
// Copies), and the run's first row is gathered that many times. The output order is the sorted
// order, not the CPU's (hash order); SQL defines none.
#include <thrust/binary_search.h>
#include <thrust/execution_policy.h>
#include <thrust/iterator/counting_iterator.h>

#include <cub/device/device_scan.cuh>
#include <new>
#include <stdexcept>

#include "tandem/exec/gpu/gpu_operators_more.h"
#include "tandem/exec/gpu/row_keys.cuh"
#include "tandem/exec/gpu/set_operation_rows.cuh"
#include "tandem/gpu/cuda_util.cuh"
#include "tandem/gpu/gather.h"

namespace tandem::gpu {
namespace {

__device__ inline bool BitAt(const uint8_t* bits, int64_t i) {
  return (bits[i >> 3] >> (i & 7)) & 1;
}

// Validity of a concatenation, a thread per output bitmap byte; a null bitmap means "no NULLs".
__global__ void ConcatValidityKernel(const uint8_t* a_bits, int64_t na, const uint8_t* b_bits,
                                     int64_t nb, uint8_t* out) {
  const int64_t n = na + nb;
  TANDEM_GRID_LOOP(j, (n + 7) / 8) {
    unsigned byte = 0;
    for (int k = 0; k < 8; ++k) {
      const int64_t i = j * 8 + k;
      if (i >= n) break;
      const bool valid = i < na ? (a_bits == nullptr || BitAt(a_bits, i))
                                : (b_bits == nullptr || BitAt(b_bits, i - na));
      byte |= static_cast<unsigned>(valid) << k;
    }
    out[j] = static_cast<uint8_t>(byte);
  }
}

// Offsets of a string concatenation, rebased to start at 0 (null offsets: a side without rows).
__global__ void ConcatOffsetsKernel(const int64_t* a_off, int64_t na, const int64_t* b_off,
                                    int64_t nb, int64_t* out) {
  const int64_t a_bytes = a_off == nullptr ? 0 : a_off[na] - a_off[0];
  TANDEM_GRID_LOOP(i, na + nb + 1) {
    if (i <= na) {
      out[i] = a_off == nullptr ? 0 : a_off[i] - a_off[0];
    } else {
      out[i] = a_bytes + (b_off[i - na] - b_off[0]);
    }
  }
}

__global__ void IotaKernel(int64_t* out, int64_t n) { TANDEM_GRID_LOOP(i, n) out[i] = i; }

// flags[i] = 1 where sorted row i differs from row i - 1 in this key column (flags[0] is set by
// the caller). Columns are compared one at a time, so any number of columns works.
__global__ void MarkDifferencesKernel(keys::KeySet one, int64_t* flags, int64_t n) {
  TANDEM_GRID_LOOP(i, n) {
    if (i > 0 && !keys::RowsEqual(one, i - 1, one, i, /*nulls_equal=*/true)) flags[i] = 1;
  }
}

__global__ void FirstFlagKernel(int64_t* flags, int64_t n) {
  TANDEM_GRID_LOOP(i, n) flags[i] = i == 0 ? 1 : 0;
}

// group_start[g] = the sorted position where group g begins (gid: 1-based inclusive count of
// group starts).
__global__ void GroupStartsKernel(const int64_t* flags, const int64_t* gid, int64_t* group_start,
                                  int64_t n) {
  TANDEM_GRID_LOOP(i, n) {
    if (flags[i]) group_start[gid[i] - 1] = i;
  }
}

// left_count[g] from the last left row of each group (left rows precede right rows in a group).
__global__ void LeftCountsKernel(const int64_t* flags, const int64_t* gid, const int64_t* origin,
                                 const int64_t* group_start, int64_t n, int64_t left_rows,
                                 int64_t* left_count) {
  TANDEM_GRID_LOOP(i, n) {
    if (origin[i] >= left_rows) continue;
    const bool last_left = i + 1 == n || flags[i + 1] || origin[i + 1] >= left_rows;
    if (last_left) {
      const int64_t g = gid[i] - 1;
      left_count[g] = i - group_start[g] + 1;
    }
  }
}

struct CopyRule {
  SetOpKind op;
  bool all;
};

// Copies of each group by SQL's bag rules (the CPU's Copies).
__global__ void CopiesKernel(CopyRule rule, const int64_t* group_start, const int64_t* left_count,
                             int64_t groups, int64_t n, int64_t* copies) {
  TANDEM_GRID_LOOP(g, groups) {
    const int64_t size = (g + 1 < groups ? group_start[g + 1] : n) - group_start[g];
    const int64_t l = left_count[g], r = size - l;
    int64_t c = 0;
    switch (rule.op) {
      case SetOpKind::kUnion:
        c = 1;
        break;
      case SetOpKind::kIntersect:
        c = rule.all ? (l < r ? l : r) : (l > 0 && r > 0 ? 1 : 0);
        break;
      case SetOpKind::kExcept:
        c = rule.all ? (l > r ? l - r : 0) : (l > 0 && r == 0 ? 1 : 0);
        break;
    }
    copies[g] = c;
  }
}

// rows[j] holds output j's group; replaced by the concatenated row number of the group's first
// sorted row.
__global__ void RepresentativesKernel(const int64_t* origin, const int64_t* group_start,
                                      int64_t* rows, int64_t count) {
  TANDEM_GRID_LOOP(j, count) rows[j] = origin[group_start[rows[j]]];
}

Status CheckTypes(const PlanNode& node, const DeviceBatch& side) {
  const int ncol = node.schema.num_fields();
  if (static_cast<int>(side.columns.size()) != ncol) {
    return Status::Internal("set operation input has " + std::to_string(side.columns.size()) +
                            " columns, expected " + std::to_string(ncol));
  }
  for (int c = 0; c < ncol; ++c) {
    if (side.columns[c]->type != node.schema.field(c).type) {
      return Status::Internal("set operation column " + node.schema.field(c).name + " is " +
                              side.columns[c]->type.ToString() + " on one side, expected " +
                              node.schema.field(c).type.ToString());
    }
  }
  return Status::OK();
}

// The concatenated rows sorted by every column: returns the sorted batch, whose last column is
// each sorted row's concatenated row number.
Result<DeviceBatchPtr> SortAllColumns(const DeviceBatch& all, GpuContext& ctx) {
  const int ncol = static_cast<int>(all.columns.size());
  DeviceBatch keyed;
  keyed.num_rows = all.num_rows;
  keyed.columns = all.columns;
  keyed.schema = all.schema;
  TANDEM_ASSIGN_OR_RAISE(auto row_numbers, RowNumberColumn(all.num_rows, *ctx.stream));
  keyed.columns.push_back(std::move(row_numbers));
  keyed.schema.fields.push_back({"__row", DataType::Int64(), false});
  PlanNode sort;
  sort.kind = PlanKind::kSort;
  sort.schema = keyed.schema;
  for (int c = 0; c < ncol; ++c) {
    const DataType& t = keyed.columns[c]->type;
    sort.sort_keys.push_back({MakeColumnRef(c, t, true), true, false});
  }
  return Sort(sort, keyed, ctx);
}

// The concatenated row numbers to emit, in sorted-group order.
Result<DeviceBuffer> RowsToEmit(const PlanNode& node, const DeviceBatch& sorted, int64_t left_rows,
                                int64_t* count, const Stream& stream) {
  const int64_t n = sorted.num_rows;
  const int ncol = static_cast<int>(sorted.columns.size()) - 1;
  const int64_t* origin = sorted.columns.back()->values.data_as<const int64_t>();
  const cudaStream_t s = CudaStream(stream);

  std::vector<const DeviceColumn*> columns;
  for (int c = 0; c < ncol; ++c) columns.push_back(sorted.columns[c].get());
  TANDEM_ASSIGN_OR_RAISE(DeviceBuffer flags, keys::Scratch(n * 8, stream));
  TANDEM_RETURN_NOT_OK(MarkRunStarts(columns, flags.data_as<int64_t>(), n, false, stream));
  TANDEM_ASSIGN_OR_RAISE(DeviceBuffer gid, keys::Scratch(n * 8, stream));
  TANDEM_RETURN_NOT_OK(
      InclusiveSumInt64(flags.data_as<int64_t>(), gid.data_as<int64_t>(), n, stream));
  TANDEM_ASSIGN_OR_RAISE(const int64_t groups,
                         ReadDeviceInt64(gid.data_as<int64_t>() + n - 1, stream));

  TANDEM_ASSIGN_OR_RAISE(DeviceBuffer group_start, keys::Scratch(groups * 8, stream));
  GroupStartsKernel<<<GridFor(n), kBlockThreads, 0, s>>>(
      flags.data_as<int64_t>(), gid.data_as<int64_t>(), group_start.data_as<int64_t>(), n);
  TANDEM_RETURN_NOT_OK(LaunchStatus("set operation group starts"));
  TANDEM_ASSIGN_OR_RAISE(DeviceBuffer left_count, keys::Scratch(groups * 8, stream));
  TANDEM_RETURN_NOT_OK(MemsetDevice(left_count.data(), 0, groups * 8, stream));
  LeftCountsKernel<<<GridFor(n), kBlockThreads, 0, s>>>(
      flags.data_as<int64_t>(), gid.data_as<int64_t>(), origin, group_start.data_as<int64_t>(), n,
      left_rows, left_count.data_as<int64_t>());
  TANDEM_RETURN_NOT_OK(LaunchStatus("set operation left counts"));

  TANDEM_ASSIGN_OR_RAISE(DeviceBuffer copies, keys::Scratch(groups * 8, stream));
  CopiesKernel<<<GridFor(groups), kBlockThreads, 0, s>>>(
      CopyRule{node.set_op, node.set_all}, group_start.data_as<int64_t>(),
      left_count.data_as<int64_t>(), groups, n, copies.data_as<int64_t>());
  TANDEM_RETURN_NOT_OK(LaunchStatus("set operation copies"));
  TANDEM_ASSIGN_OR_RAISE(DeviceBuffer ends, keys::Scratch(groups * 8, stream));
  TANDEM_RETURN_NOT_OK(
      InclusiveSumInt64(copies.data_as<int64_t>(), ends.data_as<int64_t>(), groups, stream));
  TANDEM_ASSIGN_OR_RAISE(*count, ReadDeviceInt64(ends.data_as<int64_t>() + groups - 1, stream));

  TANDEM_ASSIGN_OR_RAISE(DeviceBuffer rows, keys::Scratch(*count * 8, stream));
  if (*count == 0) return std::move(rows);
  try {
    // Output j belongs to the first group whose running copy count exceeds j.
    PoolThrustAllocator alloc(stream);
    const int64_t* e = ends.data_as<const int64_t>();
    thrust::upper_bound(thrust::cuda::par_nosync(alloc).on(s), e, e + groups,
                        thrust::counting_iterator<int64_t>(0),
                        thrust::counting_iterator<int64_t>(*count), rows.data_as<int64_t>());
  } catch (const std::bad_alloc&) {
    return Status::OutOfMemory("GPU out of memory expanding set operation groups");
  } catch (const std::exception& ex) {
    return Status::IOError(std::string("CUDA set operation search: ") + ex.what());
  }
  RepresentativesKernel<<<GridFor(*count), kBlockThreads, 0, s>>>(
      origin, group_start.data_as<int64_t>(), rows.data_as<int64_t>(), *count);
  TANDEM_RETURN_NOT_OK(LaunchStatus("set operation representatives"));
  return std::move(rows);
}

}  // namespace

Result<DeviceColumnPtr> ConcatColumns(const DeviceColumn& a, const DeviceColumn& b,
                                      const Stream& stream) {
  if (a.type != b.type) {
    return Status::Internal("concatenating a " + a.type.ToString() + " column with a " +
                            b.type.ToString() + " column");
  }
  const cudaStream_t s = CudaStream(stream);
  const int64_t na = a.length, nb = b.length, n = na + nb;
  auto out = std::make_shared<DeviceColumn>();
  out->type = a.type;
  out->length = n;
  out->null_count = a.null_count + b.null_count;
  if (out->null_count > 0) {
    TANDEM_ASSIGN_OR_RAISE(out->validity, DeviceBuffer::Allocate((n + 7) / 8, stream));
    ConcatValidityKernel<<<GridFor((n + 7) / 8), kBlockThreads, 0, s>>>(
        a.null_count > 0 && a.has_validity() ? a.validity.data_as<const uint8_t>() : nullptr, na,
        b.null_count > 0 && b.has_validity() ? b.validity.data_as<const uint8_t>() : nullptr, nb,
        out->validity.data_as<uint8_t>());
    TANDEM_RETURN_NOT_OK(LaunchStatus("concat validity"));
  }
  if (a.type.is_string_like()) {
    const int64_t* a_off = na > 0 ? a.values.data_as<const int64_t>() : nullptr;
    const int64_t* b_off = nb > 0 ? b.values.data_as<const int64_t>() : nullptr;
    TANDEM_ASSIGN_OR_RAISE(out->values, DeviceBuffer::Allocate((n + 1) * 8, stream));
    ConcatOffsetsKernel<<<GridFor(n + 1), kBlockThreads, 0, s>>>(a_off, na, b_off, nb,
                                                                 out->values.data_as<int64_t>());
    TANDEM_RETURN_NOT_OK(LaunchStatus("concat offsets"));
    // Byte ranges of both sides: offsets [first, last] of each.
    int64_t ends[4] = {0, 0, 0, 0};
    if (a_off != nullptr) {
      TANDEM_RETURN_NOT_OK(CopyToHost(&ends[0], a_off, 8, stream));
      TANDEM_RETURN_NOT_OK(CopyToHost(&ends[1], a_off + na, 8, stream));
    }
    if (b_off != nullptr) {
      TANDEM_RETURN_NOT_OK(CopyToHost(&ends[2], b_off, 8, stream));
      TANDEM_RETURN_NOT_OK(CopyToHost(&ends[3], b_off + nb, 8, stream));
    }
    TANDEM_RETURN_NOT_OK(stream.Synchronize());
    const int64_t a_bytes = ends[1] - ends[0], b_bytes = ends[3] - ends[2];
    if (a_bytes + b_bytes > 0) {
      TANDEM_ASSIGN_OR_RAISE(out->data, DeviceBuffer::Allocate(a_bytes + b_bytes, stream));
      if (a_bytes > 0) {
        TANDEM_RETURN_NOT_OK(CopyDeviceToDevice(
            out->data.data(), a.data.data_as<const uint8_t>() + ends[0], a_bytes, stream));
      }
      if (b_bytes > 0) {
        TANDEM_RETURN_NOT_OK(CopyDeviceToDevice(out->data.data_as<uint8_t>() + a_bytes,
                                                b.data.data_as<const uint8_t>() + ends[2], b_bytes,
                                                stream));
      }
    }
    return out;
  }
  const int64_t width = DeviceByteWidth(a.type);
  TANDEM_ASSIGN_OR_RAISE(out->values, DeviceBuffer::Allocate(n * width, stream));
  if (na > 0) {
    TANDEM_RETURN_NOT_OK(
        CopyDeviceToDevice(out->values.data(), a.values.data(), na * width, stream));
  }
  if (nb > 0) {
    TANDEM_RETURN_NOT_OK(CopyDeviceToDevice(out->values.data_as<uint8_t>() + na * width,
                                            b.values.data(), nb * width, stream));
  }
  return out;
}

Result<DeviceBatchPtr> ConcatBatches(const DeviceBatch& a, const DeviceBatch& b,
                                     const Stream& stream) {
  if (a.columns.size() != b.columns.size()) {
    return Status::Internal("concatenating batches of " + std::to_string(a.columns.size()) +
                            " and " + std::to_string(b.columns.size()) + " columns");
  }
  auto out = std::make_shared<DeviceBatch>();
  out->schema = a.schema;
  out->num_rows = a.num_rows + b.num_rows;
  for (size_t c = 0; c < a.columns.size(); ++c) {
    TANDEM_ASSIGN_OR_RAISE(auto col, ConcatColumns(*a.columns[c], *b.columns[c], stream));
    out->columns.push_back(std::move(col));
  }
  return out;
}

Result<DeviceColumnPtr> RowNumberColumn(int64_t n, const Stream& stream) {
  auto col = std::make_shared<DeviceColumn>();
  col->type = DataType::Int64();
  col->length = n;
  TANDEM_ASSIGN_OR_RAISE(col->values, DeviceBuffer::Allocate(n * 8, stream));
  if (n > 0) {
    IotaKernel<<<GridFor(n), kBlockThreads, 0, CudaStream(stream)>>>(col->values.data_as<int64_t>(),
                                                                     n);
    TANDEM_RETURN_NOT_OK(LaunchStatus("row numbers"));
  }
  return col;
}

Status MarkRunStarts(const std::vector<const DeviceColumn*>& columns, int64_t* flags, int64_t n,
                     bool accumulate, const Stream& stream) {
  if (n == 0) return Status::OK();
  const cudaStream_t s = CudaStream(stream);
  if (!accumulate) {
    FirstFlagKernel<<<GridFor(n), kBlockThreads, 0, s>>>(flags, n);
    TANDEM_RETURN_NOT_OK(LaunchStatus("run start flags"));
  }
  for (const DeviceColumn* column : columns) {
    TANDEM_ASSIGN_OR_RAISE(keys::KeySet one, keys::MakeKeySet({column}));
    MarkDifferencesKernel<<<GridFor(n), kBlockThreads, 0, s>>>(one, flags, n);
    TANDEM_RETURN_NOT_OK(LaunchStatus("run start differences"));
  }
  return Status::OK();
}

Status InclusiveSumInt64(const int64_t* in, int64_t* out, int64_t n, const Stream& stream) {
  if (n == 0) return Status::OK();
  size_t temp_bytes = 0;
  const cudaStream_t s = CudaStream(stream);
  TANDEM_RETURN_NOT_OK(
      CudaStatus(cub::DeviceScan::InclusiveSum(nullptr, temp_bytes, in, out, n, s), "scan"));
  TANDEM_ASSIGN_OR_RAISE(DeviceBuffer temp,
                         keys::Scratch(static_cast<int64_t>(temp_bytes), stream));
  return CudaStatus(cub::DeviceScan::InclusiveSum(temp.data(), temp_bytes, in, out, n, s), "scan");
}

Result<int64_t> ReadDeviceInt64(const int64_t* device_value, const Stream& stream) {
  int64_t v = 0;
  TANDEM_RETURN_NOT_OK(CopyToHost(&v, device_value, 8, stream));
  TANDEM_RETURN_NOT_OK(stream.Synchronize());
  return v;
}

Result<DeviceBatchPtr> SetOperation(const PlanNode& node, const DeviceBatch& left,
                                    const DeviceBatch& right, GpuContext& ctx) {
  const std::string why = SetOperationUnsupported(node);
  if (!why.empty()) return Status::Unsupported("GPU set operation: " + why);
  TANDEM_RETURN_NOT_OK(CheckTypes(node, left));
  TANDEM_RETURN_NOT_OK(CheckTypes(node, right));
  const Stream& stream = *ctx.stream;
  TANDEM_ASSIGN_OR_RAISE(DeviceBatchPtr all, ConcatBatches(left, right, stream));
  all->schema = node.schema;
  if ((node.set_op == SetOpKind::kUnion && node.set_all) || all->num_rows == 0) return all;

  TANDEM_ASSIGN_OR_RAISE(DeviceBatchPtr sorted, SortAllColumns(*all, ctx));
  int64_t count = 0;
  TANDEM_ASSIGN_OR_RAISE(DeviceBuffer rows,
                         RowsToEmit(node, *sorted, left.num_rows, &count, stream));
  GatherOptions options;
  options.indices_nonnegative = true;
  TANDEM_ASSIGN_OR_RAISE(auto out, GatherBatch(*all, RowSource{rows.data_as<const int64_t>(), 0},
                                               count, options, stream));
  out->schema = node.schema;
  return out;
}

}  // namespace tandem::gpu
