// Peak memory of one operator: the host budget (memory/host_memory.h) and the GPU pool
// (gpu/runtime.h) report every new high of their use here, and the executor opens a window
// when an operator starts and reads, when it ends, how far above its starting use each went.
// Windows are process-wide and do not nest: the executor runs one operator of a query at a time
// (its inputs are done before it starts). With several queries or Spark tasks at once in one
// process, a window also sees the others' memory: EXPLAIN ANALYZE says "peak" of the process.
#pragma once

#include <cstdint>

namespace tandem::peak_window {

// Called by the allocators after their use grew to `in_use` bytes.
void NoteHost(int64_t in_use);
void NoteDevice(int64_t in_use);

struct Window {
  int64_t host_start = 0, device_start = 0;
};
// Opens a window at the current use of each (its peaks restart there).
Window Open(int64_t host_in_use, int64_t device_in_use);
// How far each use rose above its start since the window opened (0 if it never did).
int64_t HostRise(const Window& w);
int64_t DeviceRise(const Window& w);

}  // namespace tandem::peak_window
