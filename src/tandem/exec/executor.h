// Runs a placed plan: its CPU part as push-based pipelines cut at breakers (exec/cpu/pipeline.h),
// morsels of each batch on the thread pool, and operators over whole inputs where a node does not
// stream; its GPU parts on one stream per query, over slices or hash partitions of their input
// where it is large; transition nodes copy between host and device. The result of the root is the
// query's result (on the host). The physical plan is built first (PlanPhysical, kept in the
// context), and every operator records its metrics (with its device) in the context.
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

// What each node of `plan` will run as (exec/physical_plan.h) under ctx's settings and cached
// tables, without running it: EXPLAIN's physical operators and pipelines.
PhysicalPlan PlanPhysical(const PlanNode& plan, ExecContext& ctx);

}  // namespace tandem
