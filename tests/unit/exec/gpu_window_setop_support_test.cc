// Support checks of the GPU set operation and window operator (plain C++, no device needed): what
// the GPU twins accept, and the reasons they give for what they do not implement.
#include <gtest/gtest.h>

#include "tandem/exec/gpu/gpu_operators_more.h"
#include "tandem/expr/aggregate.h"

namespace tandem::gpu {
namespace {

Schema TestSchema() {
  Schema s;
  s.fields = {{"k", DataType::Int64()},        {"s", DataType::String()},
              {"d", DataType::Decimal(12, 2)}, {"f", DataType::Float64()},
              {"day", DataType::Date32()},     {"ts", DataType::Timestamp(true)},
              {"b", DataType::Bool()}};
  return s;
}

ExprPtr Col(int i) {
  const Schema s = TestSchema();
  return MakeColumnRef(i, s.field(i).type, true, s.field(i).name);
}

using Kind = WindowFunctionKind;
using Bound = WindowFrame::BoundKind;

WindowCall Call(Kind kind, std::vector<ExprPtr> args, DataType type) {
  WindowCall w;
  w.kind = kind;
  w.args = std::move(args);
  w.partition_by = {Col(0)};
  w.order_by = {{Col(3), true, false}};
  w.frame.has_order = true;
  w.type = type;
  w.name = "w";
  return w;
}

WindowCall Agg(AggregateKind kind, int col) {
  WindowCall w = Call(Kind::kAggregate, {}, DataType::Int64());
  w.aggregate = kind;
  if (col >= 0) w.args = {Col(col)};
  auto type =
      AggregateResultType(kind, col >= 0 ? TestSchema().field(col).type : DataType::Int64());
  EXPECT_TRUE(type.ok());
  w.type = *type;
  return w;
}

std::string Check(std::vector<WindowCall> calls) {
  return WindowUnsupported(*MakeWindow(MakeValues(TestSchema(), {}), std::move(calls)));
}

WindowCall WithFrame(WindowCall w, WindowFrame::Unit unit, Bound start, int64_t start_offset,
                     Bound end, int64_t end_offset) {
  w.frame.unit = unit;
  w.frame.start = start;
  w.frame.start_offset = start_offset;
  w.frame.end = end;
  w.frame.end_offset = end_offset;
  return w;
}

TEST(GpuSetOperationSupport, AcceptsEveryKindAndType) {
  for (SetOpKind op : {SetOpKind::kUnion, SetOpKind::kIntersect, SetOpKind::kExcept}) {
    for (bool all : {false, true}) {
      auto node = MakeSetOp(MakeValues(TestSchema(), {}), MakeValues(TestSchema(), {}), op, all);
      EXPECT_EQ(SetOperationUnsupported(*node), "");
    }
  }
  PlanNode other;
  other.kind = PlanKind::kSort;
  EXPECT_EQ(SetOperationUnsupported(other), "not a set operation");
}

TEST(GpuWindowSupport, AcceptsRankingNavigationAndAggregates) {
  EXPECT_EQ(Check({Call(Kind::kRowNumber, {}, DataType::Int64()),
                   Call(Kind::kRank, {}, DataType::Int64()),
                   Call(Kind::kDenseRank, {}, DataType::Int64()),
                   Call(Kind::kPercentRank, {}, DataType::Float64()),
                   Call(Kind::kCumeDist, {}, DataType::Float64())}),
            "");
  EXPECT_EQ(Check({Call(Kind::kLag, {Col(1)}, DataType::String()),
                   Call(Kind::kLead, {Col(2), MakeLiteral(Value::Int64(3)), Col(2)},
                        DataType::Decimal(12, 2)),
                   Call(Kind::kFirstValue, {Col(3)}, DataType::Float64()),
                   Call(Kind::kLastValue, {Col(4)}, DataType::Date32())}),
            "");
  EXPECT_EQ(Check({Agg(AggregateKind::kCountStar, -1), Agg(AggregateKind::kCount, 1),
                   Agg(AggregateKind::kSum, 0), Agg(AggregateKind::kSum, 2),
                   Agg(AggregateKind::kAvg, 3), Agg(AggregateKind::kMin, 1),
                   Agg(AggregateKind::kMax, 3), Agg(AggregateKind::kMin, 6)}),
            "");
  // No PARTITION BY, no ORDER BY: the whole input is one partition.
  WindowCall whole = Agg(AggregateKind::kSum, 2);
  whole.partition_by.clear();
  whole.order_by.clear();
  whole.frame.end = Bound::kUnboundedFollowing;
  EXPECT_EQ(Check({whole}), "");
}

TEST(GpuWindowSupport, AcceptsRowsFramesAndOffsetFreeRangeFrames) {
  using U = WindowFrame::Unit;
  const WindowCall sum = Agg(AggregateKind::kSum, 0);
  EXPECT_EQ(Check({WithFrame(sum, U::kRows, Bound::kPreceding, 3, Bound::kFollowing, 2)}), "");
  EXPECT_EQ(Check({WithFrame(sum, U::kRows, Bound::kCurrentRow, 0, Bound::kUnboundedFollowing, 0)}),
            "");
  EXPECT_EQ(Check({WithFrame(sum, U::kRows, Bound::kFollowing, 1, Bound::kFollowing, 5)}), "");
  EXPECT_EQ(
      Check({WithFrame(sum, U::kRange, Bound::kUnboundedPreceding, 0, Bound::kCurrentRow, 0)}), "");
  EXPECT_EQ(
      Check({WithFrame(sum, U::kRange, Bound::kCurrentRow, 0, Bound::kUnboundedFollowing, 0)}), "");
}

TEST(GpuWindowSupport, RejectsWithAReason) {
  using U = WindowFrame::Unit;
  const WindowCall sum = Agg(AggregateKind::kSum, 0);
  EXPECT_EQ(Check({WithFrame(sum, U::kRange, Bound::kPreceding, 3, Bound::kCurrentRow, 0)}),
            "window frame RANGE with offsets");
  EXPECT_EQ(Check({WithFrame(sum, U::kRange, Bound::kCurrentRow, 0, Bound::kFollowing, 1)}),
            "window frame RANGE with offsets");
  EXPECT_EQ(Check({Call(Kind::kNtile, {MakeLiteral(Value::Int64(4))}, DataType::Int64())}),
            "window function ntile");
  EXPECT_EQ(
      Check({Call(Kind::kNthValue, {Col(0), MakeLiteral(Value::Int64(2))}, DataType::Int64())}),
      "window function nth_value");
  EXPECT_EQ(Check({Agg(AggregateKind::kStddevSamp, 3)}), "window function stddev_samp");
  EXPECT_EQ(Check({Agg(AggregateKind::kMin, 4)}), "window min over date32");
  EXPECT_EQ(Check({Agg(AggregateKind::kMax, 5)}).rfind("window max over timestamp", 0), 0u);
  // One unsupported call rejects the whole node, whatever its position.
  EXPECT_EQ(Check({Call(Kind::kRowNumber, {}, DataType::Int64()),
                   Call(Kind::kNtile, {MakeLiteral(Value::Int64(2))}, DataType::Int64())}),
            "window function ntile");
  // Expressions the GPU evaluator refuses.
  auto replace = MakeCall("replace", {Col(1), Col(1), Col(1)}, DataType::String(), true);
  WindowCall keyed = Call(Kind::kRowNumber, {}, DataType::Int64());
  keyed.partition_by = {replace};
  EXPECT_NE(Check({keyed}).find("function replace"), std::string::npos);
  keyed = Call(Kind::kRowNumber, {}, DataType::Int64());
  keyed.order_by = {{replace, false, true}};
  EXPECT_NE(Check({keyed}).find("window ORDER BY"), std::string::npos);
  EXPECT_NE(Check({Call(Kind::kFirstValue, {replace}, DataType::String())}).find("window argument"),
            std::string::npos);
  PlanNode other;
  other.kind = PlanKind::kSort;
  EXPECT_EQ(WindowUnsupported(other), "not a window operator");
}

}  // namespace
}  // namespace tandem::gpu
