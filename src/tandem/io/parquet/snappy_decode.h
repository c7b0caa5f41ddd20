// Decompression of raw snappy blocks (the format of Parquet's SNAPPY pages), written here
// because Debian 12's libsnappy (1.1.9) calls an out-of-line memmove for every copy and literal
// tag, which made snappy half of a TPC-H scan's CPU time. Where the output has room, a copy whose
// source ends before its destination (and a literal of up to 64 bytes) is one unaligned 64-byte
// load and store, other copies move 16 or 8 bytes at a time; the last bytes take a checked path.
// Every tag is validated (lengths, offsets, output size), so corrupt input is rejected, never
// overrun. libsnappy stays the compressor and, in tests, the oracle.
#pragma once

#include <cstdint>

namespace tandem::parquet {

// The uncompressed length a snappy block's preamble announces; false if the varint is damaged.
bool SnappyUncompressedLength(const uint8_t* in, int64_t in_size, int64_t* length);

// Decompresses the block into out, which must hold exactly out_size bytes (the preamble's
// length). False if the block is malformed or does not produce exactly out_size bytes.
bool SnappyDecompressBlock(const uint8_t* in, int64_t in_size, uint8_t* out, int64_t out_size);

}  // namespace tandem::parquet
