// Support check of the GPU window operator (gpu_operators_more.h), plain C++ for the placement
// planner. It accepts exactly what window.cu and window_aggregates.cu implement: the ranking
// functions but NTILE, the navigation functions but NTH_VALUE, COUNT/SUM/AVG/MIN/MAX over ROWS
// frames and offset-free RANGE frames, and partition, order and argument expressions the GPU
// evaluator accepts.
#include "tandem/exec/gpu/gpu_operators_more.h"
#include "tandem/expr/gpu/evaluate.h"

namespace tandem::gpu {
namespace {

bool IsOffsetBound(WindowFrame::BoundKind b) {
  return b == WindowFrame::BoundKind::kPreceding || b == WindowFrame::BoundKind::kFollowing;
}

// Ranking results are written as WindowIntColumn writes them on the CPU.
bool IsCountType(const DataType& t) {
  return t.id == TypeId::kInt64 || t.id == TypeId::kInt32 || t.id == TypeId::kFloat64;
}

std::string AggregateCallUnsupported(const WindowCall& call) {
  const char* name = AggregateKindName(call.aggregate);
  switch (call.aggregate) {
    case AggregateKind::kCountStar:
    case AggregateKind::kCount:
      if (!IsCountType(call.type)) return "window count of type " + call.type.ToString();
      return "";
    case AggregateKind::kSum:
    case AggregateKind::kAvg: {
      if (call.args.empty() || call.args[0] == nullptr) return "";  // the operator reports it
      const DataType& t = call.args[0]->type;
      if (!(t.is_integer() || t.is_decimal() || t.is_floating())) {
        return std::string("window ") + name + " over " + t.ToString();
      }
      return "";
    }
    case AggregateKind::kMin:
    case AggregateKind::kMax: {
      if (call.args.empty() || call.args[0] == nullptr) return "";
      const DataType& t = call.args[0]->type;
      // The CPU twin compares date and timestamp values as equal (window_aggregates.cc's
      // ExactValue has no case for them), so a GPU result could not agree with it.
      if (t.id == TypeId::kDate32 || t.id == TypeId::kTimestamp) {
        return std::string("window ") + name + " over " + t.ToString();
      }
      return "";
    }
    default:
      return std::string("window function ") + name;
  }
}

std::string CallUnsupported(const WindowCall& call) {
  for (const auto& e : call.partition_by) {
    if (e == nullptr) return "window PARTITION BY key missing";
    const std::string why = ExprUnsupported(*e);
    if (!why.empty()) return "window PARTITION BY " + e->ToString() + ": " + why;
  }
  for (const SortKey& k : call.order_by) {
    if (k.expr == nullptr) return "window ORDER BY key missing";
    const std::string why = ExprUnsupported(*k.expr);
    if (!why.empty()) return "window ORDER BY " + k.expr->ToString() + ": " + why;
  }
  for (const auto& e : call.args) {
    if (e == nullptr) return "window function argument missing";
    const std::string why = ExprUnsupported(*e);
    if (!why.empty()) return "window argument " + e->ToString() + ": " + why;
  }
  const WindowFrame& f = call.frame;
  if (f.unit == WindowFrame::Unit::kRange && (IsOffsetBound(f.start) || IsOffsetBound(f.end))) {
    return "window frame RANGE with offsets";
  }
  if ((IsOffsetBound(f.start) && f.start_offset < 0) ||
      (IsOffsetBound(f.end) && f.end_offset < 0)) {
    return "window frame with a negative offset";
  }
  switch (call.kind) {
    case WindowFunctionKind::kRowNumber:
    case WindowFunctionKind::kRank:
    case WindowFunctionKind::kDenseRank:
      if (!IsCountType(call.type)) return "window ranking of type " + call.type.ToString();
      return "";
    case WindowFunctionKind::kPercentRank:
    case WindowFunctionKind::kCumeDist:
      if (call.type.id != TypeId::kFloat64) return "window ranking of type " + call.type.ToString();
      return "";
    case WindowFunctionKind::kLag:
    case WindowFunctionKind::kLead:
    case WindowFunctionKind::kFirstValue:
    case WindowFunctionKind::kLastValue:
      return "";
    case WindowFunctionKind::kNtile:
      return "window function ntile";
    case WindowFunctionKind::kNthValue:
      return "window function nth_value";
    case WindowFunctionKind::kAggregate:
      return AggregateCallUnsupported(call);
  }
  return "unknown window function";
}

}  // namespace

std::string WindowUnsupported(const PlanNode& node) {
  if (node.kind != PlanKind::kWindow) return "not a window operator";
  for (const WindowCall& call : node.windows) {
    const std::string why = CallUnsupported(call);
    if (!why.empty()) return why;
  }
  return "";
}

}  // namespace tandem::gpu
