// A GPU operator's finished inputs move to host memory while a later input runs out of GPU
// memory, and come back (exec/gpu_input_spill.cc): a GPU join of two filtered TPC-H tables
// cached in GPU memory, with the Nth GPU allocation of the statement failing, for every N that
// lands in the query. Each answer equals the CPU's; some N fail while one side's filter runs
// with the other side's rows on the GPU, and those say they moved inputs to host memory instead
// of running a part again; with tandem.exec.gpu.spillInputs=false none do. (Tables in host
// memory would not do: a part fed from the host runs over slices, whose inputs stand in for
// nodes and are shared, so nothing could move; a first run on the H200 showed it.)
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>

#include "../unit/tpch_test_util.h"
#include "gpu_test_util.h"
#include "tandem/format/value_format.h"
#include "tandem/sql/session.h"

namespace tandem {
namespace {

using test_util::TableText;

constexpr const char* kQuery =
    "SELECT o_orderpriority, count(*) AS n, sum(l_quantity) AS q, sum(l_extendedprice) AS p "
    "FROM lineitem JOIN orders ON l_orderkey = o_orderkey "
    "WHERE l_shipdate > DATE '1995-01-01' AND o_orderdate < DATE '1996-06-01' "
    "GROUP BY o_orderpriority ORDER BY o_orderpriority";

class GpuInputSpill : public ::testing::Test {
 protected:
  void SetUp() override {
    sql::Session generator;
    ASSERT_TRUE(test_util::RegisterTpchTables(&generator, 0.02, &tables_).ok());
  }

  // A session over the tables; `device` gpu caches lineitem and orders in GPU memory.
  std::unique_ptr<sql::Session> NewSession(const std::string& device) {
    auto s = std::make_unique<sql::Session>();
    for (const auto& [name, table] : tables_) {
      EXPECT_TRUE(s->catalog().AddTable(name, TableSource::Memory(name, table), true).ok());
    }
    EXPECT_TRUE(s->Execute("SET tandem.sql.device = " + device).ok());
    if (device == "gpu") {
      for (const char* t : {"lineitem", "orders"}) {
        Result<sql::StatementResult> cached = s->Execute(std::string("CACHE TABLE ") + t);
        EXPECT_TRUE(cached.ok()) << cached.status().ToString();
      }
    }
    return s;
  }

  // Runs the query with the Nth GPU allocation failing, for each N up to 60 (the query makes
  // fewer); counts the runs whose Devices line says inputs moved.
  int RunsThatMovedInputs(const std::string& spill_inputs, const std::string& cpu_answer) {
    int moved = 0;
    for (int n = 1; n <= 60; ++n) {
      std::unique_ptr<sql::Session> s = NewSession("gpu");
      EXPECT_TRUE(s->Execute("SET tandem.exec.gpu.spillInputs = " + spill_inputs).ok());
      EXPECT_TRUE(s->Execute("SET tandem.test.injectOom = " + std::to_string(n)).ok());
      Result<sql::StatementResult> r = s->Execute(kQuery);
      EXPECT_TRUE(r.ok()) << "N=" << n << ": " << r.status().ToString();
      if (!r.ok()) continue;
      EXPECT_EQ(TableText(r->table), cpu_answer) << "N=" << n << "; " << r->devices;
      if (r->devices.find("GPU operator inputs moved to host memory") != std::string::npos) {
        ++moved;
        EXPECT_EQ(r->devices.find("ran again on the CPU"), std::string::npos) << r->devices;
      }
    }
    return moved;
  }

  std::map<std::string, std::shared_ptr<Table>> tables_;
};

TEST_F(GpuInputSpill, AJoinsProbeSideWaitsInHostMemoryWhileItsBuildSideRunsOutOfGpuMemory) {
  TANDEM_REQUIRE_GPU();
  std::unique_ptr<sql::Session> cpu = NewSession("cpu");
  Result<sql::StatementResult> expected = cpu->Execute(kQuery);
  ASSERT_TRUE(expected.ok()) << expected.status().ToString();
  const std::string answer = TableText(expected->table);
  ASSERT_FALSE(answer.empty());
  // The join runs on the GPU, over the cached tables, in one piece.
  std::unique_ptr<sql::Session> gpu = NewSession("gpu");
  Result<sql::StatementResult> plain = gpu->Execute(kQuery);
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  ASSERT_EQ(TableText(plain->table), answer);
  EXPECT_NE(plain->devices.find("gpu"), std::string::npos) << plain->devices;
  EXPECT_EQ(plain->devices.find("slices"), std::string::npos) << plain->devices;

  EXPECT_GT(RunsThatMovedInputs("true", answer), 0);
  EXPECT_EQ(RunsThatMovedInputs("false", answer), 0);
}

}  // namespace
}  // namespace tandem
