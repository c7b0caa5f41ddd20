// Float comparisons follow SQL's total order (DuckDB 1.4.4 and Spark agree): NaN equals NaN and is
// larger than every other value, +inf included; -0.0 equals 0.0. Checked for the comparison
// kernels, IS [NOT] DISTINCT FROM, IN / NOT IN lists (short lists, long sorted lists, the
// row-by-row path), greatest / least and nullif. Each expectation was verified by hand against
// that rule (and, for IN and greatest / least, against DuckDB: `select cast('NaN' as double) in
// (cast('NaN' as double), 1.0)` is true, `least(cast('NaN' as double), 0.0)` is 0.0).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <optional>

#include "expr_test_fixture.h"
#include "tandem/column/column_builder.h"
#include "tandem/expr/cpu/evaluate.h"
#include "tandem/expr/function_registry.h"
#include "tandem/format/value_format.h"

namespace tandem {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

using NanFixture = test_util::ExprFixture;

using V = std::vector<std::string>;

ColumnPtr Doubles(std::vector<std::optional<double>> v) {
  ColumnBuilder b(DataType::Float64());
  for (auto x : v) {
    if (x) {
      b.Append<double>(*x);
    } else {
      b.AppendNull();
    }
  }
  return b.Finish();
}
ExprPtr D(double x) { return MakeLiteral(Value::Float64(x)); }
ExprPtr NullD() { return MakeLiteral(Value::Null(DataType::Float64())); }

ExprPtr InList(ExprPtr probe, std::vector<ExprPtr> items, bool negated = false) {
  auto in = std::make_shared<Expr>();
  in->kind = ExprKind::kInList;
  in->type = DataType::Bool();
  in->nullable = true;
  in->negated = negated;
  in->args = {std::move(probe)};
  for (auto& i : items) in->args.push_back(std::move(i));
  return in;
}

// Rows: NaN, 1.0, +inf, -inf, -0.0, 0.0, NULL.
ColumnPtr Specials() { return Doubles({kNaN, 1.0, kInf, -kInf, -0.0, 0.0, std::nullopt}); }

TEST(ExprNanTest, ComparisonsAgainstNaNScalar) {
  NanFixture f;
  auto d = f.Add(Specials());
  EXPECT_EQ(f.Eval(f.Call("eq", {d, D(kNaN)})),
            (V{"true", "false", "false", "false", "false", "false", "NULL"}));
  EXPECT_EQ(f.Eval(f.Call("ne", {d, D(kNaN)})),
            (V{"false", "true", "true", "true", "true", "true", "NULL"}));
  // Everything but NaN is below NaN, +inf included.
  EXPECT_EQ(f.Eval(f.Call("lt", {d, D(kNaN)})),
            (V{"false", "true", "true", "true", "true", "true", "NULL"}));
  EXPECT_EQ(f.Eval(f.Call("le", {d, D(kNaN)})),
            (V{"true", "true", "true", "true", "true", "true", "NULL"}));
  EXPECT_EQ(f.Eval(f.Call("gt", {d, D(kNaN)})),
            (V{"false", "false", "false", "false", "false", "false", "NULL"}));
  EXPECT_EQ(f.Eval(f.Call("ge", {d, D(kNaN)})),
            (V{"true", "false", "false", "false", "false", "false", "NULL"}));
  // Scalar on the left: NaN > everything else.
  EXPECT_EQ(f.Eval(f.Call("gt", {D(kNaN), d})),
            (V{"false", "true", "true", "true", "true", "true", "NULL"}));
  // NaN > +inf and d > +inf only for NaN.
  EXPECT_EQ(f.Eval(f.Call("gt", {d, D(kInf)})),
            (V{"true", "false", "false", "false", "false", "false", "NULL"}));
}

TEST(ExprNanTest, SignedZerosAreEqual) {
  NanFixture f;
  auto d = f.Add(Specials());
  EXPECT_EQ(f.Eval(f.Call("eq", {d, D(0.0)})),
            (V{"false", "false", "false", "false", "true", "true", "NULL"}));
  EXPECT_EQ(f.Eval(f.Call("lt", {d, D(-0.0)})),
            (V{"false", "false", "false", "true", "false", "false", "NULL"}));
  EXPECT_EQ(f.Eval(InList(d, {D(-0.0)})),
            (V{"false", "false", "false", "false", "true", "true", "NULL"}));
}

TEST(ExprNanTest, ColumnVersusColumn) {
  NanFixture f;
  auto a = f.Add(Doubles({kNaN, kNaN, 1.0, kInf, -0.0, std::nullopt}));
  auto b = f.Add(Doubles({kNaN, kInf, kNaN, kNaN, 0.0, kNaN}));
  EXPECT_EQ(f.Eval(f.Call("eq", {a, b})), (V{"true", "false", "false", "false", "true", "NULL"}));
  EXPECT_EQ(f.Eval(f.Call("lt", {a, b})), (V{"false", "false", "true", "true", "false", "NULL"}));
  EXPECT_EQ(f.Eval(f.Call("ge", {a, b})), (V{"true", "true", "false", "false", "true", "NULL"}));
  EXPECT_EQ(f.Eval(f.Call("is_distinct_from", {a, b})),
            (V{"false", "true", "true", "true", "false", "true"}));
  EXPECT_EQ(f.Eval(f.Call("is_not_distinct_from", {a, b})),
            (V{"true", "false", "false", "false", "true", "false"}));
}

TEST(ExprNanTest, InListShortLongAndNegated) {
  NanFixture f;
  auto d = f.Add(Specials());
  // Short list (linear probe).
  EXPECT_EQ(f.Eval(InList(d, {D(kNaN), D(1.0)})),
            (V{"true", "true", "false", "false", "false", "false", "NULL"}));
  EXPECT_EQ(f.Eval(InList(d, {D(kNaN), D(1.0)}, true)),
            (V{"false", "false", "true", "true", "true", "true", "NULL"}));
  // A list without NaN never matches a NaN probe.
  EXPECT_EQ(f.Eval(InList(d, {D(1.0), D(kInf)})),
            (V{"false", "true", "true", "false", "false", "false", "NULL"}));
  // Long list (sorted keys, binary search): 1..11 plus NaN; -inf and +inf are not in it.
  std::vector<ExprPtr> many = {D(kNaN)};
  for (int k = 1; k <= 11; ++k) many.push_back(D(k));
  EXPECT_EQ(f.Eval(InList(d, many)),
            (V{"true", "true", "false", "false", "false", "false", "NULL"}));
  // Same long list without NaN: a NaN probe must not match (binary search on NaN).
  many.erase(many.begin());
  EXPECT_EQ(f.Eval(InList(d, many)),
            (V{"false", "true", "false", "false", "false", "false", "NULL"}));
  // NULL in the list: no match gives NULL, a NaN match stays true.
  EXPECT_EQ(f.Eval(InList(d, {D(kNaN), NullD()})),
            (V{"true", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL"}));
}

TEST(ExprNanTest, InListRowByRow) {
  NanFixture f;
  auto d = f.Add(Specials());
  auto e = f.Add(Doubles({kNaN, 2.0, kNaN, kNaN, 0.0, kNaN, 1.0}));
  // A column in the list takes the row-by-row path.
  EXPECT_EQ(f.Eval(InList(d, {e, D(1.0)})),
            (V{"true", "true", "false", "false", "true", "false", "NULL"}));
  EXPECT_EQ(f.Eval(InList(D(kNaN), {e})),
            (V{"true", "false", "true", "true", "false", "true", "false"}));
}

TEST(ExprNanTest, GreatestLeastTreatNaNAsLargest) {
  NanFixture f;
  auto d = f.Add(Specials());
  // greatest(NaN, 0) = NaN either way round; least(NaN, 0) = 0.
  EXPECT_EQ(f.Eval(f.Call("greatest", {D(0.0), d})),
            (V{"NaN", "1.0", "Infinity", "0.0", "0.0", "0.0", "0.0"}));
  EXPECT_EQ(f.Eval(f.Call("greatest", {d, D(0.0)}))[0], "NaN");
  EXPECT_EQ(f.Eval(f.Call("least", {d, D(0.0)})),
            (V{"0.0", "0.0", "0.0", "-Infinity", "-0.0", "0.0", "0.0"}));
  EXPECT_EQ(f.Eval(f.Call("least", {D(kInf), d}))[0], "Infinity");
  EXPECT_EQ(f.Eval(f.Call("greatest", {D(kInf), d}))[0], "NaN");
}

TEST(ExprNanTest, NullIfMatchesNaN) {
  NanFixture f;
  auto d = f.Add(Specials());
  EXPECT_EQ(f.Eval(f.Call("nullif", {d, D(kNaN)})),
            (V{"NULL", "1.0", "Infinity", "-Infinity", "-0.0", "0.0", "NULL"}));
}

}  // namespace
}  // namespace tandem
