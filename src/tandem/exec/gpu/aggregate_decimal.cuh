// Device twins of the decimal helpers the aggregates' finalization needs (types/decimal.h):
// powers of ten, precision checks, and round(a * 10^up / b, HALF_UP) with a 256-bit
// intermediate when a * 10^up does not fit 128 bits. Same rounding and overflow rules as the CPU.
#pragma once

#include <cstdint>

namespace tandem::gpu::dec {

using i128 = __int128;
using u128 = unsigned __int128;

__device__ __forceinline__ i128 Pow10(int k) {
  i128 p = 1;
  for (int i = 0; i < k && i < 38; ++i) p *= 10;
  return p;
}

__device__ __forceinline__ u128 Magnitude(i128 v) {
  return v < 0 ? static_cast<u128>(0) - static_cast<u128>(v) : static_cast<u128>(v);
}

constexpr i128 kMax128 = static_cast<i128>(~static_cast<u128>(0) >> 1);

__device__ __forceinline__ bool FitsPrecision(i128 v, int precision) {
  const i128 m = Pow10(precision) - 1;
  return v <= m && v >= -m;
}

// v * 10^up (up >= 0); false on 128-bit overflow.
__device__ __forceinline__ bool ScaleUp(i128 v, int up, i128* out) {
  if (up == 0) {
    *out = v;
    return true;
  }
  if (up > 38) {
    *out = 0;
    return v == 0;
  }
  const i128 p = Pow10(up);
  if (Magnitude(v) > static_cast<u128>(kMax128 / p)) return false;
  *out = v * p;
  return true;
}

// round(a * 10^up / b, HALF_UP) for 0 <= up <= 19 and b > 0 (a count); false when the quotient
// does not fit 128 bits.
__device__ __forceinline__ bool DivideScaled(i128 a, int up, int64_t b, i128* out) {
  const bool negative = a < 0;
  i128 n;
  if (ScaleUp(a, up, &n)) {
    i128 q = n / b;
    const i128 r = n % b;
    const u128 rm = Magnitude(r), bm = static_cast<u128>(b);
    if (rm >= bm - rm) q += negative ? -1 : 1;
    *out = q;
    return true;
  }
  if (up > 19) return false;
  // |a| * 10^up as four 64-bit limbs (little end first), then long division by b.
  const u128 m = Magnitude(a);
  const uint64_t p = static_cast<uint64_t>(Pow10(up));
  const u128 lo = static_cast<u128>(static_cast<uint64_t>(m)) * p;
  const u128 hi = static_cast<u128>(static_cast<uint64_t>(m >> 64)) * p + (lo >> 64);
  uint64_t limbs[4] = {static_cast<uint64_t>(lo), static_cast<uint64_t>(hi),
                       static_cast<uint64_t>(hi >> 64), 0};
  uint64_t q[4];
  u128 rem = 0;
  for (int i = 3; i >= 0; --i) {
    const u128 cur = (rem << 64) | limbs[i];
    q[i] = static_cast<uint64_t>(cur / static_cast<uint64_t>(b));
    rem = cur % static_cast<uint64_t>(b);
  }
  if (q[3] != 0 || q[2] != 0) return false;
  u128 qm = (static_cast<u128>(q[1]) << 64) | q[0];
  if (rem >= static_cast<u128>(b) - rem) ++qm;
  if (qm > static_cast<u128>(kMax128) + (negative ? 1 : 0)) return false;
  *out = negative ? -static_cast<i128>(qm) : static_cast<i128>(qm);
  return true;
}

}  // namespace tandem::gpu::dec
