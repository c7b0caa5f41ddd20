// The estimated peak of host memory a placed plan's run holds, from the placement's estimated
// output bytes of each node: what a query reserves to be admitted against the host budget
// (memory/admission.h, tandem.memory.host.limit). CPU operators run as pipelines
// (exec/cpu/pipeline.h): scans, filters, projections and join probes stream a batch at a time
// and hold nothing worth counting; what is held is the pipelines' sinks: a hash join's build side
// (its rows and table) while its probe runs, an aggregation's group table, the rows a sort or a
// window collects, a set operation's inputs, and the outputs of those breakers while what reads
// them runs. Rows a GPU part hands to the host (a DeviceToHost transition) are held like a
// breaker's output, and the query's result is held at the end. Scans hold nothing new (files
// stream a row group at a time, tables cached in host memory are held already). A sort under a
// LIMIT counts its whole input though it keeps only the first rows. An over-estimate only makes a
// query wait for others, never fail: the reservation is capped at the budget.
#pragma once

#include <cstdint>

#include "tandem/plan/logical_plan.h"

namespace tandem {

// `result_held`: the query's rows are collected in memory (false: a sink takes them as they come).
int64_t EstimatedHostPeakBytes(const PlanNode& plan, bool result_held = true);

}  // namespace tandem
