// Join enumeration by dynamic programming over the subsets of a join graph's inputs (DPsub, as
// in Moerkotte and Neumann's DPccp family): the cheapest plan of every connected subset from the
// cheapest plans of its two connected halves, where a plan's cost is the sum over its joins of
// the estimated rows (or bytes) each outputs and builds its hash table on, and of its probe rows'
// lookups (cheaper where the build side's key bitmap or table stays in cache). Unlike the greedy
// order it sees that joining a larger pair first can shrink everything after it (TPC-H Q05:
// customer joined with its region's nations, 1/5 of it, before orders and lineitem, where joining
// nation with supplier first is the smallest single step). Only for graphs that are connected and
// small: the work grows as 3^n in the worst case.
#pragma once

#include <vector>

#include "tandem/plan/join_graph.h"

namespace tandem::plan {

// Inputs beyond which the caller orders greedily.
inline constexpr size_t kMaxEnumeratedJoinInputs = 10;

// The cheapest bushy tree of hash joins over `leaves` (leaf i is bit i of the graph's masks)
// into *out; false when there are too many leaves or the graph is not connected (a cross
// product would be needed).
bool EnumerateJoins(const std::vector<JoinTree>& leaves, const JoinGraph& graph, bool by_bytes,
                    JoinTree* out);

}  // namespace tandem::plan
