// Stand-in for window.cu in builds without nvcc: the GPU window operator needs a device.
#include "tandem/exec/gpu/gpu_operators_more.h"

namespace tandem::gpu {

Result<DeviceBatchPtr> Window(const PlanNode&, const DeviceBatch&, GpuContext&) {
  return Status::Unsupported("no CUDA device (compiled without CUDA)");
}

}  // namespace tandem::gpu
