// Small helpers shared by the CUDA translation units: CUDA errors as Status values, grid sizes
// for grid-stride kernels, and a Thrust allocator that draws temporary storage from the device
// pool on the operator's stream (so Thrust never calls cudaMalloc, which would synchronize).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <new>
#include <string>

#include "tandem/common/status.h"
#include "tandem/gpu/runtime.h"

namespace tandem::gpu {

// Raw pool allocation behind DeviceBuffer (runtime.cu): counted in the pool statistics, freed
// stream-ordered by PoolFree with the same size.
Result<void*> PoolAllocate(int64_t bytes, cudaStream_t stream);
void PoolFree(void* ptr, int64_t bytes, cudaStream_t stream);

inline Status CudaStatus(cudaError_t err, const char* what) {
  if (err == cudaSuccess) return Status::OK();
  cudaGetLastError();  // clear non-sticky errors so later calls do not report them
  return Status::IOError(std::string("CUDA ") + what + ": " + cudaGetErrorString(err));
}

// The error of the last kernel launch, if any.
inline Status LaunchStatus(const char* what) { return CudaStatus(cudaGetLastError(), what); }

inline cudaStream_t CudaStream(const Stream& stream) {
  return static_cast<cudaStream_t>(stream.handle());
}

constexpr int kBlockThreads = 256;

// Blocks for a grid-stride loop over `items` (at least 1; capped, the loop covers the rest).
inline unsigned GridFor(int64_t items) {
  const int64_t blocks = (items + kBlockThreads - 1) / kBlockThreads;
  const int64_t cap = int64_t{1} << 20;
  return static_cast<unsigned>(blocks < 1 ? 1 : (blocks > cap ? cap : blocks));
}

// Thrust temporary storage from the pool, stream-ordered. Allocation failures throw
// std::bad_alloc, which the callers catch at their API boundary and return as OutOfMemory.
class PoolThrustAllocator {
 public:
  using value_type = char;
  explicit PoolThrustAllocator(const Stream& stream) : stream_(CudaStream(stream)) {}

  char* allocate(std::ptrdiff_t bytes) {
    auto ptr = PoolAllocate(static_cast<int64_t>(bytes), stream_);
    if (!ptr.ok()) throw std::bad_alloc();
    return static_cast<char*>(*ptr);
  }
  void deallocate(char* ptr, size_t bytes) { PoolFree(ptr, static_cast<int64_t>(bytes), stream_); }

 private:
  cudaStream_t stream_;
};

}  // namespace tandem::gpu
