// ThreadPool: shared-queue workers; ParallelFor hands out indexes through one atomic counter so
// that the caller and any number of helpers share the work without a per-index queue entry.
#include "tandem/common/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <memory>
#include <new>

#include "tandem/common/out_of_memory.h"

namespace tandem {

Status CallCatchingExceptions(const std::function<Status()>& fn) {
  try {
    return fn();
  } catch (const std::bad_alloc& e) {
    return Status::OutOfMemory(OutOfMemoryText(e));
  } catch (const std::exception& e) {
    return Status::Internal(std::string("exception in a parallel task: ") + e.what());
  } catch (...) {
    return Status::Internal("unknown exception in a parallel task");
  }
}

ThreadPool::ThreadPool(int num_threads) {
  if (num_threads <= 0) num_threads = static_cast<int>(std::thread::hardware_concurrency());
  num_threads = std::max(num_threads, 1);
  workers_.reserve(num_threads);
  for (int i = 0; i < num_threads; ++i) workers_.emplace_back([this] { WorkerLoop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (auto& t : workers_) t.join();
}

ThreadPool& ThreadPool::Default() {
  static ThreadPool pool(0);
  return pool;
}

void ThreadPool::Submit(std::function<void()> job) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    queue_.push_back(std::move(job));
  }
  wake_.notify_one();
}

void ThreadPool::WorkerLoop() {
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping and drained
      job = std::move(queue_.front());
      queue_.pop_front();
    }
    try {
      job();
    } catch (...) {
      // Jobs from ParallelFor never throw; a raw Submit job's exception has nowhere to go.
    }
  }
}

namespace {

// State shared by the caller of ParallelFor and its helpers. Helpers hold it by shared_ptr, so a
// helper that starts after the loop is over only touches this object, never the caller's `fn`.
struct LoopState {
  explicit LoopState(int64_t n_in, const std::function<Status(int64_t)>* fn_in)
      : n(n_in), fn(fn_in) {}
  const int64_t n;
  const std::function<Status(int64_t)>* fn;
  std::atomic<int64_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex mutex;
  std::condition_variable all_done;
  int64_t finished = 0;  // indexes run or skipped; guarded by mutex
  int64_t error_index = -1;
  Status error;

  // Claims and runs indexes until none are left.
  void Work() {
    for (;;) {
      const int64_t i = next.fetch_add(1, std::memory_order_relaxed);
      if (i >= n) return;
      Status st;
      if (!failed.load(std::memory_order_relaxed)) {
        st = CallCatchingExceptions([&] { return (*fn)(i); });
      }
      std::lock_guard<std::mutex> lock(mutex);
      if (!st.ok()) {
        failed.store(true, std::memory_order_relaxed);
        if (error_index < 0 || i < error_index) {
          error_index = i;
          error = std::move(st);
        }
      }
      if (++finished == n) all_done.notify_all();
    }
  }
};

}  // namespace

Status ThreadPool::ParallelFor(int64_t n, const std::function<Status(int64_t)>& fn,
                               int parallelism) {
  if (n <= 0) return Status::OK();
  const int64_t max_parallel = parallelism <= 0 ? num_threads() + 1 : parallelism;
  const int64_t helpers = std::min<int64_t>({max_parallel - 1, n - 1, num_threads()});
  if (helpers <= 0) {
    for (int64_t i = 0; i < n; ++i) {
      Status st = CallCatchingExceptions([&] { return fn(i); });
      if (!st.ok()) return st;
    }
    return Status::OK();
  }
  auto state = std::make_shared<LoopState>(n, &fn);
  for (int64_t h = 0; h < helpers; ++h) Submit([state] { state->Work(); });
  state->Work();
  std::unique_lock<std::mutex> lock(state->mutex);
  state->all_done.wait(lock, [&] { return state->finished == n; });
  return state->error;
}

}  // namespace tandem
