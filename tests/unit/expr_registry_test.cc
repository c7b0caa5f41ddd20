// Function registry and aggregate type rules against Spark SQL's documented decimal rules
// (DecimalPrecision / adjustPrecisionScale) and its implicit casts.
#include <gtest/gtest.h>

#include "tandem/common/status.h"
#include "tandem/expr/aggregate.h"
#include "tandem/expr/function_constants.h"
#include "tandem/expr/function_registry.h"
#include "tandem/types/decimal.h"

namespace tandem {
namespace {

template <typename T>
T Unwrap(Result<T> r) {
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? std::move(r).value() : T{};
}

DataType Dec(int p, int s) { return DataType::Decimal(p, s); }

DataType ResultOf(const std::string& f, std::vector<DataType> args) {
  auto r = ResolveScalarFunction(f, args);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? r->result_type : DataType::Bool();
}

TEST(ExprRegistryTest, SparkDecimalArithmeticTypes) {
  // TPC-H shapes: 1 - l_discount, l_extendedprice * (1 - l_discount), ... * (1 + l_tax).
  EXPECT_EQ(ResultOf("subtract", {DataType::Int32(), Dec(15, 2)}), Dec(16, 2));
  EXPECT_EQ(ResultOf("multiply", {Dec(15, 2), Dec(16, 2)}), Dec(32, 4));
  EXPECT_EQ(ResultOf("multiply", {Dec(32, 4), Dec(16, 2)}), Dec(38, 6));
  EXPECT_EQ(ResultOf("add", {Dec(15, 2), Dec(10, 4)}), Dec(18, 4));
  // Spark: decimal(38,18) * decimal(38,18) -> decimal(38,6) after adjustPrecisionScale.
  EXPECT_EQ(ResultOf("multiply", {Dec(38, 18), Dec(38, 18)}), Dec(38, 6));
  // divide: scale max(6, s1+p2+1), precision p1-s1+s2+scale.
  EXPECT_EQ(ResultOf("divide", {Dec(10, 2), Dec(10, 2)}), Dec(23, 13));
  EXPECT_EQ(ResultOf("divide", {Dec(38, 6), Dec(38, 4)}), Dec(38, 6));
  EXPECT_EQ(ResultOf("modulo", {Dec(10, 2), Dec(5, 3)}), Dec(5, 3));
  EXPECT_EQ(decimal::AdjustPrecisionScale(40, 2), Dec(38, 2));  // keeps min(scale, 6)
  EXPECT_EQ(decimal::AdjustPrecisionScale(40, 10), Dec(38, 8));
}

TEST(ExprRegistryTest, IntegerAndFloatRules) {
  EXPECT_EQ(ResultOf("add", {DataType::Int32(), DataType::Int64()}), DataType::Int64());
  EXPECT_EQ(ResultOf("divide", {DataType::Int32(), DataType::Int32()}), DataType::Float64());
  EXPECT_EQ(ResultOf("multiply", {Dec(15, 2), DataType::Float64()}), DataType::Float64());
  auto r = ResolveScalarFunction("add", {DataType::Int32(), Dec(15, 2)});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->arg_types[0], Dec(10, 0));  // the binder casts the integer to decimal(10,0)
  EXPECT_EQ(ResultOf("subtract", {DataType::Date32(), DataType::Date32()}), DataType::Int64());
  EXPECT_EQ(ResultOf("add", {DataType::Date32(), DataType::Int32()}), DataType::Date32());
}

TEST(ExprRegistryTest, ComparisonsCastToCommonType) {
  auto r = ResolveScalarFunction("lt", {DataType::Date32(), DataType::String()});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->arg_types[1], DataType::Date32());
  r = ResolveScalarFunction("le", {DataType::Date32(), DataType::Timestamp(false)});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->arg_types[0], DataType::Timestamp(false));
  r = ResolveScalarFunction("eq", {Dec(15, 2), Dec(12, 4)});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->arg_types[0], Dec(17, 4));
  EXPECT_EQ(r->arg_types[1], Dec(17, 4));
  r = ResolveScalarFunction("lt", {DataType::Int32(), Dec(15, 2)});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->arg_types[0], Dec(15, 2));
  EXPECT_FALSE(ResolveScalarFunction("eq", {DataType::Bool(), DataType::Date32()}).ok());
}

TEST(ExprRegistryTest, ErrorsAndNames) {
  auto r = ResolveScalarFunction("no_such_fn", {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "unknown function no_such_fn");
  r = ResolveScalarFunction("substring", {DataType::String()});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "function substring takes 2 or 3 arguments, got 1");
  r = ResolveScalarFunction("lt", {DataType::Date32(), DataType::Bool()});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "cannot apply lt to date32 and bool");
  for (const char* f : {"like",
                        "ilike",
                        "concat",
                        "substring",
                        "upper",
                        "lower",
                        "trim",
                        "ltrim",
                        "rtrim",
                        "length",
                        "replace",
                        "strpos",
                        "starts_with",
                        "lpad",
                        "rpad",
                        "split_part",
                        "extract_year",
                        "extract_quarter",
                        "extract_week",
                        "extract_dayofweek",
                        "extract_dayofyear",
                        "extract_epoch",
                        "date_trunc",
                        "date_add",
                        "date_sub",
                        "datediff",
                        "add_interval_month",
                        "add_interval_day",
                        "to_date",
                        "current_date",
                        "abs",
                        "round",
                        "floor",
                        "ceil",
                        "power",
                        "sqrt",
                        "ln",
                        "exp",
                        "mod",
                        "sign",
                        "coalesce",
                        "nullif",
                        "greatest",
                        "least",
                        "is_distinct_from"}) {
    EXPECT_TRUE(IsKnownScalarFunction(f)) << f;
  }
  EXPECT_EQ(ResolveScalarFunction("mod", {DataType::Int32(), DataType::Int32()})->name, "modulo");
  EXPECT_FALSE(
      ResolveScalarFunction("coalesce", {DataType::Int32(), DataType::Int64()})->null_propagating);
}

TEST(ExprRegistryTest, CastsAndSuperTypes) {
  EXPECT_TRUE(CanCast(DataType::String(), Dec(10, 2)));
  EXPECT_TRUE(CanCast(Dec(10, 2), DataType::Int32()));
  EXPECT_FALSE(CanCast(DataType::Date32(), DataType::Int32()));
  EXPECT_EQ(Unwrap(CommonSuperType(DataType::Int32(), Dec(15, 2))), Dec(15, 2));
  EXPECT_EQ(Unwrap(CommonSuperType(DataType::Int64(), Dec(15, 2))), Dec(22, 2));
  EXPECT_EQ(Unwrap(CommonSuperType(DataType::Int8(), DataType::UInt8())), DataType::Int16());
  EXPECT_EQ(Unwrap(CommonSuperType(Dec(5, 2), DataType::Float64())), DataType::Float64());
}

TEST(ExprRegistryTest, RoundTypes) {
  EXPECT_EQ(ResultOf("round", {Dec(15, 2)}), Dec(14, 0));
  EXPECT_EQ(RoundResultType(Dec(5, 4), 2), Dec(4, 2));  // Spark
  EXPECT_EQ(RoundResultType(Dec(5, 2), -1), Dec(4, 0));
  EXPECT_EQ(ResultOf("floor", {Dec(15, 2)}), Dec(14, 0));
}

TEST(ExprRegistryTest, AggregateTypes) {
  AggregateKind k;
  ASSERT_TRUE(LookupAggregate("stddev", &k));
  EXPECT_EQ(k, AggregateKind::kStddevSamp);
  EXPECT_FALSE(LookupAggregate("substring", &k));
  EXPECT_EQ(Unwrap(AggregateResultType(AggregateKind::kSum, Dec(15, 2))), Dec(25, 2));
  EXPECT_EQ(Unwrap(AggregateResultType(AggregateKind::kSum, Dec(32, 4))), Dec(38, 4));
  EXPECT_EQ(Unwrap(AggregateResultType(AggregateKind::kAvg, Dec(15, 2))), Dec(19, 6));
  EXPECT_EQ(Unwrap(AggregateResultType(AggregateKind::kSum, DataType::Int32())), DataType::Int64());
  EXPECT_EQ(Unwrap(AggregateResultType(AggregateKind::kAvg, DataType::Int32())),
            DataType::Float64());
  EXPECT_FALSE(AggregateResultType(AggregateKind::kSum, DataType::String()).ok());
  EXPECT_STREQ(AggregateKindName(AggregateKind::kVarPop), "var_pop");
}

TEST(ExprRegistryTest, DecimalHelpers) {
  int128_t v;
  ASSERT_TRUE(decimal::Parse("1.235", 3, 2, &v));
  EXPECT_EQ(static_cast<int64_t>(v), 124);  // HALF_UP
  ASSERT_TRUE(decimal::Parse("-1.235", 3, 2, &v));
  EXPECT_EQ(static_cast<int64_t>(v), -124);
  EXPECT_FALSE(decimal::Parse("123.4", 3, 1, &v));
  ASSERT_TRUE(decimal::Parse("1.5e2", 5, 1, &v));
  EXPECT_EQ(static_cast<int64_t>(v), 1500);
  EXPECT_FALSE(decimal::Parse("1.2.3", 5, 1, &v));
  EXPECT_EQ(decimal::ToString(-5, 2), "-0.05");
  EXPECT_EQ(decimal::ToString(12300, 2), "123.00");
  EXPECT_EQ(static_cast<int64_t>(decimal::DivPow10Round(-125, 1)), -13);
  EXPECT_EQ(static_cast<int64_t>(decimal::DivPow10Round(124, 1)), 12);
  // 256-bit fallbacks: (10^30 * 10^20) / 10^20 and 10^37 * 10 / 10^2.
  ASSERT_TRUE(decimal::MultiplyRescaled(decimal::Pow10(30), decimal::Pow10(20), 20, &v));
  EXPECT_TRUE(v == decimal::Pow10(30));
  ASSERT_TRUE(decimal::DivideScaled(decimal::Pow10(37), 10, decimal::Pow10(12), &v));
  EXPECT_TRUE(v == decimal::Pow10(35));
  ASSERT_TRUE(decimal::DivideScaled(2, 0, 3, &v));
  EXPECT_EQ(static_cast<int64_t>(v), 1);
  ASSERT_TRUE(decimal::DivideScaled(-1, 0, 2, &v));
  EXPECT_EQ(static_cast<int64_t>(v), -1);
}

}  // namespace
}  // namespace tandem
