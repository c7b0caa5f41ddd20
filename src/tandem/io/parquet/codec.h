// Page compression codecs of the Parquet format, backed by the Debian libraries (snappy, zlib,
// zstd, lz4, brotli). GZIP input may hold several concatenated members; LZ4 (deprecated) is the
// Hadoop framing of LZ4 blocks, with a fallback to raw LZ4 as other readers do.
#pragma once

#include <cstdint>
#include <string>

#include "tandem/common/status.h"
#include "tandem/io/parquet/metadata.h"

namespace tandem::parquet {

// Decompresses exactly `out_size` bytes into `out`; an Invalid status ("corrupt snappy data",
// "decompressed size 10 does not match the page header's 12") if the input is damaged.
Status Decompress(CompressionCodec codec, const uint8_t* in, int64_t in_size, uint8_t* out,
                  int64_t out_size);

// Compresses `in` and appends the result to `out`. `level` is used by ZSTD, GZIP and BROTLI.
Status Compress(CompressionCodec codec, const uint8_t* in, int64_t in_size, std::string* out,
                int level = 0);

bool CodecSupported(CompressionCodec codec);

}  // namespace tandem::parquet
