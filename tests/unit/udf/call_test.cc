// Calling UDFs: udf::CallCpu's checks on what a function returns (exceptions, error status,
// wrong length, type, null count, foreign or short buffers, bad string offsets), the CPU
// evaluator's handling of scalar operands and determinism, constant folding, the GPU support
// tag, and the SQL statements (CREATE/DROP FUNCTION) against the example library.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <stdexcept>

#include "tandem/column/column_builder.h"
#include "tandem/column/take.h"
#include "tandem/expr/cpu/evaluate.h"
#include "tandem/expr/gpu/evaluate.h"
#include "tandem/plan/fold_constants.h"
#include "tandem/sql/session.h"
#include "tandem/udf/call_cpu.h"
#include "tandem/udf/loader.h"
#include "tandem/udf/registry.h"

namespace tandem::udf {
namespace {

std::atomic<int> g_calls{0};

// Doubles a float64 column (NULL stays NULL): the well-behaved base of the broken variants.
int32_t Twice(TandemUdfContext* ctx, const TandemUdfColumn* args, int32_t, TandemUdfOutput* out) {
  ++g_calls;
  const int64_t n = ctx->rows;
  auto* v = static_cast<double*>(ctx->alloc(ctx, n * 8));
  for (int64_t i = 0; i < n; ++i) v[i] = 2 * static_cast<const double*>(args[0].values)[i];
  if (args[0].validity) {
    auto* bits = static_cast<uint8_t*>(ctx->alloc(ctx, (n + 7) / 8));
    std::memcpy(bits, args[0].validity, static_cast<size_t>((n + 7) / 8));
    out->validity = bits;
    out->null_count = args[0].null_count;
  }
  out->values = v;
  return TANDEM_UDF_OK;
}

int32_t ThrowsStd(TandemUdfContext*, const TandemUdfColumn*, int32_t, TandemUdfOutput*) {
  throw std::out_of_range("index 7");
}
int32_t ThrowsInt(TandemUdfContext*, const TandemUdfColumn*, int32_t, TandemUdfOutput*) {
  throw 42;
}
int32_t ErrorWithMessage(TandemUdfContext* ctx, const TandemUdfColumn*, int32_t, TandemUdfOutput*) {
  ctx->set_error(ctx, "bad input");
  return TANDEM_UDF_ERROR;
}
int32_t ErrorWithoutMessage(TandemUdfContext*, const TandemUdfColumn*, int32_t, TandemUdfOutput*) {
  return 5;
}
int32_t ShortResult(TandemUdfContext* ctx, const TandemUdfColumn* a, int32_t n,
                    TandemUdfOutput* out) {
  const int32_t rc = Twice(ctx, a, n, out);
  out->length = ctx->rows - 1;
  return rc;
}
int32_t IntResult(TandemUdfContext* ctx, const TandemUdfColumn* a, int32_t n,
                  TandemUdfOutput* out) {
  const int32_t rc = Twice(ctx, a, n, out);
  out->type.id = TANDEM_UDF_INT64;
  return rc;
}
int32_t WrongNullCount(TandemUdfContext* ctx, const TandemUdfColumn* a, int32_t n,
                       TandemUdfOutput* out) {
  const int32_t rc = Twice(ctx, a, n, out);
  out->validity = static_cast<uint8_t*>(ctx->alloc(ctx, (ctx->rows + 7) / 8));  // all NULL
  out->null_count = 1;
  return rc;
}
int32_t ForeignValues(TandemUdfContext* ctx, const TandemUdfColumn* a, int32_t,
                      TandemUdfOutput* out) {
  out->values = const_cast<void*>(a[0].values);  // the argument's own buffer
  return TANDEM_UDF_OK;
}
int32_t ShortValues(TandemUdfContext* ctx, const TandemUdfColumn*, int32_t, TandemUdfOutput* out) {
  out->values = ctx->alloc(ctx, 8);  // one double for several rows
  return TANDEM_UDF_OK;
}
int32_t NoValues(TandemUdfContext*, const TandemUdfColumn*, int32_t, TandemUdfOutput*) {
  return TANDEM_UDF_OK;
}
// String results: "ab" per row, with offsets that go wrong when ctx->rows > 1 and `broken`.
template <bool broken>
int32_t Strings(TandemUdfContext* ctx, const TandemUdfColumn*, int32_t, TandemUdfOutput* out) {
  const int64_t n = ctx->rows;
  auto* off = static_cast<int32_t*>(ctx->alloc(ctx, (n + 1) * 4));
  auto* data = static_cast<uint8_t*>(ctx->alloc(ctx, 2 * n));
  for (int64_t i = 0; i <= n; ++i) off[i] = static_cast<int32_t>(2 * i);
  for (int64_t i = 0; i < 2 * n; ++i) data[i] = (i % 2) ? 'b' : 'a';
  if (broken && n > 1) off[1] = 100;  // past the data and decreasing afterwards
  out->values = off;
  out->data = data;
  return TANDEM_UDF_OK;
}

UdfFunctionPtr Make(const char* name, TandemUdfCpuFn fn, TandemUdfType result,
                    bool deterministic = true) {
  static const TandemUdfType args[] = {{TANDEM_UDF_FLOAT64, 0, 0, 0}};
  TandemUdf d{};
  d.abi_version = TANDEM_UDF_ABI_VERSION;
  d.name = name;
  d.num_args = 1;
  d.arg_types = args;
  d.result_type = result;
  d.deterministic = deterministic ? 1 : 0;
  d.cpu = fn;
  auto f = FromDescriptor(&d, "test", name);
  EXPECT_TRUE(f.ok()) << f.status().message();
  return *f;
}

constexpr TandemUdfType kF64 = {TANDEM_UDF_FLOAT64, 0, 0, 0};
constexpr TandemUdfType kStr = {TANDEM_UDF_STRING, 0, 0, 0};

ColumnPtr Doubles(std::vector<std::optional<double>> values) {
  ColumnBuilder b(DataType::Float64());
  for (const auto& v : values) {
    if (v) {
      b.Append(*v);
    } else {
      b.AppendNull();
    }
  }
  return b.Finish();
}

std::string CallError(TandemUdfCpuFn fn, TandemUdfType result = kF64) {
  auto r = CallCpu(*Make("f", fn, result), {Doubles({1, 2, std::nullopt})}, 3);
  EXPECT_FALSE(r.ok());
  if (r.ok()) return "";
  EXPECT_EQ(r.status().code(), StatusCode::kInvalid);
  EXPECT_EQ(r.status().message().find('\n'), std::string::npos);
  return r.status().message();
}

TEST(UdfCallCpu, ReturnsTheCheckedColumn) {
  auto r = CallCpu(*Make("twice", Twice, kF64), {Doubles({1.5, std::nullopt, -3})}, 3);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Column& c = **r;
  EXPECT_EQ(c.length(), 3);
  EXPECT_EQ(c.null_count(), 1);
  EXPECT_EQ(c.Value<double>(0), 3.0);
  EXPECT_TRUE(c.IsNull(1));
  EXPECT_EQ(c.Value<double>(2), -6.0);
  auto s = CallCpu(*Make("s", Strings<false>, kStr), {Doubles({1, 2})}, 2);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ((*s)->GetString(1), "ab");
}

TEST(UdfCallCpu, EmptyBatchesDoNotCallTheFunction) {
  const int before = g_calls;
  auto r = CallCpu(*Make("twice", Twice, kF64), {Doubles({})}, 0);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)->length(), 0);
  EXPECT_EQ(g_calls, before);
}

TEST(UdfCallCpu, EveryMisbehaviourIsAnErrorNamingTheFunction) {
  EXPECT_EQ(CallError(ThrowsStd), "UDF f threw: index 7");
  EXPECT_EQ(CallError(ThrowsInt), "UDF f threw an exception");
  EXPECT_EQ(CallError(ErrorWithMessage), "UDF f failed: bad input");
  EXPECT_EQ(CallError(ErrorWithoutMessage), "UDF f failed: error code 5 without a message");
  EXPECT_EQ(CallError(ShortResult), "UDF f returned 2 rows for a batch of 3");
  EXPECT_EQ(CallError(IntResult), "UDF f returned int64, but it is declared to return float64");
  EXPECT_EQ(CallError(WrongNullCount), "UDF f reported 1 nulls but its validity bitmap has 3");
  EXPECT_EQ(CallError(ForeignValues),
            "UDF f returned a values buffer that was not allocated with ctx->alloc");
  EXPECT_EQ(CallError(ShortValues), "UDF f returned a malformed column: values buffer too short");
  EXPECT_EQ(CallError(NoValues), "UDF f returned no values buffer");
  EXPECT_NE(CallError(Strings<true>, kStr).find("UDF f returned a malformed column"),
            std::string::npos);
}

ExprPtr UdfCall(const UdfFunctionPtr& f, ExprPtr arg) {
  auto e = MakeCall(f->name, {std::move(arg)}, f->result_type, true);
  e->udf = f;
  e->pos = {1, 8};
  return e;
}

TEST(UdfEvaluate, ErrorsNameTheCallAndPosition) {
  Batch batch;
  batch.schema.fields = {{"x", DataType::Float64()}};
  batch.columns = {Doubles({1, 2})};
  batch.num_rows = 2;
  EvalContext ctx;
  auto e = UdfCall(Make("boom", ThrowsStd, kF64), MakeColumnRef(0, DataType::Float64(), true, "x"));
  auto r = cpu::Evaluate(*e, batch, ctx);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "UDF boom threw: index 7 in boom(x) (line 1:8)");
}

TEST(UdfEvaluate, ScalarOperandsAndDeterminism) {
  Batch batch;
  batch.schema.fields = {{"x", DataType::Float64()}};
  batch.columns = {Doubles({1, 2, 3, 4})};
  batch.num_rows = 4;
  EvalContext ctx;
  // Deterministic with a constant argument: one call on one row, broadcast.
  auto det = UdfCall(Make("twice", Twice, kF64), MakeLiteral(Value::Float64(5)));
  auto r = cpu::Evaluate(*det, batch, ctx);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ((*r)->length(), 4);
  EXPECT_EQ((*r)->Value<double>(3), 10.0);
  // Column argument.
  auto col = UdfCall(Make("twice", Twice, kF64), MakeColumnRef(0, DataType::Float64(), true, "x"));
  r = cpu::Evaluate(*col, batch, ctx);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)->Value<double>(2), 6.0);
  // Constant folding: deterministic calls of constants fold, non-deterministic ones never.
  auto folded = plan::FoldExpression(det);
  ASSERT_EQ(folded->kind, ExprKind::kLiteral);
  EXPECT_EQ(folded->literal.f64, 10.0);
  auto nondet = UdfCall(Make("twice_nd", Twice, kF64, false), MakeLiteral(Value::Float64(5)));
  EXPECT_FALSE(IsConstant(*nondet));
  EXPECT_TRUE(
      HasNonDeterministicCall(*MakeCall("add", {nondet, nondet}, DataType::Float64(), true)));
  EXPECT_FALSE(HasNonDeterministicCall(*det));
  EXPECT_EQ(plan::FoldExpression(nondet)->kind, ExprKind::kCall);
  // A non-deterministic call runs on every row, even with constant arguments.
  const int before = g_calls;
  r = cpu::Evaluate(*nondet, batch, ctx);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)->length(), 4);
  EXPECT_EQ(g_calls, before + 1);
}

TEST(UdfGpuSupport, CpuOnlyUdfsStayOnTheCpuGpuUdfsRunUnlessUnderCase) {
  auto e = UdfCall(Make("cpu_only", Twice, kF64), MakeColumnRef(0, DataType::Float64(), true, "x"));
  EXPECT_EQ(gpu::ExprUnsupported(*e), "UDF cpu_only has no GPU implementation");
  auto inside = MakeCall("add", {e, MakeLiteral(Value::Float64(1))}, DataType::Float64(), true);
  EXPECT_EQ(gpu::ExprUnsupported(*inside), "UDF cpu_only has no GPU implementation");
  auto with_gpu = std::make_shared<UdfFunction>(*Make("both", Twice, kF64));
  with_gpu->gpu = [](TandemUdfDeviceContext*, const TandemUdfDeviceColumn*, int32_t,
                     TandemUdfDeviceOutput*) -> int32_t { return TANDEM_UDF_OK; };
  auto g = UdfCall(with_gpu, MakeColumnRef(0, DataType::Float64(), true, "x"));
  EXPECT_EQ(gpu::ExprUnsupported(*g), "");
  auto nested = UdfCall(
      with_gpu, MakeCall("add", {g, MakeLiteral(Value::Float64(1))}, DataType::Float64(), true));
  EXPECT_EQ(gpu::ExprUnsupported(*nested), "");
  // A CPU-only call among a GPU UDF's arguments keeps the whole expression on the CPU.
  EXPECT_EQ(gpu::ExprUnsupported(*UdfCall(with_gpu, e)), "UDF cpu_only has no GPU implementation");
  // Under CASE the CPU calls the UDF only on the rows that reach its branch.
  auto when = MakeCall(
      "gt", {MakeColumnRef(0, DataType::Float64(), true, "x"), MakeLiteral(Value::Float64(0))},
      DataType::Bool(), true);
  auto case_expr = std::make_shared<Expr>();
  case_expr->kind = ExprKind::kCase;
  case_expr->type = DataType::Float64();
  case_expr->args = {when, g};
  EXPECT_EQ(gpu::ExprUnsupported(*case_expr),
            "UDF both inside CASE (the CPU calls it only on the rows that reach it)");
}

#ifdef TANDEM_UDF_EXAMPLE_LIB
std::string Sql(sql::Session& s, const std::string& text, bool* ok) {
  auto r = s.ExecuteScript(text);
  *ok = r.ok();
  if (!r.ok()) return r.status().message();
  const auto& last = r->back();
  if (last.kind == sql::StatementResult::Kind::kMessage) return last.message;
  std::string out;
  for (const auto& b : last.table.batches) {
    for (int64_t i = 0; i < b->num_rows; ++i) out += GetValue(*b->columns[0], i).ToString() + ";";
  }
  return out;
}

TEST(UdfSql, CreateCallAndDropFunction) {
  const std::string lib = TANDEM_UDF_EXAMPLE_LIB;
  sql::Session s;
  bool ok = false;
  EXPECT_EQ(Sql(s,
                "CREATE FUNCTION sql_redact(varchar) RETURNS varchar LANGUAGE C AS '" + lib +
                    "', 'redact'",
                &ok),
            "created function sql_redact(string) -> string (CPU)");
  ASSERT_TRUE(ok);
  EXPECT_EQ(Sql(s, "SELECT sql_redact(x) FROM (VALUES ('a1'), (NULL), ('42')) t(x)", &ok),
            "'a*';NULL;'**';");
  EXPECT_TRUE(ok);
  // Did-you-mean lists UDFs.
  EXPECT_EQ(Sql(s, "SELECT sql_redac('x')", &ok),
            "unknown function sql_redac (line 1:8); did you mean sql_redact?");
  EXPECT_FALSE(ok);
  // Arguments are cast to the declared types (int -> double); impossible ones are errors.
  EXPECT_EQ(Sql(s,
                "CREATE FUNCTION sql_risk(double, double) RETURNS double LANGUAGE C AS '" + lib +
                    "', 'risk_score'; SELECT sql_risk(-1, 2) = ln(2) * 2",
                &ok),
            "TRUE;");
  EXPECT_TRUE(ok);
  EXPECT_EQ(Sql(s, "SELECT sql_risk('x', DATE '2020-01-01')", &ok),
            "function sql_risk(float64, float64) -> float64 expects float64 for argument 2, got "
            "date32 (add a CAST) (line 1:8)");
  EXPECT_FALSE(ok);
  EXPECT_EQ(Sql(s, "DROP FUNCTION sql_risk", &ok), "dropped function sql_risk");
  EXPECT_EQ(Sql(s, "SELECT sql_redact('a', 'b')", &ok),
            "function sql_redact(string) -> string takes 1 argument, got 2 (line 1:8)");
  EXPECT_FALSE(ok);
  EXPECT_EQ(Sql(s, "DROP FUNCTION sql_redact", &ok), "dropped function sql_redact");
  EXPECT_EQ(Sql(s, "DROP FUNCTION sql_redact", &ok), "no function named sql_redact (line 1:1)");
  EXPECT_FALSE(ok);
  EXPECT_EQ(Sql(s, "DROP FUNCTION IF EXISTS sql_redact", &ok), "nothing dropped");
  EXPECT_TRUE(ok);
}

TEST(UdfSql, SignatureMustMatchTheDescriptor) {
  const std::string lib = TANDEM_UDF_EXAMPLE_LIB;
  sql::Session s;
  bool ok = true;
  const std::string msg = Sql(s,
                              "CREATE FUNCTION sql_risk(double, int) RETURNS double "
                              "LANGUAGE C AS '" +
                                  lib + "', 'risk_score'",
                              &ok);
  EXPECT_FALSE(ok);
  EXPECT_EQ(msg,
            "function sql_risk(float64, int32) -> float64 does not match risk_score(float64, "
            "float64) -> float64 exported by risk_score in " +
                lib + " (line 1:34)");
  EXPECT_EQ(FindFunction("sql_risk"), nullptr);
  EXPECT_NE(
      Sql(s, "CREATE FUNCTION upper(varchar) RETURNS varchar LANGUAGE C AS '" + lib + "', 'redact'",
          &ok)
          .find("built-in"),
      std::string::npos);
  EXPECT_NE(Sql(s, "CREATE FUNCTION f(varchar) RETURNS varchar LANGUAGE sql AS 'select 1'", &ok)
                .find("LANGUAGE C"),
            std::string::npos);
  EXPECT_FALSE(ok);
}
#endif

}  // namespace
}  // namespace tandem::udf
