// Join ordering: every maximal tree of inner joins is flattened into its inputs and the
// predicates between them, then rebuilt greedily (GOO: repeatedly join the two connected
// subtrees whose join is estimated smallest, so the result may be bushy). Each hash join gets
// the smaller estimated input on the right, as its build side. Two inputs with no predicate
// between them are joined (a cross product) only when no connected pair is left, and a join
// estimated to yield more rows than its larger input (many-to-many) only when every other
// connected pair would too. A projection on top restores the original column order. Afterwards
// aggregates joined on a group key get their inputs semi-join reduced where that pays
// (ReduceAggregateInputs in pushdown.h).
#pragma once

#include "tandem/plan/logical_plan.h"

namespace tandem::plan {

PlanPtr ReorderJoins(const PlanPtr& plan);

}  // namespace tandem::plan
