// Runs a plan, operator at a time: CPU nodes receive their inputs as Tables (vectors of batches)
// and work on their batches in parallel on the thread pool; GPU nodes (placed by
// placement/placement.h) work on whole device batches on one stream per query, and transition
// nodes copy between host and device. The result of the root is the query's result (on the host).
// Every operator records its metrics (with its device) in the context.
#pragma once

#include "tandem/column/table.h"
#include "tandem/exec/cpu/pipeline_sink.h"
#include "tandem/exec/exec_context.h"
#include "tandem/plan/logical_plan.h"

namespace tandem {

Result<Table> Execute(const PlanNode& plan, ExecContext& ctx);

// The same with the result's rows going to `rows_into` instead (finished at the end; the result
// is what its Finish returns): straight from the CPU pipeline that makes them when their order
// does not matter (no ORDER BY over them), so that a result larger than memory never exists
// whole; otherwise the rows are made whole, then handed over batch by batch.
Result<Table> Execute(const PlanNode& plan, ExecContext& ctx, cpu::PipelineSink& rows_into);

}  // namespace tandem
