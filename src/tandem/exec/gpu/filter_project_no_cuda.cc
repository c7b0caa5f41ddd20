// Stand-ins for filter_project.cu in builds without nvcc: there is no CUDA device.
#include "tandem/exec/gpu/gpu_operators.h"

namespace tandem::gpu {

Result<DeviceBatchPtr> Filter(const PlanNode&, const DeviceBatch&, GpuContext&) {
  return Status::Unsupported("no CUDA device");
}

Result<DeviceBatchPtr> Project(const PlanNode&, const DeviceBatch&, GpuContext&) {
  return Status::Unsupported("no CUDA device");
}

}  // namespace tandem::gpu
