// Calling a UDF's CPU implementation on one batch, with every check between the engine and code
// it cannot trust: exceptions are caught at the boundary, an error status becomes the UDF's
// message, and the result must have the declared type, one value per row, result buffers the
// engine allocated (large enough), a null count that matches its validity bitmap, and
// well-formed string offsets. Any failure is an Invalid status naming the function:
//   "UDF redact threw: <what>", "UDF f returned 3 rows for a batch of 4",
//   "UDF f returned int64, but it is declared to return float64".
#pragma once

#include <vector>

#include "tandem/column/column.h"
#include "tandem/common/status.h"
#include "tandem/udf/function.h"

namespace tandem::udf {

// `args` are columns of exactly `rows` values of f.arg_types (the caller casts and broadcasts).
Result<ColumnPtr> CallCpu(const UdfFunction& f, const std::vector<ColumnPtr>& args, int64_t rows);

}  // namespace tandem::udf
