// SharedSubexpressions: the repeated computation of several expressions becomes one appended
// column, the rewritten expressions give the values the originals give, and nothing is shared
// from below a CASE (which evaluates its branches only for some rows) or when nothing repeats.
#include "tandem/exec/cpu/shared_subexpressions.h"

#include <gtest/gtest.h>

#include "../expr_test_fixture.h"
#include "tandem/column/column_builder.h"

namespace tandem::cpu {
namespace {

ColumnPtr Int64s(std::vector<int64_t> values) {
  ColumnBuilder b(DataType::Int64());
  for (int64_t v : values) b.Append<int64_t>(v);
  return b.Finish();
}

TEST(SharedSubexpressions, RepeatedProductIsComputedOnceAndValuesAgree) {
  test_util::ExprFixture f;
  ExprPtr a = f.Add(Int64s({1, 2, 3, -4}));
  ExprPtr b = f.Add(Int64s({10, 20, 30, 40}));
  ExprPtr c = f.Add(Int64s({5, 6, 7, 8}));
  // As TPC-H Q1: x = a * (1 - b); the arguments are a, x and x * (1 + c).
  ExprPtr x = f.Call("multiply", {a, f.Call("subtract", {MakeLiteral(Value::Int64(1)), b})});
  ExprPtr y = f.Call("multiply", {x, f.Call("add", {MakeLiteral(Value::Int64(1)), c})});
  std::vector<ExprPtr> args = {a, x, y};
  SharedSubexpressions shared({a.get(), x.get(), y.get()}, f.batch.num_columns());
  ASSERT_TRUE(shared.any());
  auto extended = shared.Extend(f.batch, f.ctx);
  ASSERT_TRUE(extended.ok()) << extended.status().ToString();
  EXPECT_EQ(extended->num_columns(), 4);  // one shared column: x
  EXPECT_EQ(shared.rewritten()[1]->kind, ExprKind::kColumnRef);
  test_util::ExprFixture g;
  g.batch = *extended;
  for (size_t i = 0; i < args.size(); ++i) {
    EXPECT_EQ(g.Eval(shared.rewritten()[i]), f.Eval(args[i])) << args[i]->ToString();
  }
}

TEST(SharedSubexpressions, NothingSharedBelowCaseOrWithoutRepeats) {
  test_util::ExprFixture f;
  ExprPtr a = f.Add(Int64s({1, 0, 3}));
  ExprPtr b = f.Add(Int64s({4, 5, 6}));
  ExprPtr quotient = f.Call("divide", {b, a});
  // CASE WHEN a <> 0 THEN b / a END and CASE WHEN a > 0 THEN b / a END: b / a runs only where
  // each condition holds, so it is not computed for every row (and the two CASEs differ).
  auto guarded = [&](const char* comparison) {
    auto e = std::make_shared<Expr>();
    e->kind = ExprKind::kCase;
    e->type = quotient->type;
    e->args = {f.Call(comparison, {a, MakeLiteral(Value::Int64(0))}), quotient};
    return e;
  };
  ExprPtr first = guarded("ne"), second = guarded("gt");
  SharedSubexpressions under_case({first.get(), second.get()}, f.batch.num_columns());
  EXPECT_FALSE(under_case.any());
  SharedSubexpressions distinct({a.get(), quotient.get()}, f.batch.num_columns());
  EXPECT_FALSE(distinct.any());
}

}  // namespace
}  // namespace tandem::cpu
