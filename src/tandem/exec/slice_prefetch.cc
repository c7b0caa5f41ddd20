// SlicePrefetch (slice_prefetch.h): one slice made ahead on a thread and stream of its own.
#include "tandem/exec/slice_prefetch.h"

#include <chrono>
#include <utility>

#include "tandem/common/thread_pool.h"

namespace tandem::exec_detail {
namespace {

using Clock = std::chrono::steady_clock;

double MillisFrom(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// Runs make, turning an escaping exception into a Status.
Result<gpu::DeviceBatchPtr> MakeCatching(const SlicePrefetch::Make& make, int index,
                                         const gpu::Stream& stream) {
  Result<gpu::DeviceBatchPtr> out = Status::Internal("slice not made");
  const Status st = CallCatchingExceptions([&] {
    out = make(index, stream);
    return Status::OK();
  });
  if (!st.ok()) return st;
  return out;
}

}  // namespace

SlicePrefetch::SlicePrefetch(Make make, const gpu::Stream& main, const gpu::Stream* ahead)
    : make_(std::move(make)), main_(main), ahead_(ahead) {}

SlicePrefetch::~SlicePrefetch() { Stop(); }

bool SlicePrefetch::MakeAhead(int index) {
  if (ahead_ == nullptr || stopped_ || pending_.valid()) return false;
  pending_index_ = index;
  pending_ = std::async(std::launch::async, [this, index]() -> Result<gpu::DeviceBatchPtr> {
    const auto start = Clock::now();
    Result<gpu::DeviceBatchPtr> out = MakeCatching(make_, index, *ahead_);
    // Done on its stream before the main stream's kernels read it; its frees then go there, in
    // order after those kernels.
    const Status synced = ahead_->Synchronize();
    if (out.ok() && !synced.ok()) out = synced;
    if (out.ok()) {
      for (const gpu::DeviceColumnPtr& c : (*out)->columns) {
        c->validity.FreeOn(main_);
        c->values.FreeOn(main_);
        c->data.FreeOn(main_);
      }
    }
    pending_ms_ = MillisFrom(start);
    return out;
  });
  return true;
}

Result<gpu::DeviceBatchPtr> SlicePrefetch::Take(int index) {
  if (pending_.valid()) {
    const auto start = Clock::now();
    Result<gpu::DeviceBatchPtr> ahead = pending_.get();
    waited_ms_ += MillisFrom(start);
    make_ms_ += pending_ms_;
    if (pending_index_ == index) {
      if (ahead.ok()) {
        ++made_ahead_;
        return ahead;
      }
      // Out of GPU memory beside the slice that was running: made again below, alone.
      if (ahead.status().code() != StatusCode::kOutOfMemory) return ahead.status();
      stopped_ = true;
    }
  }
  const auto start = Clock::now();
  Result<gpu::DeviceBatchPtr> now = MakeCatching(make_, index, main_);
  make_ms_ += MillisFrom(start);
  return now;
}

void SlicePrefetch::Stop() {
  stopped_ = true;
  if (pending_.valid()) (void)pending_.get();
}

}  // namespace tandem::exec_detail
