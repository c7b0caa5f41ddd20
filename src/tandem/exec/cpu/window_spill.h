// Window functions over more rows than the host budget (tandem.memory.host.limit) lets them hold:
// the rows are written to disk in partitions by a hash of PARTITION BY keys (exec/cpu/
// partition_sink.h), so each window partition lies whole in one file, and the window runs over
// one file at a time. Its output is the files' outputs one after another (a window's output has
// no order of its own).
//
// When every call of the node shares a key, one pass does it. When the calls share none
// (PARTITION BY a for some, PARTITION BY b for others), the node runs as a stack of windows, one
// per group of calls that share a key: each step's output, its input's rows with the group's
// columns added, is partitioned on disk by the next group's keys, and the last step's columns are
// put back in the node's order. A call with no PARTITION BY (one partition of every row) cannot
// be split either way.
#pragma once

#include <functional>
#include <vector>

#include "tandem/exec/cpu/spilling_pipeline.h"

namespace tandem::cpu {

// The PARTITION BY expressions every window call of `window` has (empty: it cannot be split).
std::vector<const Expr*> SharedPartitionKeys(const PlanNode& window);

// The steps that compute `window` partition by partition: window nodes over each other, the first
// over `window`'s input, each with a group of its calls that share a PARTITION BY key (in call
// order, each call in the first group it shares a key with). One step when every call shares a
// key: `window` itself. None when a call has no PARTITION BY.
struct WindowSteps {
  std::vector<PlanPtr> steps;  // steps[0] reads window's input; steps[i + 1] reads steps[i]
  // Column c of the window's output is column output_columns[c] of the last step's.
  std::vector<int> output_columns;
};
WindowSteps SplitByPartitionKeys(const PlanNode& window);

// Partitions on disk that did not fit whole (exec/cpu/window_large_partitions.h): files sorted
// by their PARTITION BY keys, and window partitions among them computed in ordered chunks.
struct WindowPartitionCounts {
  int sorted_files = 0;
  int large_partitions = 0;
  int64_t spilled_bytes = 0;  // their sorted runs and sorted rows
};

// The window node over each partition of `parts` (rows of its input's schema) in turn, each
// partition read, computed and released before the next, its output handed to `emit`; `retry`
// runs each partition again where any operator would after running out of memory, and one that
// still does not fit is sorted through disk by its keys and walked in that order.
Status WindowOverPartitions(const PlanNode& window, SpillPartitions& parts, ExecContext& ctx,
                            const HostRetry& retry, const std::function<Status(Table)>& emit,
                            WindowPartitionCounts* counts);

}  // namespace tandem::cpu
