// Device twins of the CPU evaluator's date helpers: civil-date conversions (from
// format/value_format.cc) and floor division. Decimal and 128-bit arithmetic is the CPU's own,
// compiled for the device: types/decimal_core.h.
#pragma once

#include <cstdint>

#include "tandem/types/decimal_core.h"

namespace tandem::gpu::internal {

using i128 = __int128;
using u128 = unsigned __int128;

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
