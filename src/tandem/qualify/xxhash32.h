// XXH32, the 32-bit xxHash of Yann Collet. lz4-java's LZ4BlockOutputStream stores it (seed
// 0x9747b28c, masked to 28 bits) as the checksum of every block; liblz4 does not export it, and
// it is short, so it lives here.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tandem::qualify {

uint32_t XxHash32(const uint8_t* data, size_t size, uint32_t seed);

}  // namespace tandem::qualify
