// Calendar helpers for the TPC-H generator: date32 values (days since 1970-01-01) and the
// specification's fixed dates (clause 4.2.2.12: STARTDATE, CURRENTDATE, ENDDATE).
#pragma once

#include <cstdint>

namespace tandem::tpch {

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's civil-day algorithm).
constexpr int32_t DaysFromCivil(int year, int month, int day) {
  const int y = year - (month <= 2 ? 1 : 0);
  const int era = (y >= 0 ? y : y - 399) / 400;
  const int yoe = y - era * 400;
  const int mp = (month + 9) % 12;
  const int doy = (153 * mp + 2) / 5 + day - 1;
  const int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

constexpr int32_t kStartDate = DaysFromCivil(1992, 1, 1);
constexpr int32_t kCurrentDate = DaysFromCivil(1995, 6, 17);
constexpr int32_t kEndDate = DaysFromCivil(1998, 12, 31);
// Orders are placed up to ENDDATE - 151 days so every line ships and arrives before ENDDATE.
constexpr int32_t kLastOrderDate = kEndDate - 151;

static_assert(kStartDate == 8035);
static_assert(kCurrentDate == 9298);
static_assert(kEndDate == 10591);

}  // namespace tandem::tpch
