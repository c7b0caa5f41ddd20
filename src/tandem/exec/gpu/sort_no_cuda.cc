// Stand-in for sort.cu in builds without nvcc: the GPU sort needs a device.
#include "tandem/exec/gpu/gpu_operators.h"

namespace tandem::gpu {

Result<DeviceBatchPtr> Sort(const PlanNode&, const DeviceBatch&, GpuContext&) {
  return Status::Unsupported("no CUDA device (compiled without CUDA)");
}

Result<DeviceBatchPtr> TopN(const PlanNode&, const PlanNode&, const DeviceBatch&, GpuContext&) {
  return Status::Unsupported("no CUDA device (compiled without CUDA)");
}

}  // namespace tandem::gpu
