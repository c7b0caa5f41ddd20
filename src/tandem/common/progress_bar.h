// ProgressBar: a one-line progress display on stderr for long commands, e.g.
//   "lineitem  [#####     ]  52%  3.1M rows/s"
// It draws only when stderr is a terminal (so logs and pipes stay clean), redraws at most every
// 100 ms, and may be advanced from many threads at once.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>

namespace tandem {

class ProgressBar {
 public:
  // `total` units make 100%; `unit` names them in the rate ("rows" -> "3.1M rows/s").
  ProgressBar(std::string label, int64_t total, std::string unit = "rows",
              bool enabled = StderrIsTerminal());
  ~ProgressBar();
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  // Adds `units` of progress (thread-safe); redraws if the last draw is 100 ms old.
  void Advance(int64_t units);
  // Draws the final state and ends the line. Called by the destructor if not called before.
  void Finish();

  int64_t done() const { return done_.load(std::memory_order_relaxed); }
  bool enabled() const { return enabled_; }

  static bool StderrIsTerminal();
  // The text of one frame (no carriage return): label, a `width`-cell bar, percent (capped at
  // 100) and rate, e.g. "lineitem  [#####     ]  52%  3.1M rows/s".
  static std::string Render(const std::string& label, int64_t done, int64_t total,
                            double units_per_second, const std::string& unit, int width = 30);

 private:
  void Draw();

  std::string label_;
  int64_t total_;
  std::string unit_;
  bool enabled_;
  bool finished_ = false;
  std::chrono::steady_clock::time_point start_;
  std::atomic<int64_t> done_{0};
  std::atomic<int64_t> last_draw_ns_{0};
  std::mutex draw_mutex_;
};

}  // namespace tandem
