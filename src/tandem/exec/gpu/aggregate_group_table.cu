// The device group table and row-selection helpers (see aggregate_group_table.cuh).
#include <thrust/iterator/counting_iterator.h>

#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>

#include "tandem/exec/gpu/aggregate_group_table.cuh"

namespace tandem::gpu::keys {
namespace {

constexpr unsigned long long kEmpty = ~0ULL;

__global__ void InsertRows(KeySet keys, int64_t n, const uint8_t* include, bool nulls_equal,
                           unsigned long long* slots, uint64_t mask, int64_t* rep, int* any_null) {
  TANDEM_GRID_LOOP(row, n) {
    if (include && !include[row]) {
      rep[row] = -1;
      continue;
    }
    if (!nulls_equal && AnyNull(keys, row)) {
      rep[row] = -1;
      *any_null = 1;
      continue;
    }
    uint64_t pos = HashRow(keys, row) & mask;
    for (;;) {
      unsigned long long cur = *reinterpret_cast<volatile unsigned long long*>(&slots[pos]);
      if (cur == kEmpty) {
        cur = atomicCAS(&slots[pos], kEmpty, static_cast<unsigned long long>(row));
        if (cur == kEmpty) {
          rep[row] = row;
          break;
        }
      }
      if (RowsEqual(keys, static_cast<int64_t>(cur), keys, row, nulls_equal)) {
        rep[row] = static_cast<int64_t>(cur);
        break;
      }
      pos = (pos + 1) & mask;
    }
  }
}

__global__ void FlagRepresentatives(const int64_t* rep, int64_t n, int64_t* flags) {
  TANDEM_GRID_LOOP(row, n) { flags[row] = rep[row] == row ? 1 : 0; }
}

__global__ void AssignGroups(const int64_t* rep, const int64_t* dense, int64_t n,
                             int64_t* group_of_row, int64_t* first_row) {
  TANDEM_GRID_LOOP(row, n) {
    const int64_t r = rep[row];
    if (r < 0) {
      group_of_row[row] = -1;
      continue;
    }
    const int64_t g = dense[r];
    group_of_row[row] = g;
    if (r == row) first_row[g] = row;
  }
}

__global__ void ProbeRows(KeySet build, const unsigned long long* slots, uint64_t mask,
                          const int64_t* group_of_row, bool nulls_equal, KeySet probe, int64_t n,
                          int64_t* out) {
  TANDEM_GRID_LOOP(row, n) {
    int64_t found = -1;
    if (nulls_equal || !AnyNull(probe, row)) {
      uint64_t pos = HashRow(probe, row) & mask;
      for (;;) {
        const unsigned long long cur = slots[pos];
        if (cur == kEmpty) break;
        if (RowsEqual(build, static_cast<int64_t>(cur), probe, row, nulls_equal)) {
          found = group_of_row[cur];
          break;
        }
        pos = (pos + 1) & mask;
      }
    }
    out[row] = found;
  }
}

__global__ void FillKernel(int64_t* dst, int64_t n, int64_t value) {
  TANDEM_GRID_LOOP(i, n) { dst[i] = value; }
}

struct FlagIs {
  const uint8_t* flags;
  bool want;
  __device__ bool operator()(int64_t r) const { return (flags[r] != 0) == want; }
};

}  // namespace

Status FillInt64(int64_t* dst, int64_t n, int64_t value, const Stream& stream) {
  if (n <= 0) return Status::OK();
  FillKernel<<<GridFor(n), kThreads, 0, Raw(stream)>>>(dst, n, value);
  return LaunchStatus("fill");
}

Result<int64_t> ExclusiveScan(const int64_t* in, int64_t* out, int64_t n, const Stream& stream) {
  cudaStream_t s = Raw(stream);
  TANDEM_RETURN_NOT_OK(CudaStatus(cudaMemsetAsync(out, 0, sizeof(int64_t), s), "memset"));
  if (n > 0) {
    size_t temp_bytes = 0;
    TANDEM_RETURN_NOT_OK(CudaStatus(
        cub::DeviceScan::InclusiveSum(nullptr, temp_bytes, in, out + 1, n, s), "scan size"));
    TANDEM_ASSIGN_OR_RAISE(auto temp, Scratch(static_cast<int64_t>(temp_bytes), stream));
    TANDEM_RETURN_NOT_OK(CudaStatus(
        cub::DeviceScan::InclusiveSum(temp.data(), temp_bytes, in, out + 1, n, s), "scan"));
  }
  int64_t total = 0;
  TANDEM_RETURN_NOT_OK(CopyToHost(&total, out + n, sizeof(int64_t), stream));
  TANDEM_RETURN_NOT_OK(stream.Synchronize());
  return total;
}

Result<RowList> SelectRows(const uint8_t* flags, int64_t n, bool want, const Stream& stream) {
  RowList out;
  TANDEM_ASSIGN_OR_RAISE(out.rows, Scratch(n * static_cast<int64_t>(sizeof(int64_t)), stream));
  if (n == 0) return std::move(out);
  cudaStream_t s = Raw(stream);
  TANDEM_ASSIGN_OR_RAISE(auto count, Scratch(sizeof(int64_t), stream));
  thrust::counting_iterator<int64_t> first(0);
  const FlagIs pred{flags, want};
  size_t temp_bytes = 0;
  TANDEM_RETURN_NOT_OK(
      CudaStatus(cub::DeviceSelect::If(nullptr, temp_bytes, first, out.rows.data_as<int64_t>(),
                                       count.data_as<int64_t>(), n, pred, s),
                 "select size"));
  TANDEM_ASSIGN_OR_RAISE(auto temp, Scratch(static_cast<int64_t>(temp_bytes), stream));
  TANDEM_RETURN_NOT_OK(
      CudaStatus(cub::DeviceSelect::If(temp.data(), temp_bytes, first, out.rows.data_as<int64_t>(),
                                       count.data_as<int64_t>(), n, pred, s),
                 "select"));
  TANDEM_RETURN_NOT_OK(CopyToHost(&out.count, count.data(), sizeof(int64_t), stream));
  TANDEM_RETURN_NOT_OK(stream.Synchronize());
  return std::move(out);
}

Result<GroupTable> BuildGroupTable(const KeySet& keys, int64_t n, const uint8_t* include,
                                   bool nulls_equal, const Stream& stream) {
  GroupTable t;
  t.keys = keys;
  t.nulls_equal = nulls_equal;
  t.num_rows = n;
  uint64_t slots = 16;
  while (slots < static_cast<uint64_t>(n) * 2) slots <<= 1;
  t.slot_mask = slots - 1;
  cudaStream_t s = Raw(stream);
  const int64_t row_bytes = n * static_cast<int64_t>(sizeof(int64_t));
  TANDEM_ASSIGN_OR_RAISE(t.slots, Scratch(static_cast<int64_t>(slots * 8), stream));
  TANDEM_RETURN_NOT_OK(MemsetDevice(t.slots.data(), 0xFF, static_cast<int64_t>(slots * 8), stream));
  TANDEM_ASSIGN_OR_RAISE(auto rep, Scratch(row_bytes, stream));
  TANDEM_ASSIGN_OR_RAISE(auto flags, Scratch(row_bytes, stream));
  TANDEM_ASSIGN_OR_RAISE(auto dense, Scratch(row_bytes + 8, stream));
  TANDEM_ASSIGN_OR_RAISE(auto any_null, Scratch(sizeof(int), stream));
  TANDEM_RETURN_NOT_OK(MemsetDevice(any_null.data(), 0, sizeof(int), stream));
  if (n > 0) {
    InsertRows<<<GridFor(n), kThreads, 0, s>>>(keys, n, include, nulls_equal,
                                               t.slots.data_as<unsigned long long>(), t.slot_mask,
                                               rep.data_as<int64_t>(), any_null.data_as<int>());
    TANDEM_RETURN_NOT_OK(LaunchStatus("group insert"));
    FlagRepresentatives<<<GridFor(n), kThreads, 0, s>>>(rep.data_as<int64_t>(), n,
                                                        flags.data_as<int64_t>());
    TANDEM_RETURN_NOT_OK(LaunchStatus("group flags"));
  }
  TANDEM_ASSIGN_OR_RAISE(
      t.num_groups, ExclusiveScan(flags.data_as<int64_t>(), dense.data_as<int64_t>(), n, stream));
  int host_any_null = 0;
  TANDEM_RETURN_NOT_OK(CopyToHost(&host_any_null, any_null.data(), sizeof(int), stream));
  TANDEM_ASSIGN_OR_RAISE(t.group_of_row, Scratch(row_bytes, stream));
  TANDEM_ASSIGN_OR_RAISE(t.group_first_row,
                         Scratch(t.num_groups * static_cast<int64_t>(sizeof(int64_t)), stream));
  if (n > 0) {
    AssignGroups<<<GridFor(n), kThreads, 0, s>>>(rep.data_as<int64_t>(), dense.data_as<int64_t>(),
                                                 n, t.group_of_row.data_as<int64_t>(),
                                                 t.group_first_row.data_as<int64_t>());
    TANDEM_RETURN_NOT_OK(LaunchStatus("group assign"));
  }
  TANDEM_RETURN_NOT_OK(stream.Synchronize());
  t.any_null_key = host_any_null != 0;
  return std::move(t);
}

Status ProbeGroupTable(const GroupTable& table, const KeySet& probe, int64_t n, int64_t* out_group,
                       const Stream& stream) {
  if (n == 0) return Status::OK();
  ProbeRows<<<GridFor(n), kThreads, 0, Raw(stream)>>>(
      table.keys, table.slots.data_as<unsigned long long>(), table.slot_mask,
      table.group_of_row.data_as<int64_t>(), table.nulls_equal, probe, n, out_group);
  return LaunchStatus("group probe");
}

}  // namespace tandem::gpu::keys
