// Bit helpers for Arrow-layout validity bitmaps and boolean columns (LSB-first bit order).
#pragma once

#include <cstdint>
#include <cstring>

namespace tandem::bit_util {

inline int64_t BytesForBits(int64_t bits) { return (bits + 7) >> 3; }
inline bool GetBit(const uint8_t* bits, int64_t i) { return (bits[i >> 3] >> (i & 7)) & 1; }
inline void SetBit(uint8_t* bits, int64_t i) {
  bits[i >> 3] |= static_cast<uint8_t>(1u << (i & 7));
}
inline void ClearBit(uint8_t* bits, int64_t i) {
  bits[i >> 3] &= static_cast<uint8_t>(~(1u << (i & 7)));
}
inline void SetBitTo(uint8_t* bits, int64_t i, bool v) {
  bits[i >> 3] = static_cast<uint8_t>((bits[i >> 3] & ~(1u << (i & 7))) | (unsigned(v) << (i & 7)));
}

// Number of set bits in [offset, offset + length).
int64_t CountSetBits(const uint8_t* bits, int64_t offset, int64_t length);

// Sets bits [offset, offset + length) to value.
void SetBitsTo(uint8_t* bits, int64_t offset, int64_t length, bool value);

// Copies length bits from src starting at src_offset into dst starting at dst_offset.
void CopyBits(const uint8_t* src, int64_t src_offset, int64_t length, uint8_t* dst,
              int64_t dst_offset);

}  // namespace tandem::bit_util
