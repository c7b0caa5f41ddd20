// Window rows on disk that do not fit in memory together, even as one hash partition of the
// window's PARTITION BY keys (exec/cpu/window_spill.h): a key that holds most rows (skew), or a
// partition the hash could not split. The rows are sorted through disk by the calls' shared
// PARTITION BY keys (and, when every call has those keys and one ORDER BY, by it next), then
// taken in that order: window partitions that fit are gathered a group at a time and computed by
// the in-memory Window; a partition larger than a group is computed in ordered chunks like a
// window over one partition (exec/cpu/ordered_window.h), its rows read twice from the sorted file
// when a call needs every row first. A large partition whose calls cannot be computed in chunks
// (differing ORDER BYs, RANGE frames with offsets, ...) fails with the budget's error.
#pragma once

#include <functional>

#include "tandem/column/table.h"
#include "tandem/exec/exec_context.h"
#include "tandem/memory/spill_file.h"
#include "tandem/plan/logical_plan.h"

namespace tandem::cpu {

// The window over `rows` (of its input's schema, FinishWriting done), each part of its output
// handed to `emit` as it is made; *large_partitions: how many were computed in chunks,
// *spilled_bytes: what the sort wrote.
Status WindowOverSortedRows(const PlanNode& window, const SpillFile& rows, ExecContext& ctx,
                            const std::function<Status(Table)>& emit, int* large_partitions,
                            int64_t* spilled_bytes);

}  // namespace tandem::cpu
