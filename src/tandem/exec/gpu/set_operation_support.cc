// Support check of the GPU set operation (gpu_operators_more.h), plain C++ for the placement
// planner. The GPU twin handles every set operation over columns of every type: rows are
// compared column by column with the device row keys (exec/gpu/row_keys.cuh), which cover all
// types, so there is nothing to reject but a node of another kind.
#include "tandem/exec/gpu/gpu_operators_more.h"

namespace tandem::gpu {

std::string SetOperationUnsupported(const PlanNode& node) {
  if (node.kind != PlanKind::kSetOp) return "not a set operation";
  return "";
}

}  // namespace tandem::gpu
