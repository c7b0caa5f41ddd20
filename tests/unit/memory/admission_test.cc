// The GPU admission gate (memory/admission.h) with threads standing in for queries, and the
// peak estimate it admits against (exec/gpu_peak_estimate.h) over hand-made placed plans. No GPU
// is needed: the gate only counts bytes.
#include "tandem/memory/admission.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <optional>
#include <thread>
#include <vector>

#include "tandem/exec/gpu_peak_estimate.h"
#include "tandem/exec/host_peak_estimate.h"

namespace tandem {
namespace {

using admission::Admit;
using admission::Request;
using admission::Ticket;

constexpr int64_t kMiB = int64_t{1} << 20;

Request Ask(int64_t estimated, int64_t capacity, int64_t max_queries = 0,
            const std::atomic<bool>* cancelled = nullptr) {
  Request r;
  r.estimated_bytes = estimated;
  r.capacity_bytes = capacity;
  r.max_queries = max_queries;
  r.cancelled = cancelled;
  return r;
}

Ticket MustAdmit(const Request& r) {
  Result<Ticket> t = Admit(r);
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  return t.ok() ? std::move(*t) : Ticket();
}

// Waits until `n` queries wait at the gate (or ten seconds pass: slow sanitizer builds).
void UntilWaiting(int n) {
  for (int i = 0; i < 10000 && admission::Now().waiting < n; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_EQ(admission::Now().waiting, n);
}

// A query admitted on another thread; `admitted` turns true when it is.
struct Waiter {
  std::atomic<bool> admitted{false};
  std::optional<Ticket> ticket;
  std::thread thread;
  void Start(const Request& r) {
    thread = std::thread([this, r] {
      Result<Ticket> t = Admit(r);
      if (t.ok()) ticket.emplace(std::move(*t));
      admitted = t.ok();
    });
  }
  void Join() {
    if (thread.joinable()) thread.join();
  }
};

TEST(GpuAdmission, QueriesThatFitTogetherEnterAtOnce) {
  Ticket a = MustAdmit(Ask(40 * kMiB, 100 * kMiB));
  Ticket b = MustAdmit(Ask(60 * kMiB, 100 * kMiB));
  EXPECT_EQ(admission::Now().running, 2);
  EXPECT_EQ(admission::Now().reserved_bytes, 100 * kMiB);
  EXPECT_EQ(b.others_at_entry(), 1);
}

TEST(GpuAdmission, AQueryThatDoesNotFitWaitsForOneToLeave) {
  std::optional<Ticket> a = MustAdmit(Ask(70 * kMiB, 100 * kMiB));
  Waiter b;
  b.Start(Ask(50 * kMiB, 100 * kMiB));
  UntilWaiting(1);
  EXPECT_FALSE(b.admitted);
  a.reset();
  b.Join();
  EXPECT_TRUE(b.admitted);
  EXPECT_EQ(b.ticket->others_at_entry(), 0);
  EXPECT_GT(b.ticket->waited_ms(), 0);
  b.ticket.reset();
  EXPECT_EQ(admission::Now().reserved_bytes, 0);
  EXPECT_EQ(admission::Now().running, 0);
}

TEST(GpuAdmission, WaitersEnterInTheOrderTheyCame) {
  // A large query waits behind a running one; a small one that came after it, and would fit,
  // does not pass it.
  std::optional<Ticket> running = MustAdmit(Ask(60 * kMiB, 100 * kMiB));
  Waiter large, small;
  large.Start(Ask(90 * kMiB, 100 * kMiB));
  UntilWaiting(1);
  small.Start(Ask(10 * kMiB, 100 * kMiB));
  UntilWaiting(2);
  std::this_thread::sleep_for(std::chrono::milliseconds(120));
  EXPECT_FALSE(large.admitted);
  EXPECT_FALSE(small.admitted);
  running.reset();
  large.Join();
  small.Join();  // 90 + 10 fit together
  EXPECT_TRUE(large.admitted);
  EXPECT_TRUE(small.admitted);
}

TEST(GpuAdmission, AnEstimateAboveTheGpuRunsAlone) {
  Ticket huge = MustAdmit(Ask(500 * kMiB, 100 * kMiB));
  EXPECT_EQ(huge.reserved_bytes(), 100 * kMiB);
  Waiter tiny;
  tiny.Start(Ask(1, 100 * kMiB));
  UntilWaiting(1);
  EXPECT_FALSE(tiny.admitted);
  huge = Ticket();  // gives its place back
  tiny.Join();
  EXPECT_TRUE(tiny.admitted);
}

TEST(GpuAdmission, TheCountOfQueriesIsBounded) {
  Ticket a = MustAdmit(Ask(1, 0, 2));
  Ticket b = MustAdmit(Ask(1, 0, 2));
  Waiter c;
  c.Start(Ask(1, 0, 2));
  UntilWaiting(1);
  EXPECT_FALSE(c.admitted);
  a = Ticket();
  c.Join();
  EXPECT_TRUE(c.admitted);
}

TEST(GpuAdmission, ACancelledWaiterLeavesAndThoseAfterItGoOn) {
  std::optional<Ticket> running = MustAdmit(Ask(80 * kMiB, 100 * kMiB));
  std::atomic<bool> cancel{false};
  Waiter cancelled, after;
  cancelled.Start(Ask(50 * kMiB, 100 * kMiB, 0, &cancel));
  UntilWaiting(1);
  after.Start(Ask(50 * kMiB, 100 * kMiB));
  UntilWaiting(2);
  cancel = true;
  cancelled.Join();
  EXPECT_FALSE(cancelled.admitted);
  running.reset();
  after.Join();
  EXPECT_TRUE(after.admitted);
  after.ticket.reset();
  EXPECT_EQ(admission::Now().waiting, 0);
  EXPECT_EQ(admission::Now().running, 0);
}

TEST(GpuAdmission, AWaiterCancelledBehindAnotherIsSkipped) {
  // Three in line behind a running query; the middle one is cancelled. When the GPU frees,
  // the first and then the third enter (the cancelled number must not block the line).
  std::optional<Ticket> running = MustAdmit(Ask(100 * kMiB, 100 * kMiB));
  std::atomic<bool> cancel{false};
  Waiter first, middle, last;
  first.Start(Ask(40 * kMiB, 100 * kMiB));
  UntilWaiting(1);
  middle.Start(Ask(40 * kMiB, 100 * kMiB, 0, &cancel));
  UntilWaiting(2);
  last.Start(Ask(40 * kMiB, 100 * kMiB));
  UntilWaiting(3);
  cancel = true;
  middle.Join();
  EXPECT_FALSE(middle.admitted);
  UntilWaiting(2);
  running.reset();
  first.Join();
  last.Join();
  EXPECT_TRUE(first.admitted);
  EXPECT_TRUE(last.admitted);
  EXPECT_EQ(admission::Now().reserved_bytes, 80 * kMiB);
}

TEST(GpuAdmission, ManyThreadsNeverReserveMoreThanTheGpu) {
  constexpr int64_t kCapacity = 100 * kMiB;
  std::atomic<int64_t> in_use{0}, most{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 16; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 20; ++i) {
        const int64_t want = (10 + 7 * ((t + i) % 9)) * kMiB;
        Ticket ticket = MustAdmit(Ask(want, kCapacity));
        const int64_t now = in_use += want;
        int64_t seen = most.load();
        while (now > seen && !most.compare_exchange_weak(seen, now)) {
        }
        std::this_thread::sleep_for(std::chrono::microseconds(200));
        in_use -= want;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_LE(most.load(), kCapacity);
  EXPECT_GT(most.load(), 0);
  EXPECT_EQ(admission::Now().running, 0);
}

TEST(Admission, TheHostAndTheGpuAreSeparatePools) {
  // A query holding all of the GPU does not keep one out of host memory, nor the other way.
  Ticket gpu = MustAdmit(Ask(100 * kMiB, 100 * kMiB));
  Request host = Ask(100 * kMiB, 100 * kMiB);
  host.pool = admission::Pool::kHost;
  Ticket h = MustAdmit(host);
  EXPECT_EQ(h.others_at_entry(), 0);
  EXPECT_EQ(admission::Now(admission::Pool::kHost).reserved_bytes, 100 * kMiB);
  EXPECT_EQ(admission::Now(admission::Pool::kGpu).reserved_bytes, 100 * kMiB);
  // A second host query waits for the first, whatever the GPU holds.
  Waiter second;
  second.Start(host);
  for (int i = 0; i < 10000 && admission::Now(admission::Pool::kHost).waiting < 1; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(admission::Now(admission::Pool::kHost).waiting, 1);
  EXPECT_FALSE(second.admitted);
  h = Ticket();
  second.Join();
  EXPECT_TRUE(second.admitted);
  EXPECT_EQ(second.ticket->others_at_entry(), 0);
}

// ---- the estimate ------------------------------------------------------------------------

PlanPtr Node(PlanKind kind, Device device, double bytes, std::vector<PlanPtr> children = {}) {
  auto n = std::make_shared<PlanNode>();
  n->kind = kind;
  n->device = device;
  n->placement.est_bytes = bytes;
  n->children = std::move(children);
  return n;
}

TEST(GpuPeakEstimate, OperatorsHoldTheirInputsOutputAndWork) {
  // GPU scan 100 (+50 of pages) -> filter 40 -> aggregate 10 (+10 of groups) -> to the host.
  PlanPtr scan = Node(PlanKind::kScan, Device::kGpu, 100);
  PlanPtr filter = Node(PlanKind::kFilter, Device::kGpu, 40, {scan});
  PlanPtr agg = Node(PlanKind::kAggregate, Device::kGpu, 10, {filter});
  PlanPtr down = Node(PlanKind::kTransition, Device::kCpu, 10, {agg});
  const auto none = [](const PlanNode&) { return false; };
  EXPECT_EQ(EstimatedGpuPeakBytes(*down, none, 0), 150);
  // The same scan of a table cached on the GPU allocates nothing (its output is the cache's
  // own memory): the aggregation's 40 of input, 10 of output and 10 of groups are the peak.
  const auto cached = [&](const PlanNode& s) { return &s == scan.get(); };
  EXPECT_EQ(EstimatedGpuPeakBytes(*down, cached, 0), 60);
}

TEST(GpuPeakEstimate, AJoinHoldsItsProbeSideWhileItsBuildSideRuns) {
  // probe: rows from the host (300); build: a GPU scan (100 + 50); join output 200 with a
  // hash table over the build side's 100.
  PlanPtr host = Node(PlanKind::kScan, Device::kCpu, 300);
  PlanPtr up = Node(PlanKind::kTransition, Device::kGpu, 300, {host});
  PlanPtr build = Node(PlanKind::kScan, Device::kGpu, 100);
  PlanPtr join = Node(PlanKind::kJoin, Device::kGpu, 200, {up, build});
  const auto none = [](const PlanNode&) { return false; };
  // Build scan while the probe side is held: 300 + 150; the join: 300 + 100 + 200 + 100.
  EXPECT_EQ(EstimatedGpuPeakBytes(*join, none, 0), 700);
}

TEST(GpuPeakEstimate, ASlicedSourceCountsOneSlice) {
  // A 1000-byte GPU scan on the spine with 100-byte slices: the scan and the filter over it
  // count a tenth (100 + 50 of pages; the filter's 40 of 400), the aggregation its own.
  PlanPtr scan = Node(PlanKind::kScan, Device::kGpu, 1000);
  PlanPtr filter = Node(PlanKind::kFilter, Device::kGpu, 400, {scan});
  PlanPtr agg = Node(PlanKind::kAggregate, Device::kGpu, 30, {filter});
  const auto none = [](const PlanNode&) { return false; };
  EXPECT_EQ(EstimatedGpuPeakBytes(*agg, none, 100), 150);
  EXPECT_EQ(EstimatedGpuPeakBytes(*agg, none, 0), 1500);  // not sliced
  // A build side is not sliced: the same scan as a join's right side counts whole (the probe's
  // 10, the build side's 1000, the join's 10 and its hash table of 1000).
  PlanPtr probe = Node(PlanKind::kScan, Device::kGpu, 10);
  PlanPtr join = Node(PlanKind::kJoin, Device::kGpu, 10, {probe, scan});
  EXPECT_EQ(EstimatedGpuPeakBytes(*join, none, 100), 10 + 1000 + 10 + 1000);
}

TEST(GpuPeakEstimate, UnknownSizesCountNothing) {
  PlanPtr scan = Node(PlanKind::kScan, Device::kGpu, -1);
  PlanPtr sort = Node(PlanKind::kSort, Device::kGpu, std::nan(""), {scan});
  const auto none = [](const PlanNode&) { return false; };
  EXPECT_EQ(EstimatedGpuPeakBytes(*sort, none, 0), 0);
  PlanPtr big = Node(PlanKind::kScan, Device::kGpu, 1e30);
  EXPECT_EQ(EstimatedGpuPeakBytes(*big, none, 0), INT64_MAX);
}

TEST(GpuPeakEstimate, PartsSeparatedByTheCpuDoNotAddUp) {
  PlanPtr a = Node(PlanKind::kScan, Device::kGpu, 100);
  PlanPtr a_down = Node(PlanKind::kTransition, Device::kCpu, 100, {a});
  PlanPtr b = Node(PlanKind::kScan, Device::kGpu, 60);
  PlanPtr b_down = Node(PlanKind::kTransition, Device::kCpu, 60, {b});
  PlanPtr cpu_join = Node(PlanKind::kJoin, Device::kCpu, 10, {a_down, b_down});
  const auto none = [](const PlanNode&) { return false; };
  EXPECT_EQ(EstimatedGpuPeakBytes(*cpu_join, none, 0), 150);
  PlanPtr cpu_only = Node(PlanKind::kScan, Device::kCpu, 1000);
  EXPECT_EQ(EstimatedGpuPeakBytes(*cpu_only, none, 0), 0);
}

TEST(HostPeakEstimate, StreamingOperatorsHoldNothingAndBreakersHoldTheirState) {
  // CPU scan of files 1000 -> filter 400 -> aggregate 30: only the group table (30) is held,
  // and the result (the aggregate's 30) at the end.
  PlanPtr scan = Node(PlanKind::kScan, Device::kCpu, 1000);
  PlanPtr filter = Node(PlanKind::kFilter, Device::kCpu, 400, {scan});
  PlanPtr agg = Node(PlanKind::kAggregate, Device::kCpu, 30, {filter});
  EXPECT_EQ(EstimatedHostPeakBytes(*agg), 30);
  // A sort above collects the 30 rows and makes its sorted 30 beside them (and the group table
  // is still held): 90.
  PlanPtr sort = Node(PlanKind::kSort, Device::kCpu, 30, {agg});
  EXPECT_EQ(EstimatedHostPeakBytes(*sort), 90);
  // A filter over files alone streams: the result (400) is all that is held.
  EXPECT_EQ(EstimatedHostPeakBytes(*filter), 400);
}

TEST(HostPeakEstimate, AJoinHoldsItsBuildSideWhileItsProbeRuns) {
  // build: files 500 filtered to 200; probe: files 1000 into an aggregation of 50 above the
  // join. The build side's 200 is held while the probe streams into the group table (50).
  PlanPtr build_scan = Node(PlanKind::kScan, Device::kCpu, 500);
  PlanPtr build = Node(PlanKind::kFilter, Device::kCpu, 200, {build_scan});
  PlanPtr probe = Node(PlanKind::kScan, Device::kCpu, 1000);
  PlanPtr join = Node(PlanKind::kJoin, Device::kCpu, 800, {probe, build});
  PlanPtr agg = Node(PlanKind::kAggregate, Device::kCpu, 50, {join});
  EXPECT_EQ(EstimatedHostPeakBytes(*agg), 250);
  // With no aggregation above, the result (800) is collected while the build side is held.
  EXPECT_EQ(EstimatedHostPeakBytes(*join), 1000);
  // Rows that go to a sink (a file, a spool) as they are made are not collected.
  EXPECT_EQ(EstimatedHostPeakBytes(*join, /*result_held=*/false), 200);
}

TEST(HostPeakEstimate, GpuPartsHoldWhatTheyTakeFromAndHandToTheHost) {
  // Files 1000 on the CPU, filtered to 300, uploaded (held whole until uploaded), aggregated on
  // the GPU to 20 and handed back (20 held).
  PlanPtr scan = Node(PlanKind::kScan, Device::kCpu, 1000);
  PlanPtr filter = Node(PlanKind::kFilter, Device::kCpu, 300, {scan});
  PlanPtr up = Node(PlanKind::kTransition, Device::kGpu, 300, {filter});
  PlanPtr agg = Node(PlanKind::kAggregate, Device::kGpu, 20, {up});
  PlanPtr down = Node(PlanKind::kTransition, Device::kCpu, 20, {agg});
  EXPECT_EQ(EstimatedHostPeakBytes(*down), 300);
  // A GPU part alone (a cached GPU table, an aggregation) holds its 20 of result on the host.
  PlanPtr gpu_scan = Node(PlanKind::kScan, Device::kGpu, 1000);
  PlanPtr gpu_agg = Node(PlanKind::kAggregate, Device::kGpu, 20, {gpu_scan});
  PlanPtr back = Node(PlanKind::kTransition, Device::kCpu, 20, {gpu_agg});
  EXPECT_EQ(EstimatedHostPeakBytes(*back), 20);
  PlanPtr huge =
      Node(PlanKind::kSort, Device::kCpu, 1e30, {Node(PlanKind::kScan, Device::kCpu, 1e30)});
  EXPECT_EQ(EstimatedHostPeakBytes(*huge), INT64_MAX);
}

}  // namespace
}  // namespace tandem
