// Internal to the CPU evaluator: the kernel table. A kernel runs one registry function over
// operands that are columns or scalars and returns a column of cc.rows values. Kernels of
// null-propagating functions never see a NULL scalar operand (the dispatcher answers those).
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "tandem/expr/cpu/datum.h"

namespace tandem::cpu::internal {

using KernelFn = Result<ColumnPtr> (*)(const CallContext& cc, const std::vector<Datum>& args);

struct KernelEntry {
  KernelFn fn = nullptr;
  bool null_propagating = true;
};
using KernelMap = std::unordered_map<std::string, KernelEntry>;

// The kernel of a registry function name, or nullptr.
const KernelEntry* FindKernel(const std::string& name);

// Each kernel file adds its functions.
void RegisterArithmeticKernels(KernelMap* map);
void RegisterComparisonKernels(KernelMap* map);
void RegisterLogicKernels(KernelMap* map);
void RegisterStringKernels(KernelMap* map);
// upper()/lower()'s case mapping, in place and byte-length preserving: ASCII letters and the
// two-byte Latin-1 supplement letters (U+00C0..U+00FE). ILIKE folds with it too.
void FoldCase(std::string* text, bool upper);
void RegisterLikeKernels(KernelMap* map);
void RegisterDateTimeKernels(KernelMap* map);
void RegisterMathKernels(KernelMap* map);
void RegisterConditionalKernels(KernelMap* map);
void RegisterSubqueryKernels(KernelMap* map);  // kernels_subquery.cc
void RegisterSparkKernels(KernelMap* map);     // kernels_spark.cc

// Casts (kCast): a column or scalar to `to`; errors name `e` (NULL instead with try_cast).
Result<ColumnPtr> CastColumn(const Expr& e, const Datum& in, const DataType& to, int64_t rows,
                             bool try_cast);
// One evaluated CASE result (THEN or ELSE) and the output rows it supplies: value row j is output
// row rows[j], or with full_length (value computed for every row) value row rows[j] is.
struct CaseBranch {
  Datum value;
  std::vector<int32_t> rows;
  bool full_length = false;
};
// The CASE output (cc.expr.type, cc.rows rows) from its branches; rows no branch supplies are
// NULL. Branch values are cast to the CASE's type first.
Result<ColumnPtr> AssembleCase(const CallContext& cc, std::vector<CaseBranch>* branches);
// IN lists (kInList).
Result<ColumnPtr> EvaluateInListKernel(const CallContext& cc, const std::vector<Datum>& args);

}  // namespace tandem::cpu::internal
