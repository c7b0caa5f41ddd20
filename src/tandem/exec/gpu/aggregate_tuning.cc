// The GPU hash aggregate's knobs (aggregate_tuning.h): process-wide atomics.
#include "tandem/exec/gpu/aggregate_tuning.h"

#include <atomic>

namespace tandem::gpu {
namespace {

std::atomic<int64_t> few_groups_limit{kDefaultAggregateFewGroupsLimit};
std::atomic<int64_t> few_groups_folds{0};

}  // namespace

void SetAggregateFewGroupsLimit(int64_t limit) {
  few_groups_limit.store(limit < 0 ? 0 : limit, std::memory_order_relaxed);
}

int64_t AggregateFewGroupsLimit() { return few_groups_limit.load(std::memory_order_relaxed); }

int64_t AggregateFewGroupsFolds() { return few_groups_folds.load(std::memory_order_relaxed); }

void NoteAggregateFewGroupsFold() { few_groups_folds.fetch_add(1, std::memory_order_relaxed); }

}  // namespace tandem::gpu
