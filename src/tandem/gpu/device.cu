// CUDA device discovery and a launch self-test, built with nvcc. The reduction uses CUB.
#include <cuda_runtime.h>
#include <thrust/iterator/counting_iterator.h>

#include <cub/device/device_reduce.cuh>

#include "tandem/gpu/device.h"

namespace tandem::gpu {
namespace {

Status CudaError(cudaError_t err, const char* what) {
  return Status::IOError(std::string("CUDA ") + what + ": " + cudaGetErrorString(err));
}

}  // namespace

bool CompiledWithCuda() { return true; }

Result<DeviceInfo> QueryDevice() {
  DeviceInfo info;
  cudaError_t err = cudaGetDeviceCount(&info.device_count);
  if (err == cudaErrorNoDevice || err == cudaErrorInsufficientDriver || info.device_count == 0) {
    cudaGetLastError();  // clear the sticky error state
    return Status::Unsupported("no CUDA device");
  }
  if (err != cudaSuccess) return CudaError(err, "device count");
  cudaDeviceProp prop;
  err = cudaGetDeviceProperties(&prop, 0);
  if (err != cudaSuccess) return CudaError(err, "device properties");
  info.name = prop.name;
  info.compute_capability_major = prop.major;
  info.compute_capability_minor = prop.minor;
  info.multiprocessors = prop.multiProcessorCount;
  size_t free_bytes = 0, total_bytes = 0;
  err = cudaMemGetInfo(&free_bytes, &total_bytes);
  if (err != cudaSuccess) return CudaError(err, "memory info");
  info.free_memory_bytes = static_cast<int64_t>(free_bytes);
  info.total_memory_bytes = static_cast<int64_t>(total_bytes);
  return info;
}

Result<int64_t> SelfTestSum(int64_t n) {
  TANDEM_ASSIGN_OR_RAISE(auto info, QueryDevice());
  (void)info;
  cudaStream_t stream;
  cudaError_t err = cudaStreamCreate(&stream);
  if (err != cudaSuccess) return CudaError(err, "stream create");
  int64_t* d_out = nullptr;
  void* d_temp = nullptr;
  size_t temp_bytes = 0;
  int64_t result = -1;
  thrust::counting_iterator<int64_t> first(0);
  err = cub::DeviceReduce::Sum(nullptr, temp_bytes, first, d_out, n, stream);
  if (err == cudaSuccess) err = cudaMallocAsync(&d_out, sizeof(int64_t), stream);
  if (err == cudaSuccess) err = cudaMallocAsync(&d_temp, temp_bytes, stream);
  if (err == cudaSuccess) err = cub::DeviceReduce::Sum(d_temp, temp_bytes, first, d_out, n, stream);
  if (err == cudaSuccess) {
    err = cudaMemcpyAsync(&result, d_out, sizeof(int64_t), cudaMemcpyDeviceToHost, stream);
  }
  if (d_temp) cudaFreeAsync(d_temp, stream);
  if (d_out) cudaFreeAsync(d_out, stream);
  cudaError_t sync = cudaStreamSynchronize(stream);
  cudaStreamDestroy(stream);
  if (err != cudaSuccess) return CudaError(err, "self-test");
  if (sync != cudaSuccess) return CudaError(sync, "self-test sync");
  return result;
}

}  // namespace tandem::gpu
