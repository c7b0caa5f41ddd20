// Bit unpacking for Parquet's little-endian bit-packed values (RLE/bit-packed hybrid runs and
// DELTA_BINARY_PACKED miniblocks). Reads never go past `avail_bytes`; missing trailing bits read
// as zero, so the caller decides whether running short is an error.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <utility>

namespace tandem::parquet::decode {

// The 4-byte little-endian length in front of RLE levels and RLE booleans.
inline uint32_t LoadLE32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

// Bits needed for values 0..max_value (the width of definition levels).
inline int BitWidthOf(int64_t max_value) {
  int w = 0;
  while (max_value > 0) {
    ++w;
    max_value >>= 1;
  }
  return w;
}

// Loads the 8 bytes at `byte` (zero-padded past avail_bytes).
inline uint64_t LoadWord(const uint8_t* base, int64_t avail_bytes, int64_t byte) {
  uint64_t word = 0;
  if (byte + 8 <= avail_bytes) {
    std::memcpy(&word, base + byte, 8);
  } else if (byte < avail_bytes) {
    std::memcpy(&word, base + byte, static_cast<size_t>(avail_bytes - byte));
  }
  return word;
}

// Value number `index` of width `bit_width` (0..64) in a packed stream starting at base.
inline uint64_t ExtractBits(const uint8_t* base, int64_t avail_bytes, int64_t index,
                            int bit_width) {
  if (bit_width == 0) return 0;
  const int64_t bit = index * bit_width;
  const int shift = static_cast<int>(bit & 7);
  const uint64_t lo = LoadWord(base, avail_bytes, bit >> 3) >> shift;
  if (bit_width + shift <= 64) {
    return bit_width == 64 ? lo : lo & ((uint64_t{1} << bit_width) - 1);
  }
  // Needs bits from a ninth byte (bit_width > 56).
  const uint64_t hi = LoadWord(base, avail_bytes, (bit >> 3) + 8);
  const uint64_t v = lo | (hi << (64 - shift));
  return bit_width == 64 ? v : v & ((uint64_t{1} << bit_width) - 1);
}

// Constant-width unpack; the caller guarantees 8 readable bytes past the last value's byte.
// Eight values of W bits fill W whole bytes, so from a value index that is a multiple of 8 on,
// each group of eight starts on a byte and every load offset and shift in it is a constant: the
// unrolled group costs a load, a shift and a mask per value, with no index arithmetic.
template <int W, typename T>
inline void UnpackConstantWidth(const uint8_t* base, int64_t first, int64_t n, T* out) {
  constexpr uint64_t kMask = (uint64_t{1} << W) - 1;
  auto one = [&](int64_t index) {
    const int64_t bit = index * W;
    uint64_t word;
    std::memcpy(&word, base + (bit >> 3), 8);
    return static_cast<T>((word >> (bit & 7)) & kMask);
  };
  int64_t i = 0;
  for (; i < n && ((first + i) & 7) != 0; ++i) out[i] = one(first + i);
  for (; i + 8 <= n; i += 8) {
    const uint8_t* group = base + ((first + i) >> 3) * W;
    [&]<int... J>(std::integer_sequence<int, J...>) {
      ((out[i + J] =
            [&] {
              uint64_t word;
              std::memcpy(&word, group + ((J * W) >> 3), 8);
              return static_cast<T>((word >> ((J * W) & 7)) & kMask);
            }()),
       ...);
    }
    (std::make_integer_sequence<int, 8>{});
  }
  for (; i < n; ++i) out[i] = one(first + i);
}

// Unpacks n values starting at value `first` into out (T = uint8_t/uint16_t/uint32_t/uint64_t).
// The values whose 8-byte loads stay inside the buffer take the fast paths; the last few (at
// most 8 bytes' worth) read the tail byte by byte.
template <typename T>
inline void UnpackBits(const uint8_t* base, int64_t avail_bytes, int64_t first, int bit_width,
                       int64_t n, T* out) {
  if (bit_width == 0) {
    for (int64_t i = 0; i < n; ++i) out[i] = 0;
    return;
  }
  // Values [first, first + fast) end at least 8 bytes before the end of the buffer.
  int64_t fast = 0;
  if (avail_bytes > 8) fast = std::min(n, ((avail_bytes - 8) * 8 - 7) / bit_width - first);
  if (fast > 0 && bit_width <= 32) {
    switch (bit_width) {
#define TANDEM_UNPACK_CASE(W)                       \
  case W:                                           \
    UnpackConstantWidth<W>(base, first, fast, out); \
    break;
      TANDEM_UNPACK_CASE(1)
      TANDEM_UNPACK_CASE(2)
      TANDEM_UNPACK_CASE(3)
      TANDEM_UNPACK_CASE(4)
      TANDEM_UNPACK_CASE(5)
      TANDEM_UNPACK_CASE(6)
      TANDEM_UNPACK_CASE(7)
      TANDEM_UNPACK_CASE(8)
      TANDEM_UNPACK_CASE(9)
      TANDEM_UNPACK_CASE(10)
      TANDEM_UNPACK_CASE(11)
      TANDEM_UNPACK_CASE(12)
      TANDEM_UNPACK_CASE(13)
      TANDEM_UNPACK_CASE(14)
      TANDEM_UNPACK_CASE(15)
      TANDEM_UNPACK_CASE(16)
      TANDEM_UNPACK_CASE(17)
      TANDEM_UNPACK_CASE(18)
      TANDEM_UNPACK_CASE(19)
      TANDEM_UNPACK_CASE(20)
      TANDEM_UNPACK_CASE(21)
      TANDEM_UNPACK_CASE(22)
      TANDEM_UNPACK_CASE(23)
      TANDEM_UNPACK_CASE(24)
#undef TANDEM_UNPACK_CASE
      default:
        fast = 0;
        break;
    }
  } else if (fast > 0 && bit_width <= 56) {
    const uint64_t mask = (uint64_t{1} << bit_width) - 1;
    for (int64_t i = 0; i < fast; ++i) {
      const int64_t bit = (first + i) * bit_width;
      uint64_t word;
      std::memcpy(&word, base + (bit >> 3), 8);
      out[i] = static_cast<T>((word >> (bit & 7)) & mask);
    }
  } else {
    fast = 0;
  }
  for (int64_t i = std::max<int64_t>(fast, 0); i < n; ++i) {
    out[i] = static_cast<T>(ExtractBits(base, avail_bytes, first + i, bit_width));
  }
}

}  // namespace tandem::parquet::decode
