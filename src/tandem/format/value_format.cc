// Value formatting for text and JSON outputs (rules in value_format.h).
#include "tandem/format/value_format.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "tandem/types/type_dispatch.h"

namespace tandem::format {
namespace {

constexpr int64_t kMicrosPerSecond = 1000000;
constexpr int64_t kMicrosPerDay = 86400 * kMicrosPerSecond;

int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

void AppendPadded(int64_t value, int width, std::string* out) {
  char buf[24];
  auto res = std::to_chars(buf, buf + sizeof(buf), value);
  for (int64_t n = res.ptr - buf; n < width; ++n) out->push_back('0');
  out->append(buf, res.ptr);
}

void AppendTwoDigits(int value, std::string* out) {
  out->push_back(static_cast<char>('0' + value / 10));
  out->push_back(static_cast<char>('0' + value % 10));
}

template <typename T>
void AppendInteger(T value, std::string* out) {
  char buf[24];
  auto res = std::to_chars(buf, buf + sizeof(buf), value);
  out->append(buf, res.ptr);
}

// Appends shortest digits of a finite or special float, making integral-looking output a float.
template <typename F>
void AppendFloating(F value, bool json, std::string* out) {
  if (std::isnan(value)) {
    out->append(json ? "\"NaN\"" : "NaN");
    return;
  }
  if (std::isinf(value)) {
    if (json) out->push_back('"');
    out->append(value < 0 ? "-Infinity" : "Infinity");
    if (json) out->push_back('"');
    return;
  }
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), value);
  const size_t n = static_cast<size_t>(res.ptr - buf);
  out->append(buf, n);
  bool looks_integral = true;
  for (size_t i = 0; i < n; ++i) {
    if (buf[i] == '.' || buf[i] == 'e' || buf[i] == 'E') looks_integral = false;
  }
  if (looks_integral) out->append(".0");
}

const char kBase64Alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// Length of the valid UTF-8 sequence starting at s[0] (1..4), or 0 when it is invalid.
size_t ValidUtf8Length(const unsigned char* s, size_t avail) {
  const unsigned char c = s[0];
  size_t len;
  uint32_t min_cp;
  uint32_t cp;
  if (c < 0x80) return 1;
  if ((c & 0xE0) == 0xC0) {
    len = 2, min_cp = 0x80, cp = c & 0x1F;
  } else if ((c & 0xF0) == 0xE0) {
    len = 3, min_cp = 0x800, cp = c & 0x0F;
  } else if ((c & 0xF8) == 0xF0) {
    len = 4, min_cp = 0x10000, cp = c & 0x07;
  } else {
    return 0;
  }
  if (avail < len) return 0;
  for (size_t i = 1; i < len; ++i) {
    if ((s[i] & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (s[i] & 0x3F);
  }
  if (cp < min_cp || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return len;
}

}  // namespace

CivilDate CivilFromDays(int64_t days) {
  // Eras of 400 years (146097 days) starting on March 1st, so leap days end each year.
  const int64_t z = days + 719468;
  const int64_t era = FloorDiv(z, 146097);
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

int64_t DaysFromCivil(int64_t year, int month, int day) {
  const int64_t y = year - (month <= 2 ? 1 : 0);
  const int64_t era = FloorDiv(y, 400);
  const int64_t year_of_era = y - era * 400;
  const int64_t month_from_march = (month + 9) % 12;
  const int64_t day_of_year = (153 * month_from_march + 2) / 5 + day - 1;
  const int64_t day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  return era * 146097 + day_of_era - 719468;
}

int DaysInMonth(int64_t year, int month) {
  static const int kDays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (month == 2) {
    const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    return leap ? 29 : 28;
  }
  return kDays[month - 1];
}

void AppendInt128(int128_t value, std::string* out) {
  char buf[48];
  char* end = buf + sizeof(buf);
  char* p = end;
  uint128_t magnitude = value < 0 ? -static_cast<uint128_t>(value) : static_cast<uint128_t>(value);
  do {
    *--p = static_cast<char>('0' + static_cast<int>(magnitude % 10));
    magnitude /= 10;
  } while (magnitude != 0);
  if (value < 0) *--p = '-';
  out->append(p, end);
}

void AppendDecimal(int128_t unscaled, int scale, std::string* out) {
  if (scale <= 0) {
    AppendInt128(unscaled, out);
    return;
  }
  char digits[48];
  char* end = digits + sizeof(digits);
  char* p = end;
  uint128_t magnitude =
      unscaled < 0 ? -static_cast<uint128_t>(unscaled) : static_cast<uint128_t>(unscaled);
  do {
    *--p = static_cast<char>('0' + static_cast<int>(magnitude % 10));
    magnitude /= 10;
  } while (magnitude != 0);
  // Left-pad with zeros so there is at least one integer digit.
  while (end - p < scale + 1) *--p = '0';
  if (unscaled < 0) out->push_back('-');
  const int64_t integer_digits = (end - p) - scale;
  out->append(p, static_cast<size_t>(integer_digits));
  out->push_back('.');
  out->append(p + integer_digits, static_cast<size_t>(scale));
}

void AppendDate(int32_t days_since_epoch, std::string* out) {
  const CivilDate date = CivilFromDays(days_since_epoch);
  if (date.year < 0) {
    out->push_back('-');
    AppendPadded(-date.year, 4, out);
  } else {
    AppendPadded(date.year, 4, out);
  }
  out->push_back('-');
  AppendTwoDigits(date.month, out);
  out->push_back('-');
  AppendTwoDigits(date.day, out);
}

void AppendTimestamp(int64_t micros_since_epoch, bool utc, std::string* out) {
  // Truncating division and remainder, then a floor correction: never overflows, even at the
  // int64 extremes.
  int64_t days = micros_since_epoch / kMicrosPerDay;
  int64_t micros_of_day = micros_since_epoch % kMicrosPerDay;
  if (micros_of_day < 0) {
    micros_of_day += kMicrosPerDay;
    --days;
  }
  const CivilDate date = CivilFromDays(days);
  if (date.year < 0) {
    out->push_back('-');
    AppendPadded(-date.year, 4, out);
  } else {
    AppendPadded(date.year, 4, out);
  }
  out->push_back('-');
  AppendTwoDigits(date.month, out);
  out->push_back('-');
  AppendTwoDigits(date.day, out);
  out->push_back('T');
  const int64_t seconds = micros_of_day / kMicrosPerSecond;
  AppendTwoDigits(static_cast<int>(seconds / 3600), out);
  out->push_back(':');
  AppendTwoDigits(static_cast<int>(seconds / 60 % 60), out);
  out->push_back(':');
  AppendTwoDigits(static_cast<int>(seconds % 60), out);
  out->push_back('.');
  AppendPadded(micros_of_day % kMicrosPerSecond, 6, out);
  if (utc) out->push_back('Z');
}

void AppendDouble(double value, std::string* out) { AppendFloating(value, false, out); }
void AppendFloat(float value, std::string* out) { AppendFloating(value, false, out); }

void AppendBase64(std::string_view bytes, std::string* out) {
  const auto* s = reinterpret_cast<const unsigned char*>(bytes.data());
  const size_t n = bytes.size();
  size_t i = 0;
  for (; i + 3 <= n; i += 3) {
    const uint32_t v = (uint32_t{s[i]} << 16) | (uint32_t{s[i + 1]} << 8) | s[i + 2];
    out->push_back(kBase64Alphabet[v >> 18]);
    out->push_back(kBase64Alphabet[(v >> 12) & 63]);
    out->push_back(kBase64Alphabet[(v >> 6) & 63]);
    out->push_back(kBase64Alphabet[v & 63]);
  }
  if (n - i == 1) {
    const uint32_t v = uint32_t{s[i]} << 16;
    out->push_back(kBase64Alphabet[v >> 18]);
    out->push_back(kBase64Alphabet[(v >> 12) & 63]);
    out->append("==");
  } else if (n - i == 2) {
    const uint32_t v = (uint32_t{s[i]} << 16) | (uint32_t{s[i + 1]} << 8);
    out->push_back(kBase64Alphabet[v >> 18]);
    out->push_back(kBase64Alphabet[(v >> 12) & 63]);
    out->push_back(kBase64Alphabet[(v >> 6) & 63]);
    out->push_back('=');
  }
}

void AppendJsonString(std::string_view text, std::string* out) {
  static const char kHex[] = "0123456789abcdef";
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  out->push_back('"');
  size_t i = 0;
  while (i < n) {
    const unsigned char c = s[i];
    if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
      // Copy the run of plain ASCII in one go.
      size_t j = i + 1;
      while (j < n && s[j] >= 0x20 && s[j] < 0x80 && s[j] != '"' && s[j] != '\\') ++j;
      out->append(text.data() + i, j - i);
      i = j;
      continue;
    }
    if (c < 0x80) {
      switch (c) {
        case '"':
          out->append("\\\"");
          break;
        case '\\':
          out->append("\\\\");
          break;
        case '\n':
          out->append("\\n");
          break;
        case '\r':
          out->append("\\r");
          break;
        case '\t':
          out->append("\\t");
          break;
        case '\b':
          out->append("\\b");
          break;
        case '\f':
          out->append("\\f");
          break;
        default:
          out->append("\\u00");
          out->push_back(kHex[c >> 4]);
          out->push_back(kHex[c & 15]);
      }
      ++i;
      continue;
    }
    const size_t len = ValidUtf8Length(s + i, n - i);
    if (len == 0) {
      out->append("\xEF\xBF\xBD");  // U+FFFD REPLACEMENT CHARACTER
      ++i;
    } else {
      out->append(text.data() + i, len);
      i += len;
    }
  }
  out->push_back('"');
}

bool IsNumeric(const DataType& type) {
  return type.is_integer() || type.is_floating() || type.is_decimal();
}

void AppendText(const Column& column, int64_t row, std::string* out) {
  const DataType& type = column.type();
  switch (type.id) {  // the types whose text is not their storage type's
    case TypeId::kDate32:
      return AppendDate(column.Value<int32_t>(row), out);
    case TypeId::kTimestamp:
      return AppendTimestamp(column.Value<int64_t>(row), type.utc, out);
    case TypeId::kBinary:
      return AppendBase64(column.GetString(row), out);
    default:
      break;
  }
  VisitStorage(type,
               Overloaded{[&](BoolTag) { out->append(column.GetBool(row) ? "true" : "false"); },
                          [&](StringTag) { out->append(column.GetString(row)); },
                          [&]<typename T>(Tag<T>) {
                            const T value = column.Value<T>(row);
                            if constexpr (std::is_floating_point_v<T>) {
                              AppendFloating(value, false, out);
                            } else if (type.is_decimal()) {
                              AppendDecimal(value, type.scale, out);
                            } else if constexpr (!std::is_same_v<T, int128_t>) {
                              AppendInteger(value, out);
                            }
                          }});
}

void AppendJson(const Column& column, int64_t row, std::string* out) {
  if (column.IsNull(row)) {
    out->append("null");
    return;
  }
  const DataType& type = column.type();
  switch (type.id) {
    case TypeId::kFloat32:
      AppendFloating(column.Value<float>(row), true, out);
      return;
    case TypeId::kFloat64:
      AppendFloating(column.Value<double>(row), true, out);
      return;
    case TypeId::kDecimal:
    case TypeId::kDate32:
    case TypeId::kTimestamp:
    case TypeId::kBinary:
      // Texts of these contain only ASCII letters, digits and punctuation: no escaping needed.
      out->push_back('"');
      AppendText(column, row, out);
      out->push_back('"');
      return;
    case TypeId::kString:
      AppendJsonString(column.GetString(row), out);
      return;
    default:
      AppendText(column, row, out);
      return;
  }
}

}  // namespace tandem::format
