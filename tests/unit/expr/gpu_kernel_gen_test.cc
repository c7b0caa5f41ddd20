// Generated expression kernels (expr/gpu/kernel_gen.h) compile with NVRTC for every kind of
// program the interpreter runs: arithmetic at every decimal width, comparisons and three-valued
// logic, a filter's short-circuit jumps, strings (LIKE, substring, concat as a root), dates, CASE.
// Compiling needs no GPU; running them against the interpreter is tests/gpu/gpu_kernel_gen_test.
// Skipped, naming why, where NVRTC is not installed.
#include <gtest/gtest.h>

#include <chrono>

#include "gpu_expr_columns.h"
#include "tandem/expr/gpu/kernel_gen.h"
#include "tandem/expr/gpu/program.h"

namespace tandem {
namespace {

using gpu::internal::Compile;
using gpu::internal::GeneratedEvalKernel;
using gpu::internal::Program;

using GpuKernelGen = test_util::GpuExprColumns;

TEST_F(GpuKernelGen, EveryKindOfProgramCompilesWithNvrtc) {
  Result<const gpu::jit::Nvrtc*> nvrtc = gpu::jit::Nvrtc::Get();
  if (!nvrtc.ok()) GTEST_SKIP() << "skipped: " << nvrtc.status().message();
  struct Case {
    ExprPtr expr;
    bool selection;
  };
  const ExprPtr q6_like =
      Call("and", {Call("and", {Call("ge", {date, Lit(Value::Date32(8766))}),
                                Call("lt", {date, Lit(Value::Date32(9131))})}),
                   Call("and", {Call("ge", {dec, Lit(Value::Decimal(5, 15, 2))}),
                                Call("lt", {i64, Lit(Value::Int64(24))})})});
  const std::vector<Case> cases = {
      {Call("multiply", {dec, Call("subtract", {Lit(Value::Decimal(100, 15, 2)), dec})}), false},
      {Call("multiply", {dec, wide}), false},
      {Call("divide", {i64, Lit(Value::Int64(0))}), false},
      {q6_like, true},
      {Call("or", {Call("like", {str, Lit(Value::String("%BRASS"))}), Call("is_null", {f64})}),
       true},
      {Call("concat", {str, Lit(Value::String("-")),
                       Call("substring", {str, Lit(Value::Int64(2)), Lit(Value::Int64(3))})}),
       false},
      {Call("extract_year", {date}), false},
      {Call("sqrt", {f64}), false},
  };
  int compiled = 0;
  for (const Case& c : cases) {
    Program program;
    ASSERT_EQ(Compile(*c.expr, c.selection, &program), "") << c.expr->ToString();
    const gpu::jit::KernelSource k = GeneratedEvalKernel(program, 90);
    const auto start = std::chrono::steady_clock::now();
    Result<std::string> cubin =
        (*nvrtc)->CompileToCubin(k.source, k.name, k.arch, k.headers, k.options);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ASSERT_TRUE(cubin.ok()) << c.expr->ToString() << "\n"
                            << cubin.status().message() << "\n"
                            << k.source;
    EXPECT_EQ(cubin->substr(0, 4), std::string("\x7f"
                                               "ELF"));
    ++compiled;
    RecordProperty("compile_seconds_" + std::to_string(compiled), std::to_string(seconds));
  }
  EXPECT_EQ(compiled, static_cast<int>(cases.size()));
}

TEST_F(GpuKernelGen, JumpsBecomeGotosToTheirTargets) {
  Program program;
  const ExprPtr both = Call(
      "and", {Call("gt", {i64, Lit(Value::Int64(1))}), Call("lt", {f64, Lit(Value::Float64(2))})});
  ASSERT_EQ(Compile(*both, /*selection=*/true, &program), "");
  const std::string source = GeneratedEvalKernel(program, 90).source;
  int jumps = 0;
  for (size_t i = 0; i < program.code.size(); ++i) {
    const auto& in = program.code[i];
    if (in.op != gpu::internal::Op::kJumpIfNotTrue) continue;
    ++jumps;
    const std::string label = "L" + std::to_string(in.imm) + ":";
    EXPECT_NE(source.find(label), std::string::npos) << source;
    EXPECT_NE(source.find("if (pc != " + std::to_string(i) + ") goto L" + std::to_string(in.imm)),
              std::string::npos)
        << source;
  }
  EXPECT_GT(jumps, 0) << "a filter's AND short-circuits: " << source;
  // One Exec per instruction, none skipped.
  size_t calls = 0;
  for (size_t p = source.find("tqi::ExecOp<"); p != std::string::npos;
       p = source.find("tqi::ExecOp<", p + 1)) {
    ++calls;
  }
  EXPECT_EQ(calls, program.code.size());
}

}  // namespace
}  // namespace tandem
