// Stand-in for join.cu in builds without nvcc.
#include "tandem/exec/gpu/gpu_operators.h"

namespace tandem::gpu {

Result<DeviceBatchPtr> HashJoin(const PlanNode&, const DeviceBatch&, const DeviceBatch&,
                                GpuContext&) {
  return Status::Unsupported("no CUDA device");
}

}  // namespace tandem::gpu
