// Decorrelation: replaces every kSubquery expression of a bound plan by joins, so subqueries run
// once as set operations instead of once per row.
//   WHERE [NOT] EXISTS (...)           -> SEMI / ANTI join; equality correlations become keys,
//                                         other correlated predicates the join's condition
//   WHERE x [NOT] IN (...), = ANY, <> ALL -> SEMI join / null-aware ANTI join (a MARK join
//                                         keeping FALSE marks for correlated NOT IN over
//                                         nullable columns)
//   EXISTS / IN anywhere else (select list, under OR, inside CASE)
//                                      -> MARK join; the subquery becomes its mark column
//   scalar subquery, uncorrelated      -> inner join with its one row (more than one row is an
//                                         error, through ensure_single_row; none gives NULL)
//   scalar subquery, correlated        -> aggregate grouped by the correlation columns, LEFT
//                                         join on them; COUNT's empty-group value restored.
//                                         Correlations other than equalities: the distinct
//                                         outer values are joined in below the aggregate (or
//                                         the single-row check) and grouped by.
// Anything else (correlation under LIMIT or UNION, outer columns in a select list ...) is
// reported as "not supported yet: ..." with the subquery's SQL position.
#pragma once

#include "tandem/plan/logical_plan.h"

namespace tandem::plan {

Result<PlanPtr> Decorrelate(const PlanPtr& plan);

}  // namespace tandem::plan
