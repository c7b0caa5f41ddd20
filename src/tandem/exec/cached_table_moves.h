// Tables cached on the GPU moving to host memory: which ones CACHE TABLE moves to make room for a
// new one (the decision alone, from the figures the session reads: the GPU's capacity and use,
// the host's room, so that it is tested without a GPU), and the move itself, shared by CACHE
// TABLE (sql/session.cc) and a query that runs out of GPU memory (exec/executor.cc).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tandem/common/status.h"
#include "tandem/exec/exec_context.h"
#include "tandem/gpu/runtime.h"

namespace tandem {

struct GpuRoom {
  int64_t capacity = 0;  // what the GPU may hold (the pool, or tandem.memory.gpu.limit); 0: unknown
  int64_t used = 0;      // what it holds now, cached tables included
  int64_t host_room = 0;  // what host memory has free under tandem.memory.host.limit
};

// Of the tables cached on the GPU (`on_device`, least recently used first), those whose move to
// host memory frees room for `bytes` more (the new table's size on the GPU). Empty with `why_not`
// set when even moving every one would not (TPC-H lineitem at SF100, 76 GiB, on an 80 GB GPU:
// moving the seven other tables out left them and lineitem in host memory, and the host without
// room for the queries' own work), or when host memory cannot take them; empty without it when
// the figures cannot tell (an unknown capacity, or room shown already: the copy failed for
// another reason, and the caller moves tables one at a time).
std::vector<CachedTable*> TablesToMoveForRoom(int64_t bytes, const GpuRoom& room,
                                              const std::vector<CachedTable*>& on_device,
                                              std::string* why_not);

// Moves `table`'s columns from GPU memory to host memory, after the work ordered on `stream`
// before it (the frees of a failed part). On failure (OutOfMemory when host memory cannot take
// them) the table stays on the GPU, unchanged.
Status MoveCachedTableToHost(CachedTable* table, const gpu::Stream& stream);

}  // namespace tandem
