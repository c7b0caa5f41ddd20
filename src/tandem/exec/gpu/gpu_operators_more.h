// More GPU operators, in the pattern of gpu_operators.h (which they extend; kept apart so that
// header stays stable): set operations, window functions, expansions and hash partitions, each the
// twin of its CPU operator (exec/cpu/set_operation.cc, exec/cpu/window.cc) with a plain C++ support
// check.
#pragma once

#include <string>

#include "tandem/exec/gpu/gpu_operators.h"

namespace tandem::gpu {

// Set operation (kSetOp): UNION [ALL], INTERSECT [ALL], EXCEPT [ALL] with NULLs equal and floats
// compared as the CPU does (-0.0 equals 0.0, every NaN equals every NaN). UNION ALL keeps the
// CPU's order (left rows, then right rows); the others emit each distinct row (the first of its
// rows in left-then-right order, like the CPU) in an order of their own, as the CPU does too.
std::string SetOperationUnsupported(const PlanNode& node);
Result<DeviceBatchPtr> SetOperation(const PlanNode& node, const DeviceBatch& left,
                                    const DeviceBatch& right, GpuContext& ctx);

// Window (kWindow): the input rows in the sorted order of the first (PARTITION BY, ORDER BY)
// specification, plus one column per call, exactly as the CPU twin orders them. ROW_NUMBER,
// RANK, DENSE_RANK, PERCENT_RANK, CUME_DIST, LAG, LEAD, FIRST_VALUE, LAST_VALUE, and COUNT(*),
// COUNT, SUM, AVG, MIN, MAX over ROWS frames and RANGE frames without offsets.
std::string WindowUnsupported(const PlanNode& node);
Result<DeviceBatchPtr> Window(const PlanNode& node, const DeviceBatch& input, GpuContext& ctx);

// Expand (kExpand): every input row once per projection, as the CPU twin; the projections'
// rows follow each other (the CPU interleaves them by morsel: the same multiset of rows).
std::string ExpandUnsupported(const PlanNode& node);
Result<DeviceBatchPtr> Expand(const PlanNode& node, const DeviceBatch& input, GpuContext& ctx);

// The rows of `batch` in hash partition `part` of `parts` by its column `key_column` (a fixed,
// float or string column; NULLs in partition 0), in their order: how a GPU part runs in hash
// partitions (exec/hash_partition_plan.h). Equal keys of one type share a partition.
Result<DeviceBatchPtr> HashPartitionRows(const DeviceBatch& batch, int key_column, int parts,
                                         int part, const Stream& stream);

}  // namespace tandem::gpu
