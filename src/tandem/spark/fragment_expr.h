// Spark expressions of a fragment (docs/spark_fragment.md) as Tandem bound expressions, with
// Spark's semantics or an Unsupported status saying why not. Calls resolve through Tandem's own
// function registry, and the type Tandem computes must equal the type Spark declared: a
// difference (a decimal precision rule, an integer width) is a reason, never a silent cast.
//
// What "Spark's semantics" needs beyond the registry is decided here, in one place:
//   - eval modes: an expression's mode must be the fragment's (ANSI on: overflow and invalid
//     casts are errors, as Tandem does; ANSI off: Spark's LEGACY mode, where integer arithmetic
//     wraps and decimal arithmetic gives NULL on overflow: EvalContext::legacy_overflow, which
//     only the CPU path implements, so such fragments run there). TRY modes are not implemented;
//   - casts are allowed only where Tandem's conversion is Spark's exactly (widening integers,
//     integers to wide enough decimals and to double, decimal rescaling with HALF_UP rounding,
//     decimals to double, integers and decimals to strings, dates to strings);
//   - functions whose Tandem semantics differ somewhere (case mapping beyond Latin-1, substring
//     positions below 1, ...) are unsupported where they could differ.
#pragma once

#include <string>
#include <vector>

#include "tandem/expr/aggregate.h"
#include "tandem/expr/expr.h"
#include "tandem/spark/fragment_json.h"
#include "tandem/types/data_type.h"

namespace tandem::spark {

// Settings of the Spark session a fragment came from.
struct SparkSettings {
  bool ansi = true;
  std::string time_zone = "UTC";
  bool utc() const;  // the session time zone is UTC (or an alias of it)
};

// One expression over an input of this schema (a join condition: left ++ right).
Result<ExprPtr> ExprFromJson(const Json& j, const Schema& input, const SparkSettings& settings,
                             const std::string& where);

// The EXPR list j[key] over `input`.
Result<std::vector<ExprPtr>> ExprList(const Json& j, const char* key, const Schema& input,
                                      const SparkSettings& s, const std::string& where);
// The sort keys j[key]: [{"expr", "ascending", "nulls_first"}].
Result<std::vector<SortKey>> SortKeys(const Json& j, const char* key, const Schema& input,
                                      const SparkSettings& s, const std::string& where);

}  // namespace tandem::spark
