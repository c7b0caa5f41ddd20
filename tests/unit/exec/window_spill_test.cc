// How a window node is split for computing through disk (exec/cpu/window_spill.h): calls that
// share a PARTITION BY key run as one step; calls that share none as steps grouped by the keys
// they share, whose columns come back in the node's order; a call with no PARTITION BY leaves
// nothing to split by.
#include "tandem/exec/cpu/window_spill.h"

#include <gtest/gtest.h>

namespace tandem {
namespace {

ExprPtr Col(int i) { return MakeColumnRef(i, DataType::Int64(), true, "c" + std::to_string(i)); }

WindowCall Call(std::string name, std::vector<int> partition_by) {
  WindowCall call;
  call.kind = WindowFunctionKind::kRowNumber;
  call.type = DataType::Int64();
  call.nullable = false;
  call.name = std::move(name);
  for (int c : partition_by) call.partition_by.push_back(Col(c));
  return call;
}

PlanPtr WindowOver(std::vector<WindowCall> calls) {
  Schema input;
  for (int i = 0; i < 3; ++i) input.fields.push_back({"c" + std::to_string(i), DataType::Int64()});
  return MakeWindow(MakeValues(input, {}), std::move(calls));
}

std::vector<std::string> CallNames(const PlanNode& step) {
  std::vector<std::string> names;
  for (const WindowCall& call : step.windows) names.push_back(call.name);
  return names;
}

TEST(WindowSpill, CallsSharingAKeyAreOneStep) {
  const PlanPtr window = WindowOver({Call("a", {0, 1}), Call("b", {1}), Call("c", {2, 1})});
  const cpu::WindowSteps split = cpu::SplitByPartitionKeys(*window);
  ASSERT_EQ(split.steps.size(), 1u);
  EXPECT_EQ(CallNames(*split.steps[0]), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(split.output_columns, (std::vector<int>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(cpu::SharedPartitionKeys(*split.steps[0]).size(), 1u);
}

TEST(WindowSpill, CallsSharingNoKeyAreStepsInTheNodesColumnOrder) {
  // a and c share c0, b and d share c1: steps {a, c} then {b, d}.
  const PlanPtr window =
      WindowOver({Call("a", {0}), Call("b", {1, 2}), Call("c", {2, 0}), Call("d", {1})});
  const cpu::WindowSteps split = cpu::SplitByPartitionKeys(*window);
  ASSERT_EQ(split.steps.size(), 2u);
  EXPECT_EQ(CallNames(*split.steps[0]), (std::vector<std::string>{"a", "c"}));
  EXPECT_EQ(CallNames(*split.steps[1]), (std::vector<std::string>{"b", "d"}));
  EXPECT_EQ(split.steps[1]->children[0], split.steps[0]);
  EXPECT_EQ(split.steps[0]->children[0], window->children[0]);
  // Last step's columns: c0 c1 c2 a c b d; the node's: c0 c1 c2 a b c d.
  EXPECT_EQ(split.output_columns, (std::vector<int>{0, 1, 2, 3, 5, 4, 6}));
  for (const PlanPtr& step : split.steps) {
    EXPECT_FALSE(cpu::SharedPartitionKeys(*step).empty());
  }
  for (size_t c = 0; c < split.output_columns.size(); ++c) {
    EXPECT_EQ(split.steps.back()->schema.field(split.output_columns[c]).name,
              window->schema.field(static_cast<int>(c)).name);
  }
}

TEST(WindowSpill, AGroupKeepsOnlyTheKeysAllItsCallsShare) {
  // b shares c1 with a (the group's keys narrow to c1); c shares only c0, which b lacks.
  const PlanPtr window = WindowOver({Call("a", {0, 1}), Call("b", {1}), Call("c", {0})});
  const cpu::WindowSteps split = cpu::SplitByPartitionKeys(*window);
  ASSERT_EQ(split.steps.size(), 2u);
  EXPECT_EQ(CallNames(*split.steps[0]), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(CallNames(*split.steps[1]), (std::vector<std::string>{"c"}));
}

TEST(WindowSpill, ACallWithoutPartitionByCannotBeSplit) {
  EXPECT_TRUE(
      cpu::SplitByPartitionKeys(*WindowOver({Call("a", {0}), Call("b", {})})).steps.empty());
  EXPECT_TRUE(cpu::SplitByPartitionKeys(*WindowOver({Call("a", {})})).steps.empty());
}

}  // namespace
}  // namespace tandem
