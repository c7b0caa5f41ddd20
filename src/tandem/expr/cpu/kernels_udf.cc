// UDF calls on the CPU (see kernels_udf.h). A deterministic UDF whose operands are all scalars
// runs once on one row and stays a scalar, like a built-in; a non-deterministic one always runs
// on every row of the batch (each row may get its own value).
#include "tandem/expr/cpu/kernels_udf.h"

#include "tandem/column/take.h"
#include "tandem/udf/call_cpu.h"
#include "tandem/udf/function.h"

namespace tandem::cpu::internal {

Result<Datum> EvaluateUdfCall(const Expr& e, const std::vector<Datum>& args, int64_t rows) {
  if (!e.udf) return Status::Internal("UDF call without a function: " + e.ToString());
  const UdfFunction& f = *e.udf;
  bool all_scalar = true;
  for (const Datum& d : args) all_scalar &= d.is_scalar();
  const bool once = all_scalar && f.deterministic;
  const int64_t n = once ? 1 : rows;
  std::vector<ColumnPtr> columns;
  columns.reserve(args.size());
  for (const Datum& d : args) columns.push_back(ToColumn(d, n));
  Result<ColumnPtr> result = udf::CallCpu(f, columns, n);
  if (!result.ok()) {
    if (result.status().code() != StatusCode::kInvalid) return result.status();
    return ExprError(e, result.status().message());
  }
  if (once) return Datum::Scalar(GetValue(**result, 0));
  return Datum::Of(std::move(*result));
}

}  // namespace tandem::cpu::internal
