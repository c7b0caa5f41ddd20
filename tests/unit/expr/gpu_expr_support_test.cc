// ExprUnsupported (the GPU expression support check) accepts what the GPU interpreter implements
// and names what it does not; FilterUnsupported/ProjectUnsupported follow it. Runs without a GPU.
#include <gtest/gtest.h>

#include "gpu_expr_columns.h"
#include "tandem/column/column_builder.h"
#include "tandem/exec/gpu/gpu_operators.h"
#include "tandem/expr/gpu/evaluate.h"
#include "tandem/expr/gpu/program.h"

namespace tandem {
namespace {

using gpu::ExprUnsupported;

using GpuExprSupport = test_util::GpuExprColumns;

TEST_F(GpuExprSupport, AcceptsTheCoreExpressionSet) {
  const std::vector<ExprPtr> ok = {
      i64,
      Lit(Value::String("x")),
      Call("add", {i64, Lit(Value::Int64(1))}),
      Call("multiply", {dec, wide}),
      Call("divide", {dec, Lit(Value::Decimal(3, 3, 0))}),
      Call("lt", {dec, wide}),
      Call("and", {Call("gt", {f64, Lit(Value::Float64(1))}), Call("is_null", {str})}),
      Call("like", {str, Lit(Value::String("%a_b%"))}),
      Call("ilike", {Call("upper", {str}), Lit(Value::String("A%"))}),
      Call("length", {Call("substring", {str, Lit(Value::Int64(2)), Lit(Value::Int64(3))})}),
      Call("concat", {str, Lit(Value::String("-")), Call("trim", {str})}),
      Call("extract_year", {date}),
      Call("add_interval_month", {date, Lit(Value::Int64(2))}),
      Call("date_trunc", {Lit(Value::String("quarter")), date}),
      Call("round", {dec, Lit(Value::Int32(1))}),
      Call("sqrt", {f64}),
      Call("coalesce", {i64, Lit(Value::Int64(0))}),
      MakeCast(i64, DataType::Decimal(22, 3)),
      MakeCast(dec, DataType::Float64()),
      MakeCast(date, DataType::Timestamp(false)),
  };
  for (const auto& e : ok) EXPECT_EQ(ExprUnsupported(*e), "") << e->ToString();

  auto case_expr = std::make_shared<Expr>();
  case_expr->kind = ExprKind::kCase;
  case_expr->type = DataType::Int64();
  case_expr->has_else = true;
  case_expr->args = {Call("gt", {i64, Lit(Value::Int64(0))}), i64, Lit(Value::Int64(-1))};
  EXPECT_EQ(ExprUnsupported(*case_expr), "");

  auto in = std::make_shared<Expr>();
  in->kind = ExprKind::kInList;
  in->type = DataType::Bool();
  in->args = {str, Lit(Value::String("a")), Lit(Value::Null(DataType::String()))};
  EXPECT_EQ(ExprUnsupported(*in), "");
}

TEST_F(GpuExprSupport, RejectsWithAReason) {
  EXPECT_EQ(
      ExprUnsupported(*Call("split_part", {str, Lit(Value::String(",")), Lit(Value::Int64(1))})),
      "function split_part");
  EXPECT_EQ(ExprUnsupported(*Call("replace", {str, str, str})), "function replace");
  EXPECT_NE(ExprUnsupported(*Call("like", {str, str})).find("non-constant"), std::string::npos);
  EXPECT_NE(ExprUnsupported(*Call("eq", {Call("concat", {str, str}), str})).find("concat inside"),
            std::string::npos);
  EXPECT_EQ(ExprUnsupported(*MakeCast(f64, DataType::Decimal(10, 2))), "cast float64 to decimal");
  EXPECT_EQ(ExprUnsupported(*MakeCast(i64, DataType::String())), "cast int64 to string");
  EXPECT_NE(ExprUnsupported(*MakeCast(str, DataType::Int32())), "");
  EXPECT_NE(ExprUnsupported(*Call("date_trunc", {str, date})), "");
  auto sub = std::make_shared<Expr>();
  sub->kind = ExprKind::kSubquery;
  sub->type = DataType::Bool();
  EXPECT_EQ(ExprUnsupported(*sub), "subquery");
  // Spark's average and make_decimal take a NULL literal only for its type: no GPU form, and not
  // the NULL a null-propagating function would give (the GPU once answered NULL for every avg).
  const DataType avg_t = DataType::Decimal(19, 6);
  auto avg = MakeCall("spark_decimal_average", {wide, i64, Lit(Value::Null(avg_t))}, avg_t, true);
  EXPECT_EQ(ExprUnsupported(*avg), "function spark_decimal_average");
  auto make = MakeCall("make_decimal", {i64, Lit(Value::Null(dec->type))}, dec->type, true);
  EXPECT_EQ(ExprUnsupported(*make), "function make_decimal");
  // Left-deep chains need little stack; right-deep ones past the interpreter's stack are refused.
  ExprPtr right = i64;
  for (int k = 0; k < 40; ++k) right = MakeCall("add", {i64, right}, DataType::Int64(), true);
  ExprPtr left = i64;
  for (int k = 0; k < 40; ++k) left = MakeCall("add", {left, i64}, DataType::Int64(), true);
  EXPECT_EQ(ExprUnsupported(*left), "");
  EXPECT_NE(ExprUnsupported(*right).find("deeper"), std::string::npos);
}

TEST_F(GpuExprSupport, OperatorsFollowTheirExpressions) {
  PlanNode filter;
  filter.kind = PlanKind::kFilter;
  filter.predicate = Call("gt", {i64, Lit(Value::Int64(3))});
  EXPECT_EQ(gpu::FilterUnsupported(filter), "");
  filter.predicate = Call("eq", {Call("replace", {str, str, str}), str});
  EXPECT_NE(gpu::FilterUnsupported(filter).find("function replace"), std::string::npos);
  PlanNode project;
  project.kind = PlanKind::kProject;
  project.exprs = {i64, Call("upper", {str})};
  EXPECT_EQ(gpu::ProjectUnsupported(project), "");
  project.exprs.push_back(Call("reverse", {str}));
  EXPECT_NE(gpu::ProjectUnsupported(project).find("function reverse"), std::string::npos);
}

TEST_F(GpuExprSupport, SelectionProgramShortCircuitsInTheCpuOrder) {
  // (length(s) > 2) AND (x < 5): the cheap comparison runs first, each conjunct jumps to FALSE.
  auto pred = Call("and", {Call("gt", {Call("length", {str}), Lit(Value::Int32(2))}),
                           Call("lt", {i64, Lit(Value::Int64(5))})});
  gpu::internal::Program p;
  ASSERT_EQ(gpu::internal::Compile(*pred, true, &p), "");
  ASSERT_FALSE(p.code.empty());
  EXPECT_EQ(p.code[0].op, gpu::internal::Op::kColumn);
  EXPECT_EQ(p.code[0].imm, 0);  // i64 (the cheap conjunct) first
  int jumps = 0;
  for (const auto& in : p.code) jumps += in.op == gpu::internal::Op::kJumpIfNotTrue;
  EXPECT_EQ(jumps, 2);
  EXPECT_EQ(p.result_type, DataType::Bool());
}

}  // namespace
}  // namespace tandem
