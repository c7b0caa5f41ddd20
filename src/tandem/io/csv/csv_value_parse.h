// Text -> value parsers of the CSV reader (internal). Strict: the whole text must be the value
// (no surrounding spaces), so a value that does not parse is reported, never guessed at.
//   integers   [+-]digits, range-checked for the target width
//   floats     decimal or exponent notation, nan / inf / infinity in any case, optional sign
//   bool       true / false (any case); with numbers_too also 1 / 0
//   decimal    [+-]digits[.digits][e[+-]digits], exact: fails rather than round or overflow
//   date       [+-]YYYY-MM-DD (4 to 7 year digits), proleptic Gregorian
//   timestamp  date, optionally followed by T or space, HH:MM[:SS[.fraction]] and a zone
//              (Z, +HH, +HHMM, +HH:MM); fractions finer than microseconds must be zeros;
//              values with a zone are converted to UTC
#pragma once

#include <cstdint>
#include <string_view>

#include "tandem/types/data_type.h"

namespace tandem::csv::internal {

bool ParseInt64(std::string_view s, int64_t* out);
bool ParseUInt64(std::string_view s, uint64_t* out);
bool ParseDouble(std::string_view s, double* out);
bool ParseFloat(std::string_view s, float* out);
bool ParseBool(std::string_view s, bool numbers_too, bool* out);
bool ParseDate(std::string_view s, int32_t* days);
// *has_zone says whether the text carried a zone (then *micros is UTC).
bool ParseTimestamp(std::string_view s, int64_t* micros, bool* has_zone);
// nullptr on success, else why it failed ("more than 2 fractional digits", ...).
const char* ParseDecimal(std::string_view s, int precision, int scale, int128_t* out);

}  // namespace tandem::csv::internal
