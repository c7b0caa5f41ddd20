// The physical plan (exec/physical_plan.h) through a session over TPC-H tables in memory: EXPLAIN
// names each node's operator and pipeline before the run, and EXPLAIN ANALYZE of the same query
// ran every node as planned (no "planned as", nothing outside the plan). The Parquet side, node
// by node, is tests/python/test_physical_plan.py.
#include <gtest/gtest.h>

#include <string>

#include "../tpch_test_util.h"

namespace tandem {
namespace {

std::string Lines(const Table& t) {
  std::string out;
  for (const auto& b : t.batches) {
    for (int64_t r = 0; r < b->num_rows; ++r) out += std::string(b->column(0)->GetString(r)) + "\n";
  }
  return out;
}

class PhysicalPlan : public ::testing::Test {
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

TEST_F(PhysicalPlan, ExplainNamesFusedOperatorsAndPipelinesBeforeTheRun) {
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

TEST_F(PhysicalPlan, EveryTpchQueryRunsAsPlanned) {
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

}  // namespace
}  // namespace tandem
