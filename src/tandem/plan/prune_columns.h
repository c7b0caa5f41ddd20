// Projection pruning: walks the plan top-down with the set of columns each node's parent reads,
// so every scan reads only the columns used above it, projections and aggregates drop outputs
// nobody reads, windows nobody reads disappear, and identity projections left over by earlier
// passes are removed. The root keeps its output columns exactly.
#pragma once

#include "tandem/plan/logical_plan.h"

namespace tandem::plan {

PlanPtr PruneColumns(const PlanPtr& plan);

}  // namespace tandem::plan
