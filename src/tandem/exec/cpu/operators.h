// The CPU operators, one file each under exec/cpu/. Each takes the node and its already
// computed inputs and returns its output table (schema = node.schema). Batches of the output
// may have any size; operators that keep order (filter, project, sort, limit) keep it.
#pragma once

#include <functional>
#include <vector>

#include "tandem/column/table.h"
#include "tandem/exec/exec_context.h"
#include "tandem/plan/logical_plan.h"

namespace tandem::cpu {

Result<Table> Scan(const PlanNode& node, ExecContext& ctx);
// A scan that hands each piece of the data it reads (at most ctx.cpu_batch_rows rows, in the
// node's output shape) to `each`; what `each` returns takes the piece's place in the result, in
// order. Parquet sources call it on the reader's threads as each row group is decoded, so that
// a pipeline above (exec/cpu/pipeline.h) runs while the other row groups are read and no
// unprocessed row group piles up in memory; other sources, after reading.
using ScanPieceFn = std::function<Result<std::vector<BatchPtr>>(BatchPtr)>;
// `each` over `pieces` (of one row group) on every idle thread; what it returns, in order.
Result<std::vector<BatchPtr>> EachPieceInParallel(std::vector<BatchPtr> pieces,
                                                  const ScanPieceFn& each, ExecContext& ctx);
// `filter`: the predicate of a Filter directly above the scan, which runs on what the scan hands
// on: Parquet scans test its conditions on single columns on their chunks' dictionaries
// first (exec/cpu/scan_conditions.h), so that rows it would drop are never built. Null: none.
Result<Table> ScanStreaming(const PlanNode& scan_node, ExecContext& ctx, const ScanPieceFn& each,
                            const Expr* filter = nullptr);
// A kFilter directly over a kScan, run inside the scan (ScanStreaming; with tandem.exec.pipelines
// off, as a pipeline does it otherwise).
Result<Table> ScanFiltered(const PlanNode& scan_node, const PlanNode& filter_node,
                           ExecContext& ctx);
Result<Table> Filter(const PlanNode& node, const Table& input, ExecContext& ctx);
Result<Table> Project(const PlanNode& node, const Table& input, ExecContext& ctx);
Result<Table> HashAggregate(const PlanNode& node, const Table& input, ExecContext& ctx);
Result<Table> HashJoin(const PlanNode& node, const Table& left, const Table& right,
                       ExecContext& ctx);
Result<Table> Sort(const PlanNode& node, const Table& input, ExecContext& ctx);
// kLimit; when the input node is a kSort the executor calls TopN instead of Sort + Limit.
Result<Table> Limit(const PlanNode& node, const Table& input, ExecContext& ctx);
Result<Table> TopN(const PlanNode& limit_node, const PlanNode& sort_node, const Table& input,
                   ExecContext& ctx);
// kSetOp over its inputs in order: two or more for UNION [ALL], exactly two otherwise.
Result<Table> SetOperation(const PlanNode& node, const std::vector<Table>& inputs,
                           ExecContext& ctx);
Result<Table> Window(const PlanNode& node, const Table& input, ExecContext& ctx);
Result<Table> Expand(const PlanNode& node, const Table& input, ExecContext& ctx);
Result<Table> Values(const PlanNode& node, ExecContext& ctx);

}  // namespace tandem::cpu
