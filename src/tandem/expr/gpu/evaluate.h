// Expression evaluation on the GPU: the twin of expr/cpu/evaluate.h, same results (values, NULLs,
// errors such as integer overflow or ANSI division by zero) for every expression it accepts.
// ExprUnsupported is plain C++ compiled in every build; the placement planner calls it for
// support tags, so it must accept only what Evaluate implements.
#pragma once

#include <string>

#include "tandem/exec/exec_context.h"
#include "tandem/expr/expr.h"
#include "tandem/gpu/device_column.h"

namespace tandem::gpu {

// "" when `expr` (the whole tree) can be evaluated on the GPU, else the first reason it cannot,
// naming the function or type ("function split_part", "type binary").
std::string ExprUnsupported(const Expr& expr);

// Evaluates `expr` over the batch's rows; the result has batch.num_rows values.
Result<DeviceColumnPtr> Evaluate(const Expr& expr, const DeviceBatch& batch,
                                 const EvalContext& eval, const Stream& stream);

// Row indices (int64, ascending) where `predicate` is TRUE, and their count.
struct Selection {
  DeviceBuffer indices;  // SelectionParts::kIndices
  int64_t count = 0;
  DeviceBuffer flags;  // kCountAndFlags: one byte per row, 1 where TRUE
};
// kCountAndFlags serves consumers that take a row mask (and decide by the count).
enum class SelectionParts { kIndices, kCountAndFlags };
Result<Selection> SelectTrue(const Expr& predicate, const DeviceBatch& batch,
                             const EvalContext& eval, const Stream& stream,
                             SelectionParts parts = SelectionParts::kIndices);

}  // namespace tandem::gpu
