// A GPU part's slices one ahead (exec/gpu_slices.cc): while the query's stream runs the part
// over slice i, another thread makes slice i + 1's input (reads and decodes its row groups, or
// uploads its rows from host memory) on a stream of its own, so that the host's work and the
// copies overlap the kernels instead of waiting for them. The caller decides when there is room
// on the GPU for a second slice's input; a slice made ahead that runs out of GPU memory is made
// again on the query's stream once the running slice is done.
#pragma once

#include <functional>
#include <future>

#include "tandem/common/status.h"
#include "tandem/gpu/device_column.h"

namespace tandem::exec_detail {

class SlicePrefetch {
 public:
  // Makes slice `index`'s input with its work queued on `stream`.
  using Make = std::function<Result<gpu::DeviceBatchPtr>(int index, const gpu::Stream& stream)>;

  // `main`: the query's stream, whose kernels read the slices; `ahead`: the stream slices made
  // ahead are made on (null: none is made ahead). Both must outlive the slices' buffers.
  SlicePrefetch(Make make, const gpu::Stream& main, const gpu::Stream* ahead);
  ~SlicePrefetch();  // waits for a slice still being made ahead
  SlicePrefetch(const SlicePrefetch&) = delete;
  SlicePrefetch& operator=(const SlicePrefetch&) = delete;

  // Slice `index`'s input: the one made ahead when it is that one (waiting for it to be done),
  // else made now on the main stream. Its buffers are freed on the main stream.
  Result<gpu::DeviceBatchPtr> Take(int index);
  // Starts making slice `index` on another thread; false when none is made ahead (no stream for
  // it, or stopped).
  bool MakeAhead(int index);
  // Whether a slice is being made (or held) ahead now.
  bool Ahead() const { return pending_.valid(); }
  // Waits for the slice being made ahead, drops it, and makes none ahead from now on.
  void Stop();

  int made_ahead() const { return made_ahead_; }   // slices taken from ahead
  double waited_ms() const { return waited_ms_; }  // the caller's time waiting for them
  double make_ms() const { return make_ms_; }      // every slice's making, ahead or not, summed

 private:
  Make make_;
  const gpu::Stream& main_;
  const gpu::Stream* ahead_;
  bool stopped_ = false;
  std::future<Result<gpu::DeviceBatchPtr>> pending_;
  int pending_index_ = -1;
  double pending_ms_ = 0;  // written by the thread making it, read after the future is ready
  int made_ahead_ = 0;
  double waited_ms_ = 0;
  double make_ms_ = 0;
};

}  // namespace tandem::exec_detail
