// Support checks of the GPU Sort/TopN/Limit (plain C++, run everywhere): column keys of every
// type are accepted; computed keys are refused with the reason the placement planner shows.
#include <gtest/gtest.h>

#include "tandem/exec/gpu/gpu_operators.h"

namespace tandem::gpu {
namespace {

Schema TwoColumns() {
  Schema s;
  s.fields = {{"s", DataType::String()}, {"d", DataType::Decimal(30, 2)}};
  return s;
}

TEST(GpuSortSupport, ColumnKeysOfAnyTypeAreSupported) {
  const Schema s = TwoColumns();
  PlanPtr sort =
      MakeSort(MakeValues(s, {}), {{MakeColumnRef(0, s.field(0).type, true), true, false},
                                   {MakeColumnRef(1, s.field(1).type, true), false, true}});
  EXPECT_EQ(SortUnsupported(*sort), "");
  EXPECT_EQ(LimitUnsupported(*MakeLimit(sort, 10, 2)), "");
}

TEST(GpuSortSupport, ComputedKeysAreRefusedWithTheExpression) {
  const Schema s = TwoColumns();
  ExprPtr len =
      MakeCall("length", {MakeColumnRef(0, s.field(0).type, true, "s")}, DataType::Int64(), true);
  PlanPtr sort =
      MakeSort(MakeValues(s, {}),
               {{MakeColumnRef(1, s.field(1).type, true), true, false}, {len, true, false}});
  const std::string why = SortUnsupported(*sort);
  EXPECT_EQ(why.rfind("sort key expression (", 0), 0u) << why;
  EXPECT_NE(why.find(len->ToString()), std::string::npos) << why;
}

TEST(GpuSortSupport, OuterReferencesAreRefused) {
  const Schema s = TwoColumns();
  ExprPtr outer = MakeColumnRef(0, s.field(0).type, true, "s");
  outer->outer_depth = 1;
  PlanPtr sort = MakeSort(MakeValues(s, {}), {{outer, true, false}});
  EXPECT_NE(SortUnsupported(*sort), "");
}

}  // namespace
}  // namespace tandem::gpu
