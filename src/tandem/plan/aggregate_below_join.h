// Eager aggregation: an aggregation grouped by columns of a join's left side, over a LEFT or
// INNER equi-join whose right side has many rows per join key, first aggregates the right side
// by its join keys, so that the join meets one row per key instead of all of them:
//   Aggregate[K; aggs over right columns] <- Join(L, R, L.k = R.k)
// becomes
//   Project[K, finals] <- Aggregate[K; merges] <- Join(L, Aggregate[R.k; partials](R), L.k = R.k)
// TPC-H Q13 counts 15M orders per customer through a LEFT join of 1.5M customers: the orders are
// counted per o_custkey first, and 1.5M customers meet 1M counts.
//
// Each row of L meets, per key, the rows of R with that key; so over a group of K, count(r) is
// the sum of the partial counts of the keys its L rows have, sum, min and max likewise; count(*)
// counts an L row that met nothing (LEFT join) once. Counts that met nothing are 0, not NULL.
// Applies when every aggregate is count(*), or count, sum, min or max (no DISTINCT, no FILTER)
// of right-side columns, the keys are left-side columns, the join has no residual condition, and
// the aggregated side is estimated at four or more rows per key, at least half of which meet
// the kept side. A float sum may then differ in its
// last bits (it adds in another order, which SQL leaves open).
#pragma once

#include "tandem/plan/logical_plan.h"

namespace tandem::plan {

PlanPtr AggregateBelowJoin(const PlanPtr& plan);

}  // namespace tandem::plan
