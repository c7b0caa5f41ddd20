// Decimal precision rules, rescaling, exact 128/256-bit multiply and divide, parse and print.
#include "tandem/types/decimal.h"

#include <algorithm>
#include <cmath>

namespace tandem::decimal {
namespace {

struct Pow10Table {
  int128_t v[39];
  constexpr Pow10Table() : v() {
    v[0] = 1;
    for (int i = 1; i < 39; ++i) v[i] = v[i - 1] * 10;
  }
};
constexpr Pow10Table kPow10;

uint128_t Magnitude(int128_t v) {
  return v < 0 ? uint128_t{0} - static_cast<uint128_t>(v) : static_cast<uint128_t>(v);
}

// 256-bit unsigned integer as two 128-bit halves (fallback paths only).
struct U256 {
  uint128_t hi = 0, lo = 0;
};

U256 Mul128(uint128_t a, uint128_t b) {
  const uint128_t mask = ~uint64_t{0};
  const uint128_t a0 = a & mask, a1 = a >> 64, b0 = b & mask, b1 = b >> 64;
  const uint128_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
  const uint128_t mid = (p00 >> 64) + (p01 & mask) + (p10 & mask);
  U256 r;
  r.lo = (p00 & mask) | (mid << 64);
  r.hi = p11 + (p01 >> 64) + (p10 >> 64) + (mid >> 64);
  return r;
}

// n / d and n % d for d < 2^128 (shift-subtract; slow, used only when 128 bits overflow).
U256 DivMod(U256 n, uint128_t d, uint128_t* rem) {
  U256 q;
  uint128_t r = 0;
  for (int i = 255; i >= 0; --i) {
    const bool top = (r >> 127) != 0;
    const uint128_t bit = i >= 128 ? (n.hi >> (i - 128)) & 1 : (n.lo >> i) & 1;
    r = (r << 1) | bit;
    if (top || r >= d) {
      r -= d;
      if (i >= 128) {
        q.hi |= uint128_t{1} << (i - 128);
      } else {
        q.lo |= uint128_t{1} << i;
      }
    }
  }
  *rem = r;
  return q;
}

// round(n / d, HALF_UP) on magnitudes; false if the quotient passes 2^127 - 1.
bool DivRoundToInt128(U256 n, uint128_t d, bool negative, int128_t* out) {
  uint128_t rem = 0;
  U256 q = DivMod(n, d, &rem);
  if (q.hi != 0) return false;
  uint128_t qm = q.lo;
  if (rem >= d - rem) ++qm;                                          // 2*rem >= d without overflow
  if (qm > (~uint128_t{0} >> 1) + (negative ? 1 : 0)) return false;  // past 2^127 - 1 (or 2^127)
  *out = negative ? -static_cast<int128_t>(qm) : static_cast<int128_t>(qm);
  return true;
}

}  // namespace

int128_t Pow10(int k) { return kPow10.v[std::clamp(k, 0, 38)]; }

DataType AdjustPrecisionScale(int precision, int scale) {
  if (precision <= kMaxDecimalPrecision) return DataType::Decimal(precision, scale);
  const int int_digits = precision - scale;
  const int min_scale = std::min(scale, 6);
  const int adjusted = std::max(kMaxDecimalPrecision - int_digits, min_scale);
  return DataType::Decimal(kMaxDecimalPrecision, adjusted);
}

DataType AddType(const DataType& a, const DataType& b) {
  const int scale = std::max(a.scale, b.scale);
  const int range = std::max(a.precision - a.scale, b.precision - b.scale);
  return AdjustPrecisionScale(range + scale + 1, scale);
}

DataType MultiplyType(const DataType& a, const DataType& b) {
  return AdjustPrecisionScale(a.precision + b.precision + 1, a.scale + b.scale);
}

DataType DivideType(const DataType& a, const DataType& b) {
  const int scale = std::max(6, a.scale + b.precision + 1);
  return AdjustPrecisionScale(a.precision - a.scale + b.scale + scale, scale);
}

DataType ModuloType(const DataType& a, const DataType& b) {
  const int scale = std::max(a.scale, b.scale);
  const int range = std::min(a.precision - a.scale, b.precision - b.scale);
  return AdjustPrecisionScale(range + scale, scale);
}

DataType ForInteger(const DataType& t) {
  switch (t.id) {
    case TypeId::kBool:
      return DataType::Decimal(1, 0);
    case TypeId::kInt8:
    case TypeId::kUInt8:
      return DataType::Decimal(3, 0);
    case TypeId::kInt16:
    case TypeId::kUInt16:
      return DataType::Decimal(5, 0);
    case TypeId::kInt32:
    case TypeId::kUInt32:
      return DataType::Decimal(10, 0);
    case TypeId::kInt64:
      return DataType::Decimal(20, 0);
    case TypeId::kUInt64:
      return DataType::Decimal(20, 0);
    default:
      return t;
  }
}

DataType Wider(const DataType& a, const DataType& b) {
  const int scale = std::max(a.scale, b.scale);
  const int range = std::max(a.precision - a.scale, b.precision - b.scale);
  if (range + scale <= kMaxDecimalPrecision) return DataType::Decimal(range + scale, scale);
  return DataType::Decimal(kMaxDecimalPrecision,
                           std::max(0, std::min(scale, kMaxDecimalPrecision - range)));
}

int128_t DivPow10Round(int128_t v, int k) {
  if (k <= 0) return v;
  if (k > 38) return 0;
  const int128_t p = kPow10.v[k];
  int128_t q = v / p;
  const int128_t r = v % p;
  // |r| >= p/2 rounds away from zero (HALF_UP).
  if (r >= 0 ? r * 2 >= p : -r * 2 >= p) q += (v < 0 ? -1 : 1);
  return q;
}

bool Rescale(int128_t v, int from, int to, int128_t* out) {
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
  return !__builtin_mul_overflow(v, kPow10.v[k], out);
}

bool AddRescaled(int128_t a, int sa, int128_t b, int sb, bool subtract, int rs, int128_t* out) {
  const int s = std::max(sa, sb);
  const int k = s - rs;  // Spark keeps at least min(s, 6) digits, so k <= 32
  if (k <= 0) {
    int128_t xa, xb;
    if (!Rescale(a, sa, rs, &xa) || !Rescale(b, sb, rs, &xb)) return false;
    return !(subtract ? __builtin_sub_overflow(xa, xb, out) : __builtin_add_overflow(xa, xb, out));
  }
  // x = q * 10^-rs + r * 10^-s with |r| < 10^k.
  auto split = [&](int128_t x, int sx, int128_t* q, int128_t* r) {
    if (sx <= rs) {
      *r = 0;
      return Rescale(x, sx, rs, q);
    }
    const int128_t p = kPow10.v[sx - rs];
    *q = x / p;
    *r = (x % p) * kPow10.v[s - sx];
    return true;
  };
  int128_t qa, ra, qb, rb;
  if (!split(a, sa, &qa, &ra) || !split(b, sb, &qb, &rb)) return false;
  int128_t q;
  if (subtract ? __builtin_sub_overflow(qa, qb, &q) : __builtin_add_overflow(qa, qb, &q)) {
    return false;
  }
  int128_t r = subtract ? ra - rb : ra + rb;  // |r| < 2 * 10^32
  const int128_t p = kPow10.v[k];
  if (r >= p) {
    r -= p;
    ++q;
  } else if (r <= -p) {
    r += p;
    --q;
  }
  // Give q and r one sign: the value is q + r / 10^k, rounded half away from zero.
  if (q > 0 && r < 0) {
    r += p;
    --q;
  } else if (q < 0 && r > 0) {
    r -= p;
    ++q;
  }
  if (2 * r >= p) {
    ++q;
  } else if (2 * r <= -p) {
    --q;
  }
  *out = q;
  return true;
}

bool MultiplyRescaled(int128_t a, int128_t b, int drop, int128_t* out) {
  int128_t p;
  if (!__builtin_mul_overflow(a, b, &p)) {
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
  return DivRoundToInt128(prod, static_cast<uint128_t>(kPow10.v[drop]), negative, out);
}

bool DivideScaled(int128_t a, int up, int128_t b, int128_t* out) {
  const bool negative = (a < 0) != (b < 0);
  if (up < 0) {
    // Scale the divisor up instead.
    int128_t bb;
    if (__builtin_mul_overflow(b, Pow10(-up), &bb)) {
      *out = 0;  // |a| / huge rounds to 0 unless a is huge too; exact enough for this path
      return true;
    }
    b = bb;
    up = 0;
  }
  int128_t n;
  if (up <= 38 && !__builtin_mul_overflow(a, kPow10.v[up], &n)) {
    int128_t q = n / b;
    const int128_t r = n % b;
    const uint128_t rm = Magnitude(r), bm = Magnitude(b);
    if (rm >= bm - rm) q += negative ? -1 : 1;
    *out = q;
    return true;
  }
  if (up > 38) return false;
  const U256 wide = Mul128(Magnitude(a), static_cast<uint128_t>(kPow10.v[up]));
  return DivRoundToInt128(wide, Magnitude(b), negative, out);
}

bool Parse(std::string_view s, int precision, int scale, int128_t* out) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  if (s.empty()) return false;
  size_t i = 0;
  bool negative = false;
  if (s[i] == '+' || s[i] == '-') negative = s[i++] == '-';
  // Collect significant digits (at most 80) and the decimal exponent of the last one.
  char digits[96];
  int nd = 0;
  int64_t exponent = 0;  // value = digits * 10^exponent
  bool any_digit = false, seen_point = false;
  for (; i < s.size(); ++i) {
    const char c = s[i];
    if (c >= '0' && c <= '9') {
      any_digit = true;
      if (nd == 0 && c == '0') {
        if (seen_point) --exponent;
        continue;
      }
      if (nd < 80) {
        digits[nd++] = c;
        if (seen_point) --exponent;
      } else if (!seen_point) {
        ++exponent;
      }
    } else if (c == '.' && !seen_point) {
      seen_point = true;
    } else {
      break;
    }
  }
  if (!any_digit) return false;
  if (i < s.size()) {
    if (s[i] != 'e' && s[i] != 'E') return false;
    ++i;
    bool eneg = false;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) eneg = s[i++] == '-';
    if (i >= s.size()) return false;
    int64_t e = 0;
    for (; i < s.size(); ++i) {
      if (s[i] < '0' || s[i] > '9') return false;
      if (e < 100000) e = e * 10 + (s[i] - '0');
    }
    exponent += eneg ? -e : e;
  }
  // Value at target scale: digits * 10^(exponent + scale).
  const int64_t shift = exponent + scale;
  int keep = nd;
  if (shift < 0) keep = static_cast<int>(std::max<int64_t>(0, nd + shift));
  if (keep > 39) return false;
  int128_t v = 0;
  for (int k = 0; k < keep; ++k) v = v * 10 + (digits[k] - '0');
  if (shift < 0) {
    if (keep < nd && digits[keep] >= '5') ++v;  // HALF_UP on the first dropped digit
  } else {
    if (shift > 38 && nd > 0) return false;
    if (nd > 0 && __builtin_mul_overflow(v, kPow10.v[shift > 38 ? 0 : shift], &v)) return false;
  }
  if (!FitsPrecision(v, precision)) return false;
  *out = negative ? -v : v;
  return true;
}

std::string ToString(int128_t unscaled, int scale) {
  uint128_t u = Magnitude(unscaled);
  std::string digits;
  do {
    digits.push_back(static_cast<char>('0' + static_cast<int>(u % 10)));
    u /= 10;
  } while (u > 0);
  while (static_cast<int>(digits.size()) <= scale) digits.push_back('0');
  std::string out = unscaled < 0 ? "-" : "";
  for (int k = static_cast<int>(digits.size()) - 1; k >= 0; --k) {
    out.push_back(digits[k]);
    if (k == scale && k > 0) out.push_back('.');
  }
  return out;
}

double ToDouble(int128_t unscaled, int scale) {
  // Exact integer part and fraction computed separately keeps 15+ digit values accurate.
  const int128_t p = Pow10(scale);
  const int128_t ip = unscaled / p, fp = unscaled % p;
  return static_cast<double>(ip) + static_cast<double>(fp) / static_cast<double>(p);
}

bool FromDouble(double v, int precision, int scale, int128_t* out) {
  if (!std::isfinite(v)) return false;
  const long double scaled = static_cast<long double>(v) * std::pow(10.0L, scale);
  if (std::fabs(scaled) >= 1e38L) return false;
  const long double r = scaled < 0 ? -std::floor(-scaled + 0.5L) : std::floor(scaled + 0.5L);
  const int128_t x = static_cast<int128_t>(r);
  if (!FitsPrecision(x, precision)) return false;
  *out = x;
  return true;
}

}  // namespace tandem::decimal
