// Parquet pages decompressed on the GPU, many pages in one batched call, with nvCOMP (PyPI
// nvidia-libnvcomp-cu13: headers at build time, the library opened at first use so that Tandem
// starts, and runs on the host path, where it is missing). The codecs are those nvCOMP reads the
// way Parquet writes them: SNAPPY (raw blocks), ZSTD (frames), LZ4_RAW (raw blocks) and GZIP
// (one gzip member per page; a page of several members fails, and its chunk decodes on the
// host). The deprecated Hadoop-framed LZ4 and BROTLI stay on the host.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tandem/common/status.h"
#include "tandem/gpu/runtime.h"
#include "tandem/io/parquet/metadata.h"

namespace tandem::parquet::gpu_decode {

// One page: its compressed bytes in device memory and the device buffer its decompressed bytes
// go to, of exactly the size the page header gives.
struct DevicePage {
  const void* compressed = nullptr;
  int64_t compressed_bytes = 0;
  void* out = nullptr;
  int64_t out_bytes = 0;
};

// Whether nvCOMP's headers were found when this was built (then GpuDecompresses is false only
// where its library does not open, or for the other codecs).
bool BuiltWithNvcomp();

// Whether this build and machine can decompress `codec` on the GPU: the codec is one of the four,
// nvCOMP's headers were found at build time and its library opens. `why_not` (optional) says why
// not, for EXPLAIN and tests.
bool GpuDecompresses(CompressionCodec codec, std::string* why_not = nullptr);

// Decompresses `pages` (all of `codec`) on `stream` in one batch and waits for it: every page's
// status and decompressed size are checked. Invalid naming the first damaged page ("page 3 of 10:
// corrupt ZSTD data (nvCOMP status 11)", "... decompressed to 10 bytes, its header says 12") so the
// caller can fall back to the host, which reports the damage as a host read does; Unsupported
// where GpuDecompresses is false. Pages of 0 bytes out are left alone. Buffers must meet nvCOMP's
// alignment (device pool allocations do: 256 bytes).
Status DecompressPagesOnGpu(CompressionCodec codec, const std::vector<DevicePage>& pages,
                            const gpu::Stream& stream);

}  // namespace tandem::parquet::gpu_decode
