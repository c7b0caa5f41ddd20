// Stand-in for device.cu in builds without nvcc: there is never a device.
#include "tandem/gpu/device.h"

namespace tandem::gpu {

bool CompiledWithCuda() { return false; }
Result<DeviceInfo> QueryDevice() { return Status::Unsupported("GPU (compiled without CUDA)"); }
Result<int64_t> SelfTestSum(int64_t) { return Status::Unsupported("GPU (compiled without CUDA)"); }

}  // namespace tandem::gpu
