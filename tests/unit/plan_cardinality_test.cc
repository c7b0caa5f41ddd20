// Cardinality estimates and the join orders they drive, on TPC-H SF0.01 tables generated in
// memory: estimates of a many-to-many join and of a key join are checked against the true counts
// computed from the generated columns, a many-to-many join on the nation must wait for the key
// joins (TPC-H Q05's problem), Q17 must reduce lineitem by the selected parts before
// aggregating it, and Q10's wide customer rows join last when joins are weighed by bytes. Parquet
// column statistics of TableSource are checked against the values written.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

#include "tandem/column/column_builder.h"
#include "tandem/io/parquet/writer.h"
#include "tandem/sql/session.h"
#include "tandem/tpch/generator.h"
#include "tpch_test_util.h"

namespace tandem {
namespace {

class PlanCardinality : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    session_ = new sql::Session();
    const Status st = test_util::RegisterTpchTables(session_, 0.01, tables_);
    ASSERT_TRUE(st.ok()) << st.ToString();
  }
  static void TearDownTestSuite() {
    delete session_;
    session_ = nullptr;
    tables_->clear();
  }

  static std::string Explain(const std::string& select) {
    auto results = session_->ExecuteScript("explain " + select);
    EXPECT_TRUE(results.ok()) << results.status().ToString();
    std::string plan;
    if (!results.ok()) return plan;
    for (const auto& r : *results) {
      if (r.kind != sql::StatementResult::Kind::kRows) continue;
      for (const auto& b : r.table.batches) {
        for (int64_t i = 0; i < b->num_rows; ++i)
          plan += std::string(b->column(0)->GetString(i)) + "\n";
      }
    }
    return plan;
  }

  // The estimate on the first plan line containing `what`, or -1.
  static double EstimateOf(const std::string& plan, const std::string& what) {
    const size_t at = plan.find(what);
    if (at == std::string::npos) return -1;
    const size_t est = plan.find("(est. ", at);
    if (est == std::string::npos) return -1;
    return std::stod(plan.substr(est + 6));
  }

  // Rows per value of an int64 column of a generated table.
  static std::map<int64_t, int64_t> Histogram(const std::string& table, const std::string& column) {
    std::map<int64_t, int64_t> h;
    const auto& t = *tables_->at(table);
    const int f = t.schema.FieldIndex(column);
    EXPECT_GE(f, 0) << column;
    for (const auto& b : t.batches) {
      const Column& c = *b->column(f);
      for (int64_t i = 0; i < c.length(); ++i) ++h[c.Value<int64_t>(i)];
    }
    return h;
  }

  static int64_t TrueJoinRows(const std::string& lt, const std::string& lc, const std::string& rt,
                              const std::string& rc) {
    const auto l = Histogram(lt, lc), r = Histogram(rt, rc);
    int64_t n = 0;
    for (const auto& [v, count] : l) {
      if (auto it = r.find(v); it != r.end()) n += count * it->second;
    }
    return n;
  }

  static sql::Session* session_;
  static std::map<std::string, std::shared_ptr<Table>>* tables_;
};

sql::Session* PlanCardinality::session_ = nullptr;
std::map<std::string, std::shared_ptr<Table>>* PlanCardinality::tables_ =
    new std::map<std::string, std::shared_ptr<Table>>();

TEST_F(PlanCardinality, ManyToManyJoinEstimateNearTrueCount) {
  const std::string plan = Explain(
      "select c_custkey, s_suppkey from customer, supplier where c_nationkey = s_nationkey");
  const double est = EstimateOf(plan, "HashJoin INNER");
  const double truth =
      static_cast<double>(TrueJoinRows("customer", "c_nationkey", "supplier", "s_nationkey"));
  ASSERT_GT(truth, 0);
  EXPECT_GT(est, truth / 2) << plan;
  EXPECT_LT(est, truth * 2) << plan;
}

TEST_F(PlanCardinality, KeyJoinEstimateNearTrueCount) {
  const std::string plan =
      Explain("select count(*) from lineitem, orders where l_orderkey = o_orderkey");
  const double est = EstimateOf(plan, "HashJoin INNER");
  const double truth =
      static_cast<double>(TrueJoinRows("lineitem", "l_orderkey", "orders", "o_orderkey"));
  EXPECT_GT(est, truth / 1.5) << plan;
  EXPECT_LT(est, truth * 1.5) << plan;
}

TEST_F(PlanCardinality, RangeFilterUsesColumnBounds) {
  // o_orderkey covers [1, max]; a filter keeping its lower half keeps about half of the rows.
  const auto h = Histogram("orders", "o_orderkey");
  const int64_t mid = (h.begin()->first + h.rbegin()->first) / 2;
  int64_t truth = 0;
  for (const auto& [v, n] : h) truth += v < mid ? n : 0;
  const std::string plan =
      Explain("select * from orders where o_orderkey < " + std::to_string(mid));
  const double est = EstimateOf(plan, "Filter");
  EXPECT_GT(est, truth / 1.5) << plan;
  EXPECT_LT(est, truth * 1.5) << plan;
}

TEST_F(PlanCardinality, ManyToManyJoinWaitsForKeyJoins) {
  // customer x supplier on the nation multiplies rows; the selective orders-customer key join
  // must come first (below it), as in TPC-H Q05.
  const std::string plan = Explain(
      "select count(*) from customer, orders, supplier where c_custkey = o_custkey and "
      "c_nationkey = s_nationkey and o_orderkey < 100");
  const size_t nation = plan.find("_nationkey = ");
  const size_t cust = plan.find("_custkey = ");
  ASSERT_NE(nation, std::string::npos) << plan;
  ASSERT_NE(cust, std::string::npos) << plan;
  EXPECT_LT(nation, cust) << plan;
}

TEST_F(PlanCardinality, Q17ReducesLineitemBeforeAggregating) {
  const std::string plan =
      Explain(test_util::TpchQueryText(17).substr(test_util::TpchQueryText(17).find("select")));
  const size_t agg = plan.find("Aggregate keys=[l_partkey]");
  ASSERT_NE(agg, std::string::npos) << plan;
  const size_t semi = plan.find("HashJoin SEMI l_partkey = p_partkey", agg);
  EXPECT_NE(semi, std::string::npos) << plan;
}

TEST_F(PlanCardinality, JoinOrderByBytesKeepsWideRowsOutOfHashTables) {
  // TPC-H Q10's joins (its l_returnflag filter replaced by a range the in-memory statistics
  // estimate): by rows, customer (with its names, addresses and comments) joins the quarter's
  // orders first and lands in the hash table lineitem probes; by bytes, lineitem joins orders
  // first and customer probes that narrow result.
  const std::string q10 =
      "select c_custkey, c_name, sum(l_extendedprice * (1 - l_discount)) as revenue, c_acctbal, "
      "n_name, c_address, c_phone, c_comment from customer, orders, lineitem, nation where "
      "c_custkey = o_custkey and l_orderkey = o_orderkey and o_orderdate >= date '1993-10-01' "
      "and o_orderdate < date '1994-01-01' and l_quantity < 15 and c_nationkey = n_nationkey "
      "group by c_custkey, c_name, c_acctbal, c_phone, n_name, c_address, c_comment";
  auto explain_with = [&](const char* by_bytes) {
    auto set =
        session_->ExecuteScript(std::string("SET tandem.optimizer.joinOrderByBytes = ") + by_bytes);
    EXPECT_TRUE(set.ok()) << set.status().ToString();
    return Explain(q10);
  };
  const std::string by_rows = explain_with("false");
  const std::string by_bytes = explain_with("true");
  explain_with("false");
  for (const std::string* plan : {&by_rows, &by_bytes}) {
    ASSERT_NE(plan->find("_orderkey = "), std::string::npos) << *plan;
    ASSERT_NE(plan->find("_custkey = "), std::string::npos) << *plan;
  }
  // A join printed above another ran after it.
  EXPECT_LT(by_rows.find("_orderkey = "), by_rows.find("_custkey = ")) << by_rows;
  EXPECT_GT(by_bytes.find("_orderkey = "), by_bytes.find("_custkey = ")) << by_bytes;
  // Customer is the probe (left, first printed) input of its join.
  const size_t join = by_bytes.find("_custkey = ");
  const size_t next_line = by_bytes.find('\n', join) + 1;
  EXPECT_NE(
      by_bytes.substr(next_line, by_bytes.find('\n', next_line) - next_line).find("Scan customer"),
      std::string::npos)
      << by_bytes;
}

TEST(PlanCardinalityParquet, ColumnStatisticsFromFooters) {
  // Two row groups: k in [10, 19] twice, v = k * 1000 + row (all distinct), s strings.
  auto table = std::make_shared<Table>();
  table->schema.fields = {{"k", DataType::Int64(), true}, {"v", DataType::Int64(), false}};
  for (int g = 0; g < 2; ++g) {
    ColumnBuilder k(DataType::Int64()), v(DataType::Int64());
    for (int i = 0; i < 100; ++i) {
      if (i == 7 && g == 1) {
        k.AppendNull();
      } else {
        k.Append(int64_t{10 + i % 10});
      }
      v.Append(int64_t{(g * 100 + i) * 3});
    }
    auto batch = std::make_shared<Batch>();
    batch->schema = table->schema;
    batch->columns = {k.Finish(), v.Finish()};
    batch->num_rows = 100;
    table->batches.push_back(batch);
  }
  const std::string path = ::testing::TempDir() + "/plan_cardinality_stats.parquet";
  parquet::WriteOptions options;
  options.row_group_rows = 100;
  ASSERT_TRUE(parquet::WriteParquet(path, *table, options).ok());
  auto src = TableSource::Parquet("t", path);
  ASSERT_TRUE(src.ok()) << src.status().ToString();
  ASSERT_EQ((*src)->column_stats.size(), 2u);
  const auto& k = (*src)->column_stats[0];
  const auto& v = (*src)->column_stats[1];
  EXPECT_TRUE(k.has_bounds);
  EXPECT_EQ(k.min, 10);
  EXPECT_EQ(k.max, 19);
  EXPECT_EQ(k.null_count, 1);
  EXPECT_EQ(k.distinct_count, 10);  // the range bound
  EXPECT_TRUE(v.has_bounds);
  EXPECT_EQ(v.min, 0);
  EXPECT_EQ(v.max, 597);
  EXPECT_EQ(v.distinct_count, 200);  // capped by the rows
  std::remove(path.c_str());
}

}  // namespace
}  // namespace tandem
