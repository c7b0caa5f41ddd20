// Calling a UDF's GPU implementation on one device batch, with the same checks as CallCpu
// (call_cpu.h) between the engine and code it cannot trust: exceptions are caught at the
// boundary, an error status becomes the UDF's message, and the result must have the declared
// type, one value per row, buffers the engine allocated through ctx->alloc (large enough), a null
// count that matches its validity bitmap, booleans of 0 or 1 and well-formed string offsets (the
// last two checked by a kernel). Failures are Invalid statuses naming the function, in the CPU
// path's words, so both devices report a broken UDF alike.
#pragma once

#include <vector>

#include "tandem/common/status.h"
#include "tandem/gpu/device_column.h"
#include "tandem/udf/function.h"

namespace tandem::udf {

// `args` are device columns of exactly `rows` values of f.arg_types. Runs on `stream` and
// synchronizes it before checking the result. Unsupported in builds without CUDA.
Result<gpu::DeviceColumnPtr> CallGpu(const UdfFunction& f,
                                     const std::vector<gpu::DeviceColumnPtr>& args, int64_t rows,
                                     const gpu::Stream& stream);

}  // namespace tandem::udf
