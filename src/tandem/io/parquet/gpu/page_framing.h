// The framing of a compressed Parquet page checked on the host against the size its header
// gives, before the page is decompressed on the GPU (page_decompress.h), whose decompressors do
// not promise to catch damage: SNAPPY's length prefix, a ZSTD frame's magic number and its
// content size when the frame gives one, a GZIP member's magic bytes and ISIZE trailer (the size
// modulo 2^32; a page of several members, which the host reads, fails here). LZ4_RAW has no
// framing to check. Plain C++, tested without a GPU.
#pragma once

#include <cstdint>

#include "tandem/common/status.h"
#include "tandem/io/parquet/metadata.h"

namespace tandem::parquet::gpu_decode {

// Invalid ("ZSTD frame of 10 bytes, its header says 12") when the framing disagrees.
Status CheckPageFraming(CompressionCodec codec, const uint8_t* data, int64_t size,
                        int64_t out_bytes);

}  // namespace tandem::parquet::gpu_decode
