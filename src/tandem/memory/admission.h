// Admission of queries against their estimated peak of memory, one gate per pool: the GPU's
// device memory and the host's budget (tandem.memory.host.limit). Queries (and Spark tasks) of
// one process share both; each reserves its estimate before it runs (on the GPU: before its first
// GPU operator) and gives it back when it ends. A query waits while the reservations of those
// running plus its own would pass what the pool may hold (tandem.memory.gpu.limit, else the
// device pool; the host budget less what cached tables hold there), or, on the GPU, while
// tandem.sql.concurrentGpuTasks queries are on it already. Waiters enter in the order they came
// (a large query is not passed over forever by small ones); one query always runs, and a query
// estimated at more than the pool holds reserves all of it and runs alone (in slices of its input
// on the GPU, spilling on the host). An estimate that proves too low is not fatal: the query's
// operators still run out of memory, split their input or spill, and retry. Plain C++ (no CUDA):
// the executor calls it with the figures it has.
#pragma once

#include <atomic>
#include <cstdint>

#include "tandem/common/status.h"

namespace tandem::admission {

enum class Pool { kGpu, kHost };

struct Request {
  Pool pool = Pool::kGpu;
  int64_t estimated_bytes = 0;  // the query's estimated peak of the pool's memory
  int64_t capacity_bytes = 0;   // what the pool may hold (<= 0: no bound by bytes)
  int64_t max_queries = 0;      // queries on the GPU at once (<= 0: no bound by count)
  const std::atomic<bool>* cancelled = nullptr;  // stops the wait (a cancelled Spark task)
};

// A query's place in a pool, held until it is destroyed (or moved from).
class Ticket {
 public:
  Ticket() = default;
  Ticket(Ticket&& other) noexcept;
  Ticket& operator=(Ticket&& other) noexcept;
  Ticket(const Ticket&) = delete;
  Ticket& operator=(const Ticket&) = delete;
  ~Ticket();

  bool held() const { return held_; }
  int64_t reserved_bytes() const { return reserved_bytes_; }
  double waited_ms() const { return waited_ms_; }
  int others_at_entry() const { return others_at_entry_; }  // queries in the pool when admitted

 private:
  friend Result<Ticket> Admit(const Request& request);
  void Release();
  bool held_ = false;
  Pool pool_ = Pool::kGpu;
  int64_t reserved_bytes_ = 0;
  double waited_ms_ = 0;
  int others_at_entry_ = 0;
};

// Waits for the query's turn; an error only when `cancelled` was set while it waited.
Result<Ticket> Admit(const Request& request);

// What is admitted to a pool now in this process (tests, diagnostics).
struct Snapshot {
  int running = 0;
  int waiting = 0;
  int64_t reserved_bytes = 0;
};
Snapshot Now(Pool pool = Pool::kGpu);

}  // namespace tandem::admission
