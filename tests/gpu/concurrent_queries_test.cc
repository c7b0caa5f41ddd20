// Several queries at once in one process share one GPU: each of several threads runs TPC-H
// queries in its own session with tandem.sql.device=gpu, in a different order, and every answer
// equals the one the query gives alone. Again under a GPU limit small enough that parts of the
// plans run out of memory and run again on the CPU while other threads use the device, and
// under one that admits only some of them at once (the others wait their turn).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "../unit/tpch_test_util.h"
#include "gpu_test_util.h"
#include "tandem/format/value_format.h"
#include "tandem/gpu/device_limit.h"
#include "tandem/sql/session.h"

namespace tandem {
namespace {

using test_util::TableText;

constexpr int kQueries[] = {1, 3, 5, 6, 9, 10, 12, 13, 14, 18, 19, 21};

std::string QueryText(int q) {
  // TANDEM_TPCH_QUERY_DIR where the checkout is not where the test was built (the GPU machine).
  if (const char* dir = std::getenv("TANDEM_TPCH_QUERY_DIR")) {
    std::ifstream in(std::string(dir) + "/q" + (q < 10 ? "0" : "") + std::to_string(q) + ".sql");
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  return test_util::TpchQueryText(q);
}

class GpuConcurrentQueries : public ::testing::Test {
 protected:
  // A session over the shared tables with the given settings.
  std::unique_ptr<sql::Session> NewSession(const std::vector<std::string>& conf) {
    sql::SessionOptions options;
    for (const std::string& c : conf) EXPECT_TRUE(options.config.SetAssignment(c).ok()) << c;
    auto s = std::make_unique<sql::Session>(options);
    for (const auto& [name, table] : tables_) {
      EXPECT_TRUE(s->catalog().AddTable(name, TableSource::Memory(name, table), true).ok());
    }
    return s;
  }

  Result<std::string> Answer(sql::Session& s, int q) {
    TANDEM_ASSIGN_OR_RAISE(sql::StatementResult r, s.Execute(QueryText(q)));
    if (r.devices.find("for the GPU (est. peak") != std::string::npos) ++waited_;
    return TableText(r.table);
  }

  void RunConcurrently(const std::vector<std::string>& conf) {
    sql::Session generator;
    ASSERT_TRUE(test_util::RegisterTpchTables(&generator, 0.05, &tables_).ok());
    std::map<int, std::string> alone;
    {
      auto s = NewSession(conf);
      for (int q : kQueries) {
        auto a = Answer(*s, q);
        ASSERT_TRUE(a.ok()) << "q" << q << ": " << a.status().ToString();
        alone[q] = *a;
      }
    }
    constexpr int kThreads = 6;
    constexpr int n = sizeof(kQueries) / sizeof(kQueries[0]);
    std::vector<std::string> failures(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        auto s = NewSession(conf);
        for (int i = 0; i < 2 * n; ++i) {
          const int q = kQueries[(i * (t + 1) + t) % n];
          auto a = Answer(*s, q);
          if (!a.ok()) {
            failures[t] += "q" + std::to_string(q) + " failed: " + a.status().ToString() + "\n";
          } else if (*a != alone[q]) {
            failures[t] += "q" + std::to_string(q) + " differs from its answer alone\n";
          }
        }
      });
    }
    for (auto& th : threads) th.join();
    for (int t = 0; t < kThreads; ++t) EXPECT_EQ(failures[t], "") << "thread " << t;
  }

  // The GPU limit is a process-wide setting that the queries leave set: later tests need none.
  void TearDown() override { gpu::SetDeviceLimit(0); }

  std::map<std::string, std::shared_ptr<Table>> tables_;
  std::atomic<int> waited_{0};  // answers that waited for their turn on the GPU
};

TEST_F(GpuConcurrentQueries, AnswersEqualTheirAnswersAlone) {
  TANDEM_REQUIRE_GPU();
  RunConcurrently({"tandem.sql.device=gpu", "tandem.sql.concurrentGpuTasks=64"});
}

TEST_F(GpuConcurrentQueries, AnswersHoldWhenTheGpuRunsOutOfMemory) {
  TANDEM_REQUIRE_GPU();
  RunConcurrently(
      {"tandem.sql.device=gpu", "tandem.memory.gpu.limit=24m", "tandem.sql.concurrentGpuTasks=64"});
}

// Bound by bytes only: under a limit that holds the estimated peaks of a few queries at once,
// the others wait for their turn (memory/admission.h), and every answer is still the one
// the query gives alone.
TEST_F(GpuConcurrentQueries, QueriesThatDoNotFitTogetherWaitTheirTurn) {
  TANDEM_REQUIRE_GPU();
  RunConcurrently(
      {"tandem.sql.device=gpu", "tandem.memory.gpu.limit=64m", "tandem.sql.concurrentGpuTasks=64"});
  EXPECT_GT(waited_.load(), 0) << "no query waited for the GPU";
}

}  // namespace
}  // namespace tandem
