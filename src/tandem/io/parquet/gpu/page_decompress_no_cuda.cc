// Builds without nvcc: no page is decompressed on the GPU (see page_decompress.h).
#include "tandem/io/parquet/gpu/page_decompress.h"

namespace tandem::parquet::gpu_decode {

bool BuiltWithNvcomp() { return false; }

bool GpuDecompresses(CompressionCodec, std::string* why_not) {
  if (why_not) *why_not = "built without CUDA";
  return false;
}

Status DecompressPagesOnGpu(CompressionCodec, const std::vector<DevicePage>&, const gpu::Stream&) {
  return Status::Unsupported("GPU decompression: built without CUDA");
}

}  // namespace tandem::parquet::gpu_decode
