// Pushdown, join ordering, pruning, folding and scan predicates: the rewritten plans have the
// expected shape and give the same rows as the plans as written (run unoptimized). The columns
// pruning keeps per node, as join ordering reads them, on hand-made plans.
#include <gtest/gtest.h>

#include "plan_test_util.h"
#include "tandem/plan/fold_constants.h"
#include "tandem/plan/optimizer.h"
#include "tandem/plan/prune_columns.h"

namespace tandem {
namespace {

using namespace plantest;

void ExpectSameRows(const PlanPtr& plan, PlanPtr* optimized = nullptr) {
  auto opt = Optimize(plan);
  ASSERT_TRUE(opt.ok()) << opt.status().ToString();
  auto want = RunSorted(plan);
  ASSERT_TRUE(want.ok()) << want.status().ToString();
  auto got = RunSorted(*opt);
  ASSERT_TRUE(got.ok()) << got.status().ToString() << "\n" << PlanToString(**opt);
  EXPECT_EQ(*got, *want) << PlanToString(**opt);
  ASSERT_EQ((*opt)->schema.num_fields(), plan->schema.num_fields());
  for (int i = 0; i < plan->schema.num_fields(); ++i) {
    EXPECT_EQ((*opt)->schema.field(i).name, plan->schema.field(i).name);
  }
  if (optimized) *optimized = *opt;
}

struct Tables {
  std::vector<std::shared_ptr<TableSource>> t;
  Tables(uint32_t seed, std::vector<int> sizes) {
    for (size_t i = 0; i < sizes.size(); ++i) {
      t.push_back(
          MemoryTable("t" + std::to_string(i),
                      RandomRows(2, sizes[i], seed * 31 + static_cast<uint32_t>(i), 12, 0.1), 2));
    }
  }
};

class PlanRewrite : public ::testing::TestWithParam<uint32_t> {};

TEST_P(PlanRewrite, WhereEqualitiesTurnCrossJoinsIntoHashJoins) {
  Tables ts(GetParam(), {40, 30, 20});
  // FROM t0, t1, t2 WHERE t0.c0 = t1.c0 AND t1.c1 = t2.c0 AND t0.c1 > 2 AND t2.c1 < 9
  auto cross =
      MakeJoin(MakeJoin(ScanAll(ts.t[0]), ScanAll(ts.t[1]), JoinType::kInner, {}, {}, nullptr),
               ScanAll(ts.t[2]), JoinType::kInner, {}, {}, nullptr);
  auto pred = And(And(Cmp("eq", Col(0), Col(2)), Cmp("eq", Col(3), Col(4))),
                  And(Cmp("gt", Col(1), Lit(2)), Cmp("lt", Col(5), Lit(9))));
  auto plan = MakeProject(MakeFilter(cross, pred), {Col(1), Col(4), Col(5)}, {"x", "y", "z"});
  PlanPtr opt;
  ExpectSameRows(plan, &opt);
  EXPECT_EQ(CountNodes(*opt, IsCrossJoin), 0) << PlanToString(*opt);
  // Every scan is filtered or joined directly, and each hash join builds on its smaller side.
  CountNodes(*opt, [](const PlanNode& n) {
    if (n.kind == PlanKind::kJoin) {
      EXPECT_LE(n.children[1]->estimated_rows, n.children[0]->estimated_rows);
    }
    return false;
  });
}

TEST_P(PlanRewrite, ChainOfFiveTablesHasNoCrossJoin) {
  Tables ts(GetParam(), {50, 5, 30, 8, 20});
  PlanPtr cross = ScanAll(ts.t[0]);
  for (int i = 1; i < 5; ++i) {
    cross = MakeJoin(cross, ScanAll(ts.t[i]), JoinType::kInner, {}, {}, nullptr);
  }
  // t_i.c1 = t_{i+1}.c0
  ExprPtr pred;
  for (int i = 0; i + 1 < 5; ++i) {
    auto c = Cmp("eq", Col(2 * i + 1), Col(2 * i + 2));
    pred = pred ? And(pred, c) : c;
  }
  auto plan = MakeFilter(cross, pred);
  PlanPtr opt;
  ExpectSameRows(plan, &opt);
  EXPECT_EQ(CountNodes(*opt, IsCrossJoin), 0) << PlanToString(*opt);
}

TEST_P(PlanRewrite, LeftJoinBecomesInnerOnlyWhenWhereRejectsNulls) {
  Tables ts(GetParam(), {40, 30});
  auto join = MakeJoin(ScanAll(ts.t[0]), ScanAll(ts.t[1]), JoinType::kLeft, {Col(0)}, {Col(0)},
                       Cmp("gt", Col(3), Lit(4)));
  PlanPtr opt;
  ExpectSameRows(MakeFilter(join, Cmp("gt", Col(2), Lit(3))), &opt);
  EXPECT_EQ(CountNodes(*opt,
                       [](const PlanNode& n) {
                         return n.kind == PlanKind::kJoin && n.join_type == JoinType::kLeft;
                       }),
            0);
  auto is_null = MakeCall("is_null", {Col(2)}, DataType::Bool(), false);
  ExpectSameRows(MakeFilter(join, And(is_null, Cmp("lt", Col(1), Lit(6)))), &opt);
  EXPECT_EQ(CountNodes(*opt,
                       [](const PlanNode& n) {
                         return n.kind == PlanKind::kJoin && n.join_type == JoinType::kLeft;
                       }),
            1);
}

TEST_P(PlanRewrite, FilterOnGroupKeyGoesBelowAggregate) {
  Tables ts(GetParam(), {60});
  auto agg = MakeAggregate(
      ScanAll(ts.t[0]), {Col(0)}, {"k"},
      {Agg(AggregateKind::kSum, Col(1), "s"), Agg(AggregateKind::kCountStar, nullptr, "n")});
  auto plan =
      MakeProject(MakeFilter(agg, And(Cmp("gt", Col(0), Lit(3)), Cmp("gt", Col(2), Lit(1)))),
                  {Col(0), Col(1)}, {"k", "s"});
  PlanPtr opt;
  ExpectSameRows(plan, &opt);
  // The key filter now sits on the scan.
  EXPECT_EQ(CountNodes(*opt,
                       [](const PlanNode& n) {
                         return n.kind == PlanKind::kFilter &&
                                n.children[0]->kind == PlanKind::kScan;
                       }),
            1)
      << PlanToString(*opt);
}

TEST_P(PlanRewrite, ScansReadOnlyUsedColumns) {
  Tables ts(GetParam(), {30, 30});
  auto join =
      MakeJoin(ScanAll(ts.t[0]), ScanAll(ts.t[1]), JoinType::kInner, {Col(0)}, {Col(0)}, nullptr);
  auto plan = MakeProject(join, {Col(3)}, {"v"});
  PlanPtr opt;
  ExpectSameRows(plan, &opt);
  int columns = 0;
  CountNodes(*opt, [&](const PlanNode& n) {
    if (n.kind == PlanKind::kScan) columns += static_cast<int>(n.scan_columns.size());
    return false;
  });
  EXPECT_EQ(columns, 3) << PlanToString(*opt);  // t0.c0, t1.c0, t1.c1
}

TEST_P(PlanRewrite, OrBranchesShareTheirJoinKeyButNotSameNamedColumns) {
  Tables ts(GetParam(), {40, 30});
  auto cross = MakeJoin(ScanAll(ts.t[0]), ScanAll(ts.t[1]), JoinType::kInner, {}, {}, nullptr);
  // Columns of both sides carry the same display name "x": only positions tell them apart.
  auto branch1 = And(Cmp("eq", Col(0, "k"), Col(2, "k")), Cmp("eq", Col(1, "x"), Lit(1)));
  auto branch2 = And(Cmp("eq", Col(0, "k"), Col(2, "k")), Cmp("eq", Col(3, "x"), Lit(1)));
  auto branch3 = And(Cmp("eq", Col(1, "x"), Lit(2)), Cmp("eq", Col(3, "x"), Lit(3)));
  PlanPtr opt;
  ExpectSameRows(MakeFilter(cross, Or(branch1, branch2)), &opt);
  EXPECT_EQ(CountNodes(*opt, IsCrossJoin), 0) << PlanToString(*opt);
  ExpectSameRows(MakeFilter(
      cross, Or(And(Cmp("eq", Col(1, "x"), Lit(3)), Cmp("eq", Col(3, "x"), Lit(2))), branch3)));
}

INSTANTIATE_TEST_SUITE_P(Seeds, PlanRewrite, ::testing::Values(1u, 2u, 3u, 4u, 5u, 6u));

TEST(PlanPrune, ColumnsEachNodeKeepsWhatPruningKeeps) {
  Tables ts(1, {40, 30});
  // SELECT t1.c1 FROM t0 JOIN t1 ON t0.c0 = t1.c0 WHERE t0.c1 > 2, and a scan of t0 used on both
  // sides of a self join, needing c0 on one and c0, c1 on the other.
  auto t0 = ScanAll(ts.t[0]), t1 = ScanAll(ts.t[1]);
  auto filtered = MakeFilter(t0, Cmp("gt", Col(1), Lit(2)));
  auto join = MakeJoin(filtered, t1, JoinType::kInner, {Col(0)}, {Col(0)}, nullptr);
  auto plan = MakeProject(join, {Col(3)}, {"y"});
  auto kept = plan::ColumnsEachNodeKeeps(plan);
  EXPECT_EQ(kept.at(plan.get()), (std::vector<int>{0}));
  // t0.c1 is read for the filter and dropped before the join.
  EXPECT_EQ(kept.at(join.get()), (std::vector<int>{0, 2, 3}));
  EXPECT_EQ(kept.at(filtered.get()), (std::vector<int>{0, 1}));
  EXPECT_EQ(kept.at(t0.get()), (std::vector<int>{0, 1}));
  EXPECT_EQ(kept.at(t1.get()), (std::vector<int>{0, 1}));
  auto self = MakeJoin(t0, t0, JoinType::kInner, {Col(0)}, {Col(0)}, nullptr);
  auto kept_self = plan::ColumnsEachNodeKeeps(MakeProject(self, {Col(1)}, {"x"}));
  EXPECT_EQ(kept_self.at(t0.get()), (std::vector<int>{0, 1}));  // what either side needs
  auto right_only = plan::ColumnsEachNodeKeeps(MakeProject(self, {Col(2)}, {"k"}));
  EXPECT_EQ(right_only.at(t0.get()), (std::vector<int>{0}));
}

TEST(PlanFold, ConstantsAndBooleanIdentities) {
  auto e = And(Cmp("gt", Col(0), Add(Lit(1), Lit(2))), MakeLiteral(Value::Bool(true)));
  auto f = plan::FoldExpression(e);
  EXPECT_EQ(f->ToString(), "(#0 > 3)");
  auto g = plan::FoldExpression(And(Cmp("gt", Col(0), Lit(1)), MakeLiteral(Value::Bool(false))));
  EXPECT_EQ(g->ToString(), "FALSE");
}

}  // namespace
}  // namespace tandem
