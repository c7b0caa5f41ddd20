// Predicate pushdown: splits filters into conjuncts and moves each as far down as it can go:
// through projections (substituting the projected expressions), below aggregates when it reads
// only group keys, through sorts and into both inputs of set operations, and into join inputs.
// Conjuncts that read both sides of an inner join become its equi-keys (equalities) or its
// residual condition, which turns "FROM a, b WHERE a.x = b.y" into a hash join. Outer joins
// keep their semantics: nothing moves into a null-supplying side from above, but a WHERE
// conjunct that rejects the NULLs of that side first turns LEFT/RIGHT/FULL into a stricter join.
#pragma once

#include "tandem/plan/logical_plan.h"

namespace tandem::plan {

PlanPtr PushDownPredicates(const PlanPtr& plan);

// Semi-join reduction below aggregates: where an aggregate is joined (inner, or as the right
// side of a semi join) on one of its group keys, its input is first filtered by a semi join with
// the smallest subtree of the other side known to hold every key value that can match (that
// side itself, one of its inputs, or an input equated to it by a join key), when the estimates
// say the filter keeps at most half of the groups from a much smaller input. TPC-H Q17 and Q20
// then aggregate the lineitems of the few selected parts instead of all of lineitem.
PlanPtr ReduceAggregateInputs(const PlanPtr& plan);

// Whether `predicate` is FALSE or NULL whenever every column in [begin, end) is NULL.
bool RejectsNulls(const Expr& predicate, int begin, int end);

}  // namespace tandem::plan
