// tandem.memory.gpu.limit: a bound on the device pool's use below what the pool was created with
// (the pool is sized once per process from tandem.memory.gpu.allocFraction; this bound can change
// with every query). An allocation that would pass it fails with OutOfMemory, as one past the
// pool's own limit does, so a small limit drives the same paths as a full GPU. Plain C++: the
// executor sets it, gpu/runtime.cu reads it.
#pragma once

#include <cstdint>

namespace tandem::gpu {

// 0: no bound beyond the pool's own.
void SetDeviceLimit(int64_t bytes);
int64_t DeviceLimit();

}  // namespace tandem::gpu
