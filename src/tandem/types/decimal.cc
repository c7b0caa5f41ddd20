// Decimal precision rules, parse and print (the arithmetic is in decimal_core.h).
#include "tandem/types/decimal.h"

#include <algorithm>
#include <cmath>

namespace tandem::decimal {

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
    if (nd > 0 && __builtin_mul_overflow(v, Pow10(shift > 38 ? 0 : shift), &v)) return false;
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
