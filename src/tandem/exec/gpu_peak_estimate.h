// The estimated peak of GPU memory a placed plan's run allocates, from the placement's estimated
// output bytes of each node: what a query reserves to be admitted to the GPU
// (memory/admission.h). GPU operators run one at a time over whole device batches
// (executor.h), so at a GPU node its inputs (children that ran before it, in order) live with
// its output and its working memory: a hash join's table over its build side, an aggregation's
// group table, a sort's permutation and gathered copy, a Parquet scan's compressed pages.
// Parts of the plan separated by the CPU run one after another and do not add up. Scans of tables
// cached in GPU memory allocate nothing (`resident` says which). A source on a part's probe
// spine (filters, projections, the left side of joins, down from an aggregation or the part's
// top) larger than `slice_bytes` arrives in slices of that size (docs/gpu.md, GPU slices): it
// and the spine's outputs above it up to an aggregation count one slice's share.
#pragma once

#include <cstdint>
#include <functional>

#include "tandem/plan/logical_plan.h"

namespace tandem {

int64_t EstimatedGpuPeakBytes(const PlanNode& plan,
                              const std::function<bool(const PlanNode& scan)>& resident,
                              int64_t slice_bytes);

}  // namespace tandem
