// Support checks of the GPU hash aggregate and hash join (plain C++, no device needed): what the
// GPU twins accept, and the reasons they give for what they do not implement.
#include <gtest/gtest.h>

#include "tandem/exec/gpu/gpu_operators.h"
#include "tandem/expr/aggregate.h"

namespace tandem::gpu {
namespace {

Schema TestSchema() {
  Schema s;
  s.fields = {{"k", DataType::Int64()},
              {"s", DataType::String()},
              {"d", DataType::Decimal(12, 2)},
              {"b", DataType::Bool()},
              {"f", DataType::Float64()}};
  return s;
}

ExprPtr Col(int i) {
  const Schema s = TestSchema();
  return MakeColumnRef(i, s.field(i).type, true, s.field(i).name);
}

AggregateCall Agg(AggregateKind kind, int col, bool distinct = false) {
  AggregateCall a;
  a.kind = kind;
  if (col >= 0) a.arg = Col(col);
  auto type =
      AggregateResultType(kind, col >= 0 ? TestSchema().field(col).type : DataType::Int64());
  EXPECT_TRUE(type.ok());
  a.type = *type;
  a.name = AggregateKindName(kind);
  a.distinct = distinct;
  return a;
}

TEST(GpuAggregateSupport, AcceptsKeysAndAggregatesOfEveryKind) {
  using K = AggregateKind;
  auto node = MakeAggregate(
      MakeValues(TestSchema(), {}), {Col(0), Col(1), Col(4)}, {"k", "s", "f"},
      {Agg(K::kCountStar, -1), Agg(K::kSum, 2), Agg(K::kAvg, 2), Agg(K::kMin, 1), Agg(K::kMax, 4),
       Agg(K::kCount, 0, true), Agg(K::kStddevSamp, 0), Agg(K::kBoolAnd, 3), Agg(K::kAnyValue, 1)});
  EXPECT_EQ(AggregateUnsupported(*node), "");
}

TEST(GpuAggregateSupport, RejectsGroupingSetsAndTooManyKeys) {
  auto sets = MakeAggregate(MakeValues(TestSchema(), {}), {Col(0), Col(1)}, {"k", "s"},
                            {Agg(AggregateKind::kCountStar, -1)}, {{0}, {1}, {}});
  EXPECT_EQ(AggregateUnsupported(*sets), "grouping sets");
  std::vector<ExprPtr> keys;
  std::vector<std::string> names;
  for (int i = 0; i < 17; ++i) {
    keys.push_back(Col(0));
    names.push_back("k" + std::to_string(i));
  }
  auto many = MakeAggregate(MakeValues(TestSchema(), {}), keys, names,
                            {Agg(AggregateKind::kCountStar, -1)});
  EXPECT_EQ(AggregateUnsupported(*many), "more than 16 group keys");
}

TEST(GpuAggregateSupport, RejectsBoolAndOfNonBoolean) {
  AggregateCall a = Agg(AggregateKind::kBoolAnd, 3);
  a.arg = Col(0);  // int64: the binder would refuse; the support check must too
  auto node = MakeAggregate(MakeValues(TestSchema(), {}), {}, {}, {a});
  EXPECT_NE(AggregateUnsupported(*node), "");
}

PlanPtr Join(JoinType type, std::vector<ExprPtr> lk, std::vector<ExprPtr> rk, ExprPtr cond,
             bool null_aware) {
  return MakeJoin(MakeValues(TestSchema(), {}), MakeValues(TestSchema(), {}), type, std::move(lk),
                  std::move(rk), std::move(cond), null_aware);
}

TEST(GpuJoinSupport, AcceptsEveryTypeWithKeys) {
  for (JoinType t : {JoinType::kInner, JoinType::kLeft, JoinType::kRight, JoinType::kFull,
                     JoinType::kSemi, JoinType::kAnti, JoinType::kMark}) {
    EXPECT_EQ(JoinUnsupported(*Join(t, {Col(0), Col(1)}, {Col(0), Col(1)}, nullptr, false)), "");
    EXPECT_EQ(JoinUnsupported(*Join(t, {}, {}, nullptr, false)), "");  // cross join
  }
  EXPECT_EQ(
      JoinUnsupported(*Join(JoinType::kAnti, {Col(0), Col(1)}, {Col(0), Col(1)}, nullptr, true)),
      "");
  EXPECT_EQ(JoinUnsupported(*Join(JoinType::kMark, {Col(0)}, {Col(0)}, nullptr, true)), "");
}

TEST(GpuJoinSupport, RejectsWhatItDoesNotImplement) {
  EXPECT_EQ(
      JoinUnsupported(*Join(JoinType::kMark, {Col(0), Col(1)}, {Col(0), Col(1)}, nullptr, true)),
      "null-aware mark join (IN) with several keys or a condition");
  EXPECT_EQ(JoinUnsupported(*Join(JoinType::kInner, {Col(0)}, {Col(1)}, nullptr, false)),
            "join key 0 types differ");
  std::vector<ExprPtr> keys(17, Col(0));
  EXPECT_EQ(JoinUnsupported(*Join(JoinType::kInner, keys, keys, nullptr, false)),
            "more than 16 join keys");
}

}  // namespace
}  // namespace tandem::gpu
