// ThreadPool: a fixed set of worker threads fed from one shared queue, and ParallelFor, which runs
// fn(0..n-1) on the workers and the calling thread together. The caller always takes part, so a
// task may itself call ParallelFor on the same pool without deadlock. A task's exception is caught
// and becomes a Status; after the first failure no new indexes start, and the failure with the
// lowest index is returned, so errors are deterministic however the threads interleave.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "tandem/common/status.h"

namespace tandem {

class ThreadPool {
 public:
  // num_threads <= 0 means std::thread::hardware_concurrency() (at least 1).
  explicit ThreadPool(int num_threads = 0);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int num_threads() const { return static_cast<int>(workers_.size()); }

  // The process-wide pool, created on first use with hardware_concurrency threads.
  static ThreadPool& Default();

  // Runs fn(i) for every i in [0, n), at most `parallelism` at a time (<= 0: the pool's threads
  // plus the caller). Returns OK, or the failure (error Status or exception) of the lowest index
  // that failed; indexes not yet started when a failure is seen are skipped.
  Status ParallelFor(int64_t n, const std::function<Status(int64_t)>& fn, int parallelism = 0);

  // Queues a fire-and-forget job (exceptions inside it are swallowed). Used by ParallelFor.
  void Submit(std::function<void()> job);

 private:
  void WorkerLoop();

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> queue_;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

// Runs fn and turns an escaping exception into a Status (OutOfMemory for std::bad_alloc,
// Internal otherwise).
Status CallCatchingExceptions(const std::function<Status()>& fn);

}  // namespace tandem
