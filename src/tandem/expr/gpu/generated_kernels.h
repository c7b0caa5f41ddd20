// Generated expression kernels at run time (tandem.exec.gpu.generatedKernels): for a program the
// evaluator is about to interpret, the kernel generated for it (kernel_gen.h), compiled or read
// from the kernel cache (gpu/jit/kernel_cache.h) and loaded on the GPU once per process.
//   wait:       compiles before the first launch, or waits for a compile begun by another
//               thread (a first query pays NVRTC's ~0.5 s per expression in no cache);
//   background: queues the compile (two run at a time) and returns null, so the evaluator
//               interprets, until the kernel is ready.
// A kernel that fails to compile or load is not tried again; the evaluator interprets it and the
// failure is counted (with its message) for EXPLAIN ANALYZE and the tests.
#pragma once

#include <cstdint>
#include <string>

#include "tandem/exec/exec_context.h"
#include "tandem/expr/gpu/program.h"

namespace tandem::gpu {

struct GeneratedKernelCounts {
  int64_t generated_launches = 0;    // launches of generated kernels
  int64_t interpreted_launches = 0;  // launches of the interpreter
  int64_t compile_failures = 0;
  std::string last_failure;
};

GeneratedKernelCounts GeneratedKernelCountsNow();

namespace internal {

// The loaded kernel for `program` (a cudaKernel_t, as cudaLaunchKernel takes it), or null: not
// asked for, not ready yet, or failed.
const void* GeneratedKernelFor(const Program& program, const EvalContext& eval);
// The same for any generated source whose kernel is named kGeneratedKernelName (kernel_gen.h),
// such as a fused aggregate's (exec/gpu/fused_aggregate_gen.h).
const void* GeneratedKernelForSource(std::string source, const EvalContext& eval);

// Counts one launch of each kind.
void CountLaunch(bool generated);

}  // namespace internal
}  // namespace tandem::gpu
