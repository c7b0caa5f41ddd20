// Window functions over more rows than the host budget (tandem.memory.host.limit) lets them hold:
// the rows are written to disk in partitions by a hash of the PARTITION BY keys that every window
// call of the node shares (exec/cpu/partition_sink.h), so each window partition lies whole in one
// file, and the node runs over one file at a time. Its output is the files' outputs one after
// another (a window's output has no order of its own). A node with a call that has no PARTITION
// BY, or whose calls share no key, cannot be split this way.
#pragma once

#include <vector>

#include "tandem/exec/cpu/spilling_pipeline.h"

namespace tandem::cpu {

// The PARTITION BY expressions every window call of `window` has (empty: it cannot be split).
std::vector<const Expr*> SharedPartitionKeys(const PlanNode& window);

// The window node over each partition of `parts` (rows of its input's schema) in turn, each
// partition read, computed and released before the next; `retry` runs each partition again
// where any operator would after running out of memory.
Result<Table> WindowOverPartitions(const PlanNode& window, SpillPartitions& parts, ExecContext& ctx,
                                   const HostRetry& retry);

}  // namespace tandem::cpu
