// Stand-in for generated_kernels.cu in builds without nvcc: nothing runs on a GPU.
#include "tandem/expr/gpu/generated_kernels.h"

namespace tandem::gpu {

GeneratedKernelCounts GeneratedKernelCountsNow() { return {}; }

namespace internal {
const void* GeneratedKernelFor(const Program&, const EvalContext&) { return nullptr; }
const void* GeneratedKernelForSource(std::string, const EvalContext&) { return nullptr; }
void CountLaunch(bool) {}
}  // namespace internal

}  // namespace tandem::gpu
