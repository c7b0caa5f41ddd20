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

// One page: its compressed bytes in device memory, the host copy they were uploaded from (its
// framing is checked there first), and the device buffer its decompressed bytes go to, of exactly
// the size the page header gives.
struct DevicePage {
  const void* compressed = nullptr;
  const uint8_t* host_compressed = nullptr;
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

// Decompresses `pages` (all of `codec`) on `stream` in one batch and waits for it. Before the
// batch each page is checked on the host: its sizes and pointers, and its framing against the
// header's size (SNAPPY's length prefix, a ZSTD frame's magic and content size when given, a GZIP
// member's magic and ISIZE trailer); after it, every page's nvCOMP status and decompressed size.
// Invalid naming the first bad page ("page 3 of 10: ZSTD frame of 10 bytes, its header says 12")
// lets the caller fall back to the host, which reports the damage as a host read does;
// Unsupported where GpuDecompresses is false. Pages of 0 bytes out are left alone.
// Damage inside well-framed data is nvCOMP's to find: it promises an error status for LZ4 (on
// its CUDA backend, which is used here); for SNAPPY, ZSTD and GZIP its documentation leaves
// corrupt input undefined, so callers should send pages of files they do not trust (no page
// CRC) to the host. Buffers must meet nvCOMP's alignment (device pool allocations do).
Status DecompressPagesOnGpu(CompressionCodec codec, const std::vector<DevicePage>& pages,
                            const gpu::Stream& stream);

}  // namespace tandem::parquet::gpu_decode
