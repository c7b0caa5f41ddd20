// Kernels generated for one compiled expression (program.h) and compiled at run time with NVRTC
// (gpu/jit): the interpreter's loop over instructions is unrolled into straight-line code, one
// call of the interpreter's own function for that opcode (ExecOp<op>, interpreter.cuh) per
// instruction with the instruction a compile-time constant, so the compiler sees only the
// opcodes used, folds their operands and holds the value stack in registers. Values, NULLs and
// errors are the interpreter's by construction: the same functions run, the same row loop stores
// the results (eval_rows.cuh). Jumps become gotos. Plain C++: the source is generated (and tested)
// in every build.
#pragma once

#include <string>

#include "tandem/expr/gpu/program.h"
#include "tandem/gpu/jit/kernel_cache.h"

namespace tandem::gpu::internal {

// The name of every generated expression kernel (one per module).
inline constexpr const char* kGeneratedKernelName = "tandem_eval";

// The source of the kernel for `program` (what tells two programs' kernels apart).
std::string GeneratedEvalSource(const Program& program);

// For other generated kernels (exec/gpu/fused_aggregate_gen.h): the namespace aliases every
// generated source uses (tq, tqi), and `program` as a device function
//   bool name(const tqi::InterpParams& P, int64_t row, tqi::Val* st)
// that leaves the result in st[0] (false: the row raised an error, recorded in P.status).
const char* GeneratedKernelPrelude();
std::string GeneratedRunFunction(const Program& program, const std::string& name);

// The kernel for `program`, to be launched as the interpreter's EvalKernel is (same parameters:
// InterpParams, OutParams, row count; 256 threads a block) for sm_<arch>: its source, the
// headers it includes and NVRTC's options.
jit::KernelSource GeneratedEvalKernel(const Program& program, int arch);
jit::KernelSource KernelOfSource(std::string source, int arch);

}  // namespace tandem::gpu::internal
