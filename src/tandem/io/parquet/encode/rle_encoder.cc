// RLE / bit-packed hybrid encoder: run detection, LSB-first bit packing, run headers.
#include "tandem/io/parquet/encode/rle_encoder.h"

#include <algorithm>
#include <cstring>

namespace tandem::parquet {
namespace {

constexpr int64_t kMaxGroupsPerLiteralRun = 63;

void AppendVarint(uint64_t value, std::string* out) {
  while (value >= 0x80) {
    out->push_back(static_cast<char>((value & 0x7F) | 0x80));
    value >>= 7;
  }
  out->push_back(static_cast<char>(value));
}

void AppendRleRun(uint32_t value, int64_t count, int bit_width, std::string* out) {
  AppendVarint(static_cast<uint64_t>(count) << 1, out);
  const int bytes = (bit_width + 7) / 8;
  for (int i = 0; i < bytes; ++i) out->push_back(static_cast<char>((value >> (8 * i)) & 0xFF));
}

// Packs `groups` groups of 8 values (LSB first) into groups * bit_width bytes at dst.
void PackGroups(const uint32_t* values, int64_t groups, int bit_width, uint8_t* dst) {
  uint64_t acc = 0;
  int bits = 0;
  const int64_t n = groups * 8;
  for (int64_t i = 0; i < n; ++i) {
    acc |= static_cast<uint64_t>(values[i]) << bits;
    bits += bit_width;
    while (bits >= 8) {
      *dst++ = static_cast<uint8_t>(acc);
      acc >>= 8;
      bits -= 8;
    }
  }
}

// Appends bit-packed runs covering `count` values (the last group zero-padded).
void AppendLiteral(const uint32_t* values, int64_t count, int bit_width, std::string* out) {
  while (count > 0) {
    const int64_t take = std::min<int64_t>(count, kMaxGroupsPerLiteralRun * 8);
    const int64_t full_groups = take / 8;
    const int64_t groups = (take + 7) / 8;
    AppendVarint(static_cast<uint64_t>(groups << 1) | 1, out);
    const size_t pos = out->size();
    out->resize(pos + static_cast<size_t>(groups * bit_width));
    uint8_t* dst = reinterpret_cast<uint8_t*>(out->data()) + pos;
    PackGroups(values, full_groups, bit_width, dst);
    if (groups > full_groups) {
      uint32_t tail[8] = {0, 0, 0, 0, 0, 0, 0, 0};
      std::memcpy(tail, values + full_groups * 8, static_cast<size_t>(take - full_groups * 8) * 4);
      PackGroups(tail, 1, bit_width, dst + full_groups * bit_width);
    }
    values += take;
    count -= take;
  }
}

int64_t RunLength(const uint32_t* values, int64_t start, int64_t end) {
  const uint32_t v = values[start];
  int64_t i = start + 1;
  while (i < end && values[i] == v) ++i;
  return i - start;
}

}  // namespace

void EncodeRleBitPacked(const uint32_t* values, int64_t n, int bit_width, std::string* out) {
  int64_t i = 0;
  while (i < n) {
    const int64_t run = RunLength(values, i, n);
    if (run >= 8) {
      AppendRleRun(values[i], run, bit_width, out);
      i += run;
      continue;
    }
    // Literal groups of 8 until a group boundary starts a run of 8 or more.
    int64_t j = i + 8;
    while (j < n && RunLength(values, j, std::min(n, j + 8)) < 8) j += 8;
    const int64_t end = std::min(j, n);
    AppendLiteral(values + i, end - i, bit_width, out);
    i = end;
  }
}

namespace {

// The 8 definition levels of group g, i.e. bits [offset + 8g, offset + 8g + 8) of the bitmap,
// with bits past row n cleared.
inline uint8_t LevelGroup(const uint8_t* bits, int64_t offset, int64_t n, int64_t g) {
  const int64_t start = offset + g * 8;
  const int64_t last_bit = offset + n - 1;
  const int64_t byte = start >> 3;
  const int shift = static_cast<int>(start & 7);
  uint32_t v = bits[byte] >> shift;
  if (shift != 0 && ((last_bit >> 3) > byte))
    v |= static_cast<uint32_t>(bits[byte + 1]) << (8 - shift);
  const int64_t remaining = n - g * 8;
  if (remaining < 8) v &= (1u << remaining) - 1;
  return static_cast<uint8_t>(v);
}

inline uint8_t FullGroup(int64_t n, int64_t g) {
  const int64_t remaining = n - g * 8;
  return remaining >= 8 ? 0xFF : static_cast<uint8_t>((1u << remaining) - 1);
}

}  // namespace

void EncodeDefinitionLevels(const uint8_t* validity, int64_t offset, int64_t n, std::string* out) {
  if (n <= 0) return;
  if (validity == nullptr) {
    AppendRleRun(1, n, 1, out);
    return;
  }
  const int64_t groups = (n + 7) / 8;
  // Uniform group value: 0 (all null), 1 (all present) or -1 (mixed).
  auto uniform = [&](int64_t g) -> int {
    const uint8_t b = LevelGroup(validity, offset, n, g);
    if (b == 0) return 0;
    if (b == FullGroup(n, g)) return 1;
    return -1;
  };
  int64_t g = 0;
  while (g < groups) {
    const int u = uniform(g);
    if (u >= 0) {
      int64_t h = g + 1;
      while (h < groups && uniform(h) == u) ++h;
      if (h - g >= 2 || h == groups) {
        AppendRleRun(static_cast<uint32_t>(u), std::min(h * 8, n) - g * 8, 1, out);
        g = h;
        continue;
      }
    }
    // Literal: groups up to the next pair of equal uniform groups (or the run length cap).
    int64_t h = g + 1;
    while (h < groups && h - g < kMaxGroupsPerLiteralRun) {
      const int uh = uniform(h);
      if (uh >= 0 && (h + 1 == groups || uniform(h + 1) == uh)) break;
      ++h;
    }
    AppendVarint(static_cast<uint64_t>((h - g) << 1) | 1, out);
    for (int64_t k = g; k < h; ++k)
      out->push_back(static_cast<char>(LevelGroup(validity, offset, n, k)));
    g = h;
  }
}

int BitWidthForDictionary(int64_t num_entries) {
  int width = 1;
  while (width < 32 && (int64_t{1} << width) < num_entries) ++width;
  return width;
}

}  // namespace tandem::parquet
