// CACHE TABLE's choice of tables to move off the GPU (see cached_table_moves.h).
#include "tandem/exec/cached_table_moves.h"

#include <algorithm>

#include "tandem/common/text.h"
#include "tandem/exec/cpu/operator_util.h"
#include "tandem/gpu/device_column.h"

namespace tandem {

std::vector<CachedTable*> TablesToMoveForRoom(int64_t bytes, const GpuRoom& room,
                                              const std::vector<CachedTable*>& on_device,
                                              std::string* why_not) {
  if (room.capacity <= 0) return {};
  int64_t cached_bytes = 0;
  for (const CachedTable* t : on_device) cached_bytes += t->bytes;
  const int64_t others = std::max<int64_t>(0, room.used - cached_bytes);
  if (bytes > room.capacity - others) {
    *why_not = "it takes " + FormatByteSize(bytes) + ", more than the GPU holds beside what is " +
               "not a cached table (" + FormatByteSize(room.capacity) + " less " +
               FormatByteSize(others) + "), so no cached table moved for it";
    return {};
  }
  const int64_t short_by = bytes - (room.capacity - room.used);
  std::vector<CachedTable*> chosen;
  int64_t freed = 0;
  for (CachedTable* t : on_device) {
    if (freed >= short_by) break;
    chosen.push_back(t);
    freed += t->bytes;
  }
  if (freed > room.host_room) {
    *why_not = "moving the " + std::to_string(chosen.size()) + " cached table(s) used longest " +
               "ago off the GPU to make room takes " + FormatByteSize(freed) +
               " of host memory, which has " +
               FormatByteSize(std::max<int64_t>(room.host_room, 0)) +
               " free under tandem.memory.host.limit";
    return {};
  }
  return chosen;
}

Status MoveCachedTableToHost(CachedTable* table, const gpu::Stream& stream) {
  Result<Table> host = gpu::ToHost(*table->device, stream);
  TANDEM_RETURN_NOT_OK(stream.Synchronize());
  TANDEM_RETURN_NOT_OK(host.status());
  table->bytes = cpu::opx::TableBytes(*host);
  table->host = std::make_shared<const Table>(std::move(host).value());
  table->device.reset();  // its buffers are freed on the stream
  return stream.Synchronize();
}

}  // namespace tandem
