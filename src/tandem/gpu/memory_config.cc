// DeviceMemoryConfigFrom (memory_config.h).
#include "tandem/gpu/memory_config.h"

namespace tandem::gpu {

DeviceMemoryConfig DeviceMemoryConfigFrom(const Config& config) {
  DeviceMemoryConfig memory;
  memory.alloc_fraction = config.GetDouble(config_keys::kGpuAllocFraction);
  memory.reserve_bytes = config.GetInt(config_keys::kGpuReserve);
  memory.pinned_pool_bytes = config.GetInt(config_keys::kPinnedPoolSize);
  memory.pinned_pool_max_bytes = config.GetInt(config_keys::kPinnedPoolMax);
  return memory;
}

}  // namespace tandem::gpu
