// Support tags: whether a plan node can run on the GPU, and if not, why. The reasons come from
// the GPU operators' own support checks (exec/gpu/gpu_operators.h, which consult the GPU
// expression evaluator), so the planner never places what the GPU side does not implement, and
// explain names the expression, type or option at fault. Configuration reasons (device=cpu, no
// usable GPU) are the planner's (placement.h).
#pragma once

#include <functional>
#include <string>

#include "tandem/plan/logical_plan.h"

namespace tandem::placement {

// Where what a scan reads already lives (the session cache, exec_context.h): the scan node, whose
// source and scan_columns say which table and which of its columns.
enum class Residency { kFiles, kHost, kDevice };
using ResidencyFn = std::function<Residency(const PlanNode& scan)>;

// "" when `node` can run on the GPU, else the reason ("window functions", "function
// split_part"). A kLimit directly over a kSort is checked as one TopN by the planner, which
// calls this for both nodes.
std::string GpuUnsupportedReason(const PlanNode& node, Residency scan_residency);

}  // namespace tandem::placement
