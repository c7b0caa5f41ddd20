// Process-wide peaks of host and GPU memory use since the last window opened (peak_window.h).
#include "tandem/common/peak_window.h"

#include <algorithm>
#include <atomic>

namespace tandem::peak_window {
namespace {

std::atomic<int64_t> g_host_peak{0};
std::atomic<int64_t> g_device_peak{0};

void Raise(std::atomic<int64_t>& peak, int64_t value) {
  int64_t seen = peak.load(std::memory_order_relaxed);
  while (value > seen && !peak.compare_exchange_weak(seen, value, std::memory_order_relaxed)) {
  }
}

}  // namespace

void NoteHost(int64_t in_use) { Raise(g_host_peak, in_use); }
void NoteDevice(int64_t in_use) { Raise(g_device_peak, in_use); }

Window Open(int64_t host_in_use, int64_t device_in_use) {
  g_host_peak.store(host_in_use, std::memory_order_relaxed);
  g_device_peak.store(device_in_use, std::memory_order_relaxed);
  return Window{host_in_use, device_in_use};
}

int64_t HostRise(const Window& w) {
  return std::max<int64_t>(0, g_host_peak.load(std::memory_order_relaxed) - w.host_start);
}

int64_t DeviceRise(const Window& w) {
  return std::max<int64_t>(0, g_device_peak.load(std::memory_order_relaxed) - w.device_start);
}

}  // namespace tandem::peak_window
