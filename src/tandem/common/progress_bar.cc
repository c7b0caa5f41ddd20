// ProgressBar implementation: throttled redraws with "\r" and erase-to-end-of-line on stderr.
#include "tandem/common/progress_bar.h"

#include <unistd.h>

#include <cstdio>

namespace tandem {
namespace {

constexpr int64_t kRedrawIntervalNs = 100'000'000;

std::string FormatRate(double per_second) {
  char buf[32];
  if (per_second >= 1e9) {
    std::snprintf(buf, sizeof(buf), "%.1fG", per_second / 1e9);
  } else if (per_second >= 1e6) {
    std::snprintf(buf, sizeof(buf), "%.1fM", per_second / 1e6);
  } else if (per_second >= 1e3) {
    std::snprintf(buf, sizeof(buf), "%.1fK", per_second / 1e3);
  } else {
    std::snprintf(buf, sizeof(buf), "%.0f", per_second);
  }
  return buf;
}

}  // namespace

ProgressBar::ProgressBar(std::string label, int64_t total, std::string unit, bool enabled)
    : label_(std::move(label)),
      total_(total),
      unit_(std::move(unit)),
      enabled_(enabled),
      start_(std::chrono::steady_clock::now()) {}

ProgressBar::~ProgressBar() { Finish(); }

bool ProgressBar::StderrIsTerminal() { return isatty(STDERR_FILENO) == 1; }

std::string ProgressBar::Render(const std::string& label, int64_t done, int64_t total,
                                double units_per_second, const std::string& unit, int width) {
  double fraction = total > 0 ? static_cast<double>(done) / static_cast<double>(total) : 1.0;
  if (fraction > 1) fraction = 1;
  if (fraction < 0) fraction = 0;
  const int filled = static_cast<int>(fraction * width);
  std::string line = label + "  [";
  line.append(static_cast<size_t>(filled), '#');
  line.append(static_cast<size_t>(width - filled), ' ');
  char tail[64];
  std::snprintf(tail, sizeof(tail), "] %3d%%  ", static_cast<int>(fraction * 100));
  line += tail;
  line += FormatRate(units_per_second) + " " + unit + "/s";
  return line;
}

void ProgressBar::Advance(int64_t units) {
  done_.fetch_add(units, std::memory_order_relaxed);
  if (!enabled_) return;
  const int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                          std::chrono::steady_clock::now() - start_)
                          .count();
  int64_t last = last_draw_ns_.load(std::memory_order_relaxed);
  if (now - last < kRedrawIntervalNs) return;
  if (!last_draw_ns_.compare_exchange_strong(last, now)) return;  // another thread draws
  Draw();
}

void ProgressBar::Finish() {
  std::lock_guard<std::mutex> lock(draw_mutex_);
  if (finished_) return;
  finished_ = true;
  if (!enabled_) return;
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const int64_t done = done_.load();
  // The last frame always shows a full bar: `total` may have been an estimate.
  const std::string line =
      Render(label_, 1, 1, seconds > 0 ? static_cast<double>(done) / seconds : 0, unit_);
  std::fprintf(stderr, "\r%s\x1b[K\n", line.c_str());
  std::fflush(stderr);
}

void ProgressBar::Draw() {
  std::unique_lock<std::mutex> lock(draw_mutex_, std::try_to_lock);
  if (!lock.owns_lock() || finished_) return;
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const int64_t done = done_.load();
  const std::string line =
      Render(label_, done, total_, seconds > 0 ? static_cast<double>(done) / seconds : 0, unit_);
  std::fprintf(stderr, "\r%s\x1b[K", line.c_str());
  std::fflush(stderr);
}

}  // namespace tandem
