// Process-wide counters behind query_progress.h.
#include "tandem/common/query_progress.h"

#include <atomic>

namespace tandem::query_progress {
namespace {

std::atomic<int64_t> g_planned{0};
std::atomic<int64_t> g_done{0};

}  // namespace

void Begin(int64_t planned) {
  g_done.store(0, std::memory_order_relaxed);
  g_planned.store(planned, std::memory_order_relaxed);
}

void AddDone(int64_t units) { g_done.fetch_add(units, std::memory_order_relaxed); }

Snapshot Get() {
  return {g_planned.load(std::memory_order_relaxed), g_done.load(std::memory_order_relaxed)};
}

}  // namespace tandem::query_progress
