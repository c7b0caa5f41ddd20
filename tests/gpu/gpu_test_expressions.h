// The expressions the GPU evaluator's tests run over RandomBatch (gpu_expr_test_util.h): every
// function family the GPU supports, with NULLs, NaN, extremes, CASE, IN lists, strings and dates.
// Shared by the GPU tests (expr_eval_test.cc) and the test that runs the GPU interpreter's code
// on the host (tests/unit/expr/gpu_interpreter_host_test.cc), so both cover the same set.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "../unit/expr_test_fixture.h"

namespace tandem::test_util {

// Over fx.batch, whose columns are RandomBatch's.
inline std::vector<ExprPtr> EveryFamilyExpressions(ExprFixture& fx) {
  auto Col = [&](int i) {
    const Field& f = fx.batch.schema.fields[i];
    return MakeColumnRef(i, f.type, true, f.name);
  };
  auto Call = [&](const std::string& fn, std::vector<ExprPtr> args) { return fx.Call(fn, args); };
  auto Lit = [](Value v) { return MakeLiteral(std::move(v)); };
  auto i32 = Col(0), i64 = Col(1), f64 = Col(2), dec = Col(3), wide = Col(4), str = Col(5),
       date = Col(6), ts = Col(7), b = Col(8), i8 = Col(9), f32 = Col(10), small = Col(11),
       words = Col(12);
  auto lit_i64 = [&](int64_t v) { return Lit(Value::Int64(v)); };
  auto lit_str = [&](const char* s) { return Lit(Value::String(s)); };
  auto case_expr = std::make_shared<Expr>();
  case_expr->kind = ExprKind::kCase;
  case_expr->type = DataType::Decimal(30, 4);
  case_expr->has_else = true;
  case_expr->args = {Call("gt", {i32, Lit(Value::Int32(0))}), MakeCast(dec, case_expr->type),
                     Call("is_null", {str}), wide, Lit(Value::Null(case_expr->type))};
  auto case_str = std::make_shared<Expr>(*case_expr);
  case_str->type = DataType::String();
  case_str->has_else = false;
  case_str->args = {Call("lt", {f64, Lit(Value::Float64(0))}), str, b, words};
  auto in_list = std::make_shared<Expr>();
  in_list->kind = ExprKind::kInList;
  in_list->type = DataType::Bool();
  in_list->args = {i32, Lit(Value::Int32(1)), Lit(Value::Int32(-5)), Lit(Value::Int32(7))};
  auto in_null = std::make_shared<Expr>(*in_list);
  in_null->negated = true;
  in_null->args.push_back(Lit(Value::Null(DataType::Int32())));
  auto in_str = std::make_shared<Expr>(*in_list);
  in_str->args = {words, lit_str("abc"), lit_str("caf\xc3\xa9"), lit_str("")};
  auto in_f = std::make_shared<Expr>(*in_list);
  in_f->args = {f64, Lit(Value::Float64(NAN)), Lit(Value::Float64(0.0)), Lit(Value::Float64(1.5))};
  return {
      // column references and literals of every type
      i32,
      f64,
      dec,
      wide,
      str,
      date,
      ts,
      b,
      f32,
      lit_i64(42),
      Lit(Value::Decimal(12345, 7, 3)),
      lit_str("const"),
      Lit(Value::Null(DataType::Int64())),
      // integer and float arithmetic
      Call("add", {i64, small}),
      Call("subtract", {i32, Lit(Value::Int32(7))}),
      Call("multiply", {i32, i32}),
      Call("add", {i8, i8}),
      Call("modulo", {i64, small}),
      Call("divide", {i64, small}),
      Call("negate", {i32}),
      Call("abs", {i8}),
      Call("add", {f64, f64}),
      Call("multiply", {f32, f32}),
      Call("divide", {f64, Call("subtract", {f64, f64})}),
      Call("modulo", {f64, Lit(Value::Float64(3.5))}),
      // decimals
      Call("add", {dec, wide}),
      Call("subtract", {dec, dec}),
      Call("multiply", {dec, dec}),
      Call("multiply", {wide, wide}),
      Call("divide", {dec, wide}),
      Call("divide", {wide, dec}),
      Call("modulo", {wide, dec}),
      Call("multiply", {dec, i32}),
      Call("negate", {wide}),
      Call("abs", {dec}),
      Call("sign", {wide}),
      Call("floor", {dec}),
      Call("ceil", {wide}),
      Call("round", {dec}),
      Call("round", {wide, Lit(Value::Int32(2))}),
      Call("round", {dec, Lit(Value::Int32(-1))}),
      Call("round", {i32, Lit(Value::Int32(-2))}),
      // comparisons and logic
      Call("lt", {dec, wide}),
      Call("eq", {f64, Lit(Value::Float64(0.0))}),
      Call("ge", {f64, f64}),
      Call("gt", {str, words}),
      Call("eq", {words, lit_str("abc")}),
      Call("le", {date, ts}),
      Call("ne", {b, Lit(Value::Bool(true))}),
      Call("and", {Call("gt", {i32, Lit(Value::Int32(0))}), b}),
      Call("or", {Call("is_null", {dec}), Call("not", {b})}),
      Call("is_distinct_from", {i32, MakeCast(small, DataType::Int32())}),
      Call("is_not_distinct_from", {str, words}),
      Call("is_not_null", {wide}),
      // conditional
      case_expr,
      case_str,
      in_list,
      in_null,
      in_str,
      in_f,
      Call("coalesce", {dec, wide, Lit(Value::Decimal(0, 1, 0))}),
      Call("nullif", {i32, Lit(Value::Int32(0))}),
      Call("greatest", {f64, Lit(Value::Float64(1.0))}),
      Call("least", {str, words}),
      // casts
      MakeCast(i64, DataType::Int32(), true),
      MakeCast(dec, DataType::Int64()),
      MakeCast(wide, DataType::Decimal(10, 1), true),
      MakeCast(f64, DataType::Int64(), true),
      MakeCast(f32, DataType::Float64()),
      MakeCast(wide, DataType::Float64()),
      MakeCast(i32, DataType::Decimal(12, 2)),
      MakeCast(b, DataType::Int32()),
      MakeCast(f64, DataType::Bool()),
      MakeCast(date, DataType::Timestamp(false)),
      MakeCast(ts, DataType::Date32()),
      MakeCast(i8, DataType::Float32()),
      // strings
      Call("like", {str, lit_str("%a%")}),
      Call("like", {words, lit_str("_b_")}),
      Call("like", {words, lit_str("caf_")}),
      Call("ilike", {words, lit_str("%BOX")}),
      // ILIKE folds as lower() does, Latin-1 letters too ("ÉTÉ", "café"); so does its pattern
      Call("ilike", {words, lit_str("%\xc3\xa9t\xc3\xa9")}),
      Call("ilike", {words, lit_str("CAF\xc3\x89")}),
      Call("ilike", {Call("upper", {words}), lit_str("_b%")}),
      Call("like", {words, lit_str("x!%y%"), lit_str("!")}),
      Call("substring", {words, lit_i64(2)}),
      Call("substring", {str, Call("subtract", {small, lit_i64(4)}), small}),
      Call("length", {str}),
      Call("octet_length", {words}),
      Call("upper", {words}),
      Call("lower", {words}),
      Call("eq", {Call("upper", {words}), lit_str("ABC")}),
      Call("trim", {words}),
      Call("ltrim", {words, lit_str(" pa")}),
      Call("rtrim", {words}),
      Call("left", {words, Call("subtract", {small, lit_i64(3)})}),
      Call("right", {words, lit_i64(2)}),
      Call("strpos", {words, lit_str("c")}),
      Call("starts_with", {words, lit_str("ab")}),
      Call("ends_with", {str, lit_str("q")}),
      Call("contains", {words, lit_str("o")}),
      Call("concat", {words, lit_str("|"), Call("upper", {str})}),
      Call("concat", {str, words}),
      // dates
      Call("extract_year", {date}),
      Call("extract_month", {ts}),
      Call("extract_day", {date}),
      Call("extract_quarter", {date}),
      Call("extract_week", {date}),
      Call("extract_dow", {ts}),
      Call("extract_isodow", {date}),
      Call("extract_doy", {date}),
      Call("extract_hour", {ts}),
      Call("extract_minute", {ts}),
      Call("extract_second", {ts}),
      Call("extract_millisecond", {ts}),
      Call("extract_epoch", {ts}),
      Call("add", {date, Lit(Value::Int32(30))}),
      Call("subtract", {date, date}),
      Call("add_interval_month", {date, small}),
      Call("add_interval_year", {ts, lit_i64(-3)}),
      Call("add_interval_hour", {ts, small}),
      Call("date_trunc", {lit_str("month"), date}),
      Call("date_trunc", {lit_str("week"), ts}),
      Call("date_trunc", {lit_str("hour"), ts}),
      Call("date_add", {date, MakeCast(small, DataType::Int32())}),
      Call("datediff", {date, date}),
      Call("datediff", {lit_str("months"), date, date}),
      Call("to_date", {ts}),
      // math
      Call("sqrt", {f64}),
      Call("floor", {f64}),
      Call("ceil", {f64}),
      Call("round", {f64, Lit(Value::Int32(1))}),
      Call("round", {f64}),
      Call("abs", {f64}),
      Call("mod", {i32, Lit(Value::Int32(7))}),
      Call("sign", {f64}),
  };
}

// Transcendental functions: CUDA's libm is within 2 ulp of glibc's, not bit-identical.
inline std::vector<ExprPtr> TranscendentalExpressions(ExprFixture& fx) {
  auto Col = [&](int i) {
    const Field& f = fx.batch.schema.fields[i];
    return MakeColumnRef(i, f.type, true, f.name);
  };
  auto Call = [&](const std::string& fn, std::vector<ExprPtr> args) { return fx.Call(fn, args); };
  auto Lit = [](Value v) { return MakeLiteral(std::move(v)); };
  auto f64 = Col(2);
  return {Call("ln", {f64}),    Call("exp", {Call("divide", {f64, Lit(Value::Float64(100))})}),
          Call("log10", {f64}), Call("log2", {f64}),
          Call("cbrt", {f64}),  Call("power", {f64, Lit(Value::Float64(0.5))})};
}

// An expression and the ANSI mode to evaluate it in.
struct ExprInMode {
  ExprPtr expr;
  bool ansi = false;
};

// Expressions that raise errors on some rows of RandomBatch, or give NULL there outside ANSI
// mode: integer overflow, division by zero, invalid casts, decimal overflow.
inline std::vector<ExprInMode> ErrorExpressions(ExprFixture& fx) {
  auto Col = [&](int i) {
    const Field& f = fx.batch.schema.fields[i];
    return MakeColumnRef(i, f.type, true, f.name);
  };
  auto Call = [&](const std::string& fn, std::vector<ExprPtr> args) { return fx.Call(fn, args); };
  auto Lit = [](Value v) { return MakeLiteral(std::move(v)); };
  auto i32 = Col(0), i64 = Col(1), f64 = Col(2), wide = Col(4), small = Col(11);
  return {
      // Integer overflow: INT64_MAX + 1, INT32_MIN * -1 ...
      {Call("add", {i64, Lit(Value::Int64(1))})},
      {Call("multiply", {i32, Lit(Value::Int32(-1))})},
      {Call("negate", {i32})},
      // Division by zero: NULL, or an error in ANSI mode.
      {Call("modulo", {i64, small}), true},
      {Call("divide", {f64, Call("subtract", {f64, f64})}), true},
      {Call("divide", {wide, MakeCast(small, DataType::Decimal(20, 0))}), true},
      {Call("divide", {wide, MakeCast(small, DataType::Decimal(20, 0))}), false},
      // Invalid casts.
      {MakeCast(i64, DataType::Int16())},
      {MakeCast(wide, DataType::Decimal(6, 1))},
      {MakeCast(f64, DataType::Int32())},
      // Decimal overflow in a product.
      {Call("multiply", {wide, MakeCast(wide, DataType::Decimal(38, 0), true)})},
  };
}

}  // namespace tandem::test_util
