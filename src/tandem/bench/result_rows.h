// Query results as the benchmarks see them: the rows `tandem sql --format jsonl` prints, and the
// check that two runs (two device modes, or Tandem and a reference engine) gave the same answer:
// the same number of rows, the same columns, strings and NULLs equal, numbers (JSON numbers and
// decimal strings) equal to 1e-9 relative, or within half a unit of the last digit of a decimal
// string (so a reference engine's decimal(p,6) average matches Tandem's double). Rows are compared
// in their order first and, if that fails, both sorted, so ties in ORDER BY keys do not count as
// differences.
#pragma once

#include <string>
#include <vector>

#include "tandem/common/status.h"

namespace tandem::bench {

struct ResultValue {
  enum Kind { kNull, kNumber, kText } kind = kNull;
  double number = 0;
  std::string text;   // the text as printed (numbers too)
  int decimals = -1;  // a decimal printed as a string ("12.30"): its fractional digits
};

struct ResultRows {
  std::vector<std::string> columns;
  std::vector<std::vector<ResultValue>> rows;
};

// Parses JSON lines (one object per row; an empty text is zero rows).
Result<ResultRows> ParseJsonLines(const std::string& text);

// Whether two numbers are equal to `relative` (NaN equals NaN; equal infinities are equal).
bool NumbersClose(double a, double b, double relative = 1e-9);

// "" when equal, else what differs first ("row 3, column net_total: 12.5 vs 12.75").
std::string CompareResults(const ResultRows& expected, const ResultRows& actual,
                           double relative = 1e-9);

}  // namespace tandem::bench
