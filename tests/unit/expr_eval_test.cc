// CPU evaluator: values checked against SQL semantics and DuckDB 1.4.4's answers for the same
// expressions (noted beside each case), NULL handling, overflow errors and selections.
#include <gtest/gtest.h>

#include "expr_test_fixture.h"
#include "tandem/column/column_builder.h"
#include "tandem/column/take.h"
#include "tandem/expr/cpu/evaluate.h"
#include "tandem/expr/function_registry.h"
#include "tandem/format/value_format.h"
#include "tandem/types/decimal.h"

namespace tandem {
namespace {

using Fixture = test_util::ExprFixture;

using V = std::vector<std::string>;

ColumnPtr Decimals(int p, int s, std::vector<std::optional<int64_t>> v) {
  ColumnBuilder b(DataType::Decimal(p, s));
  for (auto x : v) {
    if (x) {
      b.Append<int64_t>(*x);
    } else {
      b.AppendNull();
    }
  }
  return b.Finish();
}
template <typename T>
ColumnPtr Ints(DataType t, std::vector<std::optional<T>> v) {
  ColumnBuilder b(t);
  for (auto x : v) {
    if (x) {
      b.Append<T>(*x);
    } else {
      b.AppendNull();
    }
  }
  return b.Finish();
}
ColumnPtr Strings(std::vector<std::optional<std::string>> v) {
  ColumnBuilder b(DataType::String());
  for (auto& x : v) {
    if (x) {
      b.AppendString(*x);
    } else {
      b.AppendNull();
    }
  }
  return b.Finish();
}
ColumnPtr Bools(std::vector<std::optional<bool>> v) {
  ColumnBuilder b(DataType::Bool());
  for (auto x : v) {
    if (x) {
      b.AppendBool(*x);
    } else {
      b.AppendNull();
    }
  }
  return b.Finish();
}
int32_t Day(int y, int m, int d) { return static_cast<int32_t>(format::DaysFromCivil(y, m, d)); }
ExprPtr Lit(Value v) { return MakeLiteral(std::move(v)); }
ExprPtr Str(const std::string& s) { return Lit(Value::String(s)); }
ExprPtr I64(int64_t x) { return Lit(Value::Int64(x)); }

TEST(ExprEvalTest, TpchDecimalArithmetic) {
  Fixture f;
  auto price = f.Add(Decimals(15, 2, {123456, 99999999, std::nullopt, -100}));
  auto disc = f.Add(Decimals(15, 2, {5, 10, 7, 0}));
  auto tax = f.Add(Decimals(15, 2, {8, 0, 1, 2}));
  auto one_minus = f.Call("subtract", {Lit(Value::Int32(1)), disc});
  auto revenue = f.Call("multiply", {price, one_minus});
  EXPECT_EQ(revenue->type, DataType::Decimal(32, 4));
  // 1234.56 * 0.95 = 1172.8320; 999999.99 * 0.90 = 899999.9910 (DuckDB gives the same digits).
  EXPECT_EQ(f.Eval(revenue), (V{"1172.8320", "899999.9910", "NULL", "-1.0000"}));
  auto charge = f.Call("multiply", {revenue, f.Call("add", {Lit(Value::Int32(1)), tax})});
  EXPECT_EQ(charge->type, DataType::Decimal(38, 6));
  EXPECT_EQ(f.Eval(charge), (V{"1266.658560", "899999.991000", "NULL", "-1.020000"}));
  // decimal(15,2) / decimal(15,2) -> decimal(33,18): 1234.56 / 0.08 = 15432.
  auto ratio = f.Call("divide", {price, tax});
  EXPECT_EQ(ratio->type, DataType::Decimal(33, 18));
  EXPECT_EQ(f.Eval(ratio)[0], "15432.000000000000000000");
  EXPECT_EQ(f.Eval(f.Call("divide", {tax, disc}))[2], "0.142857142857142857");  // 0.01 / 0.07
  EXPECT_EQ(f.Eval(ratio)[1], "NULL");  // division by zero -> NULL
  f.ctx.ansi = true;
  EXPECT_NE(f.Error(ratio).find("division by zero in (c0 / c2)"), std::string::npos);
}

TEST(ExprEvalTest, DecimalMixedScalesAndRounding) {
  Fixture f;
  auto a = f.Add(Decimals(10, 3, {1235, -1235, 1234, 5}));
  EXPECT_EQ(f.Eval(MakeCast(a, DataType::Decimal(5, 2))), (V{"1.24", "-1.24", "1.23", "0.01"}));
  auto b = f.Add(Decimals(5, 1, {12, 13, 14, 15}));
  EXPECT_EQ(f.Eval(f.Call("add", {a, b})), (V{"2.435", "0.065", "2.634", "1.505"}));
  EXPECT_EQ(f.Eval(f.Call("lt", {a, b})), (V{"false", "true", "true", "true"}));
  EXPECT_EQ(f.Eval(f.Call("round", {a})), (V{"1", "-1", "1", "0"}));
  EXPECT_EQ(f.Eval(f.Call("round", {a, Lit(Value::Int32(2))})),
            (V{"1.240", "-1.240", "1.230", "0.010"}));
  EXPECT_EQ(f.Eval(f.Call("floor", {a})), (V{"1", "-2", "1", "0"}));
  EXPECT_EQ(f.Eval(f.Call("ceil", {a})), (V{"2", "-1", "2", "1"}));
}

TEST(ExprEvalTest, DecimalOverflowIsAnError) {
  Fixture f;
  ColumnBuilder b(DataType::Decimal(38, 0));
  b.Append<int128_t>(decimal::MaxUnscaled(38));
  b.AppendNull();
  auto c = f.Add(b.Finish());
  auto e = f.Call("multiply", {c, c});  // decimal(38,0) * decimal(38,0) -> decimal(38,0)
  e->pos = {1, 8};
  const std::string err = f.Error(e);
  EXPECT_NE(err.find("decimal overflow"), std::string::npos) << err;
  EXPECT_NE(err.find("(c0 * c0) (line 1:8)"), std::string::npos) << err;
}

TEST(ExprEvalTest, IntegerOverflowAndNulls) {
  Fixture f;
  auto a = f.Add(Ints<int32_t>(DataType::Int32(), {2147483647, std::nullopt, 5}));
  auto b = f.Add(Ints<int32_t>(DataType::Int32(), {1, 2147483647, 0}));
  EXPECT_NE(f.Error(f.Call("add", {a, b})).find("integer overflow"), std::string::npos);
  // The overflowing pair sits in a NULL row: no error.
  auto c = f.Add(Ints<int32_t>(DataType::Int32(), {1, std::nullopt, 1}));
  EXPECT_EQ(f.Eval(f.Call("add", {c, b})), (V{"2", "NULL", "1"}));
  EXPECT_EQ(f.Eval(f.Call("modulo", {a, b})), (V{"0", "NULL", "NULL"}));
  EXPECT_EQ(f.Eval(f.Call("divide", {a, b}))[2], "NULL");
  EXPECT_EQ(f.Eval(f.Call("negate", {c})), (V{"-1", "NULL", "-1"}));
  EXPECT_NE(f.Error(f.Call("abs", {Lit(Value::Int64(INT64_MIN))})).find("overflow"),
            std::string::npos);
}

TEST(ExprEvalTest, ThreeValuedLogic) {
  Fixture f;
  auto a = f.Add(
      Bools({true, true, true, false, false, false, std::nullopt, std::nullopt, std::nullopt}));
  auto b = f.Add(
      Bools({true, false, std::nullopt, true, false, std::nullopt, true, false, std::nullopt}));
  EXPECT_EQ(f.Eval(f.Call("and", {a, b})),
            (V{"true", "false", "NULL", "false", "false", "false", "NULL", "false", "NULL"}));
  EXPECT_EQ(f.Eval(f.Call("or", {a, b})),
            (V{"true", "true", "true", "true", "false", "NULL", "true", "NULL", "NULL"}));
  EXPECT_EQ(f.Eval(f.Call("not", {a})),
            (V{"false", "false", "false", "true", "true", "true", "NULL", "NULL", "NULL"}));
  EXPECT_EQ(f.Eval(f.Call("is_null", {a}))[6], "true");
  EXPECT_EQ(f.Eval(f.Call("is_distinct_from", {a, b})),
            (V{"false", "true", "true", "true", "false", "true", "true", "true", "false"}));
  EXPECT_EQ(f.Eval(f.Call("and", {a, Lit(Value::Null(DataType::Bool()))}))[3], "false");
  EXPECT_EQ(f.Eval(f.Call("or", {a, Lit(Value::Null(DataType::Bool()))}))[0], "true");
}

TEST(ExprEvalTest, ComparisonsAndSelection) {
  Fixture f;
  auto d = f.Add(Ints<int32_t>(DataType::Date32(),
                               {Day(1998, 9, 2), Day(1998, 9, 3), std::nullopt, Day(1960, 1, 1)}));
  auto q = f.Add(Decimals(15, 2, {2400, 2300, 100, 2500}));
  auto s = f.Add(Strings({"MAIL", "SHIP", "AIR", std::nullopt}));
  auto pred = f.Call(
      "and", {f.Call("le", {d, Str("1998-09-02")}), f.Call("lt", {q, Lit(Value::Int32(24))})});
  EXPECT_EQ(f.Eval(pred), (V{"false", "false", "NULL", "false"}));
  auto sel = cpu::EvaluateSelection(
      *f.Call("or", {f.Call("eq", {s, Str("SHIP")}), f.Call("gt", {d, Str("1998-09-02")})}),
      f.batch, f.ctx);
  ASSERT_TRUE(sel.ok());
  EXPECT_EQ(*sel, (std::vector<int32_t>{1}));
  auto sel2 = cpu::EvaluateSelection(*f.Call("and", {f.Call("le", {q, Lit(Value::Int32(24))}),
                                                     f.Call("ge", {d, Str("1960-01-01")})}),
                                     f.batch, f.ctx);
  ASSERT_TRUE(sel2.ok());
  EXPECT_EQ(*sel2, (std::vector<int32_t>{0, 1}));
  EXPECT_EQ(f.Eval(f.Call("lt", {s, Str("MAIL")})), (V{"false", "false", "true", "NULL"}));
  auto in = std::make_shared<Expr>();
  in->kind = ExprKind::kInList;
  in->type = DataType::Bool();
  in->args = {s, Str("AIR"), Str("MAIL")};
  EXPECT_EQ(f.Eval(in), (V{"true", "false", "true", "NULL"}));
  in->args.push_back(Lit(Value::Null(DataType::String())));
  in->negated = true;
  EXPECT_EQ(f.Eval(in), (V{"false", "NULL", "false", "NULL"}));  // NOT IN with a NULL
}

TEST(ExprEvalTest, LikePatterns) {
  Fixture f;
  auto s = f.Add(Strings(
      {"PROMO BRUSHED", "special packages requests", "a_c", "abc", "héllo", "", std::nullopt}));
  auto like = [&](const std::string& p) { return f.Eval(f.Call("like", {s, Str(p)})); };
  EXPECT_EQ(like("PROMO%"), (V{"true", "false", "false", "false", "false", "false", "NULL"}));
  EXPECT_EQ(like("%special%requests%"),
            (V{"false", "true", "false", "false", "false", "false", "NULL"}));
  EXPECT_EQ(like("%BRUSHED"), (V{"true", "false", "false", "false", "false", "false", "NULL"}));
  EXPECT_EQ(like("a_c"), (V{"false", "false", "true", "true", "false", "false", "NULL"}));
  EXPECT_EQ(like("h_llo"), (V{"false", "false", "false", "false", "true", "false", "NULL"}));
  EXPECT_EQ(like("%"), (V{"true", "true", "true", "true", "true", "true", "NULL"}));
  EXPECT_EQ(like(""), (V{"false", "false", "false", "false", "false", "true", "NULL"}));
  // ESCAPE: 'a\_c' matches only the literal underscore (DuckDB: 'abc' -> false, 'a_c' -> true).
  EXPECT_EQ(f.Eval(f.Call("like", {s, Str("a\\_c"), Str("\\")})),
            (V{"false", "false", "true", "false", "false", "false", "NULL"}));
  EXPECT_EQ(f.Eval(f.Call("ilike", {s, Str("promo%")}))[0], "true");
  EXPECT_EQ(like("%a%a%a%"), (V{"false", "true", "false", "false", "false", "false", "NULL"}));
}

TEST(ExprEvalTest, StringFunctionsMatchDuckDb) {
  Fixture f;
  auto s = f.Add(Strings({"hello", "héllo", ""}));
  auto sub = [&](int64_t start, std::optional<int64_t> len) {
    std::vector<ExprPtr> args{s, I64(start)};
    if (len) args.push_back(I64(*len));
    return f.Eval(f.Call("substring", args));
  };
  // DuckDB: substring('hello',0,2)='h', (-3,2)='ll', (-10,8)='hel', (2)='ello', (3,-1)='e'.
  EXPECT_EQ(sub(0, 2)[0], "h");
  EXPECT_EQ(sub(-3, 2)[0], "ll");
  EXPECT_EQ(sub(-10, 8)[0], "hel");
  EXPECT_EQ(sub(2, std::nullopt)[0], "ello");
  EXPECT_EQ(sub(3, -1)[0], "e");
  EXPECT_EQ(sub(2, 2)[1], "él");
  EXPECT_EQ(sub(1, 3)[2], "");
  EXPECT_EQ(f.Eval(f.Call("length", {s})), (V{"5", "5", "0"}));
  EXPECT_EQ(f.Eval(f.Call("strpos", {s, Str("l")})), (V{"3", "3", "0"}));
  EXPECT_EQ(f.Eval(f.Call("upper", {s})), (V{"HELLO", "HÉLLO", ""}));
  EXPECT_EQ(f.Eval(f.Call("reverse", {s}))[1], "olléh");
  EXPECT_EQ(f.Eval(f.Call("lpad", {s, I64(7), Str("xy")}))[0], "xyhello");
  EXPECT_EQ(f.Eval(f.Call("lpad", {s, I64(3), Str("x")}))[0], "hel");
  EXPECT_EQ(f.Eval(f.Call("rpad", {s, I64(8), Str("xy")}))[0], "helloxyx");
  EXPECT_EQ(f.Eval(f.Call("replace", {s, Str("l"), Str("LL")}))[0], "heLLLLo");
  EXPECT_EQ(f.Eval(f.Call("concat", {s, Str("!"), s}))[1], "héllo!héllo");
  EXPECT_EQ(f.Eval(f.Call("concat", {s, Lit(Value::Null(DataType::String()))}))[0], "NULL");
  EXPECT_EQ(f.Eval(f.Call("starts_with", {s, Str("he")})), (V{"true", "false", "false"}));
  auto csv = f.Add(Strings({"a,b,c", "x", ""}));
  EXPECT_EQ(f.Eval(f.Call("split_part", {csv, Str(","), I64(2)})), (V{"b", "", ""}));
  EXPECT_EQ(f.Eval(f.Call("split_part", {csv, Str(","), I64(-1)})), (V{"c", "x", ""}));
  auto pad = f.Add(Strings({"  ab  ", "xxabxx", "yxab"}));
  EXPECT_EQ(f.Eval(f.Call("trim", {pad}))[0], "ab");
  EXPECT_EQ(f.Eval(f.Call("trim", {pad, Str("x")}))[1], "ab");
  EXPECT_EQ(f.Eval(f.Call("ltrim", {pad, Str("yx")}))[2], "ab");
  EXPECT_EQ(f.Eval(f.Call("rtrim", {pad}))[0], "  ab");
}

TEST(ExprEvalTest, DatesAndIntervals) {
  Fixture f;
  auto d = f.Add(Ints<int32_t>(
      DataType::Date32(),
      {Day(2024, 1, 31), Day(2023, 1, 31), Day(1969, 12, 31), Day(2024, 3, 3), Day(2021, 1, 1)}));
  // DuckDB: 2024-01-31 + 1 month = 2024-02-29; 2023-01-31 + 1 month = 2023-02-28.
  EXPECT_EQ(f.Eval(f.Call("add_interval_month", {d, I64(1)})),
            (V{"2024-02-29", "2023-02-28", "1970-01-31", "2024-04-03", "2021-02-01"}));
  EXPECT_EQ(f.Eval(f.Call("add_interval_year", {d, I64(-1)}))[0], "2023-01-31");
  EXPECT_EQ(f.Eval(f.Call("add_interval_day", {d, I64(1)}))[2], "1970-01-01");
  EXPECT_EQ(f.Eval(f.Call("extract_year", {d})), (V{"2024", "2023", "1969", "2024", "2021"}));
  EXPECT_EQ(f.Eval(f.Call("extract_dayofweek", {d}))[3], "0");  // DuckDB: Sunday = 0
  EXPECT_EQ(f.Eval(f.Call("extract_week", {d}))[4], "53");      // ISO week of 2021-01-01
  EXPECT_EQ(f.Eval(f.Call("extract_dayofyear", {d}))[2], "365");
  EXPECT_EQ(f.Eval(f.Call("extract_quarter", {d}))[2], "4");
  EXPECT_EQ(f.Eval(f.Call("date_trunc", {Str("quarter"), d}))[2], "1969-10-01");
  EXPECT_EQ(f.Eval(f.Call("date_trunc", {Str("week"), d}))[3], "2024-02-26");
  EXPECT_EQ(f.Eval(f.Call("datediff", {d, Str("2024-01-01")}))[0], "30");
  EXPECT_EQ(f.Eval(f.Call("datediff", {Str("month"), d, Str("2024-02-01")}))[0], "1");
  EXPECT_EQ(f.Eval(f.Call("date_sub", {d, Lit(Value::Int32(1))}))[4], "2020-12-31");
  auto date_lit = [](const char* t) { return MakeCast(Str(t), DataType::Date32()); };
  EXPECT_EQ(f.Eval(f.Call("subtract", {date_lit("2024-03-01"), date_lit("2024-02-01")}))[0],
            "29");  // DuckDB: DATE '2024-03-01' - DATE '2024-02-01' = 29
  auto ds = f.Add(Strings({"1995-03-15", "15/03/1995", "1995-02-30", " 2000-01-01 ", "x"}));
  EXPECT_EQ(f.Eval(f.Call("to_date", {ds})),
            (V{"1995-03-15", "NULL", "NULL", "2000-01-01", "NULL"}));
  EXPECT_EQ(f.Eval(f.Call("to_date", {ds, Str("dd/MM/yyyy")}))[1], "1995-03-15");
  EXPECT_EQ(f.Eval(MakeCast(ds, DataType::Date32(), true))[0], "1995-03-15");
  EXPECT_NE(f.Error(MakeCast(ds, DataType::Date32())).find("cannot cast '15/03/1995' to date32"),
            std::string::npos);
}

TEST(ExprEvalTest, CastsAndConditionals) {
  Fixture f;
  ColumnBuilder fb(DataType::Float64());
  for (double x : {2.7, -2.7, 1e10, 0.125}) fb.Append<double>(x);
  auto x = f.Add(fb.Finish());
  EXPECT_EQ(f.Eval(MakeCast(x, DataType::Int64())), (V{"2", "-2", "10000000000", "0"}));
  EXPECT_NE(f.Error(MakeCast(x, DataType::Int32())).find("cannot cast 1e+10 to int32"),
            std::string::npos);
  EXPECT_EQ(f.Eval(MakeCast(x, DataType::Int32(), true))[2], "NULL");
  EXPECT_EQ(f.Eval(MakeCast(x, DataType::Decimal(13, 2)))[3], "0.13");
  EXPECT_EQ(f.Eval(MakeCast(x, DataType::Decimal(12, 2), true))[2], "NULL");
  auto s = f.Add(Strings({"12", " -7 ", "1.5", "abc"}));
  EXPECT_EQ(f.Eval(MakeCast(s, DataType::Int32(), true)), (V{"12", "-7", "1", "NULL"}));
  EXPECT_EQ(f.Eval(MakeCast(s, DataType::Decimal(5, 1), true)), (V{"12.0", "-7.0", "1.5", "NULL"}));
  EXPECT_EQ(f.Eval(MakeCast(x, DataType::String()))[0], "2.7");
  auto n = f.Add(Ints<int32_t>(DataType::Int32(), {std::nullopt, 2, std::nullopt, 4}));
  EXPECT_EQ(f.Eval(f.Call("coalesce", {n, Lit(Value::Int32(0))})), (V{"0", "2", "0", "4"}));
  EXPECT_EQ(f.Eval(f.Call("nullif", {n, Lit(Value::Int32(2))})), (V{"NULL", "NULL", "NULL", "4"}));
  EXPECT_EQ(f.Eval(f.Call("greatest", {n, Lit(Value::Int32(3))})), (V{"3", "3", "3", "4"}));
  auto c = std::make_shared<Expr>();
  c->kind = ExprKind::kCase;
  c->type = DataType::Int32();
  c->has_else = true;
  c->args = {f.Call("gt", {n, Lit(Value::Int32(3))}), Lit(Value::Int32(1)), n};
  EXPECT_EQ(f.Eval(c), (V{"NULL", "2", "NULL", "1"}));
  auto k =
      cpu::EvaluateConstant(*f.Call("add", {Lit(Value::Int32(2)), Lit(Value::Int32(3))}), f.ctx);
  ASSERT_TRUE(k.ok());
  EXPECT_EQ(k->ToString(), "5");
}

// ---- Fast paths: whole-column LIKE search, int64 decimal math with int128 fallback, CASE and
// selections evaluated on the rows that reach them.

// Reference LIKE by backtracking over the pattern (no '_' across multi-byte characters: ASCII
// inputs only), the textbook definition the kernel's segment search must agree with.
bool RefLike(std::string_view s, std::string_view p) {
  if (p.empty()) return s.empty();
  if (p[0] == '%') {
    for (size_t k = 0; k <= s.size(); ++k) {
      if (RefLike(s.substr(k), p.substr(1))) return true;
    }
    return false;
  }
  if (s.empty()) return false;
  return (p[0] == '_' || p[0] == s[0]) && RefLike(s.substr(1), p.substr(1));
}

TEST(ExprEvalTest, LikeFastPathsAgreeWithReference) {
  // Short strings over a 3-letter alphabet make boundary cases (hits straddling two rows,
  // repeated segments, empty rows) common; NULL rows every 7th.
  std::vector<std::optional<std::string>> rows;
  uint64_t seed = 12345;
  auto next = [&seed] {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<uint32_t>(seed >> 33);
  };
  for (int i = 0; i < 3000; ++i) {
    if (i % 7 == 3) {
      rows.push_back(std::nullopt);
      continue;
    }
    std::string s;
    const int len = static_cast<int>(next() % 9);
    for (int k = 0; k < len; ++k) s.push_back("abC"[next() % 3]);
    rows.push_back(s);
  }
  Fixture f;
  auto col = f.Add(Strings(rows));
  for (std::string pat : {"%ab%", "%ab%ba%", "%aba%", "%a%b%a", "%bb", "ab%", "ab%b", "%a_b%", "a%",
                          "%", "%%", "ab", "_b%", "%abaa%", "%b%b%b%b%", "%C%a"}) {
    const V got = f.Eval(f.Call("like", {col, Str(pat)}));
    const V got_i = f.Eval(f.Call("ilike", {col, Str(pat)}));
    ASSERT_EQ(got.size(), rows.size());
    for (size_t i = 0; i < rows.size(); ++i) {
      if (!rows[i]) {
        EXPECT_EQ(got[i], "NULL");
        continue;
      }
      std::string lower = *rows[i], lower_pat = pat;
      for (char& c : lower) c = static_cast<char>(std::tolower(c));
      for (char& c : lower_pat) c = static_cast<char>(std::tolower(c));
      EXPECT_EQ(got[i], RefLike(*rows[i], pat) ? "true" : "false") << *rows[i] << " LIKE " << pat;
      EXPECT_EQ(got_i[i], RefLike(lower, lower_pat) ? "true" : "false")
          << *rows[i] << " ILIKE " << pat;
    }
  }
}

TEST(ExprEvalTest, DecimalInt64PathFallsBackTo128Bits) {
  Fixture f;
  // 999999999999999999 * 99 passes int64: the block is redone in 128 bits (exact digits).
  auto a = f.Add(Decimals(18, 0, {999999999999999999LL, 7, std::nullopt, -999999999999999999LL}));
  auto b = f.Add(Decimals(2, 0, {99, 6, 5, 99}));
  auto prod = f.Call("multiply", {a, b});
  EXPECT_EQ(prod->type, DataType::Decimal(21, 0));
  EXPECT_EQ(f.Eval(prod), (V{"98999999999999999901", "42", "NULL", "-98999999999999999901"}));
  // Sums past int64 at a common scale: 999999999999999999 * 10 + 0.5 = 9999999999999999990.5.
  auto c = f.Add(Decimals(18, 1, {5, 5, 5, 5}));
  auto sum = f.Call("add", {a, c});
  EXPECT_EQ(sum->type, DataType::Decimal(20, 1));
  EXPECT_EQ(f.Eval(sum)[0], "999999999999999999.5");
  EXPECT_EQ(f.Eval(sum)[3], "-999999999999999998.5");
  // decimal(18,2) - decimal(18,2) -> decimal(19,2), int128-stored, computed in int64.
  auto d = f.Add(Decimals(18, 2, {-999999999999999999LL, 1, 2, 3}));
  EXPECT_EQ(f.Eval(f.Call("subtract", {d, a}))[0], "-1009999999999999998.99");
}

TEST(ExprEvalTest, CaseRunsBranchesOnlyOnTheirRows) {
  Fixture f;
  f.ctx.ansi = true;  // division by zero is an error, so an evaluated untaken branch would fail
  auto x = f.Add(Ints<int32_t>(DataType::Int32(), {4, 0, std::nullopt, -2, 2000000000}));
  auto ne0 = f.Call("ne", {x, Lit(Value::Int32(0))});
  auto small = f.Call("lt", {x, Lit(Value::Int32(1000))});
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::kCase;
  e->type = DataType::Int32();
  e->has_else = true;
  // CASE WHEN x < 1000 AND x <> 0 THEN 100 / x WHEN x < 1000 THEN x * 3 ELSE -1 END; x * 3
  // would overflow int32 for 2000000000 and 100 / x fail for 0 if they ran on those rows.
  e->args = {f.Call("and", {small, ne0}), f.Call("divide", {Lit(Value::Int32(100)), x}), small,
             f.Call("multiply", {x, Lit(Value::Int32(3))}), Lit(Value::Int32(-1))};
  EXPECT_EQ(f.Eval(e), (V{"25", "0", "-1", "-50", "-1"}));
  // Strings, no ELSE: unmatched rows are NULL.
  auto s = f.Add(Strings({"a", "b", "c", std::nullopt, "e"}));
  auto cs = std::make_shared<Expr>();
  cs->kind = ExprKind::kCase;
  cs->type = DataType::String();
  cs->args = {f.Call("gt", {x, Lit(Value::Int32(0))}), f.Call("concat", {s, Str("!")})};
  EXPECT_EQ(f.Eval(cs), (V{"a!", "NULL", "NULL", "NULL", "e!"}));
}

TEST(ExprEvalTest, SelectiveFilterRunsLaterConjunctsOnGatheredRows) {
  // 4000 rows; x < 100 keeps 1/40 of them, so the LIKE runs on the gathered rows only.
  std::vector<std::optional<int32_t>> xs;
  std::vector<std::optional<std::string>> ss;
  for (int i = 0; i < 4000; ++i) {
    xs.push_back(i % 13 == 0 ? std::nullopt : std::optional<int32_t>(i % 4000));
    ss.push_back(i % 3 == 0 ? "special requests"
                            : (i % 5 == 0 ? std::nullopt : std::optional<std::string>("plain")));
  }
  Fixture f;
  auto x = f.Add(Ints<int32_t>(DataType::Int32(), xs));
  auto s = f.Add(Strings(ss));
  auto pred = f.Call(
      "and", {f.Call("like", {s, Str("%special%")}), f.Call("lt", {x, Lit(Value::Int32(100))})});
  auto sel = cpu::EvaluateSelection(*pred, f.batch, f.ctx);
  ASSERT_TRUE(sel.ok()) << sel.status().ToString();
  std::vector<int32_t> want;
  for (int i = 0; i < 4000; ++i) {
    if (xs[i] && *xs[i] < 100 && ss[i] && ss[i]->find("special") != std::string::npos) {
      want.push_back(i);
    }
  }
  EXPECT_EQ(*sel, want);
}

}  // namespace
}  // namespace tandem
