// Queries wait for host memory (exec/host_admission.h): with the host's gate held by another
// reservation of the whole budget (standing in for a query estimated at all of it), a TPC-H
// query run on another thread waits at the gate, enters when the other leaves, says so on its
// Devices line and in EXPLAIN ANALYZE, and answers as it does alone; with
// tandem.memory.host.admission=false it does not wait.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <optional>
#include <string>
#include <thread>

#include "../tpch_test_util.h"
#include "tandem/format/value_format.h"
#include "tandem/memory/admission.h"
#include "tandem/memory/host_memory.h"

namespace tandem {
namespace {

std::string Text(const Table& t) {
  std::string out;
  for (const auto& b : t.batches) {
    for (int64_t r = 0; r < b->num_rows; ++r) {
      for (int c = 0; c < b->num_columns(); ++c) {
        out += c ? "|" : "";
        if (!b->column(c)->IsNull(r)) format::AppendText(*b->column(c), r, &out);
      }
      out += '\n';
    }
  }
  return out;
}

admission::Ticket HoldAllHostMemory() {
  admission::Request r;
  r.pool = admission::Pool::kHost;
  r.estimated_bytes = host_memory::Limit();
  r.capacity_bytes = host_memory::Limit();
  Result<admission::Ticket> t = admission::Admit(r);
  EXPECT_TRUE(t.ok());
  return t.ok() ? std::move(*t) : admission::Ticket();
}

bool UntilHostWaiting(int n) {
  for (int i = 0; i < 10000 && admission::Now(admission::Pool::kHost).waiting < n; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return admission::Now(admission::Pool::kHost).waiting == n;
}

class HostAdmission : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(test_util::RegisterTpchTables(&session_, 0.01).ok());
    Result<sql::StatementResult> alone = session_.Execute(test_util::TpchQueryText(1));
    ASSERT_TRUE(alone.ok()) << alone.status().ToString();
    alone_ = Text(alone->table);
    ASSERT_FALSE(alone_.empty());
  }
  sql::Session session_;
  std::string alone_;
};

TEST_F(HostAdmission, AQueryWaitsWhileTheHostIsTaken) {
  std::optional<admission::Ticket> other = HoldAllHostMemory();
  std::atomic<bool> done{false};
  Result<sql::StatementResult> waited = Status::Internal("not run");
  std::thread query([&] {
    waited = session_.Execute(test_util::TpchQueryText(1));
    done = true;
  });
  const bool waiting = UntilHostWaiting(1);  // the thread is joined before any check ends the test
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const bool finished_early = done.load();
  other.reset();
  query.join();
  EXPECT_TRUE(waiting);
  EXPECT_FALSE(finished_early);
  ASSERT_TRUE(waited.ok()) << waited.status().ToString();
  EXPECT_EQ(Text(waited->table), alone_);
  EXPECT_NE(waited->devices.find("for host memory (est. peak"), std::string::npos)
      << waited->devices;
  EXPECT_EQ(admission::Now(admission::Pool::kHost).running, 0);
}

TEST_F(HostAdmission, ExplainAnalyzeSaysHowLongTheQueryWaited) {
  std::optional<admission::Ticket> other = HoldAllHostMemory();
  Result<sql::StatementResult> analyzed = Status::Internal("not run");
  std::thread query(
      [&] { analyzed = session_.Execute("EXPLAIN ANALYZE " + test_util::TpchQueryText(1)); });
  const bool waiting = UntilHostWaiting(1);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  other.reset();
  query.join();
  EXPECT_TRUE(waiting);
  ASSERT_TRUE(analyzed.ok()) << analyzed.status().ToString();
  const std::string plan = Text(analyzed->table);
  EXPECT_NE(plan.find("Host admission: est. peak"), std::string::npos) << plan;
}

TEST_F(HostAdmission, TurnedOffAQueryDoesNotWait) {
  ASSERT_TRUE(session_.Execute("SET tandem.memory.host.admission = false").ok());
  std::optional<admission::Ticket> other = HoldAllHostMemory();
  std::atomic<bool> done{false};
  Result<sql::StatementResult> r = Status::Internal("not run");
  std::thread query([&] {
    r = session_.Execute(test_util::TpchQueryText(1));
    done = true;
  });
  for (int i = 0; i < 10000 && !done.load(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  const bool finished_while_held = done.load();
  other.reset();  // a query that waited anyway ends now, so that the test fails rather than hangs
  query.join();
  EXPECT_TRUE(finished_while_held);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(Text(r->table), alone_);
  EXPECT_EQ(r->devices.find("for host memory"), std::string::npos) << r->devices;
}

}  // namespace
}  // namespace tandem
