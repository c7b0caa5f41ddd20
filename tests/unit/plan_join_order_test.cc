// Join ordering by enumeration (tandem.optimizer.joinOrder=dp) against greedy ordering and the
// plan as written: the join graph's classes of equal columns (transitive equalities, what breaks
// a class), and on random joins of up to seven tables every order gives the rows of the
// unoptimized plan.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

#include "plan_test_util.h"
#include "tandem/plan/join_enumeration.h"
#include "tandem/plan/join_graph.h"
#include "tandem/plan/optimizer.h"
#include "tandem/plan/rewrite_util.h"

namespace tandem {
namespace {

using namespace plantest;
using plan::BuildJoinGraph;
using plan::Connected;

ExprPtr Eq(int a, int b) { return Cmp("eq", Col(a), Col(b)); }

TEST(JoinGraph, EqualitiesThroughAThirdInputFormOneClass) {
  // Three inputs of two columns: global columns 0,1 | 2,3 | 4,5.
  // t0.c0 = t1.c0 AND t1.c0 = t2.c0: t0 and t2 are joined through t1's column.
  const auto g = BuildJoinGraph({Eq(0, 2), Eq(2, 4)}, {0, 2, 4}, {2, 2, 2}, true);
  ASSERT_EQ(g.classes.size(), 1u);
  EXPECT_EQ(g.classes[0].members.size(), 3u);
  EXPECT_TRUE(g.preds.empty());
  EXPECT_TRUE(Connected(g, 0b001, 0b100));
  const auto plain = BuildJoinGraph({Eq(0, 2), Eq(2, 4)}, {0, 2, 4}, {2, 2, 2}, false);
  EXPECT_TRUE(plain.classes.empty());
  EXPECT_EQ(plain.preds.size(), 2u);
  EXPECT_FALSE(Connected(plain, 0b001, 0b100));
}

TEST(JoinGraph, TwoColumnsOfOneInputInAClassKeepTheirPredicates) {
  // t0.c0 = t1.c0 AND t1.c0 = t0.c1 would make t0.c0 = t0.c1, a filter on t0 the graph does
  // not carry: both stay predicates.
  const auto g = BuildJoinGraph({Eq(0, 2), Eq(2, 1)}, {0, 2}, {2, 2}, true);
  EXPECT_TRUE(g.classes.empty());
  EXPECT_EQ(g.preds.size(), 2u);
}

TEST(JoinGraph, FloatingPointAndExpressionEqualitiesStayPredicates) {
  auto f0 = MakeColumnRef(0, DataType::Float64(), true);
  auto f2 = MakeColumnRef(2, DataType::Float64(), true);
  auto sum = Add(Col(1), Col(3));
  const auto g =
      BuildJoinGraph({Cmp("eq", f0, f2), Cmp("eq", sum, Col(4)), Cmp("lt", Col(0), Col(5))},
                     {0, 2, 4}, {2, 2, 2}, true);
  EXPECT_TRUE(g.classes.empty());
  EXPECT_EQ(g.preds.size(), 3u);
}

Result<std::vector<std::string>> OptimizedRows(const PlanPtr& plan, bool enumerate, PlanPtr* out) {
  OptimizerOptions options;
  options.join_order_enumerate = enumerate;
  TANDEM_ASSIGN_OR_RAISE(PlanPtr opt, Optimize(plan, options));
  *out = opt;
  return RunSorted(opt);
}

class JoinOrderRandom : public ::testing::TestWithParam<uint32_t> {};

// FROM t0, ..., tn-1 WHERE random equalities between columns of different tables (chains through
// shared columns, two columns of one table in one class, cycles) and a few comparisons: the rows
// of the plan as written, ordered greedily and by enumeration.
TEST_P(JoinOrderRandom, EveryOrderGivesTheRowsAsWritten) {
  std::mt19937 rng(GetParam());
  // A query with no rows checks little: draw again (the same seed, further on) until one has.
  PlanPtr plan;
  Result<std::vector<std::string>> want = std::vector<std::string>{};
  for (int attempt = 0; attempt < 20 && (attempt == 0 || want->empty()); ++attempt) {
    // Up to 13 tables: past 10, enumeration orders greedily over the classes.
    const int n = 3 + static_cast<int>(rng() % 11);
    std::vector<std::shared_ptr<TableSource>> tables;
    for (int i = 0; i < n; ++i) {
      const int rows = 3 + static_cast<int>(rng() % (n > 7 ? 5 : 25));
      tables.push_back(MemoryTable("t" + std::to_string(i),
                                   RandomRows(2, rows, static_cast<uint32_t>(rng()), 4, 0.05), 2));
    }
    // A spanning chain keeps the result small; extra equalities and a comparison on top.
    std::vector<ExprPtr> conjuncts;
    for (int i = 1; i < n; ++i) {
      const int from = static_cast<int>(rng() % static_cast<uint32_t>(i));
      conjuncts.push_back(
          Eq(2 * from + static_cast<int>(rng() % 2), 2 * i + static_cast<int>(rng() % 2)));
    }
    for (int extra = static_cast<int>(rng() % 3); extra > 0; --extra) {
      const int a = static_cast<int>(rng() % static_cast<uint32_t>(2 * n));
      const int b = static_cast<int>(rng() % static_cast<uint32_t>(2 * n));
      if (a / 2 != b / 2) conjuncts.push_back(Eq(a, b));
    }
    if (rng() % 2) conjuncts.push_back(Cmp("lt", Col(0), Col(2 * n - 1)));
    // The query as an optimizer gets it: a cross product under the WHERE clause.
    PlanPtr cross = ScanAll(tables[0]);
    for (int i = 1; i < n; ++i) {
      cross = MakeJoin(cross, ScanAll(tables[i]), JoinType::kInner, {}, {}, nullptr);
    }
    ExprPtr where;
    for (const auto& c : conjuncts) where = where ? And(where, c) : c;
    plan = MakeFilter(cross, where);
    // The oracle, run without the optimizer: the tables joined in the order written, each join
    // testing (nested loops) the conjuncts its columns complete, so no step is a whole cross
    // product.
    PlanPtr written = ScanAll(tables[0]);
    for (int i = 1; i < n; ++i) {
      ExprPtr cond;
      for (const auto& c : conjuncts) {
        const auto cols = plan::ColumnsOf(*c);
        const int last = *std::max_element(cols.begin(), cols.end());
        if (last / 2 == i) cond = cond ? And(cond, c) : c;
      }
      written = MakeJoin(written, ScanAll(tables[i]), JoinType::kInner, {}, {}, cond);
    }
    want = RunSorted(written);
    ASSERT_TRUE(want.ok()) << want.status().ToString();
  }
  for (bool enumerate : {false, true}) {
    PlanPtr opt;
    auto got = OptimizedRows(plan, enumerate, &opt);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(*got, *want) << (enumerate ? "dp" : "greedy") << "\n" << PlanToString(*opt);
    EXPECT_EQ(CountNodes(*opt, IsCrossJoin), 0) << PlanToString(*opt);
  }
}

INSTANTIATE_TEST_SUITE_P(Seeds, JoinOrderRandom, ::testing::Range(1u, 41u));

// A leaf of the given estimate: one integer column per key, each with its distinct values and
// the span of its values.
plan::JoinTree Leaf(const std::string& name, double rows,
                    std::vector<std::pair<double, double>> keys, int leaf, int first_col) {
  plan::JoinTree t;
  t.plan = ScanAll(MemoryTable(name, RandomRows(static_cast<int>(keys.size()), 1, leaf, 1, 0),
                               static_cast<int>(keys.size())));
  t.est.rows = rows;
  for (size_t i = 0; i < keys.size(); ++i) {
    plan::ColumnEstimate c;
    c.ndv = keys[i].first;
    c.has_bounds = true;
    c.max = keys[i].second - 1;
    t.est.columns.push_back(c);
    t.cols.push_back(first_col + static_cast<int>(i));
  }
  t.mask = uint64_t{1} << leaf;
  return t;
}

TEST(JoinOrder, EnumerationProbesTheLargeInputAgainstTheTableThatStaysInCache) {
  // fact (1e8 rows) joins `small` (1e4 rows, keys within 1e5: a bitmap of 12 KiB) on its first
  // column and `wide` (9e6 rows, keys spread over 1e9: 125 MB) on its second. By output rows and
  // hash tables alone joining `wide` first is cheaper (it keeps fewer rows); a probe of 1e8 rows
  // missing the caches makes `small` first cheaper (TPC-H Q07's suppliers before orders).
  std::vector<plan::JoinTree> leaves = {Leaf("fact", 1e8, {{1e5, 1e5}, {1e8, 1e9}}, 0, 0),
                                        Leaf("small", 1e4, {{1e4, 1e5}}, 1, 2),
                                        Leaf("wide", 9e6, {{9e6, 1e9}}, 2, 3)};
  plan::JoinGraph graph =
      BuildJoinGraph({Eq(0, 2), Eq(1, 3)}, {0, 2, 3}, {2, 1, 1}, /*use_classes=*/true);
  plan::JoinTree best;
  ASSERT_TRUE(plan::EnumerateJoins(leaves, graph, /*by_bytes=*/false, &best));
  ASSERT_EQ(best.plan->kind, PlanKind::kJoin);
  // The top join's build side is `wide`: fact met `small` below it.
  ASSERT_EQ(best.plan->children.size(), 2u);
  const std::set<const TableSource*> wide = ScannedSources(*best.plan->children[1]);
  EXPECT_EQ(wide, ScannedSources(*leaves[2].plan)) << PlanToString(*best.plan);
}

// Q05's shape: a large fact (t0) joined with a mid-size table (t1) on one key, t1 and a small
// table (t2) both joined with a tiny filtered one (t3) through t2's column only. Enumeration,
// through the class {t1.c1, t2.c1, t3.c0}, joins t1 with t3 directly.
TEST(JoinOrder, EnumerationJoinsThroughATransitiveEquality) {
  auto big = MemoryTable("fact", RandomRows(2, 400, 7, 50, 0), 2);
  auto mid = MemoryTable("mid", RandomRows(2, 50, 8, 5, 0), 2);
  auto small = MemoryTable("small", RandomRows(2, 2000, 9, 5, 0), 2);
  auto tiny = MemoryTable("tiny", RandomRows(2, 5, 10, 5, 0), 2);
  PlanPtr cross = MakeJoin(ScanAll(big), ScanAll(mid), JoinType::kInner, {}, {}, nullptr);
  cross = MakeJoin(cross, ScanAll(small), JoinType::kInner, {}, {}, nullptr);
  cross = MakeJoin(cross, ScanAll(tiny), JoinType::kInner, {}, {}, nullptr);
  // fact.c0 = mid.c0, mid.c1 = small.c1, small.c1 = tiny.c0, tiny.c1 < 2
  auto plan =
      MakeFilter(cross, And(And(Eq(0, 2), Eq(3, 5)), And(Eq(5, 6), Cmp("lt", Col(7), Lit(2)))));
  // The oracle: joined in the order written, each join testing what it completes.
  PlanPtr written = MakeJoin(ScanAll(big), ScanAll(mid), JoinType::kInner, {}, {}, Eq(0, 2));
  written = MakeJoin(written, ScanAll(small), JoinType::kInner, {}, {}, Eq(3, 5));
  written = MakeJoin(written, ScanAll(tiny), JoinType::kInner, {}, {},
                     And(Eq(5, 6), Cmp("lt", Col(7), Lit(2))));
  auto want = RunSorted(written);
  ASSERT_TRUE(want.ok());
  PlanPtr opt;
  auto got = OptimizedRows(plan, true, &opt);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(*got, *want);
  // Some join has exactly mid and tiny below it.
  const std::set<const TableSource*> both = {mid.get(), tiny.get()};
  const int direct = CountNodes(*opt, [&](const PlanNode& n) {
    return n.kind == PlanKind::kJoin && ScannedSources(n) == both;
  });
  EXPECT_EQ(direct, 1) << PlanToString(*opt);
}

}  // namespace
}  // namespace tandem
