// Runs a logical plan on the CPU, operator at a time: each operator receives its inputs as
// Tables (vectors of batches) and works on their batches in parallel on the thread pool; the
// result of the root is the query's result. Every operator records its metrics in the context.
#pragma once

#include "tandem/column/table.h"
#include "tandem/exec/exec_context.h"
#include "tandem/plan/logical_plan.h"

namespace tandem {

Result<Table> Execute(const PlanNode& plan, ExecContext& ctx);

// EXPLAIN ANALYZE: the plan tree with each node's recorded metrics.
std::string PlanToStringWithMetrics(const PlanNode& root, const ExecContext& ctx);

}  // namespace tandem
