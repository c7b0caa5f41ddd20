// GPU twins of the example library's misbehaving test functions (example_udf.cc), so the engine's
// checks of a GPU implementation's result are tested too: each starts from a well-behaved copy
// of its bigint argument and then breaks the same rule its CPU twin breaks. Compiled only where
// nvcc exists (examples/udf/CMakeLists.txt).
#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>

#include "tandem/udf/udf.h"

namespace {

int32_t Fail(TandemUdfDeviceContext* ctx, const char* message) {
  ctx->set_error(ctx, message);
  return TANDEM_UDF_ERROR;
}

// Copies the bigint argument (values and validity) into engine memory.
int32_t CopyBigint(TandemUdfDeviceContext* ctx, const TandemUdfDeviceColumn& in,
                   TandemUdfDeviceOutput* out) {
  const int64_t rows = ctx->rows;
  auto stream = static_cast<cudaStream_t>(ctx->stream);
  auto* values = static_cast<int64_t*>(ctx->alloc(ctx, rows * 8));
  if (!values) return Fail(ctx, "out of device memory");
  if (cudaMemcpyAsync(values, in.values, static_cast<size_t>(rows * 8), cudaMemcpyDeviceToDevice,
                      stream) != cudaSuccess) {
    return Fail(ctx, "cudaMemcpyAsync failed");
  }
  out->values = values;
  out->null_count = in.null_count;
  if (in.validity) {
    const int64_t bytes = (rows + 7) / 8;
    auto* validity = static_cast<uint8_t*>(ctx->alloc(ctx, bytes));
    if (!validity) return Fail(ctx, "out of device memory");
    if (cudaMemcpyAsync(validity, in.validity, static_cast<size_t>(bytes),
                        cudaMemcpyDeviceToDevice, stream) != cudaSuccess) {
      return Fail(ctx, "cudaMemcpyAsync failed");
    }
    out->validity = validity;
  }
  return TANDEM_UDF_OK;
}

}  // namespace

extern "C" int32_t TestThrowsGpu(TandemUdfDeviceContext*, const TandemUdfDeviceColumn*, int32_t,
                                 TandemUdfDeviceOutput*) {
  throw std::runtime_error("test_throws always throws");
}

extern "C" int32_t TestErrorGpu(TandemUdfDeviceContext* ctx, const TandemUdfDeviceColumn*,
                                int32_t, TandemUdfDeviceOutput*) {
  return Fail(ctx, "test_error refuses every batch");
}

extern "C" int32_t TestWrongLengthGpu(TandemUdfDeviceContext* ctx,
                                      const TandemUdfDeviceColumn* args, int32_t,
                                      TandemUdfDeviceOutput* out) {
  const int32_t rc = CopyBigint(ctx, args[0], out);
  out->length = ctx->rows + 1;
  return rc;
}

extern "C" int32_t TestWrongTypeGpu(TandemUdfDeviceContext* ctx, const TandemUdfDeviceColumn* args,
                                    int32_t, TandemUdfDeviceOutput* out) {
  const int32_t rc = CopyBigint(ctx, args[0], out);
  out->type.id = TANDEM_UDF_FLOAT64;  // declared bigint
  return rc;
}

extern "C" int32_t TestBadNullsGpu(TandemUdfDeviceContext* ctx, const TandemUdfDeviceColumn* args,
                                   int32_t, TandemUdfDeviceOutput* out) {
  const int32_t rc = CopyBigint(ctx, args[0], out);
  out->null_count += 1;  // more nulls than the bitmap has
  return rc;
}

extern "C" int32_t TestForeignBufferGpu(TandemUdfDeviceContext*,
                                        const TandemUdfDeviceColumn* args, int32_t,
                                        TandemUdfDeviceOutput* out) {
  out->values = const_cast<void*>(args[0].values);  // not from ctx->alloc: must be refused
  return TANDEM_UDF_OK;
}
