// Host side of fused aggregate kernels (fused_aggregate_gen.h) for the GPU hash aggregate
// (aggregate.cu): which aggregate nodes fuse, their programs prepared for a batch with the
// kernel generated for them, and the launch.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tandem/exec/gpu/fused_aggregate_gen.h"
#include "tandem/exec/gpu/fused_aggregate_rows.cuh"
#include "tandem/exec/gpu/gpu_operators.h"
#include "tandem/expr/gpu/device_program.cuh"

namespace tandem::gpu::fused {

struct Prepared {
  std::vector<internal::DeviceProgram> programs;
  Shape shape;
  const void* kernel = nullptr;                     // the loaded kernel (generated_kernels.h)
  std::shared_ptr<GpuExpressionLaunches> launches;  // the query's counts (may be null)
};

// "" when every aggregate of `node` is one a fused kernel computes (count(*), count, sum and avg
// without DISTINCT or FILTER, exact or in doubles as the unfused path does) and its group keys
// are plain columns of the input, else the reason.
std::string NodeUnsupported(const PlanNode& node);

// The programs of `node` (with `filter` run in the kernel when not null) prepared over `input`,
// and the kernel for them; null when generated kernels are off or the kernel is not ready yet
// (tandem.exec.gpu.generatedKernels = background) or failed to build.
Result<std::unique_ptr<Prepared>> Prepare(const PlanNode& node, const Expr* filter,
                                          const DeviceBatch& input, const EvalContext& eval,
                                          const Stream& stream);

// Folds rows [0, n) (group ids `gid`, or every row in group 0) into `states` (one per
// aggregate, zeroed, in aggregate.cu's layout); *error (zeroed) is set when a row failed.
Status Launch(const Prepared& p, const std::vector<State>& states, const int64_t* gid, int64_t n,
              int64_t groups, int* error, const Stream& stream);

}  // namespace tandem::gpu::fused
