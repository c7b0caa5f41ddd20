// Stand-in for hash_partition.cu in builds without nvcc: hash partitions need a device.
#include "tandem/exec/gpu/gpu_operators_more.h"

namespace tandem::gpu {

Result<DeviceBatchPtr> HashPartitionRows(const DeviceBatch&, int, int, int, const Stream&) {
  return Status::Unsupported("no CUDA device (compiled without CUDA)");
}

}  // namespace tandem::gpu
