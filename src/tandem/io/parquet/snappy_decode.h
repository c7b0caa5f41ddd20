// Decompression of raw snappy blocks (the format of Parquet's SNAPPY pages), written here
// because Debian 12's libsnappy (1.1.9) calls an out-of-line memmove for every copy and literal
// tag, which made snappy half of a TPC-H scan's CPU time. Copies move 16 bytes at a time with
// unaligned loads where the output has room; the last bytes take a checked path. Every tag is
// validated (lengths, offsets, output size), so corrupt input is rejected, never overrun.
// libsnappy stays the compressor and, in tests, the oracle.
#pragma once

#include <cstdint>

namespace tandem::parquet {

// The uncompressed length a snappy block's preamble announces; false if the varint is damaged.
bool SnappyUncompressedLength(const uint8_t* in, int64_t in_size, int64_t* length);

// Decompresses the block into out, which must hold exactly out_size bytes (the preamble's
// length). False if the block is malformed or does not produce exactly out_size bytes.
bool SnappyDecompressBlock(const uint8_t* in, int64_t in_size, uint8_t* out, int64_t out_size);

}  // namespace tandem::parquet
