// XXH32 as specified in xxHash's doc/xxhash_spec.md: four lanes over 16-byte stripes, then the
// tail in 4-byte and 1-byte steps, then the avalanche.
#include "tandem/qualify/xxhash32.h"

namespace tandem::qualify {
namespace {

constexpr uint32_t kPrime1 = 0x9E3779B1u;
constexpr uint32_t kPrime2 = 0x85EBCA77u;
constexpr uint32_t kPrime3 = 0xC2B2AE3Du;
constexpr uint32_t kPrime4 = 0x27D4EB2Fu;
constexpr uint32_t kPrime5 = 0x165667B1u;

inline uint32_t RotateLeft(uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }

inline uint32_t Load32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
         static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
}

inline uint32_t Round(uint32_t acc, uint32_t lane) {
  return RotateLeft(acc + lane * kPrime2, 13) * kPrime1;
}

}  // namespace

uint32_t XxHash32(const uint8_t* data, size_t size, uint32_t seed) {
  const uint8_t* p = data;
  const uint8_t* const end = data + size;
  uint32_t h;
  if (size >= 16) {
    uint32_t v1 = seed + kPrime1 + kPrime2;
    uint32_t v2 = seed + kPrime2;
    uint32_t v3 = seed;
    uint32_t v4 = seed - kPrime1;
    const uint8_t* const last_stripe = end - 16;
    do {
      v1 = Round(v1, Load32(p));
      v2 = Round(v2, Load32(p + 4));
      v3 = Round(v3, Load32(p + 8));
      v4 = Round(v4, Load32(p + 12));
      p += 16;
    } while (p <= last_stripe);
    h = RotateLeft(v1, 1) + RotateLeft(v2, 7) + RotateLeft(v3, 12) + RotateLeft(v4, 18);
  } else {
    h = seed + kPrime5;
  }
  h += static_cast<uint32_t>(size);
  for (; end - p >= 4; p += 4) h = RotateLeft(h + Load32(p) * kPrime3, 17) * kPrime4;
  for (; p < end; ++p) h = RotateLeft(h + *p * kPrime5, 11) * kPrime1;
  h ^= h >> 15;
  h *= kPrime2;
  h ^= h >> 13;
  h *= kPrime3;
  h ^= h >> 16;
  return h;
}

}  // namespace tandem::qualify
