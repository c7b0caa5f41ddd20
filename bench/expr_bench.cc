// Micro-benchmark of the CPU expression evaluator on the hot TPC-H expression shapes, over one
// batch of ~4M lineitem rows made by Tandem's own TPC-H generator (decimal(15,2) prices,
// discounts 0.00-0.10, dates, short strings, comments). Expressions are built the way the binder
// builds them (overloads resolved through the function registry, casts inserted, constants
// folded), so each figure is what a query pays per row, single-threaded. Reports ns_per_row of
// CPU time (printed with an "s" suffix by Google Benchmark), steadier than wall time on a busy box.
//   build/<dir>/bench/expr_bench [--benchmark_filter=Like] [--benchmark_min_time=0.5]
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>

#include "tandem/expr/cpu/evaluate.h"
#include "tandem/expr/function_registry.h"
#include "tandem/tpch/generator.h"

namespace tandem {
namespace {

// ~4M lineitem rows (the lines of 1M orders at scale factor 1), generated once.
const Batch& Lineitem() {
  static const Batch batch = [] {
    auto sizes = tpch::TpchSizes::ForScaleFactor(1).value();
    auto r = tpch::GenerateTpchRows(sizes, tpch::TpchTable::kLineitem, 0, 1000000);
    if (!r.ok()) {
      std::fprintf(stderr, "lineitem generation failed: %s\n", r.status().ToString().c_str());
      std::exit(1);
    }
    return **r;
  }();
  return batch;
}

ExprPtr Col(const std::string& name) {
  const Batch& b = Lineitem();
  for (int i = 0; i < b.num_columns(); ++i) {
    if (b.schema.fields[i].name == name) return MakeColumnRef(i, b.columns[i]->type(), true, name);
  }
  std::fprintf(stderr, "no lineitem column %s\n", name.c_str());
  std::exit(1);
}

// A call resolved as the binder resolves it: casts to the overload's types, constants folded.
ExprPtr Call(const std::string& fn, std::vector<ExprPtr> args) {
  std::vector<DataType> types;
  for (auto& a : args) types.push_back(a->type);
  auto r = ResolveScalarFunction(fn, types);
  if (!r.ok()) {
    std::fprintf(stderr, "%s: %s\n", fn.c_str(), r.status().ToString().c_str());
    std::exit(1);
  }
  EvalContext ctx;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i]->type == r->arg_types[i]) continue;
    args[i] = MakeCast(args[i], r->arg_types[i]);
    if (IsConstant(*args[i])) args[i] = MakeLiteral(cpu::EvaluateConstant(*args[i], ctx).value());
  }
  return MakeCall(r->name, std::move(args), r->result_type, true);
}

ExprPtr Int(int32_t v) { return MakeLiteral(Value::Int32(v)); }
ExprPtr Dec(int64_t unscaled, int p, int s) { return MakeLiteral(Value::Decimal(unscaled, p, s)); }
ExprPtr Date(int32_t days) { return MakeLiteral(Value::Date32(days)); }
ExprPtr Str(const char* s) { return MakeLiteral(Value::String(s)); }

ExprPtr Revenue() {  // l_extendedprice * (1 - l_discount)
  return Call("multiply", {Col("l_extendedprice"), Call("subtract", {Int(1), Col("l_discount")})});
}

void SetRate(benchmark::State& state) {
  const double rows = static_cast<double>(Lineitem().num_rows);
  state.counters["ns_per_row"] = benchmark::Counter(
      rows / 1e9, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void RunEvaluate(benchmark::State& state, const ExprPtr& e) {
  const Batch& b = Lineitem();
  EvalContext ctx;
  for (auto _ : state) {
    auto r = cpu::Evaluate(*e, b, ctx);
    if (!r.ok()) {
      state.SkipWithError(r.status().ToString().c_str());
      return;
    }
    benchmark::DoNotOptimize(r->get());
  }
  SetRate(state);
}

void RunSelection(benchmark::State& state, const ExprPtr& e) {
  const Batch& b = Lineitem();
  EvalContext ctx;
  size_t selected = 0;
  for (auto _ : state) {
    auto r = cpu::EvaluateSelection(*e, b, ctx);
    if (!r.ok()) {
      state.SkipWithError(r.status().ToString().c_str());
      return;
    }
    selected = r->size();
    benchmark::DoNotOptimize(r->data());
  }
  state.counters["selected"] = static_cast<double>(selected);
  SetRate(state);
}

// Days since 1970-01-01.
constexpr int32_t k1994 = 8766, k1995 = 9131, k1998_09_02 = 10471;

void BM_Revenue(benchmark::State& s) { RunEvaluate(s, Revenue()); }
void BM_RevenueTimesTax(benchmark::State& s) {  // Q1's sum_charge argument
  RunEvaluate(s, Call("multiply", {Revenue(), Call("add", {Int(1), Col("l_tax")})}));
}
void BM_PriceTimesDiscount(benchmark::State& s) {  // Q6's sum argument
  RunEvaluate(s, Call("multiply", {Col("l_extendedprice"), Col("l_discount")}));
}
void BM_OneMinusDiscount(benchmark::State& s) {
  RunEvaluate(s, Call("subtract", {Int(1), Col("l_discount")}));
}
void BM_DateLeScalar(benchmark::State& s) {  // Q1's filter, as a boolean column
  RunEvaluate(s, Call("le", {Col("l_shipdate"), Date(k1998_09_02)}));
}
void BM_DecimalLtScalar(benchmark::State& s) {  // l_quantity < 24
  RunEvaluate(s, Call("lt", {Col("l_quantity"), Int(24)}));
}
void BM_Q6Selection(benchmark::State& s) {
  auto pred =
      Call("and", {Call("and", {Call("and", {Call("ge", {Col("l_shipdate"), Date(k1994)}),
                                             Call("lt", {Col("l_shipdate"), Date(k1995)})}),
                                Call("and", {Call("ge", {Col("l_discount"), Dec(5, 2, 2)}),
                                             Call("le", {Col("l_discount"), Dec(7, 2, 2)})})}),
                   Call("lt", {Col("l_quantity"), Int(24)})});
  RunSelection(s, pred);
}
void BM_Q1Selection(benchmark::State& s) {
  RunSelection(s, Call("le", {Col("l_shipdate"), Date(k1998_09_02)}));
}
void BM_LikeInfix(benchmark::State& s) {  // Q13's shape
  RunEvaluate(s, Call("like", {Col("l_comment"), Str("%special%requests%")}));
}
void BM_LikePrefix(benchmark::State& s) {  // Q14's shape
  RunEvaluate(s, Call("like", {Col("l_shipinstruct"), Str("DELIVER%")}));
}
void BM_StringEqScalar(benchmark::State& s) {
  RunEvaluate(s, Call("eq", {Col("l_shipmode"), Str("MAIL")}));
}
void BM_InListStrings(benchmark::State& s) {  // Q12 / Q19: l_shipmode IN ('MAIL', 'SHIP')
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::kInList;
  e->type = DataType::Bool();
  e->args = {Col("l_shipmode"), Str("MAIL"), Str("SHIP")};
  RunEvaluate(s, e);
}
void BM_CaseRevenue(benchmark::State& s) {  // Q14: CASE WHEN ... THEN revenue ELSE 0 END
  auto rev = Revenue();
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::kCase;
  e->type = rev->type;
  e->has_else = true;
  EvalContext ctx;
  auto zero = MakeLiteral(
      cpu::EvaluateConstant(*MakeCast(MakeLiteral(Value::Int32(0)), rev->type), ctx).value());
  e->args = {Call("like", {Col("l_shipinstruct"), Str("DELIVER%")}), rev, zero};
  RunEvaluate(s, e);
}
void BM_ExtractYear(benchmark::State& s) {  // Q7 / Q8 / Q9
  RunEvaluate(s, Call("extract_year", {Col("l_shipdate")}));
}

#define TANDEM_EXPR_BENCH(fn) BENCHMARK(fn)->Unit(benchmark::kMillisecond)
TANDEM_EXPR_BENCH(BM_Revenue);
TANDEM_EXPR_BENCH(BM_RevenueTimesTax);
TANDEM_EXPR_BENCH(BM_PriceTimesDiscount);
TANDEM_EXPR_BENCH(BM_OneMinusDiscount);
TANDEM_EXPR_BENCH(BM_DateLeScalar);
TANDEM_EXPR_BENCH(BM_DecimalLtScalar);
TANDEM_EXPR_BENCH(BM_Q6Selection);
TANDEM_EXPR_BENCH(BM_Q1Selection);
TANDEM_EXPR_BENCH(BM_LikeInfix);
TANDEM_EXPR_BENCH(BM_LikePrefix);
TANDEM_EXPR_BENCH(BM_StringEqScalar);
TANDEM_EXPR_BENCH(BM_InListStrings);
TANDEM_EXPR_BENCH(BM_CaseRevenue);
TANDEM_EXPR_BENCH(BM_ExtractYear);

}  // namespace
}  // namespace tandem

BENCHMARK_MAIN();
