// Strict text -> value parsers used by CSV inference and conversion.
#include "tandem/io/csv/csv_value_parse.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

#include "tandem/format/value_format.h"

namespace tandem::csv::internal {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

bool EqualsIgnoreCase(std::string_view s, std::string_view lower_word) {
  if (s.size() != lower_word.size()) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != lower_word[i]) return false;
  }
  return true;
}

// Reads exactly `n` digits at s[*pos]; advances *pos.
bool ReadFixedDigits(std::string_view s, size_t* pos, int n, int* out) {
  if (*pos + n > s.size()) return false;
  int v = 0;
  for (int i = 0; i < n; ++i) {
    const char c = s[*pos + i];
    if (!IsDigit(c)) return false;
    v = v * 10 + (c - '0');
  }
  *pos += n;
  *out = v;
  return true;
}

// Parses the [+-]YYYY-MM-DD prefix of s; *pos is where it ended.
bool ParseDatePrefix(std::string_view s, size_t* pos, int64_t* days) {
  size_t p = 0;
  bool negative = false;
  if (p < s.size() && (s[p] == '-' || s[p] == '+')) negative = s[p++] == '-';
  const size_t year_begin = p;
  int64_t year = 0;
  while (p < s.size() && IsDigit(s[p]) && p - year_begin < 7) year = year * 10 + (s[p++] - '0');
  if (p - year_begin < 4 || p >= s.size() || s[p] != '-') return false;
  ++p;
  int month = 0;
  int day = 0;
  if (!ReadFixedDigits(s, &p, 2, &month) || p >= s.size() || s[p] != '-') return false;
  ++p;
  if (!ReadFixedDigits(s, &p, 2, &day)) return false;
  if (negative) year = -year;
  if (month < 1 || month > 12 || day < 1 || day > format::DaysInMonth(year, month)) return false;
  *days = format::DaysFromCivil(year, month, day);
  *pos = p;
  return true;
}

}  // namespace

bool ParseInt64(std::string_view s, int64_t* out) {
  const char* b = s.data();
  const char* e = b + s.size();
  if (b < e && *b == '+') {
    ++b;
    if (b < e && *b == '-') return false;
  }
  if (b == e) return false;
  auto res = std::from_chars(b, e, *out);
  return res.ec == std::errc() && res.ptr == e;
}

bool ParseUInt64(std::string_view s, uint64_t* out) {
  const char* b = s.data();
  const char* e = b + s.size();
  if (b < e && *b == '+') ++b;
  if (b == e || *b == '-') return false;
  auto res = std::from_chars(b, e, *out);
  return res.ec == std::errc() && res.ptr == e;
}

template <typename F>
static bool ParseFloating(std::string_view s, F* out) {
  const char* b = s.data();
  const char* e = b + s.size();
  bool negative = false;
  if (b < e && (*b == '+' || *b == '-')) negative = *b++ == '-';
  if (b == e || *b == '+' || *b == '-') return false;
  F value;
  auto res = std::from_chars(b, e, value, std::chars_format::general);
  if (res.ptr != e) return false;
  if (res.ec == std::errc::result_out_of_range) {
    // Too large or too small for the type: strtod gives the IEEE answer (inf or a tiny value).
    const std::string text(b, e);
    errno = 0;
    value = static_cast<F>(std::strtod(text.c_str(), nullptr));
  } else if (res.ec != std::errc()) {
    return false;
  }
  *out = negative ? -value : value;
  return true;
}

bool ParseDouble(std::string_view s, double* out) { return ParseFloating(s, out); }
bool ParseFloat(std::string_view s, float* out) { return ParseFloating(s, out); }

bool ParseBool(std::string_view s, bool numbers_too, bool* out) {
  if (EqualsIgnoreCase(s, "true")) {
    *out = true;
    return true;
  }
  if (EqualsIgnoreCase(s, "false")) {
    *out = false;
    return true;
  }
  if (numbers_too && s.size() == 1 && (s[0] == '0' || s[0] == '1')) {
    *out = s[0] == '1';
    return true;
  }
  return false;
}

bool ParseDate(std::string_view s, int32_t* days) {
  size_t pos = 0;
  int64_t d = 0;
  if (!ParseDatePrefix(s, &pos, &d) || pos != s.size()) return false;
  if (d < std::numeric_limits<int32_t>::min() || d > std::numeric_limits<int32_t>::max()) {
    return false;
  }
  *days = static_cast<int32_t>(d);
  return true;
}

bool ParseTimestamp(std::string_view s, int64_t* micros, bool* has_zone) {
  size_t p = 0;
  int64_t days = 0;
  if (!ParseDatePrefix(s, &p, &days)) return false;
  int hour = 0, minute = 0, second = 0;
  int64_t fraction_micros = 0;
  int64_t zone_offset_seconds = 0;
  *has_zone = false;
  if (p < s.size()) {
    if (s[p] != 'T' && s[p] != ' ') return false;
    ++p;
    if (!ReadFixedDigits(s, &p, 2, &hour) || p >= s.size() || s[p] != ':') return false;
    ++p;
    if (!ReadFixedDigits(s, &p, 2, &minute)) return false;
    if (p < s.size() && s[p] == ':') {
      ++p;
      if (!ReadFixedDigits(s, &p, 2, &second)) return false;
      if (p < s.size() && s[p] == '.') {
        ++p;
        int digits = 0;
        while (p < s.size() && IsDigit(s[p])) {
          if (digits < 6) {
            fraction_micros = fraction_micros * 10 + (s[p] - '0');
          } else if (s[p] != '0') {
            return false;  // finer than a microsecond: would be lost
          }
          ++digits;
          ++p;
        }
        if (digits == 0 || digits > 9) return false;
        for (int i = digits; i < 6; ++i) fraction_micros *= 10;
      }
    }
    if (hour > 23 || minute > 59 || second > 59) return false;
    if (p < s.size()) {
      if (s[p] == 'Z' || s[p] == 'z') {
        ++p;
      } else if (s[p] == '+' || s[p] == '-') {
        const bool negative = s[p] == '-';
        ++p;
        int zh = 0, zm = 0;
        if (!ReadFixedDigits(s, &p, 2, &zh)) return false;
        if (p < s.size() && s[p] == ':') ++p;
        if (p < s.size() && !ReadFixedDigits(s, &p, 2, &zm)) return false;
        if (zh > 23 || zm > 59) return false;
        zone_offset_seconds = (zh * 3600 + zm * 60) * (negative ? -1 : 1);
      } else {
        return false;
      }
      *has_zone = true;
    }
    if (p != s.size()) return false;
  }
  const int128_t total = (static_cast<int128_t>(days) * 86400 + hour * 3600 + minute * 60 + second -
                          zone_offset_seconds) *
                             1000000 +
                         fraction_micros;
  if (total < std::numeric_limits<int64_t>::min() || total > std::numeric_limits<int64_t>::max()) {
    return false;
  }
  *micros = static_cast<int64_t>(total);
  return true;
}

const char* ParseDecimal(std::string_view s, int precision, int scale, int128_t* out) {
  size_t p = 0;
  bool negative = false;
  if (p < s.size() && (s[p] == '+' || s[p] == '-')) negative = s[p++] == '-';
  // Digits without the point: [digits_begin, p) minus the point; fraction_digits after it.
  const size_t digits_begin = p;
  int64_t fraction_digits = 0;
  int64_t digit_count = 0;
  bool seen_point = false;
  for (; p < s.size(); ++p) {
    if (IsDigit(s[p])) {
      ++digit_count;
      if (seen_point) ++fraction_digits;
    } else if (s[p] == '.' && !seen_point) {
      seen_point = true;
    } else {
      break;
    }
  }
  const size_t digits_end = p;
  if (digit_count == 0) return "not a number";
  int64_t exponent = 0;
  if (p < s.size() && (s[p] == 'e' || s[p] == 'E')) {
    ++p;
    bool exp_negative = false;
    if (p < s.size() && (s[p] == '+' || s[p] == '-')) exp_negative = s[p++] == '-';
    if (p >= s.size()) return "not a number";
    for (; p < s.size() && IsDigit(s[p]); ++p) {
      exponent = exponent * 10 + (s[p] - '0');
      if (exponent > 100000) return "exponent out of range";
    }
    if (exp_negative) exponent = -exponent;
  }
  if (p != s.size()) return "not a number";

  // value = D * 10^(exponent - fraction_digits); unscaled = D * 10^shift.
  const int64_t shift = exponent - fraction_digits + scale;
  int64_t keep = digit_count;  // digits of D that stay
  if (shift < 0) keep = digit_count + shift;
  uint128_t magnitude = 0;
  int64_t seen = 0;
  int significant = 0;
  for (size_t i = digits_begin; i < digits_end; ++i) {
    if (s[i] == '.') continue;
    const int d = s[i] - '0';
    if (seen++ < keep) {
      if (magnitude != 0 || d != 0) {
        if (++significant > precision) return "too many digits for the precision";
        magnitude = magnitude * 10 + static_cast<unsigned>(d);
      }
    } else if (d != 0) {
      return "more fractional digits than the scale";
    }
  }
  if (shift > 0 && magnitude != 0) {
    if (significant + shift > precision) return "too many digits for the precision";
    for (int64_t i = 0; i < shift; ++i) magnitude *= 10;
  }
  const int128_t value = static_cast<int128_t>(magnitude);
  *out = negative ? -value : value;
  return nullptr;
}

}  // namespace tandem::csv::internal
