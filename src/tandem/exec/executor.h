// Runs a plan, operator at a time: CPU nodes receive their inputs as Tables (vectors of batches)
// and work on their batches in parallel on the thread pool; GPU nodes (placed by
// placement/placement.h) work on whole device batches on one stream per query, and transition
// nodes copy between host and device. The result of the root is the query's result (on the host).
// Every operator records its metrics (with its device) in the context.
#pragma once

#include "tandem/column/table.h"
#include "tandem/exec/exec_context.h"
#include "tandem/plan/logical_plan.h"

namespace tandem {

Result<Table> Execute(const PlanNode& plan, ExecContext& ctx);

}  // namespace tandem
