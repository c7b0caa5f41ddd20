// Constant folding: every subexpression that reads no column is evaluated once at optimization
// time (cpu::EvaluateConstant) and replaced by its literal; AND/OR with a constant side are
// simplified (x AND TRUE -> x, x AND FALSE -> FALSE, x OR TRUE -> TRUE, x OR FALSE -> x), and a
// Filter whose predicate folds to TRUE disappears. Expressions whose evaluation fails (1/0 in
// ANSI mode, a bad cast) are left as they are, so the error still happens at run time, if the
// row is ever evaluated.
#pragma once

#include "tandem/plan/logical_plan.h"

namespace tandem::plan {

ExprPtr FoldExpression(const ExprPtr& e);
PlanPtr FoldConstants(const PlanPtr& plan);

}  // namespace tandem::plan
