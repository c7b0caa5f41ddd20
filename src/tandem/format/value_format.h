// Text of one value of any Tandem type, shared by every output (tables, CSV, JSON lines), so a
// value reads the same everywhere. Rules:
//   integers      decimal digits
//   floats        shortest round-trip digits (std::to_chars), ".0" appended when they would
//                 otherwise look like an integer ("1.0", "-0.0"; "1e+20" stays); NaN, Infinity,
//                 -Infinity as those words (JSON: as strings "NaN", "Infinity", "-Infinity")
//   decimals      exact, with exactly `scale` fractional digits: "12.30", "-0.05" (JSON: string)
//   date32        YYYY-MM-DD, proleptic Gregorian; years outside 0..9999 as "-0044-03-15" or
//                 "12345-01-01" (at least 4 digits, sign only when negative)
//   timestamp     YYYY-MM-DDTHH:MM:SS.ffffff (always 6 fractional digits), plus "Z" when utc
//   bool          true / false
//   string        as is (JSON: escaped; control characters as \u00XX; invalid UTF-8 bytes each
//                 replaced by U+FFFD so the output is always valid UTF-8)
//   binary        base64 (RFC 4648, with padding)
//   null          the caller's marker in text ("NULL" in tables, the null marker in CSV); JSON null
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "tandem/column/column.h"

namespace tandem::format {

// Plain text of the (non-null) value at `row` of `column`, appended to `out`.
void AppendText(const Column& column, int64_t row, std::string* out);
// JSON text of the value at `row` (null -> null), appended to `out`.
void AppendJson(const Column& column, int64_t row, std::string* out);

// Whether the type's text is a number (tables right-align these).
bool IsNumeric(const DataType& type);

// Building blocks, usable on their own.
void AppendDecimal(int128_t unscaled, int scale, std::string* out);
void AppendDate(int32_t days_since_epoch, std::string* out);
void AppendTimestamp(int64_t micros_since_epoch, bool utc, std::string* out);
void AppendDouble(double value, std::string* out);
void AppendFloat(float value, std::string* out);
void AppendInt128(int128_t value, std::string* out);
void AppendBase64(std::string_view bytes, std::string* out);
// `text` as a JSON string literal, quotes included.
void AppendJsonString(std::string_view text, std::string* out);

// Proleptic Gregorian calendar <-> days since 1970-01-01 (valid for any int32 day count and for
// years within +-5.8 million).
struct CivilDate {
  int64_t year;
  int month;  // 1..12
  int day;    // 1..31
};
CivilDate CivilFromDays(int64_t days);
int64_t DaysFromCivil(int64_t year, int month, int day);
int DaysInMonth(int64_t year, int month);

}  // namespace tandem::format
