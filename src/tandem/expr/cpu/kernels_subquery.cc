// Kernels for functions that only decorrelated subqueries use (plan/decorrelate.cc):
// ensure_single_row(count int64) -> bool is TRUE for counts of 0 or 1 and raises "scalar
// subquery returned more than one row" otherwise, so a scalar subquery rewritten into a join
// fails the way SQL says it must instead of silently duplicating outer rows.
#include "tandem/expr/cpu/kernels.h"

namespace tandem::cpu::internal {
namespace {

Result<ColumnPtr> EnsureSingleRow(const CallContext& cc, const std::vector<Datum>& args) {
  const Datum& count = args[0];
  const int64_t n = cc.rows;
  if (count.type().id != TypeId::kInt64) {
    return Status::Internal("ensure_single_row expects an int64 count, got " +
                            count.type().ToString());
  }
  const int64_t* in = count.column->values_as<int64_t>();
  int64_t too_many = 0;
  for (int64_t i = 0; i < n; ++i) too_many |= in[i] > 1 && count.IsValid(i);
  if (too_many) {
    std::string msg = "scalar subquery returned more than one row";
    if (cc.expr.pos.line > 0) msg += " (line " + cc.expr.pos.ToString() + ")";
    return Status::Invalid(msg);
  }
  auto values = AllocateOutput(DataType::Bool(), n);
  FillBits(values->mutable_data(), n, [](int64_t) { return true; });
  return MakeColumn(DataType::Bool(), n, CombineValidity({&count}, n), std::move(values));
}

}  // namespace

void RegisterSubqueryKernels(KernelMap* map) {
  (*map)["ensure_single_row"] = {EnsureSingleRow, true};
}

}  // namespace tandem::cpu::internal
