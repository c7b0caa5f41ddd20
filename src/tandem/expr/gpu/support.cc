// ExprUnsupported: the GPU support check for expressions. An expression runs on the GPU exactly
// when it compiles into an interpreter program (compile.cc), so the check and the evaluator
// cannot disagree. Plain C++, compiled in every build (the placement planner calls it).
#include "tandem/expr/gpu/evaluate.h"
#include "tandem/expr/gpu/program.h"

namespace tandem::gpu {

std::string ExprUnsupported(const Expr& expr) {
  internal::Program program;
  return internal::Compile(expr, /*selection=*/false, &program);
}

}  // namespace tandem::gpu
