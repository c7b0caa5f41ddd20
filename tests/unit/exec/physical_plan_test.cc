// The physical plan (exec/physical_plan.h) through a session over TPC-H tables in memory: EXPLAIN
// names each node's operator and pipeline before the run, and EXPLAIN ANALYZE of the same query
// ran every node as planned (no "planned as", nothing outside the plan). The Parquet side, node
// by node, is tests/python/test_physical_plan.py.
#include <gtest/gtest.h>

#include <string>

#include "../plan_test_util.h"
#include "../tpch_test_util.h"
#include "tandem/exec/executor.h"

namespace tandem {
namespace {

std::string Lines(const Table& t) {
  std::string out;
  for (const auto& b : t.batches) {
    for (int64_t r = 0; r < b->num_rows; ++r) out += std::string(b->column(0)->GetString(r)) + "\n";
  }
  return out;
}

class PhysicalPlanText : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(test_util::RegisterTpchTables(&session_, 0.01).ok()); }

  std::string Explain(int q, bool analyze) {
    Result<sql::StatementResult> r =
        session_.ExplainQuery(test_util::TpchQueryText(q), analyze, /*json=*/false);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? Lines(r->table) : "";
  }

  sql::Session session_;
};

TEST_F(PhysicalPlanText, ExplainNamesFusedOperatorsAndPipelinesBeforeTheRun) {
  const std::string plan = Explain(3, false);
  EXPECT_NE(plan.find("[TopN (pipeline sink) on cpu, sink of pipeline 4]"), std::string::npos)
      << plan;
  EXPECT_NE(plan.find("[Sort (in TopN) on cpu, pipeline 4]"), std::string::npos) << plan;
  EXPECT_NE(plan.find("[HashAggregate (pipeline sink) on cpu, sink of pipeline 3]"),
            std::string::npos)
      << plan;
  EXPECT_NE(plan.find("[Filter (in HashJoin probe) on cpu, pipeline 2]"), std::string::npos)
      << plan;
  // A table in memory is cut into morsels: its scan is the pipeline's source.
  EXPECT_NE(plan.find("[Scan customer on cpu, source of pipeline 1]"), std::string::npos) << plan;
}

TEST_F(PhysicalPlanText, EveryTpchQueryRunsAsPlanned) {
  for (int q = 1; q <= 22; ++q) {
    if (q == 15) continue;  // a view first: several statements
    const std::string plan = Explain(q, false);
    EXPECT_NE(plan.find("pipeline 1"), std::string::npos) << "Q" << q << "\n" << plan;
    const std::string ran = Explain(q, true);
    EXPECT_EQ(ran.find("planned as"), std::string::npos) << "Q" << q << "\n" << ran;
    EXPECT_EQ(ran.find("not in the physical plan"), std::string::npos) << "Q" << q << "\n" << ran;
    EXPECT_NE(ran.find("pipeline 1"), std::string::npos) << "Q" << q << "\n" << ran;
  }
}

// A placed plan with a GPU part (built by hand: no GPU is needed to plan it): the part's
// operators, its transitions included, share one number, after the host input it uploads and
// before the CPU pipeline that reads its rows.
TEST(PhysicalPlanGpu, AGpuPartIsNumberedWithThePipelinesInRunOrder) {
  using plantest::Agg;
  using plantest::Cmp;
  using plantest::Col;
  using plantest::Lit;
  const auto t = plantest::MemoryTable("t", plantest::RandomRows(2, 100, 7, 10, 0.1), 2);
  PlanPtr scan = plantest::ScanAll(t);
  PlanPtr up = MakeTransition(scan, Device::kGpu);
  PlanPtr filter = MakeFilter(up, Cmp(">", Col(1), Lit(3)));
  PlanPtr agg = MakeAggregate(filter, {Col(0)}, {"k"}, {Agg(AggregateKind::kSum, Col(1), "s")});
  for (PlanNode* n : {filter.get(), agg.get()}) n->device = Device::kGpu;
  PlanPtr down = MakeTransition(agg, Device::kCpu);
  PlanPtr project = MakeProject(down, {Col(0), Col(1)}, {"k", "s"});
  PlanPtr top = MakeAggregate(project, {}, {}, {Agg(AggregateKind::kSum, Col(1), "total")});

  ExecContext ctx;
  const PhysicalPlan plan = PlanPhysical(*top, ctx);
  auto op = [&](const PlanPtr& n) { return plan.at(n.get()); };
  EXPECT_EQ(op(scan).name, "Scan t");
  EXPECT_EQ(op(scan).pipeline, 0);  // read whole, then uploaded
  for (const PlanPtr& n : {up, filter, agg, down}) {
    EXPECT_TRUE(op(n).on_gpu);
    EXPECT_EQ(PipelineLabel(op(n)), "GPU part 1") << op(n).name;
  }
  EXPECT_EQ(op(filter).name, "Filter (fused into HashAggregate)");
  EXPECT_EQ(op(agg).name, "HashAggregate");
  EXPECT_EQ(op(up).name, "HostToDevice");
  EXPECT_EQ(op(down).name, "DeviceToHost");
  EXPECT_EQ(op(project).name, "Project (pipelined)");
  EXPECT_EQ(PipelineLabel(op(project)), "pipeline 2");
  EXPECT_EQ(PipelineLabel(op(top)), "sink of pipeline 2");
}

// A node the executor would refuse (an input missing) is planned as itself: nothing below it is
// read, so a malformed plan from a Spark fragment gets the executor's error, not a crash.
TEST(PhysicalPlanGpu, AMalformedNodeIsPlannedWithoutItsInputs) {
  auto sort = std::make_shared<PlanNode>();  // no input
  sort->kind = PlanKind::kSort;
  auto down = std::make_shared<PlanNode>();  // a transition from the GPU over a null input
  down->kind = PlanKind::kTransition;
  down->device = Device::kCpu;
  down->children = {nullptr};
  auto join = std::make_shared<PlanNode>();
  join->kind = PlanKind::kJoin;
  join->children = {sort, down};
  auto limit = std::make_shared<PlanNode>();
  limit->kind = PlanKind::kLimit;
  limit->limit = 3;
  limit->children = {join};
  ExecContext ctx;
  const PhysicalPlan plan = PlanPhysical(*limit, ctx);
  EXPECT_EQ(plan.at(sort.get()).name, "Sort");
  EXPECT_EQ(plan.at(down.get()).name, "DeviceToHost");
  Result<Table> run = Execute(*limit, ctx);
  EXPECT_FALSE(run.ok());
}

// Planning looks at the cached tables a plan reads without marking them used: EXPLAIN must not
// change which table moves to host memory first when the GPU fills.
TEST(PhysicalPlanGpu, PlanningLeavesTheCachedTablesLeastRecentlyUsedOrder) {
  const auto t = plantest::MemoryTable("t", plantest::RandomRows(2, 100, 7, 10, 0.1), 2);
  PlanPtr scan = plantest::ScanAll(t);
  PlanPtr top = MakeProject(scan, {plantest::Col(0)}, {"k"});
  TableCache cache;
  CachedTable cached;
  cached.name = "t";
  cached.source = scan->source;
  cached.host = t->memory;
  cache.Put(cached);
  const uint64_t before = cache.Peek(scan->source.get())->last_used;
  ExecContext ctx;
  ctx.table_cache = &cache;
  const PhysicalPlan plan = PlanPhysical(*top, ctx);
  EXPECT_EQ(plan.at(scan.get()).name, "Scan t (cached in host memory)");
  EXPECT_EQ(cache.Peek(scan->source.get())->last_used, before);
  ASSERT_TRUE(Execute(*top, ctx).ok());
  EXPECT_GT(cache.Peek(scan->source.get())->last_used, before);  // a run marks it used
}

}  // namespace
}  // namespace tandem
