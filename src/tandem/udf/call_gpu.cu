// CallGpu (see call_gpu.h): device views of the arguments, the call behind a try/catch, then the
// result's checks. What the host can check (type, length, which buffers, their sizes) it checks
// first; what needs the data (null count against the bitmap, booleans, string offsets) one
// small kernel checks, and its verdict comes back with the one synchronization the call makes.
#include <cuda_runtime.h>

#include <string>

#include "tandem/common/bit_util.h"
#include "tandem/gpu/cuda_util.cuh"
#include "tandem/udf/call_checks.h"
#include "tandem/udf/call_gpu.h"

namespace tandem::udf {
namespace {

struct Allocation {
  gpu::DeviceBuffer buffer;
  int64_t bytes = 0;  // what the UDF asked for (the buffer may be larger)
};

// The engine side of TandemUdfDeviceContext for one call.
struct CallState {
  TandemUdfDeviceContext ctx{};
  const gpu::Stream* stream = nullptr;
  std::vector<Allocation> allocations;
  std::string error;
  bool error_set = false;
};

void* Alloc(TandemUdfDeviceContext* ctx, int64_t bytes) {
  if (!ctx || bytes < 0) return nullptr;
  auto* state = static_cast<CallState*>(ctx->engine);
  Result<gpu::DeviceBuffer> b = gpu::DeviceBuffer::Allocate(bytes > 0 ? bytes : 1, *state->stream);
  if (!b.ok()) return nullptr;
  void* p = b->data();
  state->allocations.push_back({std::move(*b), bytes});
  return p;
}

void SetError(TandemUdfDeviceContext* ctx, const char* message) {
  if (!ctx) return;
  auto* state = static_cast<CallState*>(ctx->engine);
  state->error = message ? message : "";
  state->error_set = true;
}

TandemUdfDeviceColumn View(const gpu::DeviceColumn& c) {
  TandemUdfDeviceColumn v{};
  v.type = ToUdfType(c.type);
  v.length = c.length;
  v.null_count = c.null_count;
  v.validity = c.null_count > 0 ? static_cast<const uint8_t*>(c.validity.data()) : nullptr;
  v.values = c.values.data();
  v.data = static_cast<const uint8_t*>(c.data.data());
  v.data_bytes = c.data.size();
  return v;
}

// Takes the engine allocation starting at `p` out of the call state (so the column owns it), or
// says which result buffer is foreign or too small.
Status TakeOwned(CallState* state, const void* p, int64_t need, const char* what,
                 const std::string& fn, gpu::DeviceBuffer* out) {
  if (!p) return Status::OK();
  for (Allocation& a : state->allocations) {
    if (a.buffer.empty() || a.buffer.data() != p) continue;
    if (a.bytes < need) {
      return Status::Invalid("UDF " + fn + " returned a " + what + " buffer of " +
                             std::to_string(a.bytes) + " bytes where " + std::to_string(need) +
                             " are needed");
    }
    *out = std::move(a.buffer);
    return Status::OK();
  }
  return Status::Invalid("UDF " + fn + " returned a " + what +
                         " buffer that was not allocated with ctx->alloc");
}

// Verdict of the result check kernel.
struct CheckResult {
  unsigned long long valid_rows;
  unsigned long long bad_booleans;
  unsigned long long bad_offsets;
};

__global__ void CheckResultKernel(const uint8_t* validity, const uint8_t* booleans,
                                  const int64_t* offsets, int64_t data_bytes, int64_t rows,
                                  CheckResult* r) {
  unsigned long long valid = 0, bad_bool = 0, bad_offset = 0;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < rows;
       i += stride) {
    if (validity) valid += (validity[i >> 3] >> (i & 7)) & 1;
    if (booleans && booleans[i] > 1) ++bad_bool;
    if (offsets) {
      if (offsets[i + 1] < offsets[i]) ++bad_offset;
      if (i == 0 && offsets[0] != 0) ++bad_offset;
      if (i == rows - 1 && offsets[rows] != data_bytes) ++bad_offset;
    }
  }
  if (valid) atomicAdd(&r->valid_rows, valid);
  if (bad_bool) atomicAdd(&r->bad_booleans, bad_bool);
  if (bad_offset) atomicAdd(&r->bad_offsets, bad_offset);
}

}  // namespace

Result<gpu::DeviceColumnPtr> CallGpu(const UdfFunction& f,
                                     const std::vector<gpu::DeviceColumnPtr>& args, int64_t rows,
                                     const gpu::Stream& stream) {
  if (!f.gpu) return Status::Internal("UDF " + f.name + " has no GPU implementation");
  std::vector<ArgumentShape> shapes;
  for (const gpu::DeviceColumnPtr& a : args) {
    shapes.push_back(a ? ArgumentShape{true, a->type, a->length} : ArgumentShape{});
  }
  TANDEM_RETURN_NOT_OK(CheckArguments(f, shapes, rows));
  std::vector<TandemUdfDeviceColumn> views;
  views.reserve(args.size());
  for (const gpu::DeviceColumnPtr& a : args) views.push_back(View(*a));
  auto column = std::make_shared<gpu::DeviceColumn>();
  column->type = f.result_type;
  column->length = rows;
  const int width = gpu::DeviceByteWidth(f.result_type);
  if (rows == 0) {  // no call, as on the CPU: an empty column of the declared type
    if (f.result_type.is_string_like()) {
      TANDEM_ASSIGN_OR_RAISE(column->values, gpu::DeviceBuffer::Allocate(8, stream));
      TANDEM_RETURN_NOT_OK(gpu::CudaStatus(
          cudaMemsetAsync(column->values.data(), 0, 8, gpu::CudaStream(stream)), "memset"));
    }
    return column;
  }
  CallState state;
  state.stream = &stream;
  state.ctx.rows = rows;
  state.ctx.engine = &state;
  state.ctx.stream = stream.handle();
  state.ctx.alloc = Alloc;
  state.ctx.set_error = SetError;
  TandemUdfDeviceOutput out{};
  out.type = ToUdfType(f.result_type);
  out.length = rows;
  TANDEM_ASSIGN_OR_RAISE(const int32_t rc, CallCatching(f, [&] {
                           return f.gpu(&state.ctx, views.data(),
                                        static_cast<int32_t>(views.size()), &out);
                         }));
  // The engine synchronizes after the call (udf.h); a failed kernel of the UDF shows here.
  if (Status st = stream.Synchronize(); !st.ok()) {
    return Status::Invalid("UDF " + f.name + " failed on the GPU: " + st.message());
  }
  TANDEM_ASSIGN_OR_RAISE(const DataType type,
                         CheckOutcome(f, rows, OutcomeOf(rc, state.error_set, state.error, out)));
  const bool strings = type.is_string_like();
  if (strings && (out.data_bytes < 0 || (out.data_bytes > 0 && !out.data))) {
    return Status::Invalid("UDF " + f.name + " returned " + std::to_string(out.data_bytes) +
                           " string bytes without a data buffer");
  }
  const int64_t value_bytes = strings ? (rows + 1) * 8 : rows * width;
  TANDEM_RETURN_NOT_OK(
      TakeOwned(&state, out.values, value_bytes, "values", f.name, &column->values));
  TANDEM_RETURN_NOT_OK(TakeOwned(&state, out.validity, bit_util::BytesForBits(rows), "validity",
                                 f.name, &column->validity));
  if (strings) {
    TANDEM_RETURN_NOT_OK(
        TakeOwned(&state, out.data, out.data_bytes, "data", f.name, &column->data));
  }
  // The data checks: one kernel, one copy back.
  TANDEM_ASSIGN_OR_RAISE(gpu::DeviceBuffer verdict,
                         gpu::DeviceBuffer::Allocate(sizeof(CheckResult), stream));
  const cudaStream_t s = gpu::CudaStream(stream);
  TANDEM_RETURN_NOT_OK(
      gpu::CudaStatus(cudaMemsetAsync(verdict.data(), 0, sizeof(CheckResult), s), "memset"));
  CheckResultKernel<<<gpu::GridFor(rows), gpu::kBlockThreads, 0, s>>>(
      static_cast<const uint8_t*>(column->validity.data()),
      type.id == TypeId::kBool ? static_cast<const uint8_t*>(column->values.data()) : nullptr,
      strings ? static_cast<const int64_t*>(column->values.data()) : nullptr, out.data_bytes, rows,
      verdict.data_as<CheckResult>());
  TANDEM_RETURN_NOT_OK(gpu::LaunchStatus("UDF result check"));
  CheckResult r{};
  TANDEM_RETURN_NOT_OK(gpu::CopyToHost(&r, verdict.data(), sizeof(r), stream));
  TANDEM_RETURN_NOT_OK(stream.Synchronize());
  if (column->has_validity()) {
    const int64_t nulls = rows - static_cast<int64_t>(r.valid_rows);
    if (nulls != out.null_count) {
      return Status::Invalid("UDF " + f.name + " reported " + std::to_string(out.null_count) +
                             " nulls but its validity bitmap has " + std::to_string(nulls));
    }
    if (nulls == 0) column->validity = gpu::DeviceBuffer();
  }
  if (r.bad_booleans > 0) {
    return Status::Invalid("UDF " + f.name + " returned a malformed column: " +
                           std::to_string(r.bad_booleans) + " booleans are neither 0 nor 1");
  }
  if (r.bad_offsets > 0) {
    return Status::Invalid("UDF " + f.name +
                           " returned a malformed column: string offsets do not start at 0, "
                           "decrease, or do not end at the data size");
  }
  column->null_count = out.null_count;
  return column;
}

}  // namespace tandem::udf
