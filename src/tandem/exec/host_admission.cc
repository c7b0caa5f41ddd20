// AdmitToHost (see host_admission.h).
#include "tandem/exec/host_admission.h"

#include <algorithm>

#include "tandem/exec/host_peak_estimate.h"
#include "tandem/memory/host_memory.h"

namespace tandem {

Result<std::optional<admission::Ticket>> AdmitToHost(const PlanNode& plan, ExecContext& ctx,
                                                     bool result_held) {
  if (!ctx.host_admission) return std::optional<admission::Ticket>();
  int64_t cached = 0;
  if (ctx.table_cache) {
    for (const auto& [source, t] : ctx.table_cache->tables()) cached += t.device ? 0 : t.bytes;
  }
  admission::Request request;
  request.pool = admission::Pool::kHost;
  request.estimated_bytes = EstimatedHostPeakBytes(plan, result_held);
  request.capacity_bytes = std::max<int64_t>(1, host_memory::Limit() - cached);
  request.cancelled = ctx.cancelled;
  TANDEM_ASSIGN_OR_RAISE(admission::Ticket ticket, admission::Admit(request));
  ctx.host_estimated_bytes = request.estimated_bytes;
  ctx.host_admission_wait_ms = ticket.waited_ms();
  ctx.host_admission_others = ticket.others_at_entry();
  return std::optional<admission::Ticket>(std::move(ticket));
}

}  // namespace tandem
