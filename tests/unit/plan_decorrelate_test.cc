// Decorrelation: subqueries become semi/anti/mark/left/inner joins, and the optimized plans give
// the answers of SQL's definition (three-valued IN included), computed here by nested loops over
// the same random rows.
#include <gtest/gtest.h>

#include <optional>

#include "plan_test_util.h"
#include "tandem/plan/optimizer.h"
#include "tandem/plan/rewrite_util.h"

namespace tandem {
namespace {

using namespace plantest;

bool PlanHasSubquery(const PlanNode& n) {
  for (const auto& e : plan::NodeExpressions(n)) {
    if (HasSubqueryExpr(*e)) return true;
  }
  for (const auto& c : n.children) {
    if (PlanHasSubquery(*c)) return true;
  }
  return false;
}

bool Eq(const Cell& x, const Cell& y) { return x && y && *x == *y; }

struct Fixture {
  Rows r1, r2;
  std::shared_ptr<TableSource> t1, t2;
  explicit Fixture(uint32_t seed) {
    r1 = RandomRows(2, 60, seed, 10, 0.1);
    r2 = RandomRows(2, 50, seed + 1000, 10, 0.15);
    t1 = MemoryTable("t1", r1, 2);
    t2 = MemoryTable("t2", r2, 2);
  }
  std::string Row(const std::vector<Cell>& r) const {
    return CellText(r[0]) + "|" + CellText(r[1]);
  }
};

// Optimizes, checks the plan has no subquery left, runs it.
std::vector<std::string> OptimizeAndRun(const PlanPtr& p, int* joins_of_kind = nullptr,
                                        JoinType kind = JoinType::kSemi) {
  auto opt = Optimize(p);
  EXPECT_TRUE(opt.ok()) << opt.status().ToString();
  if (!opt.ok()) return {};
  EXPECT_FALSE(PlanHasSubquery(**opt)) << PlanToString(**opt);
  if (joins_of_kind) {
    *joins_of_kind = CountNodes(**opt, [kind](const PlanNode& n) {
      return n.kind == PlanKind::kJoin && n.join_type == kind;
    });
  }
  auto rows = RunSorted(*opt);
  EXPECT_TRUE(rows.ok()) << rows.status().ToString() << "\n" << PlanToString(**opt);
  return rows.ok() ? *rows : std::vector<std::string>{};
}

class PlanDecorrelate : public ::testing::TestWithParam<uint32_t> {};

TEST_P(PlanDecorrelate, ExistsWithNonEqualityCorrelationBecomesSemiJoin) {
  for (bool negated : {false, true}) {
    Fixture f(GetParam());
    // t1 WHERE [NOT] EXISTS (SELECT * FROM t2 WHERE c = t1.a AND d <> t1.b)
    auto sub =
        MakeFilter(ScanAll(f.t2), And(Cmp("eq", Col(0), Outer(0)), Cmp("ne", Col(1), Outer(1))));
    auto plan = MakeFilter(ScanAll(f.t1), Subquery(SubqueryKind::kExists, sub, negated));
    std::vector<std::string> expected;
    for (const auto& a : f.r1) {
      bool found = false;
      for (const auto& b : f.r2)
        found = found || (Eq(b[0], a[0]) && a[1] && b[1] && *a[1] != *b[1]);
      if (found != negated) expected.push_back(f.Row(a));
    }
    int joins = 0;
    EXPECT_EQ(OptimizeAndRun(plan, &joins, negated ? JoinType::kAnti : JoinType::kSemi),
              Sorted(expected));
    EXPECT_EQ(joins, 1);
  }
}

TEST_P(PlanDecorrelate, InAndNullAwareNotIn) {
  for (bool negated : {false, true}) {
    Fixture f(GetParam());
    // t1 WHERE a [NOT] IN (SELECT d FROM t2 WHERE c > 3)
    auto sub = MakeProject(MakeFilter(ScanAll(f.t2), Cmp("gt", Col(0), Lit(3))), {Col(1)}, {"d"});
    auto plan = MakeFilter(ScanAll(f.t1), Subquery(SubqueryKind::kIn, sub, negated, Col(0)));
    std::vector<std::string> expected;
    for (const auto& a : f.r1) {
      bool any = false, match = false, null_in_set = false;
      for (const auto& b : f.r2) {
        if (!(b[0] && *b[0] > 3)) continue;
        any = true;
        null_in_set = null_in_set || !b[1];
        match = match || Eq(a[0], b[1]);
      }
      // SQL: IN is TRUE on a match; NOT IN is TRUE only when the set is empty or holds neither
      // the value nor NULL (and the value is not NULL).
      const bool keep = negated ? (!any || (a[0] && !match && !null_in_set)) : match;
      if (keep) expected.push_back(f.Row(a));
    }
    EXPECT_EQ(OptimizeAndRun(plan), Sorted(expected)) << "negated=" << negated;
  }
}

TEST_P(PlanDecorrelate, CorrelatedIn) {
  Fixture f(GetParam());
  // t1 WHERE a IN (SELECT d FROM t2 WHERE c = t1.b)
  auto sub = MakeProject(MakeFilter(ScanAll(f.t2), Cmp("eq", Col(0), Outer(1))), {Col(1)}, {"d"});
  auto plan = MakeFilter(ScanAll(f.t1), Subquery(SubqueryKind::kIn, sub, false, Col(0)));
  std::vector<std::string> expected;
  for (const auto& a : f.r1) {
    bool match = false;
    for (const auto& b : f.r2) match = match || (Eq(b[0], a[1]) && Eq(a[0], b[1]));
    if (match) expected.push_back(f.Row(a));
  }
  EXPECT_EQ(OptimizeAndRun(plan), Sorted(expected));
}

TEST_P(PlanDecorrelate, CorrelatedCountInSelectListIsZeroForEmptyGroups) {
  Fixture f(GetParam());
  // SELECT a, (SELECT count(*) + 1 FROM t2 WHERE c = t1.a) FROM t1
  auto agg = MakeAggregate(MakeFilter(ScanAll(f.t2), Cmp("eq", Col(0), Outer(0))), {}, {},
                           {Agg(AggregateKind::kCountStar, nullptr, "n")});
  auto sub = MakeProject(agg, {Add(MakeColumnRef(0, DataType::Int64(), false), Lit(1))}, {"n1"});
  auto plan =
      MakeProject(ScanAll(f.t1), {Col(0), Subquery(SubqueryKind::kScalar, sub)}, {"a", "n"});
  std::vector<std::string> expected;
  for (const auto& a : f.r1) {
    int64_t n = 0;
    for (const auto& b : f.r2) n += Eq(b[0], a[0]) ? 1 : 0;
    expected.push_back(CellText(a[0]) + "|" + std::to_string(n + 1));
  }
  EXPECT_EQ(OptimizeAndRun(plan), Sorted(expected));
}

TEST_P(PlanDecorrelate, CorrelatedSumComparison) {
  Fixture f(GetParam());
  // t1 WHERE b < (SELECT sum(d) FROM t2 WHERE c = t1.a)
  auto agg = MakeAggregate(MakeFilter(ScanAll(f.t2), Cmp("eq", Col(0), Outer(0))), {}, {},
                           {Agg(AggregateKind::kSum, Col(1), "s")});
  auto plan = MakeFilter(ScanAll(f.t1), Cmp("lt", Col(1), Subquery(SubqueryKind::kScalar, agg)));
  std::vector<std::string> expected;
  for (const auto& a : f.r1) {
    Cell s;
    for (const auto& b : f.r2) {
      if (Eq(b[0], a[0]) && b[1]) s = s.value_or(0) + *b[1];
    }
    if (a[1] && s && *a[1] < *s) expected.push_back(f.Row(a));
  }
  EXPECT_EQ(OptimizeAndRun(plan), Sorted(expected));
}

TEST_P(PlanDecorrelate, UncorrelatedScalarUnderOr) {
  Fixture f(GetParam());
  // t1 WHERE a = 1 OR b > (SELECT max(c) - 5 FROM t2)
  auto agg = MakeAggregate(ScanAll(f.t2), {}, {}, {Agg(AggregateKind::kMax, Col(0), "m")});
  auto sub =
      MakeProject(agg, {MakeCall("subtract", {Col(0), Lit(5)}, DataType::Int64(), true)}, {"m5"});
  auto plan = MakeFilter(
      ScanAll(f.t1),
      Or(Cmp("eq", Col(0), Lit(1)), Cmp("gt", Col(1), Subquery(SubqueryKind::kScalar, sub))));
  Cell m;
  for (const auto& b : f.r2) {
    if (b[0]) m = std::max(m.value_or(*b[0]), *b[0]);
  }
  std::vector<std::string> expected;
  for (const auto& a : f.r1) {
    const bool keep = Eq(a[0], Cell(1)) || (a[1] && m && *a[1] > *m - 5);
    if (keep) expected.push_back(f.Row(a));
  }
  EXPECT_EQ(OptimizeAndRun(plan), Sorted(expected));
}

INSTANTIATE_TEST_SUITE_P(Seeds, PlanDecorrelate, ::testing::Values(1u, 2u, 3u, 4u, 5u));

// Three-valued results of the oracle.
using Tri = std::optional<bool>;
std::string TriText(Tri t) { return t ? (*t ? "TRUE" : "FALSE") : "NULL"; }
Tri Not(Tri t) { return t ? Tri(!*t) : Tri(); }

// SQL's x IN (set): TRUE on an equal value, else NULL when x or some member is NULL (and the
// set is not empty), else FALSE.
Tri InSet(const Cell& x, const std::vector<Cell>& set) {
  bool unknown = false;
  for (const auto& v : set) {
    if (!x || !v) {
      unknown = true;
    } else if (*x == *v) {
      return true;
    }
  }
  return unknown ? Tri() : Tri(false);
}

TEST_P(PlanDecorrelate, InAndNotInInSelectListBecomeMarkJoins) {
  for (bool negated : {false, true}) {
    Fixture f(GetParam());
    // SELECT a, a [NOT] IN (SELECT d FROM t2 WHERE c > 3) FROM t1
    auto sub = MakeProject(MakeFilter(ScanAll(f.t2), Cmp("gt", Col(0), Lit(3))), {Col(1)}, {"d"});
    auto plan = MakeProject(
        ScanAll(f.t1), {Col(0), Subquery(SubqueryKind::kIn, sub, negated, Col(0))}, {"a", "m"});
    std::vector<Cell> set;
    for (const auto& b : f.r2) {
      if (b[0] && *b[0] > 3) set.push_back(b[1]);
    }
    std::vector<std::string> expected;
    for (const auto& a : f.r1) {
      const Tri in = InSet(a[0], set);
      expected.push_back(CellText(a[0]) + "|" + TriText(negated ? Not(in) : in));
    }
    int marks = 0;
    EXPECT_EQ(OptimizeAndRun(plan, &marks, JoinType::kMark), Sorted(expected));
    EXPECT_EQ(marks, 1);
  }
}

TEST_P(PlanDecorrelate, CorrelatedInInSelectListAndCorrelatedNotInInWhere) {
  Fixture f(GetParam());
  // the set of t1 row a: SELECT d FROM t2 WHERE c = t1.b (a NULL t1.b selects nothing)
  auto set_of = [&](const std::vector<Cell>& a) {
    std::vector<Cell> set;
    for (const auto& b : f.r2) {
      if (Eq(b[0], a[1])) set.push_back(b[1]);
    }
    return set;
  };
  auto sub = [&] {
    return MakeProject(MakeFilter(ScanAll(f.t2), Cmp("eq", Col(0), Outer(1))), {Col(1)}, {"d"});
  };
  // SELECT a, b, a IN (...) FROM t1
  auto select = MakeProject(ScanAll(f.t1),
                            {Col(0), Col(1), Subquery(SubqueryKind::kIn, sub(), false, Col(0))},
                            {"a", "b", "m"});
  // t1 WHERE a NOT IN (...)
  auto where = MakeFilter(ScanAll(f.t1), Subquery(SubqueryKind::kIn, sub(), true, Col(0)));
  std::vector<std::string> expected_select, expected_where;
  for (const auto& a : f.r1) {
    const Tri in = InSet(a[0], set_of(a));
    expected_select.push_back(f.Row(a) + "|" + TriText(in));
    if (Not(in) == Tri(true)) expected_where.push_back(f.Row(a));
  }
  EXPECT_EQ(OptimizeAndRun(select), Sorted(expected_select));
  int marks = 0;
  EXPECT_EQ(OptimizeAndRun(where, &marks, JoinType::kMark), Sorted(expected_where));
  EXPECT_EQ(marks, 1);
}

TEST_P(PlanDecorrelate, ExistsUnderOrAndInsideCase) {
  Fixture f(GetParam());
  auto exists_sub = [&] {
    return MakeFilter(ScanAll(f.t2), And(Cmp("eq", Col(0), Outer(0)), Cmp("lt", Col(1), Outer(1))));
  };
  auto exists = [&](const std::vector<Cell>& a) {
    for (const auto& b : f.r2) {
      if (Eq(b[0], a[0]) && b[1] && a[1] && *b[1] < *a[1]) return true;
    }
    return false;
  };
  // t1 WHERE a = 1 OR NOT EXISTS (SELECT * FROM t2 WHERE c = t1.a AND d < t1.b)
  auto where =
      MakeFilter(ScanAll(f.t1),
                 Or(Cmp("eq", Col(0), Lit(1)),
                    plan::MakeBoolCall("not", {Subquery(SubqueryKind::kExists, exists_sub())})));
  // SELECT a, CASE WHEN EXISTS (...) THEN 1 ELSE 0 END FROM t1
  auto when = std::make_shared<Expr>();
  when->kind = ExprKind::kCase;
  when->type = DataType::Int64();
  when->has_else = true;
  when->args = {Subquery(SubqueryKind::kExists, exists_sub()), Lit(1), Lit(0)};
  auto select = MakeProject(ScanAll(f.t1), {Col(0), when}, {"a", "e"});
  std::vector<std::string> expected_where, expected_select;
  for (const auto& a : f.r1) {
    if (Eq(a[0], Cell(1)) || !exists(a)) expected_where.push_back(f.Row(a));
    expected_select.push_back(CellText(a[0]) + "|" + (exists(a) ? "1" : "0"));
  }
  EXPECT_EQ(OptimizeAndRun(where), Sorted(expected_where));
  EXPECT_EQ(OptimizeAndRun(select), Sorted(expected_select));
}

TEST_P(PlanDecorrelate, NonEqualityCorrelationBelowAggregate) {
  Fixture f(GetParam());
  // SELECT a, (SELECT sum(d) FROM t2 WHERE c < t1.a), (SELECT count(*) FROM t2 WHERE c < t1.a
  // OR t1.a IS NULL) FROM t1 -- the second one selects every row for a NULL t1.a.
  auto sum = MakeAggregate(MakeFilter(ScanAll(f.t2), Cmp("lt", Col(0), Outer(0))), {}, {},
                           {Agg(AggregateKind::kSum, Col(1), "s")});
  auto count_pred = Or(Cmp("lt", Col(0), Outer(0)), plan::MakeBoolCall("is_null", {Outer(0)}));
  auto count = MakeAggregate(MakeFilter(ScanAll(f.t2), count_pred), {}, {},
                             {Agg(AggregateKind::kCountStar, nullptr, "n")});
  auto plan = MakeProject(
      ScanAll(f.t1),
      {Col(0), Subquery(SubqueryKind::kScalar, sum), Subquery(SubqueryKind::kScalar, count)},
      {"a", "s", "n"});
  std::vector<std::string> expected;
  for (const auto& a : f.r1) {
    Cell s;
    int64_t n = 0;
    for (const auto& b : f.r2) {
      const bool lt = a[0] && b[0] && *b[0] < *a[0];
      if (lt && b[1]) s = s.value_or(0) + *b[1];
      n += (lt || !a[0]) ? 1 : 0;
    }
    expected.push_back(CellText(a[0]) + "|" + CellText(s) + "|" + std::to_string(n));
  }
  EXPECT_EQ(OptimizeAndRun(plan), Sorted(expected));
}

// t2 with unique c = 0..9 (so correlated scalar subqueries over it yield at most one row).
std::shared_ptr<TableSource> UniqueKeys(uint32_t seed, Rows* rows) {
  *rows = RandomRows(2, 10, seed, 10, 0.2);
  for (int i = 0; i < 10; ++i) (*rows)[i][0] = i;
  return MemoryTable("u", *rows, 2);
}

TEST_P(PlanDecorrelate, CorrelatedScalarWithoutAggregate) {
  Fixture f(GetParam());
  Rows ru;
  auto u = UniqueKeys(GetParam() + 77, &ru);
  // SELECT a, (SELECT d FROM u WHERE c = t1.a), (SELECT d FROM u WHERE c > t1.a AND c < t1.a + 2)
  auto eq_sub = MakeProject(MakeFilter(ScanAll(u), Cmp("eq", Col(0), Outer(0))), {Col(1)}, {"d"});
  auto range_sub = MakeProject(
      MakeFilter(ScanAll(u),
                 And(Cmp("gt", Col(0), Outer(0)), Cmp("lt", Col(0), Add(Outer(0), Lit(2))))),
      {Col(1)}, {"d"});
  auto plan = MakeProject(
      ScanAll(f.t1),
      {Col(0), Subquery(SubqueryKind::kScalar, eq_sub), Subquery(SubqueryKind::kScalar, range_sub)},
      {"a", "x", "y"});
  std::vector<std::string> expected;
  for (const auto& a : f.r1) {
    Cell x, y;
    for (const auto& b : ru) {
      if (Eq(b[0], a[0])) x = b[1];
      if (a[0] && *b[0] == *a[0] + 1) y = b[1];
    }
    expected.push_back(CellText(a[0]) + "|" + CellText(x) + "|" + CellText(y));
  }
  EXPECT_EQ(OptimizeAndRun(plan), Sorted(expected));
}

TEST(PlanDecorrelateErrors, ScalarSubqueryWithSeveralRowsFails) {
  Fixture f(7);
  // SELECT a, (SELECT d FROM t2 WHERE c < t1.a) FROM t1: several rows for most a.
  auto correlated =
      MakeProject(MakeFilter(ScanAll(f.t2), Cmp("lt", Col(0), Outer(0))), {Col(1)}, {"d"});
  auto uncorrelated = MakeProject(ScanAll(f.t2), {Col(1)}, {"d"});
  for (const auto& sub : {correlated, uncorrelated}) {
    auto plan =
        MakeProject(ScanAll(f.t1), {Col(0), Subquery(SubqueryKind::kScalar, sub)}, {"a", "d"});
    auto opt = Optimize(plan);
    ASSERT_TRUE(opt.ok()) << opt.status().ToString();
    auto rows = RunSorted(*opt);
    ASSERT_FALSE(rows.ok());
    EXPECT_NE(rows.status().message().find("scalar subquery returned more than one row"),
              std::string::npos)
        << rows.status().message();
  }
}

TEST(PlanDecorrelateErrors, ScalarSubqueryWithoutRowsIsNull) {
  Fixture f(8);
  auto sub = MakeProject(MakeFilter(ScanAll(f.t2), Cmp("gt", Col(0), Lit(100))), {Col(1)}, {"d"});
  auto plan =
      MakeProject(ScanAll(f.t1), {Col(0), Subquery(SubqueryKind::kScalar, sub)}, {"a", "d"});
  std::vector<std::string> expected;
  for (const auto& a : f.r1) expected.push_back(CellText(a[0]) + "|NULL");
  EXPECT_EQ(OptimizeAndRun(plan), Sorted(expected));
}

}  // namespace
}  // namespace tandem
