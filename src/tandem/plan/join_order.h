// Join ordering: every maximal tree of inner joins is flattened into its inputs and the
// predicates between them (a join graph, join_graph.h). With `enumerate`, the graph's equalities
// over plain columns form classes of equal columns (a = b and b = c also join a's input with
// c's), and a connected graph of at most kMaxEnumeratedJoinInputs inputs gets the cheapest bushy
// tree by dynamic programming (join_enumeration.h); a larger or disconnected one, and every
// graph without `enumerate` (its predicates as written), is rebuilt greedily (GOO:
// repeatedly join the two connected subtrees whose join is estimated smallest, so the result may be
// bushy). Smallest means fewest rows, or with `by_bytes` fewest bytes: rows times the estimated
// width of the columns the inputs carry once pruned. Bytes keep wide rows (customer's names,
// addresses and comments in TPC-H Q10) out of hash tables a large input probes, and joined late,
// after the narrow joins that shrink the rows they meet. Rows alone still decide which input
// builds, whether a join expands, and which two inputs a cross product joins. Each hash join gets
// the smaller estimated input on the right, as its build side. Two inputs with no predicate
// between them are joined (a cross product) only when no connected pair is left, and a join
// estimated to yield more rows than its larger input (many-to-many) only when every other
// connected pair would too. A projection on top restores the original column order. Afterwards
// aggregates joined on a group key get their inputs semi-join reduced where that pays
// (ReduceAggregateInputs in pushdown.h).
#pragma once

#include "tandem/plan/logical_plan.h"

namespace tandem::plan {

PlanPtr ReorderJoins(const PlanPtr& plan, bool by_bytes, bool enumerate);

}  // namespace tandem::plan
