// PlanHashPartitions (exec/hash_partition_plan.h) against running the plan whole. What the
// analysis claims is checked by doing it on the CPU: the top's subtree runs once per partition
// with each split scan holding only the rows of that partition (their key hashed here, NULL keys
// in partition 0, as the GPU does with its own hash) and everything else whole; the union of
// those outputs (or, for an aggregation split in two, the merge of its partial rows) must be the
// top's output over the whole tables. Random int64 tables with NULL keys; INNER, LEFT, RIGHT,
// FULL, SEMI, ANTI (also null-aware) and MARK joins; aggregations by the key and by another
// column (COUNT DISTINCT of the key included); a dimension joined on another column; inputs from
// the host (HostToDevice transitions, run here as their CPU input); 1, 3, 4 and 7 partitions.
// Each case also states which top and scans it expects, so a too cautious analysis fails as
// surely as a wrong one.
#include "tandem/exec/hash_partition_plan.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "../plan_test_util.h"
#include "tandem/exec/split_aggregate.h"
#include "tandem/plan/fusion.h"

namespace tandem {
namespace {

using plantest::Agg;
using plantest::Col;
using plantest::MemoryTable;
using plantest::RandomRows;
using plantest::ScanAll;
using plantest::SortedRows;

uint64_t Mix(uint64_t x) {
  x ^= x >> 31;
  x *= 0x9e3779b97f4a7c15ULL;
  x ^= x >> 29;
  return x;
}

// The plan with every transition replaced by its input (no GPU here: the rows are the same).
PlanPtr WithoutTransitions(const PlanNode& n) {
  if (n.kind == PlanKind::kTransition) return WithoutTransitions(*n.children[0]);
  auto copy = std::make_shared<PlanNode>(n);
  for (auto& c : copy->children) c = WithoutTransitions(*c);
  return copy;
}

// The source's rows in partition `part` of `parts` by column `col`, as a scan of a memory table.
PlanPtr PartitionOf(const PlanNode& scan, int col, int parts, int part) {
  ExecContext ctx;
  Result<Table> whole = Execute(*WithoutTransitions(scan), ctx);
  EXPECT_TRUE(whole.ok()) << whole.status().ToString();
  auto out = std::make_shared<Table>();
  out->schema = scan.schema;
  for (const BatchPtr& b : whole->batches) {
    std::vector<int32_t> keep;
    for (int64_t r = 0; r < b->num_rows; ++r) {
      const Value v = GetValue(*b->column(col), r);
      const int p =
          v.is_null
              ? 0
              : static_cast<int>(Mix(static_cast<uint64_t>(v.i64)) % static_cast<uint64_t>(parts));
      if (p == part) keep.push_back(static_cast<int32_t>(r));
    }
    BatchPtr taken = TakeBatch(*b, keep.data(), static_cast<int64_t>(keep.size()));
    taken->schema = scan.schema;
    out->batches.push_back(taken);
  }
  return ScanAll(TableSource::Memory("part", out));
}

PlanPtr Substitute(const PlanNode& n, const std::map<const PlanNode*, PlanPtr>& with) {
  auto it = with.find(&n);
  if (it != with.end()) return it->second;
  auto copy = std::make_shared<PlanNode>(n);
  for (auto& c : copy->children) c = Substitute(*c, with);
  return copy;
}

Table RunPlan(const PlanNode& plan) {
  ExecContext ctx;
  Result<Table> t = Execute(*WithoutTransitions(plan), ctx);
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  return t.ok() ? *t : Table();
}

ExprPtr KeyOf(const PlanNode& agg, int child_key) {
  if (child_key < 0) return nullptr;
  const Field& f = agg.children[0]->schema.fields[child_key];
  return MakeColumnRef(child_key, f.type, f.nullable, f.name);
}

class HashPartitionPlanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    a_ = MemoryTable("a", RandomRows(2, 600, 1, 60, 0.1), 2);  // a_c0: key, a_c1: x
    b_ = MemoryTable("b", RandomRows(2, 500, 2, 60, 0.1), 2);  // b_c0: key, b_c1: y
    c_ = MemoryTable("c", RandomRows(2, 300, 3, 60, 0.2), 2);  // c_c0: key
    d_ = MemoryTable("d", RandomRows(2, 40, 4, 30, 0.1), 2);   // d_c0 joins a_c1
  }

  HashPartitionHooks Hooks() {
    HashPartitionHooks h;
    // As on the GPU: a transition is an input from elsewhere, not a node of the part.
    h.runs_here = [](const PlanNode& n) { return n.kind != PlanKind::kTransition; };
    h.can_split_scan = [this](const PlanNode& scan) { return !unsplittable_.count(&scan); };
    if (split_inputs_) {
      h.can_split_input = [](const PlanNode& t) { return t.device == Device::kGpu; };
    }
    h.can_split_aggregate = [](const PlanNode& agg, int child_key) {
      std::string why;
      return SplitForChunks(agg, &why, KeyOf(agg, child_key).get()).has_value();
    };
    return h;
  }

  // Checks the plan's claim for every partition count; returns it (for the expectations).
  std::optional<HashPartitionPlan> Check(const PlanPtr& root) {
    std::optional<HashPartitionPlan> plan = PlanHashPartitions(*root, Hooks());
    if (!plan) return plan;
    const PlanNode& top = *plan->top;
    const std::vector<std::string> whole = SortedRows(RunPlan(top));
    for (int parts : {1, 3, 4, 7}) {
      std::optional<SplitAggregate> split;
      if (plan->split_aggregate) {
        std::string why;
        split = SplitForChunks(top, &why, KeyOf(top, plan->child_key).get());
        EXPECT_TRUE(split) << why;
        if (!split) return plan;
      }
      const PlanNode& each = split ? *split->partial : top;
      auto pieces = std::make_shared<Table>();
      pieces->schema = each.schema;
      for (int p = 0; p < parts; ++p) {
        std::map<const PlanNode*, PlanPtr> with;
        for (const auto& [scan, col] : plan->split_scans) {
          with[scan] = PartitionOf(*scan, col, parts, p);
        }
        Table out = RunPlan(*Substitute(each, with));
        for (BatchPtr& b : out.batches) pieces->batches.push_back(b);
      }
      std::vector<std::string> got;
      if (split) {
        PlanPtr merge = std::make_shared<PlanNode>(*split->merge);
        merge->children = {ScanAll(TableSource::Memory("partials", pieces))};
        PlanPtr finish = std::make_shared<PlanNode>(*split->finish);
        finish->children = {merge};
        got = SortedRows(RunPlan(*finish));
      } else {
        got = SortedRows(*pieces);
      }
      EXPECT_EQ(got, whole) << parts << " partitions of\n" << PlanToString(*root);
    }
    return plan;
  }

  static std::set<std::string> ScanNames(const HashPartitionPlan& plan) {
    std::set<std::string> names;
    for (const auto& [scan, col] : plan.split_scans) {
      const PlanNode& source = scan->kind == PlanKind::kTransition ? *scan->children[0] : *scan;
      names.insert(std::string(scan->kind == PlanKind::kTransition ? "host:" : "") +
                   source.source->name + "." + scan->schema.fields[col].name);
    }
    return names;
  }

  static PlanPtr JoinOnKey(PlanPtr l, PlanPtr r, JoinType t, bool null_aware = false) {
    return MakeJoin(l, r, t, {Col(0)}, {Col(0)}, nullptr, null_aware);
  }

  std::shared_ptr<TableSource> a_, b_, c_, d_;
  std::set<const PlanNode*> unsplittable_;
  bool split_inputs_ = true;
};

TEST_F(HashPartitionPlanTest, JoinsOnTheKeyKeepEachMatchInOnePartition) {
  for (JoinType t : {JoinType::kInner, JoinType::kLeft, JoinType::kRight, JoinType::kFull,
                     JoinType::kSemi, JoinType::kAnti, JoinType::kMark}) {
    PlanPtr join = JoinOnKey(ScanAll(a_), ScanAll(b_), t);
    std::optional<HashPartitionPlan> plan = Check(join);
    ASSERT_TRUE(plan) << static_cast<int>(t);
    EXPECT_EQ(plan->top, join.get());
    EXPECT_EQ(ScanNames(*plan), (std::set<std::string>{"a.a_c0", "b.b_c0"}));
  }
}

TEST_F(HashPartitionPlanTest, NotInReadsTheWholeRightSide) {
  // A NULL key on the right makes every NOT IN unknown: the right side cannot be split.
  PlanPtr anti = JoinOnKey(ScanAll(a_), ScanAll(b_), JoinType::kAnti, /*null_aware=*/true);
  EXPECT_FALSE(PlanHashPartitions(*anti, Hooks()));
  PlanPtr agg = MakeAggregate(anti, {Col(0)}, {"k"}, {Agg(AggregateKind::kCountStar, {}, "n")});
  EXPECT_FALSE(PlanHashPartitions(*agg, Hooks()));
  // With the right side read whole by every partition, the left side splits.
  unsplittable_ = {anti->children[1].get()};
  std::optional<HashPartitionPlan> plan = Check(agg);
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->top, agg.get());
  EXPECT_EQ(ScanNames(*plan), std::set<std::string>{"a.a_c0"});
}

TEST_F(HashPartitionPlanTest, OneSideReplicated) {
  // b cannot be split (say, not cached): a alone is partitioned, b read whole by each partition.
  for (JoinType t : {JoinType::kInner, JoinType::kLeft, JoinType::kSemi, JoinType::kAnti,
                     JoinType::kMark, JoinType::kRight, JoinType::kFull}) {
    PlanPtr b = ScanAll(b_);
    unsplittable_ = {b.get()};
    PlanPtr join = JoinOnKey(ScanAll(a_), b, t);
    std::optional<HashPartitionPlan> plan = Check(join);
    const bool left_rows_disjoint = t != JoinType::kRight && t != JoinType::kFull;
    ASSERT_EQ(plan.has_value(), left_rows_disjoint) << static_cast<int>(t);
    if (plan) EXPECT_EQ(ScanNames(*plan), std::set<std::string>{"a.a_c0"});
  }
  // The split side on the right: only INNER and RIGHT keep each output row in one partition.
  for (JoinType t : {JoinType::kInner, JoinType::kRight, JoinType::kLeft, JoinType::kSemi}) {
    PlanPtr a = ScanAll(a_);
    unsplittable_ = {a.get()};
    PlanPtr join = JoinOnKey(a, ScanAll(b_), t);
    std::optional<HashPartitionPlan> plan = Check(join);
    ASSERT_EQ(plan.has_value(), t == JoinType::kInner || t == JoinType::kRight)
        << static_cast<int>(t);
  }
}

TEST_F(HashPartitionPlanTest, QueryEighteenShape) {
  // SELECT a.k, a.x, sum(b.y) FROM a JOIN b ON a.k = b.k
  // WHERE a.k IN (SELECT c.k FROM c GROUP BY c.k HAVING count(*) > 5) GROUP BY a.k, a.x
  // ORDER BY 3 LIMIT 10: every operator but the sort and limit is partitioned.
  PlanPtr groups =
      MakeAggregate(ScanAll(c_), {Col(0)}, {"k"}, {Agg(AggregateKind::kCountStar, {}, "n")});
  PlanPtr having = MakeFilter(groups, plantest::Cmp("gt", Col(1), plantest::Lit(5)));
  PlanPtr semi = JoinOnKey(ScanAll(a_), having, JoinType::kSemi);
  PlanPtr join = JoinOnKey(semi, ScanAll(b_), JoinType::kInner);
  PlanPtr agg =
      MakeAggregate(join, {Col(0), Col(1)}, {"k", "x"}, {Agg(AggregateKind::kSum, Col(3), "s")});
  PlanPtr top = MakeLimit(MakeSort(agg, {{Col(2), false, true}}), 10, 0);
  std::optional<HashPartitionPlan> plan = Check(top);
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->top, agg.get());
  EXPECT_FALSE(plan->split_aggregate);
  EXPECT_EQ(ScanNames(*plan), (std::set<std::string>{"a.a_c0", "b.b_c0", "c.c_c0"}));
  EXPECT_TRUE(plan->replicated.empty());
}

TEST_F(HashPartitionPlanTest, AggregationByAnotherColumnIsSplitInTwo) {
  // Query 21's shape: a count by a dimension's column over joins on the key.
  PlanPtr dim = ScanAll(d_);
  PlanPtr ab = JoinOnKey(ScanAll(a_), ScanAll(b_), JoinType::kSemi);
  PlanPtr with_dim = MakeJoin(ab, dim, JoinType::kInner, {Col(1)}, {Col(0)}, nullptr);
  PlanPtr anti = JoinOnKey(with_dim, ScanAll(c_), JoinType::kAnti);
  AggregateCall distinct_keys = Agg(AggregateKind::kCount, Col(0), "keys");
  distinct_keys.distinct = true;
  PlanPtr agg = MakeAggregate(anti, {Col(3)}, {"w"},
                              {Agg(AggregateKind::kCountStar, {}, "n"), distinct_keys});
  std::optional<HashPartitionPlan> plan = Check(MakeSort(agg, {{Col(1), false, true}}));
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->top, agg.get());
  EXPECT_TRUE(plan->split_aggregate);
  EXPECT_EQ(plan->child_key, 0);
  EXPECT_EQ(plan->replicated, std::vector<const PlanNode*>{dim.get()});
  EXPECT_EQ(ScanNames(*plan), (std::set<std::string>{"a.a_c0", "b.b_c0", "c.c_c0"}));
}

TEST_F(HashPartitionPlanTest, BothKeyColumnsOfAnInnerJoinCarryTheKey) {
  // Query 21: the join's right side's key column is the one kept above it.
  PlanPtr ab = JoinOnKey(ScanAll(a_), ScanAll(b_), JoinType::kInner);
  PlanPtr right_key = MakeProject(ab, {Col(2), Col(1)}, {"k", "x"});
  PlanPtr semi = JoinOnKey(right_key, ScanAll(c_), JoinType::kSemi);
  std::optional<HashPartitionPlan> plan = Check(semi);
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->top, semi.get());
  EXPECT_EQ(ScanNames(*plan), (std::set<std::string>{"a.a_c0", "b.b_c0", "c.c_c0"}));
  // Not after a LEFT join: its right key is NULL where nothing matched.
  PlanPtr left = JoinOnKey(ScanAll(a_), ScanAll(b_), JoinType::kLeft);
  PlanPtr left_key = MakeProject(left, {Col(2), Col(1)}, {"k", "x"});
  PlanPtr agg = MakeAggregate(left_key, {Col(0)}, {"k"}, {Agg(AggregateKind::kCountStar, {}, "n")});
  plan = Check(agg);
  ASSERT_TRUE(plan);
  EXPECT_TRUE(plan->split_aggregate);
}

TEST_F(HashPartitionPlanTest, AJoinOffTheKeyStopsThePartitioning) {
  // a and b joined on the key, then c joined on a.x = c.key: c's matches may be in any
  // partition of a's key, so c is not split by a's key and the join on x reads it whole.
  PlanPtr ab = JoinOnKey(ScanAll(a_), ScanAll(b_), JoinType::kInner);
  PlanPtr abc = MakeJoin(ab, ScanAll(c_), JoinType::kInner, {Col(1)}, {Col(0)}, nullptr);
  std::optional<HashPartitionPlan> plan = Check(abc);
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->top, abc.get());
  EXPECT_EQ(ScanNames(*plan).size(), 2u);
  // An aggregation by x over the keyed join cannot be partitioned, nor split when it counts
  // distinct values of another column: the join below it is the top.
  AggregateCall distinct_y = Agg(AggregateKind::kCount, Col(3), "ys");
  distinct_y.distinct = true;
  PlanPtr agg = MakeAggregate(ab, {Col(1)}, {"x"}, {distinct_y});
  plan = Check(agg);
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->top, ab.get());
}

TEST_F(HashPartitionPlanTest, AFilterFusedIntoAnAggregationIsNotTheTop) {
  // count(DISTINCT x) over filtered rows of a LEFT join on the key: the aggregation does not
  // split, and the Filter runs inside it (plan/fusion.h), so the join is the top.
  PlanPtr join = JoinOnKey(ScanAll(a_), ScanAll(b_), JoinType::kLeft);
  PlanPtr filter = MakeFilter(join, plantest::Cmp("gt", Col(3), plantest::Lit(10)));
  AggregateCall distinct_x = Agg(AggregateKind::kCount, Col(1), "xs");
  distinct_x.distinct = true;
  PlanPtr agg = MakeAggregate(filter, {}, {}, {distinct_x});
  ASSERT_TRUE(plan::IsFilteredAggregate(*agg));
  std::optional<HashPartitionPlan> plan = Check(agg);
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->top, join.get());
}

TEST_F(HashPartitionPlanTest, WindowsPartitionedByTheKey) {
  // count(*) OVER (PARTITION BY key) over a join on the key runs per partition; one also
  // partitioned by x alone does not (its partitions span the key's), so the join is the top.
  PlanPtr ab = JoinOnKey(ScanAll(a_), ScanAll(b_), JoinType::kInner);
  auto count_by = [](ExprPtr by) {
    WindowCall w;
    w.kind = WindowFunctionKind::kAggregate;
    w.aggregate = AggregateKind::kCountStar;
    w.partition_by = {std::move(by)};
    w.type = DataType::Int64();
    w.nullable = false;
    w.name = "n";
    return w;
  };
  PlanPtr by_key = MakeWindow(ab, {count_by(Col(2))});
  std::optional<HashPartitionPlan> plan = Check(by_key);
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->top, by_key.get());
  PlanPtr by_x = MakeWindow(ab, {count_by(Col(1))});
  plan = Check(by_x);
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->top, ab.get());
}

TEST_F(HashPartitionPlanTest, AnInputFromTheHostIsSplitBesideACachedScan) {
  // TPC-H Q13's shape with customer in host memory: SELECT a.k, count(b.y) FROM (a from the host)
  // LEFT JOIN b ON a.k = b.k GROUP BY a.k. Left replicated and right split would repeat a's
  // unmatched rows in every partition; with a's rows cut by the key too, each partition holds
  // its own.
  auto query = [&] {
    PlanPtr from_host = MakeTransition(ScanAll(a_), Device::kGpu);
    PlanPtr join = JoinOnKey(from_host, ScanAll(b_), JoinType::kLeft);
    return MakeAggregate(join, {Col(0)}, {"k"}, {Agg(AggregateKind::kCount, Col(3), "n")});
  };
  PlanPtr agg = query();
  std::optional<HashPartitionPlan> plan = Check(agg);
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->top, agg.get());
  EXPECT_EQ(ScanNames(*plan), (std::set<std::string>{"host:a.a_c0", "b.b_c0"}));
  EXPECT_TRUE(plan->replicated.empty());
  // Where inputs from the host cannot be split (the hook unset), nothing splits.
  split_inputs_ = false;
  EXPECT_FALSE(PlanHashPartitions(*query(), Hooks()));
}

TEST_F(HashPartitionPlanTest, InputsFromTheHostAloneAreNotSplit) {
  // Without a cached scan to split, slices serve such a part: no partitions.
  PlanPtr join = JoinOnKey(MakeTransition(ScanAll(a_), Device::kGpu),
                           MakeTransition(ScanAll(b_), Device::kGpu), JoinType::kInner);
  EXPECT_FALSE(PlanHashPartitions(*join, Hooks()));
  // Beside a split scan an input from the host joined on the key splits; one joined on another
  // column stays whole (read by every partition).
  PlanPtr with_c = JoinOnKey(join, ScanAll(c_), JoinType::kInner);
  PlanPtr dim = MakeTransition(ScanAll(d_), Device::kGpu);
  PlanPtr with_dim = MakeJoin(with_c, dim, JoinType::kInner, {Col(1)}, {Col(0)}, nullptr);
  std::optional<HashPartitionPlan> plan = Check(with_dim);
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->top, with_dim.get());
  EXPECT_EQ(ScanNames(*plan), (std::set<std::string>{"host:a.a_c0", "host:b.b_c0", "c.c_c0"}));
  ASSERT_EQ(plan->replicated.size(), 1u);
  EXPECT_EQ(plan->replicated[0], dim.get());
}

TEST_F(HashPartitionPlanTest, SplittingInputsFromTheHostDoesNotLoseTheLargerClass) {
  // a JOIN b on the key (the large cached tables) JOIN (c from the host RIGHT JOIN d) on c's key,
  // then JOIN a second b on a's other column. Splitting c would put its split rows on the left
  // of a RIGHT join with d, which d cannot be split to match: that class is invalid with c
  // split, valid with c replicated. The plan with inputs split finds only the small class (a's
  // other column); the one without keeps the large.
  PlanPtr a = ScanAll(a_), b = ScanAll(b_), d = ScanAll(d_), b2 = ScanAll(b_);
  a->placement.est_bytes = 100;
  b->placement.est_bytes = 100;
  b2->placement.est_bytes = 1;
  unsplittable_ = {d.get()};
  PlanPtr ab = JoinOnKey(a, b, JoinType::kInner);
  PlanPtr cd = JoinOnKey(MakeTransition(ScanAll(c_), Device::kGpu), d, JoinType::kRight);
  PlanPtr with_cd = JoinOnKey(cd, ab, JoinType::kInner);
  // with_cd: c_c0 c_c1 d_c0 d_c1 a_c0 a_c1 b_c0 b_c1; a_c1 is column 5.
  PlanPtr top = MakeJoin(with_cd, b2, JoinType::kInner, {Col(5)}, {Col(0)}, nullptr);
  std::optional<HashPartitionPlan> plan = Check(top);
  ASSERT_TRUE(plan);
  EXPECT_EQ(ScanNames(*plan), (std::set<std::string>{"a.a_c0", "b.b_c0"}));
}

TEST_F(HashPartitionPlanTest, ALargeInputFromTheHostOutweighsMoreCachedBytes) {
  // TPC-H Q18's shape with lineitem in host memory: (a from the host) JOIN b on the key, JOIN c
  // on b's other column. Cutting a and b by the key splits 1000 + 100 bytes; cutting b and c
  // by b's other column splits more of the cached tables (200) but leaves a's 1000 whole in
  // every partition. The first wins.
  PlanPtr from_host = MakeTransition(ScanAll(a_), Device::kGpu);
  from_host->placement.est_bytes = 1000;
  PlanPtr b = ScanAll(b_), c = ScanAll(c_);
  b->placement.est_bytes = 100;
  c->placement.est_bytes = 100;
  PlanPtr ab = JoinOnKey(from_host, b, JoinType::kInner);
  // ab: a_c0 a_c1 b_c0 b_c1; b_c1 is column 3.
  PlanPtr top = MakeJoin(ab, c, JoinType::kInner, {Col(3)}, {Col(0)}, nullptr);
  std::optional<HashPartitionPlan> plan = Check(top);
  ASSERT_TRUE(plan);
  EXPECT_EQ(ScanNames(*plan), (std::set<std::string>{"host:a.a_c0", "b.b_c0"}));
}

TEST_F(HashPartitionPlanTest, NoEquiJoinNoPartitions) {
  PlanPtr agg =
      MakeAggregate(ScanAll(a_), {Col(0)}, {"k"}, {Agg(AggregateKind::kCountStar, {}, "n")});
  EXPECT_FALSE(PlanHashPartitions(*agg, Hooks()));
}

}  // namespace
}  // namespace tandem
