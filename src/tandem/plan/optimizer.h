// The optimizer: rewrites a bound plan into an equivalent cheaper one. Passes, in order:
//   decorrelation   kSubquery expressions -> semi/anti/inner/left joins (+ aggregation for
//                   scalar subqueries); uncorrelated scalar subqueries may be evaluated once
//   constant folding
//   predicate pushdown  conjuncts move below projections and into joins; WHERE equalities
//                   between two sides turn cross joins into hash joins
//   join ordering   greedy on estimated cardinalities (Parquet footers, filter selectivities),
//                   or the cheapest tree by dynamic programming (join_order_enumerate); rows or
//                   rows times row width (join_order_by_bytes); the input with fewer rows
//                   becomes the build (right) side
//   projection pruning  each scan reads only the columns used above it
//   limit below projections  Limit(Project(Sort)) -> Project(Limit(Sort)), a TopN
//   scan predicates  simple column-vs-constant conjuncts copied to the scan for row-group pruning
#pragma once

#include "tandem/plan/logical_plan.h"

namespace tandem {

struct OptimizerOptions {
  bool reorder_joins = true;
  // Join ordering weighs joins by bytes rather than rows (tandem.optimizer.joinOrderByBytes).
  bool join_order_by_bytes = true;
  // Join order by enumeration over equal-column classes (tandem.optimizer.joinOrder=dp) or
  // greedy over the predicates as written (greedy, the default).
  bool join_order_enumerate = false;
};

Result<PlanPtr> Optimize(PlanPtr plan, const OptimizerOptions& options = {});

}  // namespace tandem
