// Stand-in for set_operation.cu in builds without nvcc: the GPU set operation needs a device.
#include "tandem/exec/gpu/gpu_operators_more.h"

namespace tandem::gpu {

Result<DeviceBatchPtr> SetOperation(const PlanNode&, const DeviceBatch&, const DeviceBatch&,
                                    GpuContext&) {
  return Status::Unsupported("no CUDA device (compiled without CUDA)");
}

}  // namespace tandem::gpu
