// The host memory budget (tandem.memory.host.limit): every owned Buffer counts its bytes
// against one process-wide limit, and an allocation past it fails with MemoryLimitExceeded, a
// std::bad_alloc whose message names the setting and the sizes, instead of growing until the
// kernel kills the process. The default is 80 % of the machine's memory (or of the cgroup's
// limit when that is lower). Untracked allocations (small vectors, the allocator's free lists,
// pinned staging, the CUDA driver) are not counted, so the budget also watches what the process
// really holds: every 256 MiB of reservations it reads the resident set, and a reservation that
// would take it past 90 % of the machine (after the allocator gave back what it could) fails
// like one past the budget, so that the operators' spilling and retries take over before the
// kernel's out-of-memory killer does.
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

// For memory the budget does not count (the Parquet decoders' buffers): throws
// MemoryLimitExceeded when `bytes` more would take the resident set past 90 % of the machine.
void GuardResident(int64_t bytes);

// What the process holds in memory now (the resident set), and the most it held since the last
// ResetResidentPeak (the kernel's high-water mark; both 0 where /proc cannot be read).
int64_t ResidentBytes();
int64_t ResidentPeak();
// Restarts the high-water mark at the current resident set (the command line does so before
// each statement, to report each statement's peak). A library embedded in another process (the
// JVM) leaves its host's counters alone.
void ResetResidentPeak();
// The memory of the machine, or of the cgroup's limit when that is lower.
int64_t MachineBytes();

}  // namespace tandem::host_memory
