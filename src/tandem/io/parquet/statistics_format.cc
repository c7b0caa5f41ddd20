// FormatStatValue: statistics bounds printed for people (`tandem meta`): integers, booleans,
// dates and timestamps in ISO form, decimals with their scale, shortest round-trip floats, quoted
// and escaped strings and hex binary, both cut at 64 bytes.
#include <algorithm>
#include <charconv>
#include <cstdio>
#include <limits>

#include "tandem/io/parquet/statistics.h"

namespace tandem::parquet {

using int128 = __int128;

namespace {

// Days since 1970-01-01 to a proleptic Gregorian year/month/day (Hinnant's civil calendar
// arithmetic, re-derived: 400-year eras of 146097 days, years starting in March).
void CivilFromDays(int64_t days, int64_t* y, int* m, int* d) {
  days += 719468;
  const int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const int64_t doe = days - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  *d = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  *m = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  *y = yoe + era * 400 + (*m <= 2);
}

std::string Int128ToString(int128 v) {
  if (v == 0) return "0";
  const bool negative = v < 0;
  uint128_t u = negative ? -static_cast<uint128_t>(v) : static_cast<uint128_t>(v);
  std::string s;
  while (u > 0) {
    s.push_back(static_cast<char>('0' + static_cast<int>(u % 10)));
    u /= 10;
  }
  if (negative) s.push_back('-');
  return std::string(s.rbegin(), s.rend());
}

std::string FormatDate(int64_t days) {
  int64_t y;
  int m, d;
  CivilFromDays(days, &y, &m, &d);
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%04lld-%02d-%02d", static_cast<long long>(y), m, d);
  return buf;
}

std::string FormatTimestamp(int128 micros, bool utc) {
  if (micros > std::numeric_limits<int64_t>::max() ||
      micros < std::numeric_limits<int64_t>::min()) {
    return Int128ToString(micros);
  }
  const int64_t us = static_cast<int64_t>(micros);
  int64_t days = us / 86400000000LL;
  int64_t rest = us % 86400000000LL;
  if (rest < 0) {
    rest += 86400000000LL;
    --days;
  }
  const int64_t secs = rest / 1000000, frac = rest % 1000000;
  char buf[64];
  std::snprintf(buf, sizeof(buf), " %02lld:%02lld:%02lld", static_cast<long long>(secs / 3600),
                static_cast<long long>(secs / 60 % 60), static_cast<long long>(secs % 60));
  std::string s = FormatDate(days) + buf;
  if (frac != 0) {
    std::snprintf(buf, sizeof(buf), ".%06lld", static_cast<long long>(frac));
    s += buf;
  }
  return utc ? s + "Z" : s;
}

std::string FormatDecimal(int128 unscaled, int scale) {
  std::string digits = Int128ToString(unscaled < 0 ? -unscaled : unscaled);
  std::string out = unscaled < 0 ? "-" : "";
  if (scale <= 0) return out + digits;
  const size_t frac = static_cast<size_t>(scale);
  if (digits.size() <= frac) digits = std::string(frac + 1 - digits.size(), '0') + digits;
  const size_t whole = digits.size() - frac;
  return out + digits.substr(0, whole) + "." + digits.substr(whole);
}

constexpr size_t kMaxPrintedBytes = 64;

std::string FormatBytes(const std::string& bytes, bool as_text) {
  const size_t n = std::min(bytes.size(), kMaxPrintedBytes);
  std::string s;
  static const char* kHex = "0123456789abcdef";
  if (as_text) {
    s.push_back('"');
    for (size_t i = 0; i < n; ++i) {
      const unsigned char c = static_cast<unsigned char>(bytes[i]);
      if (c == '"' || c == '\\') {
        s.push_back('\\');
        s.push_back(static_cast<char>(c));
      } else if (c < 0x20 || c == 0x7F) {
        s += "\\x";
        s.push_back(kHex[c >> 4]);
        s.push_back(kHex[c & 15]);
      } else {
        s.push_back(static_cast<char>(c));  // UTF-8 bytes pass through
      }
    }
    s.push_back('"');
  } else {
    s = "0x";
    for (size_t i = 0; i < n; ++i) {
      const unsigned char c = static_cast<unsigned char>(bytes[i]);
      s.push_back(kHex[c >> 4]);
      s.push_back(kHex[c & 15]);
    }
  }
  if (bytes.size() > n) s += "... (" + std::to_string(bytes.size()) + " bytes)";
  return s;
}

}  // namespace

std::string FormatStatValue(const StatValue& value, const DataType& type) {
  if (auto* d = std::get_if<double>(&value)) {
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof(buf), *d);
    return std::string(buf, r.ptr);
  }
  if (auto* s = std::get_if<std::string>(&value)) {
    return FormatBytes(*s, type.id == TypeId::kString);
  }
  if (auto* i = std::get_if<int128>(&value)) {
    switch (type.id) {
      case TypeId::kBool:
        return *i ? "true" : "false";
      case TypeId::kDate32:
        return FormatDate(static_cast<int64_t>(*i));
      case TypeId::kTimestamp:
        return FormatTimestamp(*i, type.utc);
      case TypeId::kDecimal:
        return FormatDecimal(*i, type.scale);
      default:
        return Int128ToString(*i);
    }
  }
  return "?";
}

}  // namespace tandem::parquet
