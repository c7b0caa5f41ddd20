// The process's admission gates (see admission.h), one per pool: a mutex, a condition variable,
// the reservations of the queries running and a first-come queue of numbered waiters.
#include "tandem/memory/admission.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <vector>

namespace tandem::admission {
namespace {

class Gate {
 public:
  // Returns the bytes reserved; false when cancelled while waiting.
  bool Enter(const Request& r, int64_t* reserved, int* others) {
    std::unique_lock<std::mutex> lock(mu_);
    const uint64_t my_number = next_number_++;
    ++waiting_;
    // Reserve no more than the pool may hold: a larger estimate runs alone.
    *reserved = std::max<int64_t>(0, r.estimated_bytes);
    if (r.capacity_bytes > 0) *reserved = std::min(*reserved, r.capacity_bytes);
    const auto fits = [&] {
      if (my_number != serving_) return false;  // earlier waiters first
      if (running_ == 0) return true;
      if (r.max_queries > 0 && running_ >= r.max_queries) return false;
      return r.capacity_bytes <= 0 || reserved_ + *reserved <= r.capacity_bytes;
    };
    while (!fits()) {
      if (r.cancelled && r.cancelled->load(std::memory_order_relaxed)) {
        --waiting_;
        // Skip this number so that the ones after it are served.
        if (my_number == serving_) {
          ++serving_;
        } else {
          abandoned_.push_back(my_number);
        }
        SkipAbandoned();
        cv_.notify_all();
        return false;
      }
      cv_.wait_for(lock, std::chrono::milliseconds(50));
    }
    --waiting_;
    ++serving_;
    SkipAbandoned();
    *others = running_;
    ++running_;
    reserved_ += *reserved;
    cv_.notify_all();  // the next waiter may fit beside this one
    return true;
  }

  void Leave(int64_t reserved) {
    std::lock_guard<std::mutex> lock(mu_);
    --running_;
    reserved_ -= reserved;
    cv_.notify_all();
  }

  Snapshot Now() {
    std::lock_guard<std::mutex> lock(mu_);
    return Snapshot{running_, waiting_, reserved_};
  }

 private:
  void SkipAbandoned() {
    for (bool skipped = true; skipped;) {
      skipped = false;
      auto it = std::find(abandoned_.begin(), abandoned_.end(), serving_);
      if (it != abandoned_.end()) {
        abandoned_.erase(it);
        ++serving_;
        skipped = true;
      }
    }
  }

  std::mutex mu_;
  std::condition_variable cv_;
  uint64_t next_number_ = 0;
  uint64_t serving_ = 0;  // the number of the waiter whose turn it is
  std::vector<uint64_t> abandoned_;
  int running_ = 0;
  int waiting_ = 0;
  int64_t reserved_ = 0;
};

Gate& TheGate(Pool pool) {
  static Gate gpu;
  static Gate host;
  return pool == Pool::kHost ? host : gpu;
}

}  // namespace

Ticket::Ticket(Ticket&& other) noexcept
    : held_(other.held_),
      pool_(other.pool_),
      reserved_bytes_(other.reserved_bytes_),
      waited_ms_(other.waited_ms_),
      others_at_entry_(other.others_at_entry_) {
  other.held_ = false;
}

Ticket& Ticket::operator=(Ticket&& other) noexcept {
  if (this != &other) {
    Release();
    held_ = other.held_;
    pool_ = other.pool_;
    reserved_bytes_ = other.reserved_bytes_;
    waited_ms_ = other.waited_ms_;
    others_at_entry_ = other.others_at_entry_;
    other.held_ = false;
  }
  return *this;
}

Ticket::~Ticket() { Release(); }

void Ticket::Release() {
  if (!held_) return;
  held_ = false;
  TheGate(pool_).Leave(reserved_bytes_);
}

Result<Ticket> Admit(const Request& request) {
  const auto start = std::chrono::steady_clock::now();
  Ticket t;
  t.pool_ = request.pool;
  if (!TheGate(request.pool).Enter(request, &t.reserved_bytes_, &t.others_at_entry_)) {
    return Status::Invalid("the query was cancelled");
  }
  t.held_ = true;
  t.waited_ms_ =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return t;
}

Snapshot Now(Pool pool) { return TheGate(pool).Now(); }

}  // namespace tandem::admission
