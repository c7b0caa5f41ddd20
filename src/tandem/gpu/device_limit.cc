// tandem.memory.gpu.limit (device_limit.h).
#include "tandem/gpu/device_limit.h"

#include <atomic>

namespace tandem::gpu {
namespace {
std::atomic<int64_t> g_limit{0};
}  // namespace

void SetDeviceLimit(int64_t bytes) { g_limit.store(bytes > 0 ? bytes : 0); }
int64_t DeviceLimit() { return g_limit.load(std::memory_order_relaxed); }

}  // namespace tandem::gpu
