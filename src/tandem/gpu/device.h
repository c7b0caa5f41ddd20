// The CUDA device as Tandem sees it: whether one is usable and what it is. Builds without nvcc
// link device_no_cuda.cc instead, which always reports "no CUDA device".
#pragma once

#include <cstdint>
#include <string>

#include "tandem/common/status.h"

namespace tandem::gpu {

struct DeviceInfo {
  int device_count = 0;
  std::string name;
  int compute_capability_major = 0;
  int compute_capability_minor = 0;
  int multiprocessors = 0;
  int64_t total_memory_bytes = 0;
  int64_t free_memory_bytes = 0;
};

// Whether this binary was compiled with CUDA sources.
bool CompiledWithCuda();

// Device 0's properties, or an error whose message says why no device is usable
// ("no CUDA device", "compiled without CUDA", the driver's message).
Result<DeviceInfo> QueryDevice();

// Runs a tiny kernel (sums 0..n-1 on the device) to prove kernels launch and results come back.
Result<int64_t> SelfTestSum(int64_t n);

}  // namespace tandem::gpu
