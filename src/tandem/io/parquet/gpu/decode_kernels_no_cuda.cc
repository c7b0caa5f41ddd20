// Stand-ins for decode_kernels.cu in builds without nvcc: no device, so nothing to decode on.
#include "tandem/io/parquet/gpu/decode_kernels.h"

namespace tandem::parquet::gpu_decode {

Result<gpu::DeviceColumnPtr> DecodeOnDevice(const StagedChunk&, int32_t*, const gpu::Stream&) {
  return Status::Unsupported("no CUDA device");
}

std::vector<Result<gpu::DeviceColumnPtr>> DecodeDeferredOnDevice(
    const std::vector<const StagedChunk*>& chunks, const std::vector<int32_t*>&,
    const gpu::Stream&) {
  std::vector<Result<gpu::DeviceColumnPtr>> out;
  for (size_t i = 0; i < chunks.size(); ++i)
    out.emplace_back(Status::Unsupported("no CUDA device"));
  return out;
}

Result<gpu::DeviceColumnPtr> ConcatColumns(const std::vector<gpu::DeviceColumnPtr>&,
                                           const DataType&, const gpu::Stream&) {
  return Status::Unsupported("no CUDA device");
}

Result<gpu::DeviceColumnPtr> EmptyColumn(const DataType&, const gpu::Stream&) {
  return Status::Unsupported("no CUDA device");
}

}  // namespace tandem::parquet::gpu_decode
