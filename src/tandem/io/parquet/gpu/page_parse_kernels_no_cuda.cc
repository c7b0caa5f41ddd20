// Stand-in for page_parse_kernels.cu in builds without nvcc: no device to parse pages on.
#include "tandem/io/parquet/gpu/page_parse_kernels.h"

namespace tandem::parquet::gpu_decode {

Result<ParsedChunks> ParseChunksOnDevice(const std::vector<ChunkPages>&, const gpu::Stream&) {
  return Status::Unsupported("no CUDA device");
}

Result<DevicePageTables> ParsePagesOnDevice(const uint8_t*, int64_t,
                                            const std::vector<DevicePagePlan>&,
                                            const DeviceColumnParse&, int64_t, const gpu::Stream&) {
  return Status::Unsupported("no CUDA device");
}

}  // namespace tandem::parquet::gpu_decode
