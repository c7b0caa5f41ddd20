// Spark's WindowExec and ExpandExec as Tandem plans (docs/spark_fragment.md, "window" and
// "expand").
//
// A Spark window node computes window functions over one (PARTITION BY, ORDER BY)
// specification, each function with its own frame; Tandem's Window takes the same calls. Result
// types follow Spark: ranking functions and NTILE are Spark ints (Tandem computes 64-bit counts,
// narrowed by an ANSI cast that cannot lose a value a partition can hold), the rest must be the
// type Tandem computes, or the function is unsupported with both types in the reason. What
// Tandem's window functions would compute differently from Spark stays in Spark: IGNORE NULLS,
// DISTINCT and FILTER, sums and averages of decimals whose sum Spark caps at precision 38, and
// averages of 64-bit integers (Spark sums them as doubles, rounding where Tandem is exact).
//
// An expand node gives every input row once per projection (Spark computes grouping sets,
// ROLLUP, CUBE and several DISTINCT aggregates with it).
#pragma once

#include "tandem/plan/logical_plan.h"
#include "tandem/spark/fragment_expr.h"

namespace tandem::spark {

// A "window" node over `child` (already built); its output is the child's columns, then one per
// function.
Result<PlanPtr> WindowFromJson(const Json& node, PlanPtr child, const SparkSettings& settings,
                               const std::string& where);

// An "expand" node over `child`: "projections", a list of EXPR lists as wide as its output.
Result<PlanPtr> ExpandFromJson(const Json& node, PlanPtr child, const SparkSettings& settings,
                               const std::string& where);

}  // namespace tandem::spark
