// Support checks of the GPU Filter and Project: plain C++, compiled in every build. A node is
// supported when every expression it evaluates compiles for the GPU interpreter (the same check
// the evaluator makes), so explain's reasons name the expression part that is missing.
#include "tandem/exec/gpu/gpu_operators.h"
#include "tandem/expr/gpu/evaluate.h"
#include "tandem/expr/gpu/program.h"

namespace tandem::gpu {

std::string FilterUnsupported(const PlanNode& node) {
  if (node.kind != PlanKind::kFilter) return "not a filter";
  if (!node.predicate) return "filter without a predicate";
  internal::Program program;
  const std::string why = internal::Compile(*node.predicate, /*selection=*/true, &program);
  return why.empty() ? "" : "predicate " + node.predicate->ToString() + ": " + why;
}

std::string ProjectUnsupported(const PlanNode& node) {
  if (node.kind != PlanKind::kProject) return "not a projection";
  for (const auto& e : node.exprs) {
    const std::string why = ExprUnsupported(*e);
    if (!why.empty()) return "expression " + e->ToString() + ": " + why;
  }
  return "";
}

}  // namespace tandem::gpu
