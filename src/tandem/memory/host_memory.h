// The host memory budget (tandem.memory.host.limit): every owned Buffer counts its bytes
// against one process-wide limit, and an allocation past it fails with MemoryLimitExceeded, a
// std::bad_alloc whose message names the setting and the sizes, instead of growing until the
// kernel kills the process. The default is 80 % of the machine's memory (or of the cgroup's
// limit when that is lower). Untracked allocations (small vectors, hash tables) are not counted.
#pragma once

#include <cstdint>

#include "tandem/common/out_of_memory.h"

namespace tandem::host_memory {

// 0 (the setting's default): 80 % of physical memory or of the cgroup limit.
void SetLimit(int64_t bytes);
int64_t Limit();
int64_t InUse();
// The most InUse() has been since the process started (all queries and tasks together).
int64_t Peak();
// Counts `bytes` or throws MemoryLimitExceeded (nothing counted then).
void Reserve(int64_t bytes);
void Release(int64_t bytes);

}  // namespace tandem::host_memory
