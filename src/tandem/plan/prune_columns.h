// Projection pruning: walks the plan top-down with the set of columns each node's parent reads,
// so every scan reads only the columns used above it, projections and aggregates drop outputs
// nobody reads, windows nobody reads disappear, and identity projections left over by earlier
// passes are removed. The root keeps its output columns exactly.
#pragma once

#include <unordered_map>
#include <vector>

#include "tandem/plan/logical_plan.h"

namespace tandem::plan {

PlanPtr PruneColumns(const PlanPtr& plan);

// The output columns (sorted positions) each node of `plan` keeps once pruned, by the node's
// address in `plan`: a scan's are the columns it reads. A node pruning never reaches (the right
// side of a mark join whose mark nobody reads) has none. Join ordering weighs its inputs' rows
// by these widths.
using KeptColumns = std::unordered_map<const PlanNode*, std::vector<int>>;
KeptColumns ColumnsEachNodeKeeps(const PlanPtr& plan);

}  // namespace tandem::plan
