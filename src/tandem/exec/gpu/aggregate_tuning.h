// Knobs of the GPU hash aggregate for benchmarks and tests (plain C++, every build): the largest
// group count that takes the few-groups path (per-warp shared-memory accumulation, see
// aggregate_few_groups.cuh) and how many accumulations took it. Production code leaves the
// limit at its default; a benchmark sets 0 to time the general path on the same data.
#pragma once

#include <cstdint>

namespace tandem::gpu {

// 128 groups keep the largest per-group partial (32 bytes) of 8 warps within 32 KiB per block.
constexpr int64_t kDefaultAggregateFewGroupsLimit = 128;

// Aggregations with at most `limit` groups take the few-groups path; 0 turns it off.
void SetAggregateFewGroupsLimit(int64_t limit);
int64_t AggregateFewGroupsLimit();

// Accumulation kernels launched on the few-groups path since the process started (tests check
// that their cases take it).
int64_t AggregateFewGroupsFolds();
void NoteAggregateFewGroupsFold();

}  // namespace tandem::gpu
