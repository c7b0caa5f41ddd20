// Decorrelation: replaces every kSubquery expression of a bound plan by joins, so subqueries run
// once as set operations instead of once per row.
//   WHERE [NOT] EXISTS (...)           -> SEMI / ANTI join; equality correlations become keys,
//                                         other correlated predicates the join's condition
//   WHERE x [NOT] IN (...), = ANY, <> ALL -> SEMI join / null-aware ANTI join
//   scalar subquery, uncorrelated      -> inner join with its (exactly one) row
//   scalar subquery, correlated        -> aggregate grouped by the correlation columns, LEFT
//                                         join on them; COUNT's empty-group value restored
// Anything else ("subquery inside OR", correlation under LIMIT or UNION ...) is reported as
// "not supported yet: ..." with the subquery's SQL position.
#pragma once

#include "tandem/plan/logical_plan.h"

namespace tandem::plan {

Result<PlanPtr> Decorrelate(const PlanPtr& plan);

}  // namespace tandem::plan
