// A query's admission against the host budget (tandem.memory.host.admission): before it runs, a
// query reserves its estimated peak of host memory (exec/host_peak_estimate.h) at the host's gate
// (memory/admission.h), so that queries and Spark tasks of one process that would together pass
// tandem.memory.host.limit take turns instead of all spilling at once. What the gate may hand
// out is the budget less what tables cached in host memory hold. The ticket is held until the
// query ends; ExecContext records the estimate, the wait and the queries that ran beside it.
#pragma once

#include <optional>

#include "tandem/common/status.h"
#include "tandem/exec/exec_context.h"
#include "tandem/memory/admission.h"
#include "tandem/plan/logical_plan.h"

namespace tandem {

// An empty ticket when the setting is off; an error only when the query was cancelled waiting.
// `result_held`: the query's rows are collected in memory (false: they go to a sink, a file or a
// spool, as they are made).
Result<std::optional<admission::Ticket>> AdmitToHost(const PlanNode& plan, ExecContext& ctx,
                                                     bool result_held);

}  // namespace tandem
