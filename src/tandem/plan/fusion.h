// Operator fusion: adjacent plan nodes that run as one operator. The placement planner prices a
// fused pair as one unit and the executor runs it as one, both from these rules:
// - TopN: a Limit with a row count directly over a Sort. One placement decision; one operator
//   (a partial sort keeping the first rows) where both ended on the same device.
// - Filtered aggregation: an Aggregate directly over a Filter on the same device. The filter runs
//   inside the aggregation: rows are aggregated where they lie, with no filtered copy.
// - Filtered scan: a Filter directly over a scan that reads Parquet files on the CPU. Each row
//   group is filtered as soon as it is decoded, while it is still in cache.
#pragma once

#include <functional>

#include "tandem/plan/logical_plan.h"

namespace tandem::plan {

// A Limit with a row count over a Sort, whatever their devices: one placement decision.
bool IsLimitOverSort(const PlanNode& limit);
// IsLimitOverSort with both on the same device: one TopN operator.
bool IsTopN(const PlanNode& limit);
// An Aggregate over a Filter (with a predicate) on the same device.
bool IsFilteredAggregate(const PlanNode& aggregate);
// A Filter (with a predicate) over a scan of Parquet files for which `reads_files` holds (the
// scan reads its files on the CPU: not a cached table, not on the GPU).
bool IsFilterOverFileScan(const PlanNode& filter,
                          const std::function<bool(const PlanNode& scan)>& reads_files);

}  // namespace tandem::plan
