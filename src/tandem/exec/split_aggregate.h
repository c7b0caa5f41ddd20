// An aggregation split in two so that its input can arrive in chunks (GPU chunks, docs/gpu.md):
// `partial` runs over each chunk (the node's own keys, filter and input, with aggregates whose
// results combine: count, sum, min, max, bool_and/or, any_value, and avg as a sum and a count);
// `merge` groups the partial rows of every chunk by the keys and combines them; `finish`, a
// projection over `merge`, gives the node's own output columns in its own types (avg divides
// there exactly as the one-pass aggregation does). Aggregations that do not combine this way
// (DISTINCT, grouping sets, variance and standard deviation) are not split.
#pragma once

#include <optional>
#include <string>

#include "tandem/plan/logical_plan.h"

namespace tandem {

struct SplitAggregate {
  PlanPtr partial;  // the original node's children, device and placement
  PlanPtr merge;    // its input: a placeholder with the partial schema
  PlanPtr finish;   // over merge; the original node's schema
};

// The split of `aggregate`, or nullopt with `why` saying what does not combine.
// `distinct_key`: the chunks are partitions of the input by this expression (equal values in one
// chunk only), so DISTINCT calls whose argument it is combine too: count, sum and avg of the
// distinct values of each chunk add up (a global aggregation spilled by its DISTINCT argument,
// exec/cpu/spilling_pipeline.h).
std::optional<SplitAggregate> SplitForChunks(const PlanNode& aggregate, std::string* why,
                                             const Expr* distinct_key = nullptr);

}  // namespace tandem
