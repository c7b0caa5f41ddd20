// The rows of one hash partition of a device batch: how a GPU part of the plan runs in hash
// partitions (exec/hash_partition_plan.h, exec/gpu_hash_partitions.cc). A row belongs to
// partition (mixed hash of its key) mod `parts`; the hash is the joins' and aggregations' row
// hash (row_keys.cuh) mixed once more, so that the rows of one partition still spread over a
// hash table's slots. A NULL key belongs to partition 0, so every row is in exactly one.
#include <thrust/iterator/counting_iterator.h>

#include <cub/device/device_select.cuh>

#include "tandem/exec/gpu/gpu_operators_more.h"
#include "tandem/exec/gpu/row_keys.cuh"

namespace tandem::gpu {
namespace {

// Flags the rows of partition `part` and counts them (`*count`, zeroed before).
__global__ void FlagPartitionRows(keys::KeySet key, int64_t n, uint64_t parts, uint64_t part,
                                  uint8_t* flags, unsigned long long* count) {
  // Every thread of a block takes the same number of turns: __syncthreads_count needs them all.
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t base = static_cast<int64_t>(blockIdx.x) * blockDim.x; base < n; base += stride) {
    const int64_t row = base + threadIdx.x;
    bool mine = false;
    if (row < n) {
      uint64_t p = 0;
      if (!keys::IsNull(key.cols[0], row)) {
        p = (keys::Mix64(keys::HashRow(key, row) ^ 0x2545f4914f6cdd1dULL) >> 16) % parts;
      }
      mine = p == part;
      flags[row] = mine;
    }
    const int in_block = __syncthreads_count(mine);
    if (threadIdx.x == 0 && in_block > 0)
      atomicAdd(count, static_cast<unsigned long long>(in_block));
  }
}

}  // namespace

Result<DeviceBatchPtr> HashPartitionRows(const DeviceBatch& batch, int key_column, int parts,
                                         int part, const Stream& stream) {
  if (key_column < 0 || key_column >= static_cast<int>(batch.columns.size()) || parts < 1 ||
      part < 0 || part >= parts) {
    return Status::Internal("hash partition " + std::to_string(part) + " of " +
                            std::to_string(parts) + " by column " + std::to_string(key_column) +
                            " of a batch of " + std::to_string(batch.columns.size()) + " columns");
  }
  const int64_t n = batch.num_rows;
  if (parts == 1 || n == 0) return std::make_shared<DeviceBatch>(batch);
  TANDEM_ASSIGN_OR_RAISE(keys::KeySet key, keys::MakeKeySet({batch.columns[key_column].get()}));
  TANDEM_ASSIGN_OR_RAISE(DeviceBuffer flags, keys::Scratch(n, stream));
  TANDEM_ASSIGN_OR_RAISE(DeviceBuffer count, keys::Scratch(sizeof(int64_t), stream));
  auto cu_stream = keys::Raw(stream);
  TANDEM_RETURN_NOT_OK(keys::CudaStatus(
      cudaMemsetAsync(count.data(), 0, sizeof(int64_t), cu_stream), "hash partition count"));
  FlagPartitionRows<<<keys::GridFor(n), keys::kThreads, 0, cu_stream>>>(
      key, n, static_cast<uint64_t>(parts), static_cast<uint64_t>(part), flags.data_as<uint8_t>(),
      count.data_as<unsigned long long>());
  TANDEM_RETURN_NOT_OK(keys::LaunchStatus("hash partition flags"));
  int64_t selected = 0;
  TANDEM_RETURN_NOT_OK(CopyToHost(&selected, count.data(), sizeof(int64_t), stream));
  TANDEM_RETURN_NOT_OK(stream.Synchronize());
  // The row indices of the partition only: a fraction of the rows, not one index per row.
  TANDEM_ASSIGN_OR_RAISE(DeviceBuffer indices, keys::Scratch(selected * sizeof(int64_t), stream));
  thrust::counting_iterator<int64_t> rows(0);
  size_t temp_bytes = 0;
  TANDEM_RETURN_NOT_OK(keys::CudaStatus(
      cub::DeviceSelect::Flagged(nullptr, temp_bytes, rows, flags.data_as<uint8_t>(),
                                 indices.data_as<int64_t>(), count.data_as<int64_t>(), n,
                                 cu_stream),
      "hash partition select"));
  TANDEM_ASSIGN_OR_RAISE(DeviceBuffer temp,
                         keys::Scratch(static_cast<int64_t>(temp_bytes), stream));
  TANDEM_RETURN_NOT_OK(keys::CudaStatus(
      cub::DeviceSelect::Flagged(temp.data(), temp_bytes, rows, flags.data_as<uint8_t>(),
                                 indices.data_as<int64_t>(), count.data_as<int64_t>(), n,
                                 cu_stream),
      "hash partition select"));
  flags = DeviceBuffer();
  temp = DeviceBuffer();
  TANDEM_ASSIGN_OR_RAISE(DeviceBatchPtr out,
                         Gather(batch, indices.data_as<int64_t>(), selected, stream));
  out->schema = batch.schema;
  out->num_rows = selected;
  return out;
}

}  // namespace tandem::gpu
