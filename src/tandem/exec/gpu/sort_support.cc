// Support checks of the GPU Sort/TopN and Limit (gpu_operators.h), compiled in every build so the
// placement planner can explain its choices on machines without a GPU.
#include "tandem/exec/gpu/gpu_operators.h"

namespace tandem::gpu {

std::string SortUnsupported(const PlanNode& node) {
  for (const SortKey& key : node.sort_keys) {
    if (key.expr == nullptr) return "sort key missing";
    // The GPU sort orders by input columns; the planner computes other keys in a projection.
    if (key.expr->kind != ExprKind::kColumnRef || key.expr->outer_depth != 0 ||
        key.expr->column_index < 0) {
      return "sort key expression (" + key.expr->ToString() + ")";
    }
  }
  return "";
}

std::string LimitUnsupported(const PlanNode&) { return ""; }

}  // namespace tandem::gpu
