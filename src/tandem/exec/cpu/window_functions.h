// Window function evaluation over one WindowLayout (window_frames.h). Every column here is in
// the layout's sorted order: args[i] are the call's arguments gathered in that order, and the
// result is too. Ranking and navigation functions are in window_functions.cc, aggregates over
// frames (prefix sums, running or segment-tree MIN/MAX) in window_aggregates.cc.
#pragma once

#include <vector>

#include "tandem/column/column.h"
#include "tandem/exec/cpu/window_frames.h"
#include "tandem/exec/exec_context.h"
#include "tandem/expr/aggregate.h"

namespace tandem::cpu {

Result<ColumnPtr> ComputeWindowFunction(const WindowCall& call, const WindowLayout& layout,
                                        const std::vector<ColumnPtr>& args,
                                        const std::vector<int64_t>& frame_start,
                                        const std::vector<int64_t>& frame_end);

Result<ColumnPtr> ComputeWindowAggregate(const WindowCall& call, const WindowLayout& layout,
                                         const std::vector<ColumnPtr>& args,
                                         const std::vector<int64_t>& frame_start,
                                         const std::vector<int64_t>& frame_end);

// A column of the given integer or float64 type from int64 values.
ColumnPtr WindowIntColumn(const DataType& type, const std::vector<int64_t>& values);
ColumnPtr WindowDoubleColumn(const std::vector<double>& values);

}  // namespace tandem::cpu
