// The optimizer on the 22 TPC-H queries (tests/tpch/queries) over SF0.01 tables generated in
// memory: every query binds and optimizes, its plan has no subquery left and no cross product
// except the single-row ones of uncorrelated scalar subqueries (Q11, Q22), and it runs.
#include <gtest/gtest.h>

#include "tpch_test_util.h"

namespace tandem {
namespace {

class PlanTpch : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    session_ = new sql::Session();
    const Status st = test_util::RegisterTpchTables(session_, 0.01);
    ASSERT_TRUE(st.ok()) << st.ToString();
  }
  static void TearDownTestSuite() {
    delete session_;
    session_ = nullptr;
  }
  static sql::Session* session_;
};

sql::Session* PlanTpch::session_ = nullptr;

std::string PlanText(const Table& t) {
  std::string s;
  for (const auto& b : t.batches) {
    for (int64_t r = 0; r < b->num_rows; ++r) s += std::string(b->column(0)->GetString(r)) + "\n";
  }
  return s;
}

int Count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

TEST_F(PlanTpch, AllQueriesDecorrelatedWithoutCrossProducts) {
  for (int q = 1; q <= 22; ++q) {
    std::string sql = test_util::TpchQueryText(q);
    ASSERT_FALSE(sql.empty()) << "q" << q;
    // EXPLAIN the query's SELECT (Q15's second statement).
    const size_t select = q == 15 ? sql.find("\nselect") + 1 : sql.find("select");
    sql.insert(select, "explain ");
    auto results = session_->ExecuteScript(sql);
    ASSERT_TRUE(results.ok()) << "q" << q << ": " << results.status().ToString();
    std::string plan;
    for (const auto& r : *results) {
      if (r.kind == sql::StatementResult::Kind::kRows) plan += PlanText(r.table);
    }
    EXPECT_EQ(Count(plan, "(subquery)"), 0) << "q" << q << "\n" << plan;
    EXPECT_EQ(Count(plan, "CrossJoin"), 0) << "q" << q << "\n" << plan;
    // Cross-side conditions without keys only where a scalar subquery's one row is compared
    // (Q11, Q22) or where the query relates two inputs by an OR alone (Q7's two nations).
    const int conditional = Count(plan, "HashJoin INNER cond");
    EXPECT_EQ(conditional, (q == 7 || q == 11 || q == 22) ? 1 : 0) << "q" << q << "\n" << plan;
  }
}

}  // namespace
}  // namespace tandem
