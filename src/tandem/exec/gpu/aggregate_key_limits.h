// Limits of the device row keys (row_keys.cuh) that the plain C++ support checks of the GPU
// aggregate and joins must know too: a key set travels to kernels by value with a fixed size.
#pragma once

namespace tandem::gpu {

constexpr int kMaxGpuKeyColumns = 16;

}  // namespace tandem::gpu
