// Vectorized evaluation of bound expressions on the CPU: one call evaluates an expression over a
// whole batch and returns a column of batch.num_rows values. Literals are broadcast lazily
// (kernels take a column or a scalar), NULLs follow SQL's three-valued logic, and errors
// (overflow, invalid cast, ANSI division by zero) name the expression and its SQL position.
#pragma once

#include "tandem/column/batch.h"
#include "tandem/exec/exec_context.h"
#include "tandem/expr/expr.h"

namespace tandem::cpu {

Result<ColumnPtr> Evaluate(const Expr& expr, const Batch& input, EvalContext& ctx);

// Evaluates a boolean predicate and returns the indexes of rows where it is TRUE (not NULL).
Result<std::vector<int32_t>> EvaluateSelection(const Expr& predicate, const Batch& input,
                                               EvalContext& ctx);

// Evaluates an expression with no column references (constant folding, scalar subqueries
// turned literal).
Result<Value> EvaluateConstant(const Expr& expr, EvalContext& ctx);

}  // namespace tandem::cpu
