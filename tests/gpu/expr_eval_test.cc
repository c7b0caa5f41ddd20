// The GPU expression evaluator against its CPU twin on random data: every supported function
// family, NULLs, NaN, -0.0, extremes, empty and one-row batches, long strings, errors (overflow,
// invalid casts, ANSI division by zero) with the CPU's exact messages, and (where memory allows)
// a string column past 2^31 bytes.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>

#include "../unit/expr_test_fixture.h"
#include "gpu_expr_test_util.h"
#include "gpu_test_expressions.h"
#include "gpu_test_util.h"
#include "tandem/column/column_builder.h"
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

  std::vector<ExprPtr> Expressions() { return test_util::EveryFamilyExpressions(fx); }
  std::vector<ExprPtr> Transcendental() { return test_util::TranscendentalExpressions(fx); }

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
  for (const auto& [e, ansi] : test_util::ErrorExpressions(fx)) Check(e, ansi);
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
  for (const auto& [e, ansi] : test_util::ErrorExpressions(fx)) Check(e, ansi);
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

// Decimal products take a 64-bit path when both operands fit 64 bits (decimal_core.h
// MulOverflow): every pair of values around that edge, and past it, against the CPU: products up
// to 2^126 (which fit decimal(38, 0)), then ones that overflow it.
TEST_F(GpuExprEval, DecimalProductsAtTheSixtyFourBitEdge) {
  TANDEM_REQUIRE_GPU();
  const int128_t i64max = INT64_MAX, i64min = INT64_MIN;
  const std::vector<int128_t> edge = {0,
                                      1,
                                      -1,
                                      i64max,
                                      i64min,
                                      i64max - 1,
                                      i64min + 1,
                                      i64max / 3,
                                      -(i64max / 7),
                                      i64max + 1,
                                      i64min - 1,
                                      int128_t{1} << 64,
                                      -(int128_t{1} << 64) + 5};
  for (bool overflow : {false, true}) {
    const DataType d38 = DataType::Decimal(38, 0);
    ColumnBuilder a(d38), b(d38);
    int64_t n = 0;
    for (int128_t x : edge) {
      for (int128_t y : edge) {
        const bool fits64 = x >= i64min && x <= i64max && y >= i64min && y <= i64max;
        // Beyond 64 bits only a small factor keeps the product under 10^38.
        const bool small = (x >= -5 && x <= 5) || (y >= -5 && y <= 5);
        if (!overflow && !fits64 && !small) continue;
        a.Append<int128_t>(x);
        b.Append<int128_t>(y);
        ++n;
      }
    }
    auto batch = std::make_shared<Batch>();
    batch->schema.fields = {{"a", d38}, {"b", d38}};
    batch->num_rows = n;
    batch->columns = {a.Finish(), b.Finish()};
    Load(batch);
    SCOPED_TRACE(overflow ? "with products past 10^38" : "products that fit");
    for (GpuKernels kernels : {GpuKernels::kInterpret, GpuKernels::kGenerateWait}) {
      base.gpu_kernels = kernels;
      Check(Call("multiply", {Col(0), Col(1)}));
      Check(Call("multiply", {Col(1), Col(0)}));
    }
  }
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
