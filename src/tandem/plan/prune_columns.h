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

// The columns (sorted positions in its output) each scan of `plan` would read after pruning,
// by the scan node's address in `plan`. Join ordering weighs its inputs' rows by these widths.
using ScanReads = std::unordered_map<const PlanNode*, std::vector<int>>;
ScanReads ColumnsScansRead(const PlanPtr& plan);

}  // namespace tandem::plan
