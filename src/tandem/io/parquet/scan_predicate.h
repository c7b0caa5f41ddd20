// ScanPredicate: a simple "column op constant" condition a scan can test against a row group's
// min/max statistics to skip it. The SQL layer builds these from WHERE clauses.
#pragma once

#include <cstdint>
#include <string>
#include <variant>

namespace tandem::parquet {

struct ScanPredicate {
  enum class Op { kEq, kNe, kLt, kLe, kGt, kGe, kIsNull, kIsNotNull };
  std::string column;
  Op op = Op::kEq;
  // The constant, in the column's storage domain: integers, dates (days), timestamps (us) and
  // decimals (unscaled, at the column's scale) as int64 or int128 halves in `value`; floats as
  // double; strings and binary as std::string. Unused for kIsNull / kIsNotNull.
  std::variant<std::monostate, int64_t, double, std::string, __int128> value;
};

}  // namespace tandem::parquet
