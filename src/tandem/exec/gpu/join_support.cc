// JoinUnsupported: which join nodes the GPU hash join (join.cu) runs. Plain C++, compiled in every
// build, so placement and explain work without a device.
#include <string>

#include "tandem/exec/gpu/aggregate_key_limits.h"
#include "tandem/exec/gpu/gpu_operators.h"
#include "tandem/expr/gpu/evaluate.h"

namespace tandem::gpu {
namespace {

std::string KeyUnsupported(const Expr& e) {
  const DataType& t = e.type;
  if (!(t.is_string_like() || t.id == TypeId::kBool || t.is_integer() || t.is_floating() ||
        t.is_decimal() || t.id == TypeId::kDate32 || t.id == TypeId::kTimestamp)) {
    return "join key of type " + t.ToString();
  }
  if (e.kind == ExprKind::kColumnRef && e.outer_depth == 0) return "";
  const std::string why = ExprUnsupported(e);
  return why.empty() ? "" : "join key: " + why;
}

}  // namespace

std::string JoinUnsupported(const PlanNode& node) {
  if (node.left_keys.size() != node.right_keys.size()) return "unpaired join keys";
  if (static_cast<int>(node.left_keys.size()) > kMaxGpuKeyColumns) {
    return "more than " + std::to_string(kMaxGpuKeyColumns) + " join keys";
  }
  for (size_t k = 0; k < node.left_keys.size(); ++k) {
    if (node.left_keys[k]->type != node.right_keys[k]->type) {
      return "join key " + std::to_string(k) + " types differ";
    }
    std::string why = KeyUnsupported(*node.left_keys[k]);
    if (why.empty()) why = KeyUnsupported(*node.right_keys[k]);
    if (!why.empty()) return why;
  }
  if (node.condition) {
    const std::string why = ExprUnsupported(*node.condition);
    if (!why.empty()) return "join condition: " + why;
  }
  if (node.join_type == JoinType::kMark && node.null_aware && !node.left_keys.empty() &&
      (node.left_keys.size() > 1 || node.condition)) {
    return "null-aware mark join (IN) with several keys or a condition";
  }
  return "";
}

}  // namespace tandem::gpu
