// Stand-in for aggregate.cu in builds without nvcc.
#include "tandem/exec/gpu/gpu_operators.h"

namespace tandem::gpu {

Result<DeviceBatchPtr> HashAggregate(const PlanNode&, const Expr*, const DeviceBatch&,
                                     GpuContext&) {
  return Status::Unsupported("no CUDA device");
}

}  // namespace tandem::gpu
