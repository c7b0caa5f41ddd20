// Window function evaluation over one WindowLayout (window_frames.h). Every column here is in
// the layout's sorted order: args[i] are the call's arguments gathered in that order, and the
// result is too. Ranking and navigation functions are in window_functions.cc, aggregates over
// frames (prefix sums, running or segment-tree MIN/MAX) in window_aggregates.cc.
#pragma once

#include <vector>

#include "tandem/column/column.h"
#include "tandem/column/column_builder.h"
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

// SUM or AVG (call.aggregate) of `count` non-NULL integer or decimal values of `arg_type` whose
// unscaled sum is `sum`, appended to `out` as call.type (AVG rounded half away from zero); an
// error when it overflows that type.
Status AppendExactSumOrAverage(const WindowCall& call, const DataType& arg_type, int128_t sum,
                               int64_t count, ColumnBuilder* out);
// A float frame's sum: NaN when it holds a NaN or both infinities, +-inf when it holds only that
// infinity, else the sum of its finite values.
long double FloatFrameValue(long double finite_sum, bool nan, bool pinf, bool ninf);
// Row i as an exact integer (integers, unscaled decimals, dates, timestamps) or as a float.
int128_t WindowExactValue(const Column& c, int64_t i);
long double WindowFloatValue(const Column& c, int64_t i);

// A column of the given integer or float64 type from int64 values.
ColumnPtr WindowIntColumn(const DataType& type, const std::vector<int64_t>& values);
ColumnPtr WindowDoubleColumn(const std::vector<double>& values);

}  // namespace tandem::cpu
