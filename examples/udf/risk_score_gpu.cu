// The GPU implementation of the example's risk_score(x, w) = log1p(|x|) * w: one thread per
// eight rows (one validity byte each), NULL in -> NULL out, nulls counted with an atomic add.
// Runs on the engine's stream; allocates its result through ctx->alloc (device memory the engine
// owns). Compiled only where nvcc exists (examples/udf/CMakeLists.txt).
#include <cuda_runtime.h>

#include <cstdint>

#include "tandem/udf/udf.h"

namespace {

__device__ bool ValidAt(const uint8_t* bits, int64_t i) {
  return bits == nullptr || ((bits[i >> 3] >> (i & 7)) & 1) != 0;
}

__global__ void RiskScoreKernel(const double* x, const double* w, const uint8_t* vx,
                                const uint8_t* vw, int64_t rows, double* out, uint8_t* valid,
                                unsigned long long* nulls) {
  const int64_t byte = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t first = byte * 8;
  if (first >= rows) return;
  uint8_t mask = 0;
  unsigned long long null_here = 0;
  for (int64_t i = first; i < first + 8 && i < rows; ++i) {
    out[i] = log1p(fabs(x[i])) * w[i];
    if (ValidAt(vx, i) && ValidAt(vw, i)) {
      mask = static_cast<uint8_t>(mask | (1u << (i - first)));
    } else {
      ++null_here;
    }
  }
  if (valid) valid[byte] = mask;
  if (null_here) atomicAdd(nulls, null_here);
}

}  // namespace

extern "C" int32_t RiskScoreGpu(TandemUdfDeviceContext* ctx, const TandemUdfDeviceColumn* args,
                                int32_t num_args, TandemUdfDeviceOutput* out) {
  const int64_t rows = ctx->rows;
  auto stream = static_cast<cudaStream_t>(ctx->stream);
  const bool has_nulls = args[0].validity != nullptr || args[1].validity != nullptr;
  auto* values = static_cast<double*>(ctx->alloc(ctx, rows * 8));
  uint8_t* valid = has_nulls ? static_cast<uint8_t*>(ctx->alloc(ctx, (rows + 7) / 8)) : nullptr;
  auto* nulls = static_cast<unsigned long long*>(ctx->alloc(ctx, 8));
  if (!values || (has_nulls && !valid) || !nulls) {
    ctx->set_error(ctx, "out of device memory");
    return TANDEM_UDF_ERROR;
  }
  if (cudaMemsetAsync(nulls, 0, 8, stream) != cudaSuccess) {
    ctx->set_error(ctx, "cudaMemsetAsync failed");
    return TANDEM_UDF_ERROR;
  }
  const int64_t bytes = (rows + 7) / 8;
  const int threads = 256;
  const int64_t blocks = (bytes + threads - 1) / threads;
  if (blocks > 0) {
    RiskScoreKernel<<<static_cast<unsigned>(blocks), threads, 0, stream>>>(
        static_cast<const double*>(args[0].values), static_cast<const double*>(args[1].values),
        args[0].validity, args[1].validity, rows, values, valid, nulls);
  }
  unsigned long long null_count = 0;
  if (cudaMemcpyAsync(&null_count, nulls, 8, cudaMemcpyDeviceToHost, stream) != cudaSuccess ||
      cudaStreamSynchronize(stream) != cudaSuccess || cudaGetLastError() != cudaSuccess) {
    ctx->set_error(ctx, "risk_score GPU kernel failed");
    return TANDEM_UDF_ERROR;
  }
  out->values = values;
  out->validity = valid;
  out->null_count = static_cast<int64_t>(null_count);
  return TANDEM_UDF_OK;
}
