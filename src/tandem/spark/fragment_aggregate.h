// Spark's aggregation modes on Tandem's hash aggregate. A Spark aggregate runs in two halves
// around a shuffle: Partial emits Spark's aggregation buffers (sum and isEmpty for a decimal
// sum, sum and count for an average ...), Final merges buffers into results. Tandem computes
// exactly those buffer columns, so either half may run in Tandem while the other runs in Spark:
//   partial:  Aggregate(keys, Tandem aggregates) -> Project(keys, Spark's buffers)
//   final:    Aggregate(keys, aggregates over the buffer columns) -> Project(keys, results)
//   complete: Aggregate(keys, Tandem aggregates) -> Project(keys, results)
// The buffer and result formulas are Spark's (Sum.scala, Average.scala): a decimal sum is NULL
// when every buffer is empty, an average divides in exact decimal arithmetic rounding HALF_UP
// once at the result scale (Spark rounds at 39 digits first, which changes nothing while the
// scale is at most 16 and counts stay below 10^19), a count of no rows is 0.
#pragma once

#include "tandem/plan/logical_plan.h"
#include "tandem/spark/fragment_expr.h"

namespace tandem::spark {

// An "aggregate" node over `child` (already built).
Result<PlanPtr> AggregateFromJson(const Json& node, PlanPtr child, const SparkSettings& settings,
                                  const std::string& where);

}  // namespace tandem::spark
