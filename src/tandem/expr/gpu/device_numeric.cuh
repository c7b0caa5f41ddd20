// Device twins of the CPU evaluator's numeric helpers: overflow-checked integer arithmetic,
// decimal rescaling with HALF_UP rounding, exact 128/256-bit decimal multiply and divide (ported
// from types/decimal.cc, same algorithms so the same results), civil-date conversions (from
// format/value_format.cc) and floor division.
#pragma once

#include <cstdint>

namespace tandem::gpu::internal {

using i128 = __int128;
using u128 = unsigned __int128;

struct DevPow10Table {
  i128 v[39];
  constexpr DevPow10Table() : v() {
    v[0] = 1;
    for (int i = 1; i < 39; ++i) v[i] = v[i - 1] * 10;
  }
};
__device__ constexpr DevPow10Table kDevPow10{};

__device__ inline i128 DPow10(int k) { return kDevPow10.v[k < 0 ? 0 : (k > 38 ? 38 : k)]; }
__device__ inline i128 DMaxUnscaled(int precision) { return DPow10(precision) - 1; }
__device__ inline bool DFits(i128 v, int precision) {
  const i128 m = DMaxUnscaled(precision);
  return v <= m && v >= -m;
}

constexpr i128 kI128Max = static_cast<i128>(~u128{0} >> 1);
constexpr i128 kI128Min = -kI128Max - 1;

__device__ inline bool AddOverflow128(i128 a, i128 b, i128* r) {
  const i128 s = static_cast<i128>(static_cast<u128>(a) + static_cast<u128>(b));
  *r = s;
  return ((a < 0) == (b < 0)) && ((s < 0) != (a < 0));
}
__device__ inline bool SubOverflow128(i128 a, i128 b, i128* r) {
  const i128 s = static_cast<i128>(static_cast<u128>(a) - static_cast<u128>(b));
  *r = s;
  return ((a < 0) != (b < 0)) && ((s < 0) != (a < 0));
}

__device__ inline u128 Magnitude(i128 v) {
  return v < 0 ? u128{0} - static_cast<u128>(v) : static_cast<u128>(v);
}

struct DU256 {
  u128 hi = 0, lo = 0;
};

__device__ inline DU256 DMul128(u128 a, u128 b) {
  const u128 mask = ~uint64_t{0};
  const u128 a0 = a & mask, a1 = a >> 64, b0 = b & mask, b1 = b >> 64;
  const u128 p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
  const u128 mid = (p00 >> 64) + (p01 & mask) + (p10 & mask);
  DU256 r;
  r.lo = (p00 & mask) | (mid << 64);
  r.hi = p11 + (p01 >> 64) + (p10 >> 64) + (mid >> 64);
  return r;
}

// a * b as int128 (wrapping like __builtin_mul_overflow's result); true on overflow.
__device__ inline bool MulOverflow128(i128 a, i128 b, i128* r) {
  const DU256 p = DMul128(Magnitude(a), Magnitude(b));
  const bool negative = (a < 0) != (b < 0);
  const u128 lo = negative ? u128{0} - p.lo : p.lo;
  *r = static_cast<i128>(lo);
  if (p.hi != 0) return true;
  const u128 limit = static_cast<u128>(kI128Max) + (negative ? 1 : 0);
  return p.lo > limit;
}

__device__ inline DU256 DDivMod(DU256 n, u128 d, u128* rem) {
  DU256 q;
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

__device__ inline bool DDivRoundToInt128(DU256 n, u128 d, bool negative, i128* out) {
  u128 rem = 0;
  DU256 q = DDivMod(n, d, &rem);
  if (q.hi != 0) return false;
  u128 qm = q.lo;
  if (rem >= d - rem) ++qm;
  if (qm > static_cast<u128>(kI128Max) + (negative ? 1 : 0)) return false;
  *out = negative ? -static_cast<i128>(qm) : static_cast<i128>(qm);
  return true;
}

__device__ inline i128 DDivPow10Round(i128 v, int k) {
  if (k <= 0) return v;
  if (k > 38) return 0;
  const i128 p = kDevPow10.v[k];
  i128 q = v / p;
  const i128 r = v % p;
  const i128 r2 = static_cast<i128>(static_cast<u128>(r) * 2);  // wraps as on the CPU
  const i128 nr2 = static_cast<i128>(static_cast<u128>(-r) * 2);
  if (r >= 0 ? r2 >= p : nr2 >= p) q += (v < 0 ? -1 : 1);
  return q;
}

__device__ inline bool DRescale(i128 v, int from, int to, i128* out) {
  if (to == from) {
    *out = v;
    return true;
  }
  if (to < from) {
    *out = DDivPow10Round(v, from - to);
    return true;
  }
  const int k = to - from;
  if (k > 38) {
    *out = 0;
    return v == 0;
  }
  return !MulOverflow128(v, kDevPow10.v[k], out);
}

// decimal::AddRescaled on the device (same steps, see types/decimal.h): a +- b rounded HALF_UP
// to scale rs below max(sa, sb), without forming the full-scale sum.
__device__ inline bool DAddRescaled(i128 a, int sa, i128 b, int sb, bool subtract, int rs,
                                    i128* out) {
  const int s = sa > sb ? sa : sb;
  const int k = s - rs;
  if (k <= 0) {
    i128 xa, xb;
    if (!DRescale(a, sa, rs, &xa) || !DRescale(b, sb, rs, &xb)) return false;
    return !(subtract ? SubOverflow128(xa, xb, out) : AddOverflow128(xa, xb, out));
  }
  i128 q[2], r[2];
  const i128 x[2] = {a, b};
  const int sx[2] = {sa, sb};
  for (int i = 0; i < 2; ++i) {
    if (sx[i] <= rs) {
      r[i] = 0;
      if (!DRescale(x[i], sx[i], rs, &q[i])) return false;
    } else {
      const i128 p = kDevPow10.v[sx[i] - rs];
      q[i] = x[i] / p;
      r[i] = (x[i] % p) * kDevPow10.v[s - sx[i]];
    }
  }
  i128 qs;
  if (subtract ? SubOverflow128(q[0], q[1], &qs) : AddOverflow128(q[0], q[1], &qs)) return false;
  i128 rsum = subtract ? r[0] - r[1] : r[0] + r[1];
  const i128 p = kDevPow10.v[k];
  if (rsum >= p) {
    rsum -= p;
    ++qs;
  } else if (rsum <= -p) {
    rsum += p;
    --qs;
  }
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

__device__ inline bool DMultiplyRescaled(i128 a, i128 b, int drop, i128* out) {
  i128 p;
  if (!MulOverflow128(a, b, &p)) {
    *out = DDivPow10Round(p, drop);
    return true;
  }
  if (drop <= 0) return false;
  const bool negative = (a < 0) != (b < 0);
  const DU256 prod = DMul128(Magnitude(a), Magnitude(b));
  if (drop > 38) {
    *out = 0;
    return true;
  }
  return DDivRoundToInt128(prod, static_cast<u128>(kDevPow10.v[drop]), negative, out);
}

__device__ inline bool DDivideScaled(i128 a, int up, i128 b, i128* out) {
  const bool negative = (a < 0) != (b < 0);
  if (up < 0) {
    i128 bb;
    if (MulOverflow128(b, DPow10(-up), &bb)) {
      *out = 0;
      return true;
    }
    b = bb;
    up = 0;
  }
  i128 n;
  if (up <= 38 && !MulOverflow128(a, kDevPow10.v[up], &n)) {
    i128 q = n / b;
    const i128 r = n % b;
    const u128 rm = Magnitude(r), bm = Magnitude(b);
    if (rm >= bm - rm) q += negative ? -1 : 1;
    *out = q;
    return true;
  }
  if (up > 38) return false;
  const DU256 wide = DMul128(Magnitude(a), static_cast<u128>(kDevPow10.v[up]));
  return DDivRoundToInt128(wide, Magnitude(b), negative, out);
}

__device__ inline double DToDouble(i128 unscaled, int scale) {
  const i128 p = DPow10(scale);
  const i128 ip = unscaled / p, fp = unscaled % p;
  return static_cast<double>(ip) + static_cast<double>(fp) / static_cast<double>(p);
}

// ---- dates ----------------------------------------------------------------------------------

constexpr int64_t kDevMicrosPerDay = 86400000000LL;

__device__ inline int64_t DFloorDiv(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
__device__ inline int64_t DFloorMod(int64_t a, int64_t b) { return a - DFloorDiv(a, b) * b; }

struct DCivil {
  int64_t year;
  int month;
  int day;
};

__device__ inline DCivil DCivilFromDays(int64_t days) {
  const int64_t z = days + 719468;
  const int64_t era = DFloorDiv(z, 146097);
  const int64_t day_of_era = z - era * 146097;
  const int64_t year_of_era =
      (day_of_era - day_of_era / 1460 + day_of_era / 36524 - day_of_era / 146096) / 365;
  const int64_t day_of_year =
      day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
  const int64_t month_from_march = (5 * day_of_year + 2) / 153;
  const int day = static_cast<int>(day_of_year - (153 * month_from_march + 2) / 5 + 1);
  const int month =
      static_cast<int>(month_from_march < 10 ? month_from_march + 3 : month_from_march - 9);
  const int64_t year = year_of_era + era * 400 + (month <= 2 ? 1 : 0);
  return {year, month, day};
}

__device__ inline int64_t DDaysFromCivil(int64_t year, int month, int day) {
  const int64_t y = year - (month <= 2 ? 1 : 0);
  const int64_t era = DFloorDiv(y, 400);
  const int64_t year_of_era = y - era * 400;
  const int64_t month_from_march = (month + 9) % 12;
  const int64_t day_of_year = (153 * month_from_march + 2) / 5 + day - 1;
  const int64_t day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  return era * 146097 + day_of_era - 719468;
}

__device__ inline int DDaysInMonth(int64_t year, int month) {
  if (month == 2) {
    const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    return leap ? 29 : 28;
  }
  const int kDays = (month == 4 || month == 6 || month == 9 || month == 11) ? 30 : 31;
  return kDays;
}

__device__ inline int DIsoWeekday(int64_t day) {
  return static_cast<int>(DFloorMod(day + 3, 7)) + 1;
}

__device__ inline int DIsoWeek(int64_t day) {
  const int64_t thursday = day - DIsoWeekday(day) + 4;
  const int64_t year = DCivilFromDays(thursday).year;
  return static_cast<int>((thursday - DDaysFromCivil(year, 1, 1)) / 7 + 1);
}

__device__ inline bool DAddMonths(int64_t day, int64_t months, int64_t* out) {
  const DCivil c = DCivilFromDays(day);
  if (months > 60000000 || months < -60000000) return false;
  const int64_t total = c.year * 12 + (c.month - 1) + months;
  const int64_t y = DFloorDiv(total, 12);
  const int m = static_cast<int>(DFloorMod(total, 12)) + 1;
  if (y > 5000000 || y < -5000000) return false;
  const int dim = DDaysInMonth(y, m);
  const int d = c.day < dim ? c.day : dim;
  *out = DDaysFromCivil(y, m, d);
  return true;
}

}  // namespace tandem::gpu::internal
