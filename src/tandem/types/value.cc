// Value construction and SQL text.
#include "tandem/types/value.h"

#include <cstdio>

namespace tandem {
namespace {

std::string Int128ToString(int128_t v) {
  if (v == 0) return "0";
  const bool neg = v < 0;
  uint128_t u = neg ? -static_cast<uint128_t>(v) : static_cast<uint128_t>(v);
  std::string s;
  while (u > 0) {
    s.push_back(static_cast<char>('0' + static_cast<int>(u % 10)));
    u /= 10;
  }
  if (neg) s.push_back('-');
  return std::string(s.rbegin(), s.rend());
}

std::string DecimalText(int128_t unscaled, int scale) {
  std::string digits = Int128ToString(unscaled < 0 ? -unscaled : unscaled);
  if (scale > 0) {
    if (static_cast<int>(digits.size()) <= scale) {
      digits.insert(0, static_cast<size_t>(scale + 1 - static_cast<int>(digits.size())), '0');
    }
    digits.insert(digits.size() - static_cast<size_t>(scale), ".");
  }
  return (unscaled < 0 ? "-" : "") + digits;
}

std::string DateText(int64_t days) {
  // Civil-from-days (proleptic Gregorian).
  int64_t z = days + 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t y = yoe + era * 400;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  const int64_t d = doy - (153 * mp + 2) / 5 + 1;
  const int64_t m = mp < 10 ? mp + 3 : mp - 9;
  if (m <= 2) ++y;
  char buf[96];
  std::snprintf(buf, sizeof(buf), "%04lld-%02lld-%02lld", static_cast<long long>(y),
                static_cast<long long>(m), static_cast<long long>(d));
  return buf;
}

}  // namespace

Value Value::Decimal(int128_t unscaled, int precision, int scale) {
  Value v;
  v.type = DataType::Decimal(precision, scale);
  v.is_null = false;
  if (v.type.is_wide_decimal()) {
    v.i128 = unscaled;
  } else {
    v.i64 = static_cast<int64_t>(unscaled);
  }
  return v;
}

std::string Value::ToString() const {
  if (is_null) return "NULL";
  switch (type.id) {
    case TypeId::kBool:
      return i64 ? "TRUE" : "FALSE";
    case TypeId::kFloat32:
    case TypeId::kFloat64: {
      char buf[64];
      std::snprintf(buf, sizeof(buf), "%.17g", f64);
      return buf;
    }
    case TypeId::kDecimal:
      return DecimalText(DecimalUnscaled(), type.scale);
    case TypeId::kDate32:
      return "DATE '" + DateText(i64) + "'";
    case TypeId::kTimestamp: {
      const int64_t day = (i64 >= 0 ? i64 : i64 - 86399999999) / 86400000000;
      const int64_t us = i64 - day * 86400000000;
      char buf[64];
      std::snprintf(
          buf, sizeof(buf), "TIMESTAMP '%s %02lld:%02lld:%02lld.%06lld'", DateText(day).c_str(),
          static_cast<long long>(us / 3600000000), static_cast<long long>(us / 60000000 % 60),
          static_cast<long long>(us / 1000000 % 60), static_cast<long long>(us % 1000000));
      return buf;
    }
    case TypeId::kString:
    case TypeId::kBinary: {
      std::string out = "'";
      for (char c : str) {
        if (c == '\'') out += '\'';
        out += c;
      }
      return out + "'";
    }
    case TypeId::kUInt64:
      return std::to_string(static_cast<uint64_t>(i64));
    default:
      return std::to_string(i64);
  }
}

bool Value::operator==(const Value& o) const {
  if (type != o.type || is_null != o.is_null) return false;
  if (is_null) return true;
  if (type.is_floating()) return f64 == o.f64;
  if (type.is_string_like()) return str == o.str;
  if (type.is_wide_decimal()) return i128 == o.i128;
  return i64 == o.i64;
}

}  // namespace tandem
