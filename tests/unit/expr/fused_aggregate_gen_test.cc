// Fused aggregate kernels (exec/gpu/fused_aggregate_gen.h): sources for every kind of partial
// (count, exact sums of 64- and 128-bit values, double sums), with the filter in the kernel or
// not, compile with NVRTC; each aggregate is merged once, from its own words. Compiling needs no
// GPU; running them against the CPU aggregate is tests/gpu (GpuAggregate fused tests). Skipped,
// naming why, where NVRTC is not installed.
#include "tandem/exec/gpu/fused_aggregate_gen.h"

#include <gtest/gtest.h>

#include "gpu_expr_columns.h"
#include "tandem/expr/gpu/kernel_gen.h"
#include "tandem/gpu/jit/nvrtc.h"

namespace tandem {
namespace {

using gpu::fused::AccKind;
using gpu::fused::AggregateSlot;
using gpu::fused::Shape;
using gpu::internal::Compile;
using gpu::internal::Program;

using FusedAggregateGen = test_util::GpuExprColumns;

int Count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST_F(FusedAggregateGen, EveryKindOfPartialCompilesWithNvrtc) {
  Result<const gpu::jit::Nvrtc*> nvrtc = gpu::jit::Nvrtc::Get();
  if (!nvrtc.ok()) GTEST_SKIP() << "skipped: " << nvrtc.status().message();
  // A Q6-like filter in the kernel, then count(*), sum of a 64-bit decimal product, sum of a
  // 128-bit decimal, count(x) of a string, sum of doubles.
  std::vector<Program> programs(5);
  const ExprPtr filter = Call("and", {Call("ge", {date, Lit(Value::Date32(8766))}),
                                      Call("lt", {i64, Lit(Value::Int64(24))})});
  ASSERT_EQ(Compile(*filter, true, &programs[0]), "");
  ASSERT_EQ(
      Compile(*Call("multiply", {dec, Call("subtract", {Lit(Value::Decimal(100, 15, 2)), dec})}),
              false, &programs[1]),
      "");
  ASSERT_EQ(Compile(*wide, false, &programs[2]), "");
  ASSERT_EQ(Compile(*str, false, &programs[3]), "");
  ASSERT_EQ(Compile(*f64, false, &programs[4]), "");
  Shape shape;
  shape.filter_program = true;
  for (const Program& p : programs) shape.programs.push_back(&p);
  AggregateSlot count_star;
  AggregateSlot product{AccKind::kNarrowSum, 1};
  AggregateSlot wide_sum{AccKind::kWideSum, 2};
  AggregateSlot count_str{AccKind::kCount, 3};
  AggregateSlot doubles{AccKind::kDoubleSum, 4};
  shape.slots = {count_star, product, wide_sum, count_str, doubles};
  ASSERT_EQ(gpu::fused::ShapeUnsupported(shape), "");
  EXPECT_EQ(gpu::fused::AccBytes(shape), (1 + 3 + 4 + 1 + 2) * 8);

  const std::string source = gpu::fused::FusedAggregateSource(shape);
  EXPECT_EQ(Count(source, "tqf::Merge"), 5) << source;
  EXPECT_EQ(Count(source, "tqf::MergeNarrow(F.state[1], g, a.w + 1)"), 1) << source;
  EXPECT_EQ(Count(source, "tqf::MergeWide(F.state[2], g, a.w + 4)"), 1) << source;
  EXPECT_EQ(Count(source, "tqf::MergeDouble(F.state[4], g, a.w + 9)"), 1) << source;
  EXPECT_EQ(Count(source, "if (!tq_p0(F.prog[0], r, st))"), 1) << source;

  const gpu::jit::KernelSource k = gpu::internal::KernelOfSource(source, 90);
  Result<std::string> cubin =
      (*nvrtc)->CompileToCubin(k.source, k.name, k.arch, k.headers, k.options);
  ASSERT_TRUE(cubin.ok()) << cubin.status().message() << "\n" << source;
  EXPECT_EQ(cubin->substr(0, 4), std::string("\x7f"
                                             "ELF"));
}

TEST_F(FusedAggregateGen, WithoutAFilterProgramEveryRowOfAGroupCounts) {
  Program value;
  ASSERT_EQ(Compile(*i64, false, &value), "");
  Shape shape;
  shape.programs = {&value};
  shape.slots = {AggregateSlot{AccKind::kNarrowSum, 0}, AggregateSlot{}};
  const std::string source = gpu::fused::FusedAggregateSource(shape);
  EXPECT_EQ(Count(source, "st[0].i == 0"), 0) << source;  // no filter test
  EXPECT_EQ(Count(source, "x.w[3] = 1;"), 1) << source;   // count(*) after the 3-word sum
}

TEST_F(FusedAggregateGen, ShapesBeyondTheKernelsLimitsAreRefused) {
  Program value;
  ASSERT_EQ(Compile(*i64, false, &value), "");
  Shape shape;
  shape.programs = {&value};
  EXPECT_NE(gpu::fused::ShapeUnsupported(shape), "");  // no aggregates
  shape.slots.assign(17, AggregateSlot{AccKind::kNarrowSum, 0});
  EXPECT_NE(gpu::fused::ShapeUnsupported(shape), "");
  shape.slots.assign(2, AggregateSlot{AccKind::kNarrowSum, 1});  // no program 1
  EXPECT_NE(gpu::fused::ShapeUnsupported(shape), "");
  shape.slots.assign(1, AggregateSlot{AccKind::kNarrowSum, -1});  // a sum of nothing
  EXPECT_NE(gpu::fused::ShapeUnsupported(shape), "");
}

}  // namespace
}  // namespace tandem
