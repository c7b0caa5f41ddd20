// The device and pinned memory settings of a session (tandem.memory.*), read in one place for
// every caller that starts the GPU runtime (sql, calibrate, a Session).
#pragma once

#include "tandem/common/config.h"
#include "tandem/gpu/runtime.h"

namespace tandem::gpu {

DeviceMemoryConfig DeviceMemoryConfigFrom(const Config& config);

}  // namespace tandem::gpu
