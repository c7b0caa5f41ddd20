// AggregateUnsupported: which aggregate nodes the GPU hash aggregate (aggregate.cu) runs. Plain
// C++, compiled in every build, so placement and explain work without a device.
#include <string>

#include "tandem/exec/gpu/aggregate_key_limits.h"
#include "tandem/exec/gpu/gpu_operators.h"
#include "tandem/expr/gpu/evaluate.h"

namespace tandem::gpu {
namespace {

// "" when the expression's values can be produced on the GPU: a plain column reference is used
// as it is, anything else must be supported by the GPU evaluator.
std::string InputUnsupported(const Expr& e) {
  if (e.kind == ExprKind::kColumnRef && e.outer_depth == 0) return "";
  return ExprUnsupported(e);
}

bool FixedOrString(const DataType& t) {
  return t.is_string_like() || t.id == TypeId::kBool || t.is_integer() || t.is_floating() ||
         t.is_decimal() || t.id == TypeId::kDate32 || t.id == TypeId::kTimestamp;
}

std::string CallUnsupported(const AggregateCall& a) {
  if (a.filter) {
    const std::string why = InputUnsupported(*a.filter);
    if (!why.empty()) return "FILTER clause of " + a.name + ": " + why;
  }
  if (a.kind == AggregateKind::kCountStar) return "";
  if (!a.arg) return a.name + " without an argument";
  const std::string why = InputUnsupported(*a.arg);
  if (!why.empty()) return "argument of " + a.name + ": " + why;
  const DataType& t = a.arg->type;
  if (!FixedOrString(t)) return a.name + " of type " + t.ToString();
  switch (a.kind) {
    case AggregateKind::kSum:
    case AggregateKind::kAvg:
      if (t.is_decimal()) {
        if (!a.type.is_decimal() && a.type.id != TypeId::kFloat64) {
          return a.name + " with result type " + a.type.ToString();
        }
        if (a.type.is_decimal() && (a.type.scale < t.scale || a.type.scale - t.scale > 19)) {
          return a.name + " with result scale " + std::to_string(a.type.scale);
        }
        return "";
      }
      if (t.is_integer() || t.is_floating()) return "";
      return a.name + " of type " + t.ToString();
    case AggregateKind::kStddevSamp:
    case AggregateKind::kStddevPop:
    case AggregateKind::kVarSamp:
    case AggregateKind::kVarPop:
      if (t.is_integer() || t.is_floating() || t.is_decimal()) return "";
      return a.name + " of type " + t.ToString();
    case AggregateKind::kBoolAnd:
    case AggregateKind::kBoolOr:
      return t.id == TypeId::kBool ? "" : a.name + " of type " + t.ToString();
    default:
      return "";
  }
}

}  // namespace

std::string AggregateUnsupported(const PlanNode& node) {
  if (!node.grouping_sets.empty()) return "grouping sets";
  if (static_cast<int>(node.group_keys.size()) > kMaxGpuKeyColumns) {
    return "more than " + std::to_string(kMaxGpuKeyColumns) + " group keys";
  }
  for (const auto& k : node.group_keys) {
    const std::string why = InputUnsupported(*k);
    if (!why.empty()) return "group key: " + why;
    if (!FixedOrString(k->type)) return "group key of type " + k->type.ToString();
  }
  for (const auto& a : node.aggregates) {
    const std::string why = CallUnsupported(a);
    if (!why.empty()) return why;
  }
  return "";
}

}  // namespace tandem::gpu
