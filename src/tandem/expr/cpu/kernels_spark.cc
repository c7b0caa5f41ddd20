// Kernels of the functions only Spark plan fragments use (spark/fragment_aggregate.cc,
// spark/fragment_expr.cc), each Spark's own formula:
//   spark_decimal_average(sum decimal, count int64, like decimal): Average's result, sum / count
//     rounded HALF_UP at like's scale; NULL when count is 0 or sum is NULL; past like's precision
//     an error in ANSI mode, NULL otherwise (DecimalDivideWithOverflowCheck).
//   unscaled_value(decimal(p <= 18, s)) -> int64: the unscaled value (UnscaledValue).
//   make_decimal(int64, like decimal): the int64 read as an unscaled value of like's type;
//     outside its precision an error in ANSI mode, NULL otherwise (MakeDecimal).
// `like` is a typed NULL literal that only carries the result type.
#include "tandem/column/column_builder.h"
#include "tandem/expr/cpu/kernels.h"
#include "tandem/types/decimal.h"

namespace tandem::cpu::internal {
namespace {

void AppendDecimal(ColumnBuilder* b, const DataType& t, int128_t v) {
  if (t.is_wide_decimal()) {
    b->Append<int128_t>(v);
  } else {
    b->Append<int64_t>(static_cast<int64_t>(v));
  }
}

Result<ColumnPtr> DecimalAverage(const CallContext& cc, const std::vector<Datum>& args) {
  const DataType& result = cc.expr.type;
  const int up = result.scale - args[0].type().scale;
  ColumnBuilder b(result, cc.rows);
  for (int64_t i = 0; i < cc.rows; ++i) {
    const Value sum = DatumValue(args[0], i), count = DatumValue(args[1], i);
    if (sum.is_null || count.is_null || count.i64 == 0) {
      b.AppendNull();
      continue;
    }
    int128_t q;
    if (!decimal::DivideScaled(sum.DecimalUnscaled(), up, count.i64, &q) ||
        !decimal::FitsPrecision(q, result.precision)) {
      if (cc.eval.ansi) return ExprError(cc.expr, "decimal average overflows " + result.ToString());
      b.AppendNull();
      continue;
    }
    AppendDecimal(&b, result, q);
  }
  return b.Finish();
}

Result<ColumnPtr> UnscaledValue(const CallContext& cc, const std::vector<Datum>& args) {
  ColumnBuilder b(DataType::Int64(), cc.rows);
  for (int64_t i = 0; i < cc.rows; ++i) {
    const Value v = DatumValue(args[0], i);
    if (v.is_null) {
      b.AppendNull();
    } else {
      b.Append<int64_t>(static_cast<int64_t>(v.DecimalUnscaled()));
    }
  }
  return b.Finish();
}

Result<ColumnPtr> MakeDecimal(const CallContext& cc, const std::vector<Datum>& args) {
  const DataType& result = cc.expr.type;
  ColumnBuilder b(result, cc.rows);
  for (int64_t i = 0; i < cc.rows; ++i) {
    const Value v = DatumValue(args[0], i);
    if (v.is_null) {
      b.AppendNull();
    } else if (!decimal::FitsPrecision(v.i64, result.precision)) {
      if (cc.eval.ansi)
        return ExprError(cc.expr, std::to_string(v.i64) + " overflows " + result.ToString());
      b.AppendNull();
    } else {
      AppendDecimal(&b, result, v.i64);
    }
  }
  return b.Finish();
}

}  // namespace

void RegisterSparkKernels(KernelMap* map) {
  (*map)["spark_decimal_average"] = {DecimalAverage, false};
  (*map)["unscaled_value"] = {UnscaledValue, true};
  (*map)["make_decimal"] = {MakeDecimal, false};
}

}  // namespace tandem::cpu::internal
