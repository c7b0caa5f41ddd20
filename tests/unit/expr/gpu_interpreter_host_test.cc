// The GPU expression interpreter's code (expr/gpu/interpreter.cuh: one function per opcode, the
// loop over a program) compiled for the host and run row by row against the CPU evaluator, on
// the GPU tests' random data and expressions (tests/gpu/gpu_test_expressions.h). The same
// functions run on the GPU, in the interpreter kernel and in the kernels generated per
// expression, so this checks their values, NULLs and errors on every machine, a GPU or not, and
// under ASan and UBSan in `make test`. (The GPU tests check the kernels themselves.) The CUDA
// keywords the header uses become nothing on the host; atomicMin and __clzll get host twins.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "../../gpu/gpu_expr_test_util.h"
#include "../../gpu/gpu_test_expressions.h"
#include "../expr_test_fixture.h"
#include "tandem/column/column_builder.h"
#include "tandem/column/slice.h"
#include "tandem/expr/gpu/program.h"

// ---- the interpreter's headers, compiled for the host -----------------------------------------
namespace tandem::gpu::internal {
inline unsigned long long atomicMin(unsigned long long* address, unsigned long long value) {
  const unsigned long long old = *address;
  if (value < old) *address = value;
  return old;
}
using std::isfinite;  // CUDA's is a global function
inline int __clzll(long long x) {
  return x == 0 ? 64 : __builtin_clzll(static_cast<unsigned long long>(x));
}
}  // namespace tandem::gpu::internal

#define __device__
#define __constant__
#define __forceinline__ inline
#include "tandem/expr/gpu/interpreter.cuh"
#undef __device__
#undef __constant__
#undef __forceinline__

namespace tandem {
namespace {

using gpu::internal::ColView;
using gpu::internal::DeviceStatus;
using gpu::internal::InterpParams;
using gpu::internal::Program;
using gpu::internal::Val;

// A host column as the GPU holds it: booleans one byte each, string offsets 64-bit.
struct DeviceLayout {
  ColView view;
  std::vector<uint8_t> bytes;
  std::vector<int64_t> offsets;
};

DeviceLayout Layout(const Column& c) {
  DeviceLayout d;
  d.view.type = static_cast<int32_t>(c.type().id);
  d.view.wide = c.type().is_wide_decimal() ? 1 : 0;
  d.view.validity = c.null_count() > 0 ? c.validity_bits() : nullptr;
  if (c.type().id == TypeId::kBool) {
    for (int64_t i = 0; i < c.length(); ++i) d.bytes.push_back(c.GetBool(i) ? 1 : 0);
    d.view.values = d.bytes.data();
  } else if (c.type().is_string_like()) {
    for (int64_t i = 0; i <= c.length(); ++i) {
      d.offsets.push_back(c.length() == 0 ? 0 : c.StringOffset(i));
    }
    d.view.values = d.offsets.data();
    d.view.data = c.data() ? c.data()->data() : nullptr;
  } else {
    d.view.values = c.values()->data();
  }
  return d;
}

// Row `row`'s result as the GPU's output stage stores it (eval_rows.cuh).
void AppendResult(ColumnBuilder* b, const DataType& type, const Val* st, int concat_args) {
  if (concat_args > 0 || type.is_string_like()) {
    std::string s;
    const int parts = concat_args > 0 ? concat_args : 1;
    for (int k = 0; k < parts; ++k) {
      const gpu::internal::StrView v = gpu::internal::View(st[k]);
      for (int64_t i = 0; i < v.len; ++i) s.push_back(static_cast<char>(ByteAt(v, i)));
    }
    b->AppendString(s);
    return;
  }
  const Val& v = st[0];
  switch (type.id) {
    case TypeId::kBool:
      b->AppendBool(v.i != 0);
      return;
    case TypeId::kInt8:
      b->Append<int8_t>(static_cast<int8_t>(v.i));
      return;
    case TypeId::kInt16:
      b->Append<int16_t>(static_cast<int16_t>(v.i));
      return;
    case TypeId::kInt32:
    case TypeId::kDate32:
      b->Append<int32_t>(static_cast<int32_t>(v.i));
      return;
    case TypeId::kUInt8:
      b->Append<uint8_t>(static_cast<uint8_t>(v.i));
      return;
    case TypeId::kUInt16:
      b->Append<uint16_t>(static_cast<uint16_t>(v.i));
      return;
    case TypeId::kUInt32:
      b->Append<uint32_t>(static_cast<uint32_t>(v.i));
      return;
    case TypeId::kFloat32:
      b->Append<float>(static_cast<float>(v.f));
      return;
    case TypeId::kFloat64:
      b->Append<double>(v.f);
      return;
    case TypeId::kDecimal:
      if (type.is_wide_decimal()) {
        b->Append<int128_t>(v.d);
      } else {
        b->Append<int64_t>(static_cast<int64_t>(v.d));
      }
      return;
    default:
      b->Append<int64_t>(v.i);
  }
}

class GpuInterpreterOnHost : public ::testing::Test {
 protected:
  // The interpreter's result for every row of fx.batch, or the first failing row (-1: none).
  ColumnPtr Interpret(const Expr& e, bool ansi, int64_t* failed_row) {
    Program program;
    const std::string why = gpu::internal::Compile(e, false, &program);
    EXPECT_EQ(why, "") << e.ToString();
    std::vector<DeviceLayout> layouts;
    for (const auto& c : fx.batch.columns) layouts.push_back(Layout(*c));
    std::vector<ColView> views;
    for (const auto& l : layouts) views.push_back(l.view);
    DeviceStatus status{~0ull, 0};
    InterpParams P{};
    P.code = program.code.data();
    P.ncode = static_cast<int32_t>(program.code.size());
    P.consts = program.consts.data();
    P.pool = program.pool.data();
    P.cols = views.data();
    P.status = &status;
    P.ansi = ansi;
    const int concat_args = program.concat_root ? program.code.back().a : 0;
    ColumnBuilder b(e.type, fx.batch.num_rows);
    std::vector<Val> st(gpu::internal::kMaxStack);
    *failed_row = -1;
    for (int64_t row = 0; row < fx.batch.num_rows; ++row) {
      std::memset(static_cast<void*>(st.data()), 0, st.size() * sizeof(Val));
      const bool ok = gpu::internal::RunRow(P, row, st.data());
      bool valid = ok;
      const int parts = concat_args > 0 ? concat_args : 1;
      for (int k = 0; k < parts; ++k) valid = valid && !st[k].null;
      if (!ok && *failed_row < 0) *failed_row = row;
      if (valid) {
        AppendResult(&b, e.type, st.data(), concat_args);
      } else {
        b.AppendNull();
      }
    }
    return b.Finish();
  }

  // The interpreter agrees with the CPU evaluator: the same values, or (when the CPU fails)
  // a failing row, which the CPU also fails on alone (the GPU path replays that row on the CPU
  // for its message).
  void Check(const ExprPtr& e, bool ansi = false, int ulps = 0) {
    EvalContext ctx;
    ctx.ansi = ansi;
    auto cpu_result = cpu::Evaluate(*e, fx.batch, ctx);
    int64_t failed = -1;
    ColumnPtr mine = Interpret(*e, ansi, &failed);
    if (!cpu_result.ok()) {
      ASSERT_GE(failed, 0) << e->ToString() << ": the CPU fails (" << cpu_result.status().ToString()
                           << "), the interpreter does not";
      BatchPtr one = SliceBatch(fx.batch, failed, 1);
      EXPECT_FALSE(cpu::Evaluate(*e, *one, ctx).ok())
          << e->ToString() << ": the interpreter fails on row " << failed
          << ", which the CPU evaluates alone";
      return;
    }
    ASSERT_EQ(failed, -1) << e->ToString() << ": the interpreter fails on row " << failed
                          << ", the CPU does not";
    test_util::ExpectSameColumn(**cpu_result, *mine, e->ToString(), ulps);
  }

  void Load(BatchPtr batch) { fx.batch = *batch; }

  test_util::ExprFixture fx;
};

TEST_F(GpuInterpreterOnHost, MatchesCpuOnRandomData) {
  Load(test_util::RandomBatch(4000, 1));
  for (const auto& e : test_util::EveryFamilyExpressions(fx)) Check(e);
  for (const auto& e : test_util::TranscendentalExpressions(fx)) Check(e, false, 4);
}

TEST_F(GpuInterpreterOnHost, EmptyOneRowAndAllNull) {
  for (int64_t rows : {0, 1}) {
    Load(test_util::RandomBatch(rows, 3));
    for (const auto& e : test_util::EveryFamilyExpressions(fx)) Check(e);
  }
  Load(test_util::RandomBatch(100, 4, /*null_rate=*/1.0));
  for (const auto& e : test_util::EveryFamilyExpressions(fx)) Check(e);
}

TEST_F(GpuInterpreterOnHost, ErrorsMatchTheCpu) {
  Load(test_util::RandomBatch(3000, 6));
  for (const auto& [e, ansi] : test_util::ErrorExpressions(fx)) Check(e, ansi);
}

}  // namespace
}  // namespace tandem
