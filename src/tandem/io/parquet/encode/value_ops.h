// Per physical value kind: how a value is PLAIN-encoded, hashed and compared for the dictionary,
// and ordered and serialised for statistics (Parquet's sort order of the column's logical type:
// signed or unsigned integers, floats without NaN, unsigned bytewise for byte arrays, signed
// two's complement for decimals). The chunk encoder is a template over these small structs, so
// the per-value work inlines into tight loops.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>

#include "tandem/types/data_type.h"

namespace tandem::parquet {

inline uint64_t MixHash(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

inline uint64_t Load64(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
inline uint32_t Load32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

// The bytes of a string shorter than 8 bytes folded into one word with at most three loads,
// none outside the string (byte-wise copies into a stack word stall store forwarding).
inline uint64_t LoadShort(const char* p, size_t n) {
  if (n >= 4) return Load32(p) | (static_cast<uint64_t>(Load32(p + n - 4)) << 32);
  if (n == 0) return 0;
  return static_cast<uint8_t>(p[0]) | (static_cast<uint64_t>(static_cast<uint8_t>(p[n / 2])) << 8) |
         (static_cast<uint64_t>(static_cast<uint8_t>(p[n - 1])) << 16);
}

inline uint64_t HashBytes(const char* p, size_t n) {
  uint64_t h = 0x9E3779B97F4A7C15ULL ^ n;
  if (n < 8) return MixHash(h ^ LoadShort(p, n));
  const size_t whole = n & ~size_t{7};
  for (size_t i = 0; i < whole; i += 8) h = (h ^ MixHash(Load64(p + i))) * 0x100000001b3ULL;
  if (whole < n) h ^= MixHash(Load64(p + n - 8) + 1);  // overlapping load of the last bytes
  return MixHash(h);
}

// Unsigned bytewise a < b, eight bytes at a time.
inline bool LessBytes(std::string_view a, std::string_view b) {
  const size_t m = a.size() < b.size() ? a.size() : b.size();
  size_t i = 0;
  for (; i + 8 <= m; i += 8) {
    const uint64_t x = __builtin_bswap64(Load64(a.data() + i));
    const uint64_t y = __builtin_bswap64(Load64(b.data() + i));
    if (x != y) return x < y;
  }
  for (; i < m; ++i) {
    if (a[i] != b[i]) return static_cast<uint8_t>(a[i]) < static_cast<uint8_t>(b[i]);
  }
  return a.size() < b.size();
}

// Equality of two byte strings, inline for short ones.
inline bool SameBytes(std::string_view a, std::string_view b) {
  const size_t n = a.size();
  if (n != b.size()) return false;
  if (n < 8) return LoadShort(a.data(), n) == LoadShort(b.data(), n);
  if (n <= 16) {
    return Load64(a.data()) == Load64(b.data()) &&
           Load64(a.data() + n - 8) == Load64(b.data() + n - 8);
  }
  return std::memcmp(a.data(), b.data(), n) == 0;
}

template <typename T>
inline void AppendRaw(const T& v, std::string* out) {
  out->append(reinterpret_cast<const char*>(&v), sizeof(T));
}

// INT32 / INT64 (little-endian host). kUnsigned selects the unsigned sort order for statistics.
template <typename T, bool kUnsigned>
struct IntOps {
  using Value = T;
  static constexpr bool kDictionary = true;
  static constexpr bool kLegacyStats = !kUnsigned;  // deprecated min/max use signed order
  int64_t PlainSize(T) const { return sizeof(T); }
  void AppendPlain(const T* v, int64_t n, std::string* out) const {
    out->append(reinterpret_cast<const char*>(v), static_cast<size_t>(n) * sizeof(T));
  }
  uint64_t Hash(T v) const { return MixHash(static_cast<std::make_unsigned_t<T>>(v)); }
  bool Same(T a, T b) const { return a == b; }
  bool Skip(T) const { return false; }
  bool Less(T a, T b) const {
    if constexpr (kUnsigned) {
      using U = std::make_unsigned_t<T>;
      return static_cast<U>(a) < static_cast<U>(b);
    } else {
      return a < b;
    }
  }
  void AppendStat(T v, bool /*is_min*/, std::string* out) const { AppendRaw(v, out); }
};

// FLOAT / DOUBLE: dictionary keys by bit pattern; statistics skip NaN and write -0.0 as the
// minimum and +0.0 as the maximum when the extreme is a zero (the specification's rule).
template <typename T>
struct FloatOps {
  using Value = T;
  using Bits = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  static constexpr bool kDictionary = true;
  static constexpr bool kLegacyStats = true;
  static Bits ToBits(T v) {
    Bits b;
    std::memcpy(&b, &v, sizeof(T));
    return b;
  }
  int64_t PlainSize(T) const { return sizeof(T); }
  void AppendPlain(const T* v, int64_t n, std::string* out) const {
    out->append(reinterpret_cast<const char*>(v), static_cast<size_t>(n) * sizeof(T));
  }
  uint64_t Hash(T v) const { return MixHash(ToBits(v)); }
  bool Same(T a, T b) const { return ToBits(a) == ToBits(b); }
  bool Skip(T v) const { return std::isnan(v); }
  bool Less(T a, T b) const { return a < b; }
  void AppendStat(T v, bool is_min, std::string* out) const {
    if (v == T(0)) v = is_min ? -T(0) : T(0);
    AppendRaw(v, out);
  }
};

// BOOLEAN: one bit per value, LSB first; never dictionary-encoded.
struct BoolOps {
  using Value = uint8_t;  // 0 or 1
  static constexpr bool kDictionary = false;
  static constexpr bool kLegacyStats = false;
  int64_t PlainSize(uint8_t) const { return 1; }
  void AppendPlain(const uint8_t* v, int64_t n, std::string* out) const {
    const size_t pos = out->size();
    out->resize(pos + static_cast<size_t>((n + 7) / 8));
    uint8_t* dst = reinterpret_cast<uint8_t*>(out->data()) + pos;
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
      *dst++ = static_cast<uint8_t>(v[i] | v[i + 1] << 1 | v[i + 2] << 2 | v[i + 3] << 3 |
                                    v[i + 4] << 4 | v[i + 5] << 5 | v[i + 6] << 6 | v[i + 7] << 7);
    }
    if (i < n) {
      uint8_t b = 0;
      for (int k = 0; i + k < n; ++k) b |= static_cast<uint8_t>(v[i + k] << k);
      *dst = b;
    }
  }
  uint64_t Hash(uint8_t v) const { return v; }
  bool Same(uint8_t a, uint8_t b) const { return a == b; }
  bool Skip(uint8_t) const { return false; }
  bool Less(uint8_t a, uint8_t b) const { return a < b; }
  void AppendStat(uint8_t v, bool, std::string* out) const { out->push_back(static_cast<char>(v)); }
};

// Wide decimals as FIXED_LEN_BYTE_ARRAY: the low `width` bytes of the two's complement value,
// big-endian; signed order. No deprecated min/max: old readers compared those bytewise.
struct Decimal128Ops {
  using Value = int128_t;
  static constexpr bool kDictionary = true;
  static constexpr bool kLegacyStats = false;
  int width = 16;
  int64_t PlainSize(int128_t) const { return width; }
  void AppendBigEndian(int128_t v, char* dst) const {
    const uint128_t u = static_cast<uint128_t>(v);
    for (int i = 0; i < width; ++i) dst[i] = static_cast<char>(u >> (8 * (width - 1 - i)));
  }
  void AppendPlain(const int128_t* v, int64_t n, std::string* out) const {
    const size_t pos = out->size();
    out->resize(pos + static_cast<size_t>(n * width));
    char* dst = out->data() + pos;
    for (int64_t i = 0; i < n; ++i) AppendBigEndian(v[i], dst + i * width);
  }
  uint64_t Hash(int128_t v) const {
    const uint128_t u = static_cast<uint128_t>(v);
    return MixHash(static_cast<uint64_t>(u) ^ MixHash(static_cast<uint64_t>(u >> 64)));
  }
  bool Same(int128_t a, int128_t b) const { return a == b; }
  bool Skip(int128_t) const { return false; }
  bool Less(int128_t a, int128_t b) const { return a < b; }
  void AppendStat(int128_t v, bool, std::string* out) const {
    const size_t pos = out->size();
    out->resize(pos + static_cast<size_t>(width));
    AppendBigEndian(v, out->data() + pos);
  }
};

// BYTE_ARRAY: 4-byte little-endian length then the bytes; unsigned bytewise order
// (std::char_traits<char> compares as unsigned char).
struct ByteArrayOps {
  using Value = std::string_view;
  static constexpr bool kDictionary = true;
  static constexpr bool kLegacyStats = false;
  int64_t PlainSize(std::string_view v) const { return 4 + static_cast<int64_t>(v.size()); }
  void AppendPlain(const std::string_view* v, int64_t n, std::string* out) const {
    int64_t bytes = 0;
    for (int64_t i = 0; i < n; ++i) bytes += 4 + static_cast<int64_t>(v[i].size());
    const size_t pos = out->size();
    out->resize(pos + static_cast<size_t>(bytes));
    char* dst = out->data() + pos;
    for (int64_t i = 0; i < n; ++i) {
      const uint32_t len = static_cast<uint32_t>(v[i].size());
      std::memcpy(dst, &len, 4);
      if (len > 0) std::memcpy(dst + 4, v[i].data(), len);
      dst += 4 + len;
    }
  }
  uint64_t Hash(std::string_view v) const { return HashBytes(v.data(), v.size()); }
  bool Same(std::string_view a, std::string_view b) const { return SameBytes(a, b); }
  bool Skip(std::string_view) const { return false; }
  bool Less(std::string_view a, std::string_view b) const { return LessBytes(a, b); }
  void AppendStat(std::string_view v, bool, std::string* out) const { out->append(v); }
};

}  // namespace tandem::parquet
