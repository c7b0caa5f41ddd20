// Decimal arithmetic on 128-bit unscaled values, one header compiled for the host and the GPU
// (the CPU evaluator and aggregates through types/decimal.h, the GPU interpreter and aggregates
// directly), so both devices round and overflow alike by construction:
//   - powers of ten, precision checks, overflow-checked 128-bit add, subtract and multiply,
//   - rescaling with HALF_UP rounding (away from zero on a tie),
//   - a +- b at a reduced scale, a * b with dropped digits, a * 10^up / b, exact through 256-bit
//     intermediates where 128 bits overflow.
// Header-only and free of the standard library beyond <cstdint>: nvcc compiles every function
// for both sides (TANDEM_HD); g++ sees plain inline functions.
#pragma once

#include <cstdint>

#ifndef TANDEM_HD
#if defined(__CUDACC__)
#define TANDEM_HD __host__ __device__
#else
#define TANDEM_HD
#endif
#endif

namespace tandem::decimal {

using i128 = __int128;
using u128 = unsigned __int128;

struct Pow10Table {
  i128 v[39];
  constexpr Pow10Table() : v() {
    v[0] = 1;
    for (int i = 1; i < 39; ++i) v[i] = v[i - 1] * 10;
  }
};
// One table per side: device code may not read a host variable.
inline constexpr Pow10Table kHostPow10{};
#if defined(__CUDACC__)
__device__ constexpr Pow10Table kDevicePow10{};
#endif

// 10^k for k in [0, 38] (clamped to that range).
TANDEM_HD inline i128 Pow10(int k) {
  k = k < 0 ? 0 : (k > 38 ? 38 : k);
#if defined(__CUDA_ARCH__)
  return kDevicePow10.v[k];
#else
  return kHostPow10.v[k];
#endif
}

inline constexpr i128 kI128Max = static_cast<i128>(~u128{0} >> 1);
inline constexpr i128 kI128Min = -kI128Max - 1;

// Largest unscaled magnitude a decimal of this precision holds: 10^p - 1.
TANDEM_HD inline i128 MaxUnscaled(int precision) { return Pow10(precision) - 1; }
TANDEM_HD inline bool FitsPrecision(i128 v, int precision) {
  const i128 m = MaxUnscaled(precision);
  return v <= m && v >= -m;
}

TANDEM_HD inline u128 Magnitude(i128 v) {
  return v < 0 ? u128{0} - static_cast<u128>(v) : static_cast<u128>(v);
}

// a + b, a - b, a * b into *r (wrapped); true on overflow, as __builtin_*_overflow.
TANDEM_HD inline bool AddOverflow(i128 a, i128 b, i128* r) {
  const i128 s = static_cast<i128>(static_cast<u128>(a) + static_cast<u128>(b));
  *r = s;
  return ((a < 0) == (b < 0)) && ((s < 0) != (a < 0));
}
TANDEM_HD inline bool SubOverflow(i128 a, i128 b, i128* r) {
  const i128 s = static_cast<i128>(static_cast<u128>(a) - static_cast<u128>(b));
  *r = s;
  return ((a < 0) != (b < 0)) && ((s < 0) != (a < 0));
}

// A 256-bit unsigned integer as two 128-bit halves (the overflow paths only).
struct U256 {
  u128 hi = 0, lo = 0;
};

TANDEM_HD inline U256 Mul128(u128 a, u128 b) {
  const u128 mask = ~uint64_t{0};
  const u128 a0 = a & mask, a1 = a >> 64, b0 = b & mask, b1 = b >> 64;
  const u128 p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
  const u128 mid = (p00 >> 64) + (p01 & mask) + (p10 & mask);
  U256 r;
  r.lo = (p00 & mask) | (mid << 64);
  r.hi = p11 + (p01 >> 64) + (p10 >> 64) + (mid >> 64);
  return r;
}

TANDEM_HD inline bool MulOverflow(i128 a, i128 b, i128* r) {
#if defined(__CUDA_ARCH__)
  // Operands of 64 bits (every decimal of precision 18 or less, most values of wider ones): the
  // product fits 127 bits, two 64-bit multiplies instead of the 256-bit product below.
  const long long a64 = static_cast<long long>(a), b64 = static_cast<long long>(b);
  if (static_cast<i128>(a64) == a && static_cast<i128>(b64) == b) {
    const unsigned long long lo =
        static_cast<unsigned long long>(a64) * static_cast<unsigned long long>(b64);
    const long long hi = __mul64hi(a64, b64);
    *r = static_cast<i128>((static_cast<u128>(static_cast<unsigned long long>(hi)) << 64) | lo);
    return false;
  }
  const U256 p = Mul128(Magnitude(a), Magnitude(b));
  const bool negative = (a < 0) != (b < 0);
  *r = static_cast<i128>(negative ? u128{0} - p.lo : p.lo);
  if (p.hi != 0) return true;
  return p.lo > static_cast<u128>(kI128Max) + (negative ? 1 : 0);
#else
  return __builtin_mul_overflow(a, b, r);
#endif
}

// n / d and n % d for d < 2^128 (shift-subtract; slow, used only when 128 bits overflow).
TANDEM_HD inline U256 DivMod(U256 n, u128 d, u128* rem) {
  U256 q;
  u128 r = 0;
  for (int i = 255; i >= 0; --i) {
    const bool top = (r >> 127) != 0;
    const u128 bit = i >= 128 ? (n.hi >> (i - 128)) & 1 : (n.lo >> i) & 1;
    r = (r << 1) | bit;
    if (top || r >= d) {
      r -= d;
      if (i >= 128) {
        q.hi |= u128{1} << (i - 128);
      } else {
        q.lo |= u128{1} << i;
      }
    }
  }
  *rem = r;
  return q;
}

// round(n / d, HALF_UP) on magnitudes, signed by `negative`; false past 128 bits.
TANDEM_HD inline bool DivRoundToInt128(U256 n, u128 d, bool negative, i128* out) {
  u128 rem = 0;
  const U256 q = DivMod(n, d, &rem);
  if (q.hi != 0) return false;
  u128 qm = q.lo;
  const u128 limit = static_cast<u128>(kI128Max) + (negative ? 1 : 0);
  if (qm > limit) return false;
  if (rem >= d - rem) {  // rem >= d / 2, without overflowing 2 * rem
    if (qm == limit) return false;
    ++qm;
  }
  *out = negative ? static_cast<i128>(u128{0} - qm) : static_cast<i128>(qm);
  return true;
}

// Divides by 10^k with HALF_UP rounding (k in [0, 38]; k > 38 gives 0).
TANDEM_HD inline i128 DivPow10Round(i128 v, int k) {
  if (k <= 0) return v;
  if (k > 38) return 0;
  const i128 p = Pow10(k);
  i128 q = v / p;
  const i128 r = v % p;
  // |r| >= p/2 rounds away from zero; compared as |r| >= p - |r| (2|r| may pass 128 bits).
  const i128 m = r >= 0 ? r : -r;
  if (m >= p - m) q += (v < 0 ? -1 : 1);
  return q;
}

// Rescales an unscaled value from scale `from` to scale `to` with HALF_UP rounding when digits
// are dropped. False on 128-bit overflow (scaling up).
TANDEM_HD inline bool Rescale(i128 v, int from, int to, i128* out) {
  if (to == from) {
    *out = v;
    return true;
  }
  if (to < from) {
    *out = DivPow10Round(v, from - to);
    return true;
  }
  const int k = to - from;
  if (k > 38) {
    *out = 0;
    return v == 0;
  }
  return !MulOverflow(v, Pow10(k), out);
}

// a (scale sa) plus b (scale sb), or minus it, rounded HALF_UP to scale rs where rs is below
// max(sa, sb) (Spark's precision loss on decimal(38, s) arithmetic), computed exactly: each
// operand is split into its digits at scale rs and the rest, so the full-scale sum, which may
// need more than 128 bits, is never formed. False when the digits at scale rs pass 128 bits.
TANDEM_HD inline bool AddRescaled(i128 a, int sa, i128 b, int sb, bool subtract, int rs,
                                  i128* out) {
  const int s = sa > sb ? sa : sb;
  const int k = s - rs;      // Spark keeps at least min(s, 6) digits, so k <= 32
  if (k > 37) return false;  // the remainders' sum below could pass 128 bits
  if (k <= 0) {
    i128 xa, xb;
    if (!Rescale(a, sa, rs, &xa) || !Rescale(b, sb, rs, &xb)) return false;
    return !(subtract ? SubOverflow(xa, xb, out) : AddOverflow(xa, xb, out));
  }
  // x = q * 10^-rs + r * 10^-s with |r| < 10^k.
  i128 q[2], r[2];
  const i128 x[2] = {a, b};
  const int sx[2] = {sa, sb};
  for (int i = 0; i < 2; ++i) {
    if (sx[i] <= rs) {
      r[i] = 0;
      if (!Rescale(x[i], sx[i], rs, &q[i])) return false;
    } else {
      const i128 p = Pow10(sx[i] - rs);
      q[i] = x[i] / p;
      r[i] = (x[i] % p) * Pow10(s - sx[i]);
    }
  }
  i128 qs;
  if (subtract ? SubOverflow(q[0], q[1], &qs) : AddOverflow(q[0], q[1], &qs)) return false;
  i128 rsum = subtract ? r[0] - r[1] : r[0] + r[1];  // |rsum| < 2 * 10^32
  const i128 p = Pow10(k);
  if (rsum >= p) {
    rsum -= p;
    ++qs;
  } else if (rsum <= -p) {
    rsum += p;
    --qs;
  }
  // Give qs and rsum one sign: the value is qs + rsum / 10^k, rounded half away from zero.
  if (qs > 0 && rsum < 0) {
    rsum += p;
    --qs;
  } else if (qs < 0 && rsum > 0) {
    rsum -= p;
    ++qs;
  }
  if (2 * rsum >= p) {
    ++qs;
  } else if (2 * rsum <= -p) {
    --qs;
  }
  *out = qs;
  return true;
}

// a * b with the product's scale reduced by `drop` digits (HALF_UP); false on overflow.
TANDEM_HD inline bool MultiplyRescaled(i128 a, i128 b, int drop, i128* out) {
  i128 p;
  if (!MulOverflow(a, b, &p)) {
    *out = DivPow10Round(p, drop);
    return true;
  }
  if (drop <= 0) return false;
  const bool negative = (a < 0) != (b < 0);
  const U256 prod = Mul128(Magnitude(a), Magnitude(b));
  if (drop > 38) {
    *out = 0;
    return true;
  }
  return DivRoundToInt128(prod, static_cast<u128>(Pow10(drop)), negative, out);
}

// round(a * 10^up / b, HALF_UP) for b != 0; false when the quotient does not fit 128 bits.
TANDEM_HD inline bool DivideScaled(i128 a, int up, i128 b, i128* out) {
  const bool negative = (a < 0) != (b < 0);
  if (up < 0) {
    // Scale the divisor up instead.
    i128 bb;
    if (MulOverflow(b, Pow10(-up), &bb)) {
      *out = 0;  // |a| / huge rounds to 0 unless a is huge too; exact enough for this path
      return true;
    }
    b = bb;
    up = 0;
  }
  i128 n;
  if (up <= 38 && !MulOverflow(a, Pow10(up), &n)) {
    i128 q = n / b;
    const i128 r = n % b;
    const u128 rm = Magnitude(r), bm = Magnitude(b);
    if (rm >= bm - rm) q += negative ? -1 : 1;
    *out = q;
    return true;
  }
  if (up > 38) return false;
  const U256 wide = Mul128(Magnitude(a), static_cast<u128>(Pow10(up)));
  return DivRoundToInt128(wide, Magnitude(b), negative, out);
}

// Nearest double of an unscaled value (integer part and fraction apart: 15+ digits stay exact).
TANDEM_HD inline double ToDouble(i128 unscaled, int scale) {
  const i128 p = Pow10(scale);
  const i128 ip = unscaled / p, fp = unscaled % p;
  return static_cast<double>(ip) + static_cast<double>(fp) / static_cast<double>(p);
}

}  // namespace tandem::decimal
