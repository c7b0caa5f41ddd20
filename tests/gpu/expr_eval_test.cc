// The GPU expression evaluator against its CPU twin on random data: every supported function
// family, NULLs, NaN, -0.0, extremes, empty and one-row batches, long strings, errors (overflow,
// invalid casts, ANSI division by zero) with the CPU's exact messages, and (where memory allows)
// a string column past 2^31 bytes.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>

#include "../unit/expr_test_fixture.h"
#include "gpu_expr_test_util.h"
#include "gpu_test_util.h"
#include "tandem/expr/cpu/evaluate.h"
#include "tandem/expr/gpu/evaluate.h"
#include "tandem/expr/gpu/generated_kernels.h"
#include "tandem/gpu/device_column.h"

namespace tandem {
namespace {

class GpuExprEval : public ::testing::Test {
 protected:
  void Load(BatchPtr batch) {
    fx.batch = *batch;
    Table t;
    t.schema = batch->schema;
    t.batches.push_back(batch);
    auto d = gpu::ToDevice(t, *stream);
    ASSERT_TRUE(d.ok()) << d.status().ToString();
    device = *d;
  }
  void SetUp() override {
    auto s = gpu::Stream::Create();
    if (s.ok()) stream = std::make_unique<gpu::Stream>(std::move(*s));
  }
  ExprPtr Col(int i) {
    const Field& f = fx.batch.schema.fields[i];
    return MakeColumnRef(i, f.type, true, f.name);
  }
  ExprPtr Call(const std::string& fn, std::vector<ExprPtr> args) { return fx.Call(fn, args); }
  ExprPtr Lit(Value v) { return MakeLiteral(std::move(v)); }

  // GPU and CPU agree: same values, or the same error message.
  void Check(const ExprPtr& e, bool ansi = false, int ulps = 0) {
    ASSERT_EQ(gpu::ExprUnsupported(*e), "") << e->ToString();
    EvalContext ctx = base;
    ctx.ansi = ansi;
    auto cpu_result = cpu::Evaluate(*e, fx.batch, ctx);
    auto gpu_result = gpu::Evaluate(*e, *device, ctx, *stream);
    if (!cpu_result.ok()) {
      ASSERT_FALSE(gpu_result.ok()) << e->ToString() << " CPU: " << cpu_result.status().ToString();
      EXPECT_EQ(gpu_result.status().ToString(), cpu_result.status().ToString()) << e->ToString();
      return;
    }
    ASSERT_TRUE(gpu_result.ok()) << e->ToString() << ": " << gpu_result.status().ToString();
    auto host = gpu::ColumnToHost(**gpu_result, *stream);
    ASSERT_TRUE(host.ok()) << host.status().ToString();
    test_util::ExpectSameColumn(**cpu_result, **host, e->ToString(), ulps);
  }

  // The expressions every data shape runs through.
  std::vector<ExprPtr> Expressions() {
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
    in_f->args = {f64, Lit(Value::Float64(NAN)), Lit(Value::Float64(0.0)),
                  Lit(Value::Float64(1.5))};
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
  std::vector<ExprPtr> Transcendental() {
    auto f64 = Col(2);
    return {Call("ln", {f64}),    Call("exp", {Call("divide", {f64, Lit(Value::Float64(100))})}),
            Call("log10", {f64}), Call("log2", {f64}),
            Call("cbrt", {f64}),  Call("power", {f64, Lit(Value::Float64(0.5))})};
  }

  void RunAll(int64_t rows, uint32_t seed) {
    Load(test_util::RandomBatch(rows, seed));
    for (const auto& e : Expressions()) Check(e);
    for (const auto& e : Transcendental()) Check(e, false, 4);
  }

  // Starts the compiles of the generated kernels of `exprs` on background threads at once, so
  // that the checks after it (in wait mode) wait for them together rather than one by one.
  void CompileAhead(const std::vector<ExprPtr>& exprs) {
    EvalContext ahead = base;
    ahead.gpu_kernels = GpuKernels::kGenerateBackground;
    for (const auto& e : exprs) (void)gpu::Evaluate(*e, *device, ahead, *stream);
    ASSERT_TRUE(stream->Synchronize().ok());
  }

  test_util::ExprFixture fx;
  std::unique_ptr<gpu::Stream> stream;
  gpu::DeviceBatchPtr device;
  EvalContext base;  // what every Check starts from (interpreted unless a test says otherwise)
};

TEST_F(GpuExprEval, MatchesCpuOnRandomData) {
  TANDEM_REQUIRE_GPU();
  RunAll(20000, 1);
}

// The kernels generated per expression (NVRTC) give what the CPU gives, errors included, and
// run: every expression of the interpreter's tests, on the same random data.
TEST_F(GpuExprEval, GeneratedKernelsMatchCpuOnRandomData) {
  TANDEM_REQUIRE_GPU();
  char dir[] = "/tmp/tandem_gpu_kernels_XXXXXX";
  ASSERT_NE(::mkdtemp(dir), nullptr);
  base.gpu_kernels = GpuKernels::kGenerateWait;
  base.kernel_cache_dir = dir;
  const gpu::GeneratedKernelCounts before = gpu::GeneratedKernelCountsNow();
  Load(test_util::RandomBatch(20000, 11));
  std::vector<ExprPtr> all = Expressions();
  for (const auto& e : Transcendental()) all.push_back(e);
  CompileAhead(all);
  for (const auto& e : Expressions()) Check(e);
  for (const auto& e : Transcendental()) Check(e, false, 4);
  auto i32 = Col(0), i64 = Col(1), wide = Col(4), small = Col(11);
  Check(Call("add", {i64, Lit(Value::Int64(1))}));
  Check(Call("multiply", {i32, Lit(Value::Int32(-1))}));
  Check(Call("divide", {wide, MakeCast(small, DataType::Decimal(20, 0))}), true);
  Check(MakeCast(wide, DataType::Decimal(6, 1)));
  const gpu::GeneratedKernelCounts after = gpu::GeneratedKernelCountsNow();
  EXPECT_EQ(after.compile_failures, before.compile_failures) << after.last_failure;
  EXPECT_GE(after.generated_launches - before.generated_launches,
            static_cast<int64_t>(Expressions().size()));
  std::filesystem::remove_all(dir);
}

TEST_F(GpuExprEval, EmptyOneRowAndAllNull) {
  TANDEM_REQUIRE_GPU();
  RunAll(0, 2);
  RunAll(1, 3);
  Load(test_util::RandomBatch(100, 4, /*null_rate=*/1.0));
  for (const auto& e : Expressions()) Check(e);
}

TEST_F(GpuExprEval, LargeBatch) {
  TANDEM_REQUIRE_GPU();
  Load(test_util::RandomBatch(1 << 20, 5, 0.02));
  auto dec = Col(3), wide = Col(4), words = Col(12);
  Check(Call("multiply", {dec, Call("subtract", {Lit(Value::Decimal(1, 1, 0)), wide})}));
  Check(Call("like", {words, Lit(Value::String("%o%"))}));
  Check(Call("concat", {words, Col(5)}));
}

TEST_F(GpuExprEval, ErrorsMatchTheCpu) {
  TANDEM_REQUIRE_GPU();
  Load(test_util::RandomBatch(5000, 6));
  auto i32 = Col(0), i64 = Col(1), f64 = Col(2), wide = Col(4), small = Col(11);
  // Integer overflow: INT64_MAX + 1, INT32_MIN * -1 ...
  Check(Call("add", {i64, Lit(Value::Int64(1))}));
  Check(Call("multiply", {i32, Lit(Value::Int32(-1))}));
  Check(Call("negate", {i32}));
  // Division by zero: NULL, or an error in ANSI mode.
  Check(Call("modulo", {i64, small}), /*ansi=*/true);
  Check(Call("divide", {f64, Call("subtract", {f64, f64})}), true);
  Check(Call("divide", {wide, MakeCast(small, DataType::Decimal(20, 0))}), true);
  Check(Call("divide", {wide, MakeCast(small, DataType::Decimal(20, 0))}), false);
  // Invalid casts.
  Check(MakeCast(i64, DataType::Int16()));
  Check(MakeCast(wide, DataType::Decimal(6, 1)));
  Check(MakeCast(f64, DataType::Int32()));
  // Decimal overflow in a product.
  Check(Call("multiply", {wide, MakeCast(wide, DataType::Decimal(38, 0), true)}));
}

// decimal(38, s) operands lose scale (Spark's adjustPrecisionScale): the exact sum or difference
// rounded HALF_UP to the result's scale, on both sides.
TEST_F(GpuExprEval, DecimalPrecisionLossMatchesCpu) {
  TANDEM_REQUIRE_GPU();
  Load(test_util::RandomBatch(20000, 8));
  auto dec = Col(3), wide = Col(4);
  auto a = Call("multiply", {MakeCast(wide, DataType::Decimal(38, 10)),
                             MakeCast(dec, DataType::Decimal(38, 10))});  // (38, 6)
  auto x =
      MakeCast(Call("divide", {wide, Lit(Value::Decimal(7, 1, 0))}), DataType::Decimal(38, 10));
  auto y = MakeCast(Call("divide", {dec, Lit(Value::Decimal(3, 1, 0))}), DataType::Decimal(38, 12));
  Check(Call("add", {x, x}));       // (38, 10) + (38, 10) -> (38, 9)
  Check(Call("subtract", {x, y}));  // (38, 10) - (38, 12) -> (38, 11)
  Check(Call("add", {y, a}));
  Check(Call("subtract", {MakeCast(dec, DataType::Decimal(38, 0)), y}));
}

// Interpreted and in a generated kernel (a filter's short-circuit jumps become gotos).
TEST_F(GpuExprEval, SelectTrueMatchesCpuSelection) {
  TANDEM_REQUIRE_GPU();
  Load(test_util::RandomBatch(30000, 7));
  auto pred = Call("and", {Call("like", {Col(12), Lit(Value::String("%a%"))}),
                           Call("gt", {Col(3), Lit(Value::Decimal(0, 15, 2))})});
  for (GpuKernels kernels : {GpuKernels::kInterpret, GpuKernels::kGenerateWait}) {
    SCOPED_TRACE(kernels == GpuKernels::kInterpret ? "interpreted" : "generated");
    EvalContext ctx;
    ctx.gpu_kernels = kernels;
    auto cpu_rows = cpu::EvaluateSelection(*pred, fx.batch, ctx);
    ASSERT_TRUE(cpu_rows.ok());
    const int64_t generated_before = gpu::GeneratedKernelCountsNow().generated_launches;
    auto sel = gpu::SelectTrue(*pred, *device, ctx, *stream);
    ASSERT_TRUE(sel.ok()) << sel.status().ToString();
    EXPECT_EQ(gpu::GeneratedKernelCountsNow().generated_launches - generated_before,
              kernels == GpuKernels::kInterpret ? 0 : 1)
        << gpu::GeneratedKernelCountsNow().last_failure;
    ASSERT_EQ(sel->count, static_cast<int64_t>(cpu_rows->size()));
    std::vector<int64_t> rows(static_cast<size_t>(sel->count));
    if (sel->count > 0) {
      ASSERT_TRUE(gpu::CopyToHost(rows.data(), sel->indices.data(), sel->count * 8, *stream).ok());
      ASSERT_TRUE(stream->Synchronize().ok());
    }
    for (size_t k = 0; k < rows.size(); ++k) ASSERT_EQ(rows[k], (*cpu_rows)[k]);
  }
}

// A string column past 2^31 bytes (64-bit offsets end to end); only where memory allows.
TEST_F(GpuExprEval, StringsPastTwoGiB) {
  TANDEM_REQUIRE_GPU();
  auto info = gpu::QueryDevice();
  if (!info.ok() || info->free_memory_bytes < (int64_t{16} << 30)) GTEST_SKIP() << "needs 16 GiB";
  const int64_t rows = 2200000;
  ColumnBuilder b(DataType::String(), rows);
  std::string s(1000, 'a');
  for (int64_t i = 0; i < rows; ++i) {
    s[i % 1000] = static_cast<char>('a' + i % 26);
    b.AppendString(s);
  }
  auto batch = std::make_shared<Batch>();
  batch->num_rows = rows;
  batch->columns.push_back(b.Finish());
  batch->schema.fields.push_back({"s", DataType::String(), true});
  Load(batch);
  Check(Call("length", {Col(0)}));
  Check(Call("like", {Col(0), Lit(Value::String("%z%"))}));
  Check(Call("concat", {Col(0), Lit(Value::String("!"))}));
}

}  // namespace
}  // namespace tandem
