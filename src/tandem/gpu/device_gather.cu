// Device row gathering (gather.h) and the public Gather, GatherColumn and SliceRows built on it.
// Phase 1 gathers fixed-width values and validity (counting NULLs per column) and computes the
// output string offsets (lengths, then a CUB exclusive scan); one synchronization brings the NULL
// counts and string byte counts back; phase 2 sizes and copies the string bytes (a warp per row).
// A full permutation (sorts) knows both counts from its source and never synchronizes.
#include <cstring>
#include <cub/block/block_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <vector>

#include "tandem/gpu/cuda_util.cuh"
#include "tandem/gpu/device_column.h"
#include "tandem/gpu/gather.h"

namespace tandem::gpu {
namespace {

struct RowIndex {
  const int64_t* indices;
  int64_t first;
  __device__ int64_t operator()(int64_t i) const { return indices ? indices[i] : first + i; }
};

struct alignas(16) Bytes16 {
  uint64_t lo, hi;
};

__device__ inline bool BitAt(const uint8_t* bits, int64_t i) {
  return (bits[i >> 3] >> (i & 7)) & 1;
}

template <typename T>
__global__ void GatherFixedKernel(const T* src, T* dst, RowIndex rows, int64_t count) {
  const int64_t stride = int64_t{gridDim.x} * blockDim.x;
  for (int64_t i = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < count; i += stride) {
    const int64_t r = rows(i);
    dst[i] = r < 0 ? T{} : src[r];
  }
}

// One thread per output bitmap byte (8 rows); NULLs are summed per block, then added atomically.
__global__ void GatherValidityKernel(const uint8_t* src_bits, uint8_t* dst_bits, RowIndex rows,
                                     int64_t count, unsigned long long* null_count) {
  using BlockReduce = cub::BlockReduce<long long, kBlockThreads>;
  __shared__ typename BlockReduce::TempStorage temp;
  const int64_t bytes = (count + 7) / 8;
  const int64_t stride = int64_t{gridDim.x} * blockDim.x;
  long long nulls = 0;
  for (int64_t j = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; j < bytes; j += stride) {
    unsigned out = 0;
    for (int k = 0; k < 8; ++k) {
      const int64_t i = j * 8 + k;
      if (i >= count) break;
      const int64_t r = rows(i);
      const bool valid = r >= 0 && (src_bits == nullptr || BitAt(src_bits, r));
      out |= static_cast<unsigned>(valid) << k;
      nulls += !valid;
    }
    dst_bits[j] = static_cast<uint8_t>(out);
  }
  const long long block_nulls = BlockReduce(temp).Sum(nulls);
  if (threadIdx.x == 0 && block_nulls != 0 && null_count != nullptr) {
    atomicAdd(null_count, static_cast<unsigned long long>(block_nulls));
  }
}

// Output row lengths into dst_offsets[0, count) and 0 at [count], ready for an exclusive scan.
__global__ void StringLengthsKernel(const int64_t* src_offsets, int64_t* dst_offsets, RowIndex rows,
                                    int64_t count) {
  const int64_t stride = int64_t{gridDim.x} * blockDim.x;
  for (int64_t i = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i <= count; i += stride) {
    int64_t length = 0;
    if (i < count) {
      const int64_t r = rows(i);
      if (r >= 0) length = src_offsets[r + 1] - src_offsets[r];
    }
    dst_offsets[i] = length;
  }
}

// A warp per output row copies its bytes.
__global__ void StringCopyKernel(const int64_t* src_offsets, const uint8_t* src,
                                 const int64_t* dst_offsets, uint8_t* dst, RowIndex rows,
                                 int64_t count) {
  const int64_t lane = threadIdx.x % 32;
  const int64_t warps = int64_t{gridDim.x} * blockDim.x / 32;
  for (int64_t row = (int64_t{blockIdx.x} * blockDim.x + threadIdx.x) / 32; row < count;
       row += warps) {
    const int64_t r = rows(row);
    if (r < 0) continue;
    const int64_t from = src_offsets[r];
    const int64_t to = dst_offsets[row];
    const int64_t length = dst_offsets[row + 1] - to;
    for (int64_t b = lane; b < length; b += 32) dst[to + b] = src[from + b];
  }
}

template <typename T>
Status LaunchGatherFixed(const DeviceColumn& src, DeviceColumn& out, RowIndex rows, int64_t count,
                         cudaStream_t stream) {
  GatherFixedKernel<T><<<GridFor(count), kBlockThreads, 0, stream>>>(
      src.values.data_as<const T>(), out.values.data_as<T>(), rows, count);
  return LaunchStatus("gather values");
}

Status GatherFixed(const DeviceColumn& src, DeviceColumn& out, RowIndex rows, int64_t count,
                   const Stream& stream) {
  const int width = DeviceByteWidth(src.type);
  TANDEM_ASSIGN_OR_RAISE(out.values, DeviceBuffer::Allocate(count * width, stream));
  if (count == 0) return Status::OK();
  const cudaStream_t s = CudaStream(stream);
  switch (width) {
    case 1:
      return LaunchGatherFixed<uint8_t>(src, out, rows, count, s);
    case 2:
      return LaunchGatherFixed<uint16_t>(src, out, rows, count, s);
    case 4:
      return LaunchGatherFixed<uint32_t>(src, out, rows, count, s);
    case 8:
      return LaunchGatherFixed<uint64_t>(src, out, rows, count, s);
    case 16:
      return LaunchGatherFixed<Bytes16>(src, out, rows, count, s);
  }
  return Status::Internal("gather: unexpected value width " + std::to_string(width));
}

// Offsets of the gathered strings; their total lands in *total_slot (device) when not null.
Status GatherStringOffsets(const DeviceColumn& src, DeviceColumn& out, RowIndex rows, int64_t count,
                           int64_t* total_slot, const Stream& stream) {
  const cudaStream_t s = CudaStream(stream);
  TANDEM_ASSIGN_OR_RAISE(out.values, DeviceBuffer::Allocate((count + 1) * 8, stream));
  int64_t* offsets = out.values.data_as<int64_t>();
  StringLengthsKernel<<<GridFor(count + 1), kBlockThreads, 0, s>>>(
      src.values.data_as<const int64_t>(), offsets, rows, count);
  TANDEM_RETURN_NOT_OK(LaunchStatus("string lengths"));
  size_t temp_bytes = 0;
  TANDEM_RETURN_NOT_OK(CudaStatus(
      cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, offsets, count + 1, s), "scan"));
  TANDEM_ASSIGN_OR_RAISE(DeviceBuffer temp,
                         DeviceBuffer::Allocate(static_cast<int64_t>(temp_bytes), stream));
  TANDEM_RETURN_NOT_OK(CudaStatus(
      cub::DeviceScan::ExclusiveSum(temp.data(), temp_bytes, offsets, count + 1, s), "scan"));
  if (total_slot == nullptr) return Status::OK();
  return CopyDeviceToDevice(total_slot, offsets + count, 8, stream);
}

Status GatherStringBytes(const DeviceColumn& src, DeviceColumn& out, RowIndex rows, int64_t count,
                         int64_t total_bytes, const Stream& stream) {
  if (total_bytes == 0 || count == 0) return Status::OK();
  TANDEM_ASSIGN_OR_RAISE(out.data, DeviceBuffer::Allocate(total_bytes, stream));
  StringCopyKernel<<<GridFor(count * 32), kBlockThreads, 0, CudaStream(stream)>>>(
      src.values.data_as<const int64_t>(), src.data.data_as<const uint8_t>(),
      out.values.data_as<const int64_t>(), out.data.data_as<uint8_t>(), rows, count);
  return LaunchStatus("string copy");
}

}  // namespace

Result<DeviceBatchPtr> GatherBatch(const DeviceBatch& batch, RowSource source, int64_t count,
                                   const GatherOptions& options, const Stream& stream) {
  if (count < 0) return Status::Invalid("gather: negative row count");
  const RowIndex rows{source.indices, source.first};
  const bool full = options.full_permutation;
  const bool nonnegative = options.indices_nonnegative || full;
  const int64_t ncol = static_cast<int64_t>(batch.columns.size());
  const cudaStream_t s = CudaStream(stream);

  // Device slots: [0, ncol) NULL counts, [ncol, 2 ncol) string byte counts.
  DeviceBuffer slots;
  if (!full && ncol > 0) {
    TANDEM_ASSIGN_OR_RAISE(slots, DeviceBuffer::Allocate(2 * ncol * 8, stream));
    TANDEM_RETURN_NOT_OK(MemsetDevice(slots.data(), 0, slots.size(), stream));
  }
  auto* null_slots = full ? nullptr : slots.data_as<unsigned long long>();
  auto* byte_slots = full ? nullptr : slots.data_as<int64_t>() + ncol;

  auto out = std::make_shared<DeviceBatch>();
  out->schema = batch.schema;
  out->num_rows = count;
  std::vector<bool> has_validity(ncol, false);
  for (int64_t c = 0; c < ncol; ++c) {
    if (!batch.columns[c]) {  // a column no consumer reads: left out (GatherBatch's contract)
      out->columns.push_back(nullptr);
      continue;
    }
    const DeviceColumn& src = *batch.columns[c];
    auto col = std::make_shared<DeviceColumn>();
    col->type = src.type;
    col->length = count;
    has_validity[c] = src.has_validity() || !nonnegative;
    if (has_validity[c] && count > 0) {
      TANDEM_ASSIGN_OR_RAISE(col->validity, DeviceBuffer::Allocate((count + 7) / 8, stream));
      GatherValidityKernel<<<GridFor((count + 7) / 8), kBlockThreads, 0, s>>>(
          src.validity.data_as<const uint8_t>(), col->validity.data_as<uint8_t>(), rows, count,
          null_slots == nullptr ? nullptr : null_slots + c);
      TANDEM_RETURN_NOT_OK(LaunchStatus("gather validity"));
    }
    if (src.type.is_string_like()) {
      TANDEM_RETURN_NOT_OK(GatherStringOffsets(
          src, *col, rows, count, byte_slots == nullptr ? nullptr : byte_slots + c, stream));
    } else {
      TANDEM_RETURN_NOT_OK(GatherFixed(src, *col, rows, count, stream));
    }
    out->columns.push_back(std::move(col));
  }

  std::vector<int64_t> host_slots(2 * ncol, 0);
  if (!full && ncol > 0) {
    TANDEM_ASSIGN_OR_RAISE(PinnedBuffer pinned, PinnedBuffer::Allocate(slots.size()));
    TANDEM_RETURN_NOT_OK(CopyToHost(pinned.data(), slots.data(), slots.size(), stream));
    TANDEM_RETURN_NOT_OK(stream.Synchronize());
    std::memcpy(host_slots.data(), pinned.data(), static_cast<size_t>(slots.size()));
  }

  for (int64_t c = 0; c < ncol; ++c) {
    if (!batch.columns[c]) continue;
    const DeviceColumn& src = *batch.columns[c];
    DeviceColumn& col = *out->columns[c];
    if (full) {
      col.null_count = src.null_count;
    } else {
      col.null_count = has_validity[c] ? host_slots[c] : 0;
    }
    if (col.null_count == 0) col.validity = DeviceBuffer();
    if (src.type.is_string_like()) {
      // A permutation moves every byte: the source's data buffer size bounds the total.
      const int64_t total = full ? src.data.size() : host_slots[ncol + c];
      TANDEM_RETURN_NOT_OK(GatherStringBytes(src, col, rows, count, total, stream));
    }
  }
  return out;
}

Result<DeviceBatchPtr> Gather(const DeviceBatch& batch, const int64_t* device_indices,
                              int64_t count, const Stream& stream) {
  return GatherBatch(batch, RowSource{device_indices, 0}, count, GatherOptions{}, stream);
}

Result<DeviceColumnPtr> GatherColumn(const DeviceColumn& column, const int64_t* device_indices,
                                     int64_t count, const Stream& stream) {
  DeviceBatch one;
  one.num_rows = column.length;
  // A non-owning alias: the batch lives only for this call.
  one.columns.push_back(DeviceColumnPtr(DeviceColumnPtr(), const_cast<DeviceColumn*>(&column)));
  TANDEM_ASSIGN_OR_RAISE(auto out, Gather(one, device_indices, count, stream));
  return out->columns[0];
}

Result<DeviceBatchPtr> SliceRows(const DeviceBatch& batch, int64_t begin, int64_t length,
                                 const Stream& stream) {
  if (begin < 0 || length < 0 || begin + length > batch.num_rows) {
    return Status::Invalid("SliceRows: rows [" + std::to_string(begin) + ", " +
                           std::to_string(begin + length) + ") outside a batch of " +
                           std::to_string(batch.num_rows) + " rows");
  }
  GatherOptions options;
  options.indices_nonnegative = true;
  return GatherBatch(batch, RowSource{nullptr, begin}, length, options, stream);
}

}  // namespace tandem::gpu
