// The GPU operators: GPU twins of exec/cpu/operators.h with identical semantics (the CPU twin is
// the test oracle). Each takes the plan node and its inputs as whole device batches and returns a
// device batch whose schema is node.schema. All work is queued on ctx.stream; operators
// synchronize only where a result size must come back to the host (e.g. a filter's count).
//
// Every entry point also has a support check, `...Unsupported(node)`, plain C++ compiled in every
// build: "" when the GPU twin handles the node (its expressions, types and options), else the
// reason ("string keys", "window frame RANGE") that the placement planner shows in explain. The
// two must agree: the support check may only accept what the operator implements.
#pragma once

#include <string>

#include "tandem/exec/exec_context.h"
#include "tandem/gpu/device_column.h"
#include "tandem/plan/logical_plan.h"

namespace tandem::gpu {

struct GpuContext {
  const Stream* stream = nullptr;
  EvalContext eval;  // ANSI mode etc., as on the CPU
};

// Filter (kFilter): keeps rows where the predicate is TRUE; order kept.
std::string FilterUnsupported(const PlanNode& node);
Result<DeviceBatchPtr> Filter(const PlanNode& node, const DeviceBatch& input, GpuContext& ctx);

// Project (kProject).
std::string ProjectUnsupported(const PlanNode& node);
Result<DeviceBatchPtr> Project(const PlanNode& node, const DeviceBatch& input, GpuContext& ctx);

// Hash aggregate (kAggregate), also with a filter fused in (the predicate may be null).
std::string AggregateUnsupported(const PlanNode& node);
Result<DeviceBatchPtr> HashAggregate(const PlanNode& node, const Expr* filter,
                                     const DeviceBatch& input, GpuContext& ctx);

// Hash join (kJoin), every JoinType, NOT IN (null_aware) semantics included.
std::string JoinUnsupported(const PlanNode& node);
Result<DeviceBatchPtr> HashJoin(const PlanNode& node, const DeviceBatch& left,
                                const DeviceBatch& right, GpuContext& ctx);

// Sort (kSort), stable; TopN for a Limit directly over a Sort; Limit (kLimit).
std::string SortUnsupported(const PlanNode& node);
Result<DeviceBatchPtr> Sort(const PlanNode& node, const DeviceBatch& input, GpuContext& ctx);
Result<DeviceBatchPtr> TopN(const PlanNode& limit_node, const PlanNode& sort_node,
                            const DeviceBatch& input, GpuContext& ctx);
std::string LimitUnsupported(const PlanNode& node);
Result<DeviceBatchPtr> Limit(const PlanNode& node, const DeviceBatch& input, GpuContext& ctx);

}  // namespace tandem::gpu
