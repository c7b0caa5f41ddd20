// Times the steps of a GPU operator for profiling on a machine without nsys: with the environment
// variable TANDEM_GPU_STEP_TIMES=1, Mark("step") waits for the stream and prints to stderr how
// long the work queued since the previous mark took, one line per step:
//   [gpu step] aggregate: filter flags 0.412 ms
// Off (the default) it does nothing, so it adds no synchronization to a normal run.
#pragma once

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <type_traits>

#include "tandem/gpu/runtime.h"

namespace tandem::gpu {

class StepTimer {
 public:
  StepTimer(const char* op, const Stream& stream) : op_(op), stream_(stream) {
    static const bool enabled = [] {
      const char* v = std::getenv("TANDEM_GPU_STEP_TIMES");
      return v != nullptr && v[0] != '\0' && v[0] != '0';
    }();
    on_ = enabled;
    if (on_) {
      (void)stream_.Synchronize();
      last_ = std::chrono::steady_clock::now();
    }
  }

  // `step` names the step: text, or a callable returning it, called only when on (so that a run
  // without the variable builds no strings: operators mark steps per batch).
  template <typename Step>
  void Mark(Step&& step) {
    if (!on_) return;
    std::string text;
    if constexpr (std::is_invocable_v<Step>) {
      text = step();
    } else {
      text = step;
    }
    (void)stream_.Synchronize();
    const auto now = std::chrono::steady_clock::now();
    std::fprintf(stderr, "[gpu step] %s: %s %.3f ms\n", op_, text.c_str(),
                 std::chrono::duration<double, std::milli>(now - last_).count());
    last_ = now;
  }

 private:
  const char* op_;
  const Stream& stream_;
  bool on_ = false;
  std::chrono::steady_clock::time_point last_;
};

}  // namespace tandem::gpu
