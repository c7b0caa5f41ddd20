// A fixture of the tests that compile GPU expressions without running them (support checks,
// generated kernel sources): references to columns of six types, and calls resolved as the
// binder resolves them.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../expr_test_fixture.h"

namespace tandem::test_util {

class GpuExprColumns : public ::testing::Test {
 protected:
  void SetUp() override {
    i64 = Ref(0, DataType::Int64());
    dec = Ref(1, DataType::Decimal(15, 2));
    f64 = Ref(2, DataType::Float64());
    str = Ref(3, DataType::String());
    date = Ref(4, DataType::Date32());
    wide = Ref(5, DataType::Decimal(30, 4));
  }
  ExprPtr Ref(int i, DataType t) { return MakeColumnRef(i, t, true, "c" + std::to_string(i)); }
  ExprPtr Call(const std::string& fn, std::vector<ExprPtr> args) { return fx.Call(fn, args); }
  ExprPtr Lit(Value v) { return MakeLiteral(std::move(v)); }

  ExprFixture fx;
  ExprPtr i64, dec, f64, str, date, wide;
};

}  // namespace tandem::test_util
