// A compiled GPU expression program (program.h) uploaded for one batch: its code, constants and
// string pool in device memory, the views of the batch's columns it reads, its error status, and
// the interpreter's parameters pointing at them. The evaluator (evaluate.cu) launches these; a
// fused aggregate kernel (exec/gpu/fused_aggregate_gen.h) runs several in one pass.
#pragma once

#include "tandem/exec/exec_context.h"
#include "tandem/expr/expr.h"
#include "tandem/expr/gpu/interpreter.cuh"
#include "tandem/expr/gpu/program.h"
#include "tandem/gpu/device_column.h"

namespace tandem::gpu::internal {

struct DeviceProgram {
  Program program;
  DeviceBuffer code, consts, pool, cols, status;
  InterpParams params{};
  EvalContext eval;  // which kernels to launch (interpreted or generated)
};

// Compiles `expr` (a selection program with `selection`) and uploads it with the views of the
// columns of `batch` it reads; Unsupported when the GPU cannot evaluate it.
Result<DeviceProgram> PrepareProgram(const Expr& expr, bool selection, const DeviceBatch& batch,
                                     const EvalContext& eval, const Stream& stream);

}  // namespace tandem::gpu::internal
