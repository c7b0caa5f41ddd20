// GPU expression evaluation: compiles the expression (compile.cc), uploads the program, and runs
// the one interpreter kernel over every row, or the kernel generated for the program where
// tandem.exec.gpu.generatedKernels asks for one and it is ready (generated_kernels.h). Fixed-width
// results are written directly (validity from warp ballots); string results take two passes
// (lengths, a CUB scan into offsets, then the bytes); SelectTrue writes flags that
// cub::DeviceSelect::Flagged turns into row indices. A row that raises an error (overflow, invalid
// cast, ANSI division by zero) records the first (instruction, row); that row is then evaluated by
// the CPU evaluator, whose error message is returned, so both devices report errors in exactly the
// same words. UDF calls with a GPU implementation run first (innermost first), each over its
// arguments evaluated as columns; the expression then reads their results as extra columns of the
// batch.
#include <cuda_runtime.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>

#include "tandem/expr/cpu/datum.h"
#include "tandem/expr/cpu/evaluate.h"
#include "tandem/expr/gpu/device_program.cuh"
#include "tandem/expr/gpu/eval_rows.cuh"
#include "tandem/expr/gpu/evaluate.h"
#include "tandem/expr/gpu/generated_kernels.h"
#include "tandem/expr/gpu/interpreter.cuh"
#include "tandem/expr/gpu/program.h"
#include "tandem/udf/call_gpu.h"

namespace tandem::gpu {
namespace {

using internal::ColView;
using internal::DeviceStatus;
using internal::InterpParams;
using internal::Program;
using internal::Val;

constexpr int kThreads = 256;

__global__ void __launch_bounds__(kThreads) EvalKernel(InterpParams P, OutParams O, int64_t n) {
  EvalRows<internal::kMaxStack>(P, O, n,
                                [&](int64_t row, Val* st) { return internal::RunRow(P, row, st); });
}

Status CudaCheck(cudaError_t err, const char* what) {
  if (err == cudaSuccess) return Status::OK();
  return Status::IOError(std::string("CUDA ") + what + ": " + cudaGetErrorString(err));
}

}  // namespace

namespace internal {

Result<DeviceProgram> PrepareProgram(const Expr& expr, bool selection, const DeviceBatch& batch,
                                     const EvalContext& eval, const Stream& stream) {
  DeviceProgram dp;
  const std::string why = internal::Compile(expr, selection, &dp.program);
  if (!why.empty()) return Status::Unsupported("GPU expression " + expr.ToString() + ": " + why);
  if (dp.program.udf_placeholders) {
    return Status::Internal("GPU expression with UDF calls not run first: " + expr.ToString());
  }
  std::vector<ColView> views(batch.columns.size());
  for (const internal::Instr& in : dp.program.code) {
    if (in.op != internal::Op::kColumn) continue;
    if (in.imm < 0 || in.imm >= static_cast<int64_t>(batch.columns.size()) ||
        !batch.columns[in.imm]) {
      return Status::Internal("column #" + std::to_string(in.imm) + " out of range of a batch of " +
                              std::to_string(batch.columns.size()) +
                              " columns: " + expr.ToString());
    }
    const DeviceColumn& c = *batch.columns[in.imm];
    if (static_cast<int32_t>(c.type.id) != in.a) {
      return Status::Internal("column #" + std::to_string(in.imm) + " has type " +
                              c.type.ToString() +
                              ", the expression expects another: " + expr.ToString());
    }
    ColView& v = views[in.imm];
    v.values = c.values.data();
    v.validity = c.has_validity() ? static_cast<const uint8_t*>(c.validity.data()) : nullptr;
    v.data = static_cast<const uint8_t*>(c.data.data());
    v.type = in.a;
    v.wide = c.type.is_wide_decimal() ? 1 : 0;
  }
  TANDEM_ASSIGN_OR_RAISE(dp.code, UploadVector(dp.program.code, stream));
  TANDEM_ASSIGN_OR_RAISE(dp.consts, UploadVector(dp.program.consts, stream));
  TANDEM_ASSIGN_OR_RAISE(dp.pool, UploadVector(dp.program.pool, stream));
  TANDEM_ASSIGN_OR_RAISE(dp.cols, UploadVector(views, stream));
  const std::vector<DeviceStatus> init{DeviceStatus{~0ull, 0}};
  TANDEM_ASSIGN_OR_RAISE(dp.status, UploadVector(init, stream));
  dp.params.code = dp.code.data_as<internal::Instr>();
  dp.params.ncode = static_cast<int32_t>(dp.program.code.size());
  dp.params.consts = dp.consts.data_as<internal::ConstVal>();
  dp.params.pool = dp.pool.data_as<uint8_t>();
  dp.params.cols = dp.cols.data_as<ColView>();
  dp.params.status = dp.status.data_as<DeviceStatus>();
  dp.params.ansi = eval.ansi;
  dp.eval = eval;
  return std::move(dp);
}

}  // namespace internal

namespace {

using internal::DeviceProgram;

Result<DeviceProgram> Prepare(const Expr& expr, bool selection, const DeviceBatch& batch,
                              const EvalContext& eval, const Stream& stream) {
  return internal::PrepareProgram(expr, selection, batch, eval, stream);
}

// The kernel generated for the program where one is asked for and ready
// (generated_kernels.h), else the interpreter: same parameters, same results.
Status Launch(const DeviceProgram& dp, const OutParams& out, int64_t n, const Stream& stream) {
  const int64_t blocks = std::min<int64_t>((n + kThreads - 1) / kThreads, 4096);
  auto cu_stream = static_cast<cudaStream_t>(stream.handle());
  if (const void* generated = internal::GeneratedKernelFor(dp.program, dp.eval)) {
    InterpParams params = dp.params;
    OutParams o = out;
    int64_t rows = n;
    void* args[] = {&params, &o, &rows};
    internal::CountLaunch(true);
    if (dp.eval.gpu_launches) ++dp.eval.gpu_launches->generated;
    return CudaCheck(cudaLaunchKernel(generated, dim3(static_cast<unsigned>(blocks)),
                                      dim3(kThreads), args, 0, cu_stream),
                     "generated expression kernel launch");
  }
  internal::CountLaunch(false);
  if (dp.eval.gpu_launches) ++dp.eval.gpu_launches->interpreted;
  EvalKernel<<<static_cast<unsigned>(blocks), kThreads, 0, cu_stream>>>(dp.params, out, n);
  return CudaCheck(cudaGetLastError(), "expression kernel launch");
}

Result<DeviceStatus> ReadStatus(const DeviceProgram& dp, const Stream& stream) {
  DeviceStatus host{};
  TANDEM_RETURN_NOT_OK(CopyToHost(&host, dp.status.data(), sizeof(host), stream));
  TANDEM_RETURN_NOT_OK(stream.Synchronize());
  return host;
}

// The error of a row that failed on the GPU, in the CPU evaluator's words.
Status ReplayError(const Expr& expr, bool selection, const DeviceBatch& batch,
                   unsigned long long key, const EvalContext& eval, const Stream& stream) {
  const int64_t row = static_cast<int64_t>(key & ((1ull << internal::kErrorRowBits) - 1));
  TANDEM_ASSIGN_OR_RAISE(DeviceBatchPtr one, SliceRows(batch, row, 1, stream));
  TANDEM_ASSIGN_OR_RAISE(Table host, ToHost(*one, stream));
  if (host.batches.empty())
    return Status::Internal("GPU evaluation failed at row " + std::to_string(row));
  EvalContext ctx = eval;
  Status st;
  if (selection) {
    st = cpu::EvaluateSelection(expr, *host.batches[0], ctx).status();
  } else {
    st = cpu::Evaluate(expr, *host.batches[0], ctx).status();
  }
  if (!st.ok()) return st;
  return Status::Internal("GPU evaluation of " + expr.ToString() + " failed at row " +
                          std::to_string(row) + ", which the CPU evaluates without error");
}

Result<DeviceBuffer> AllocateZeroed(int64_t bytes, const Stream& stream) {
  TANDEM_ASSIGN_OR_RAISE(DeviceBuffer buf, DeviceBuffer::Allocate(bytes > 0 ? bytes : 8, stream));
  TANDEM_RETURN_NOT_OK(MemsetDevice(buf.data(), 0, buf.size(), stream));
  return std::move(buf);
}

Result<DeviceColumnPtr> EmptyColumn(const DataType& type, const Stream& stream) {
  auto col = std::make_shared<DeviceColumn>();
  col->type = type;
  if (type.is_string_like()) {
    TANDEM_ASSIGN_OR_RAISE(col->values, AllocateZeroed(sizeof(int64_t), stream));
  }
  return col;
}

Result<DeviceColumnPtr> EvaluateProgram(const Expr& expr, const DeviceBatch& batch,
                                        const EvalContext& eval, const Stream& stream) {
  if (expr.kind == ExprKind::kColumnRef && expr.outer_depth == 0 && expr.column_index >= 0 &&
      expr.column_index < static_cast<int>(batch.columns.size()) &&
      batch.columns[expr.column_index] && batch.columns[expr.column_index]->type == expr.type) {
    return batch.columns[expr.column_index];  // shared, as the CPU shares the column
  }
  TANDEM_ASSIGN_OR_RAISE(DeviceProgram dp, Prepare(expr, false, batch, eval, stream));
  const int64_t n = batch.num_rows;
  const DataType& type = expr.type;
  if (n == 0) return EmptyColumn(type, stream);
  auto col = std::make_shared<DeviceColumn>();
  col->type = type;
  col->length = n;
  TANDEM_ASSIGN_OR_RAISE(col->validity, AllocateZeroed((n + 31) / 32 * 4, stream));
  OutParams out;
  out.type = static_cast<int32_t>(type.id);
  out.wide = type.is_wide_decimal() ? 1 : 0;
  out.concat_args = dp.program.concat_root ? dp.program.code.back().a : 0;
  out.valid = col->validity.data_as<uint32_t>();
  DeviceStatus status{};
  if (!type.is_string_like()) {
    TANDEM_ASSIGN_OR_RAISE(col->values, DeviceBuffer::Allocate(n * DeviceByteWidth(type), stream));
    out.mode = kFixed;
    out.values = col->values.data();
    TANDEM_RETURN_NOT_OK(Launch(dp, out, n, stream));
    TANDEM_ASSIGN_OR_RAISE(status, ReadStatus(dp, stream));
  } else {
    // Pass 1: lengths into offsets[0..n) (offsets[n] = 0), scanned in place into offsets.
    TANDEM_ASSIGN_OR_RAISE(col->values, AllocateZeroed((n + 1) * sizeof(int64_t), stream));
    int64_t* offsets = col->values.data_as<int64_t>();
    out.mode = kStringLengths;
    out.offsets = offsets;
    TANDEM_RETURN_NOT_OK(Launch(dp, out, n, stream));
    size_t temp_bytes = 0;
    auto cu_stream = static_cast<cudaStream_t>(stream.handle());
    TANDEM_RETURN_NOT_OK(CudaCheck(
        cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, offsets, offsets, n + 1, cu_stream),
        "scan"));
    TANDEM_ASSIGN_OR_RAISE(DeviceBuffer temp,
                           DeviceBuffer::Allocate(static_cast<int64_t>(temp_bytes) + 8, stream));
    TANDEM_RETURN_NOT_OK(CudaCheck(
        cub::DeviceScan::ExclusiveSum(temp.data(), temp_bytes, offsets, offsets, n + 1, cu_stream),
        "scan"));
    int64_t total = 0;
    TANDEM_RETURN_NOT_OK(CopyToHost(&total, offsets + n, sizeof(int64_t), stream));
    TANDEM_ASSIGN_OR_RAISE(status, ReadStatus(dp, stream));
    if (status.error_key == ~0ull) {
      TANDEM_ASSIGN_OR_RAISE(col->data, DeviceBuffer::Allocate(total > 0 ? total : 8, stream));
      OutParams bytes = out;
      bytes.mode = kStringBytes;
      bytes.valid = nullptr;
      bytes.data = col->data.data_as<uint8_t>();
      TANDEM_RETURN_NOT_OK(Launch(dp, bytes, n, stream));
      // The program buffers are freed stream-ordered after the kernel; nothing to wait for.
    }
  }
  if (status.error_key != ~0ull) {
    return ReplayError(expr, false, batch, status.error_key, eval, stream);
  }
  col->null_count = static_cast<int64_t>(status.null_count);
  if (col->null_count == 0) col->validity = DeviceBuffer();
  return col;
}

// Launches the predicate's program writing one flag byte per row (1: TRUE).
Result<DeviceBuffer> LaunchFlags(const DeviceProgram& dp, int64_t n, const Stream& stream) {
  TANDEM_ASSIGN_OR_RAISE(DeviceBuffer flags, DeviceBuffer::Allocate(n > 0 ? n : 8, stream));
  if (n == 0) return std::move(flags);
  OutParams out;
  out.mode = kSelectFlags;
  out.type = static_cast<int32_t>(TypeId::kBool);
  out.values = flags.data();
  TANDEM_RETURN_NOT_OK(Launch(dp, out, n, stream));
  return std::move(flags);
}

// A flag byte as a count.
struct FlagToCount {
  __host__ __device__ int64_t operator()(uint8_t flag) const { return flag; }
};

// Into *count (device memory) the number of set flags (kCountAndFlags) or, with `indices`, the
// indices of the rows whose flag is set and their number.
Status CountOrSelect(const uint8_t* flags, int64_t n, int64_t* indices, int64_t* count,
                     const Stream& stream) {
  auto cu_stream = static_cast<cudaStream_t>(stream.handle());
  thrust::counting_iterator<int64_t> rows(0);
  auto ones = thrust::make_transform_iterator(flags, FlagToCount{});
  auto run = [&](void* temp, size_t& bytes) {
    return indices
               ? cub::DeviceSelect::Flagged(temp, bytes, rows, flags, indices, count, n, cu_stream)
               : cub::DeviceReduce::Sum(temp, bytes, ones, count, n, cu_stream);
  };
  size_t temp_bytes = 0;
  TANDEM_RETURN_NOT_OK(CudaCheck(run(nullptr, temp_bytes), "select"));
  TANDEM_ASSIGN_OR_RAISE(DeviceBuffer temp,
                         DeviceBuffer::Allocate(static_cast<int64_t>(temp_bytes) + 8, stream));
  return CudaCheck(run(temp.data(), temp_bytes), "select");
}

Result<Selection> SelectProgram(const Expr& predicate, const DeviceBatch& batch,
                                const EvalContext& eval, const Stream& stream,
                                SelectionParts parts) {
  TANDEM_ASSIGN_OR_RAISE(DeviceProgram dp, Prepare(predicate, true, batch, eval, stream));
  const int64_t n = batch.num_rows;
  Selection sel;
  if (n == 0) return std::move(sel);
  TANDEM_ASSIGN_OR_RAISE(DeviceBuffer flags, LaunchFlags(dp, n, stream));
  const bool want_indices = parts == SelectionParts::kIndices;
  if (want_indices) {
    TANDEM_ASSIGN_OR_RAISE(sel.indices, DeviceBuffer::Allocate(n * sizeof(int64_t), stream));
  }
  TANDEM_ASSIGN_OR_RAISE(DeviceBuffer count, DeviceBuffer::Allocate(sizeof(int64_t), stream));
  TANDEM_RETURN_NOT_OK(CountOrSelect(flags.data_as<uint8_t>(), n,
                                     want_indices ? sel.indices.data_as<int64_t>() : nullptr,
                                     count.data_as<int64_t>(), stream));
  TANDEM_RETURN_NOT_OK(CopyToHost(&sel.count, count.data(), sizeof(int64_t), stream));
  TANDEM_ASSIGN_OR_RAISE(DeviceStatus status, ReadStatus(dp, stream));
  if (status.error_key != ~0ull) {
    return ReplayError(predicate, true, batch, status.error_key, eval, stream);
  }
  if (!want_indices) sel.flags = std::move(flags);
  return std::move(sel);
}

// An expression whose UDF calls have been run: it reads their results as columns of `batch`
// (the input's columns, then one per call).
struct WithUdfResults {
  ExprPtr expr;
  DeviceBatch batch;
};

// Copies `e` (which contains a UDF call) with every call replaced by a reference to a column
// holding its result, which it appends to w->batch.
Result<ExprPtr> RunUdfCalls(const Expr& e, WithUdfResults* w, const EvalContext& eval,
                            const Stream& stream) {
  std::vector<ExprPtr> args;
  args.reserve(e.args.size());
  for (const auto& a : e.args) {
    if (internal::FindUdfCall(*a) == nullptr) {
      args.push_back(a);
      continue;
    }
    TANDEM_ASSIGN_OR_RAISE(ExprPtr replaced, RunUdfCalls(*a, w, eval, stream));
    args.push_back(std::move(replaced));
  }
  if (!(e.kind == ExprKind::kCall && e.udf)) {
    auto copy = std::make_shared<Expr>(e);
    copy->args = std::move(args);
    return ExprPtr(std::move(copy));
  }
  std::vector<DeviceColumnPtr> columns;
  for (const ExprPtr& a : args) {
    TANDEM_ASSIGN_OR_RAISE(DeviceColumnPtr c, EvaluateProgram(*a, w->batch, eval, stream));
    columns.push_back(std::move(c));
  }
  Result<DeviceColumnPtr> result = udf::CallGpu(*e.udf, columns, w->batch.num_rows, stream);
  if (!result.ok()) {
    if (result.status().code() != StatusCode::kInvalid) return result.status();
    return cpu::internal::ExprError(e, result.status().message());  // as the CPU words it
  }
  const int index = static_cast<int>(w->batch.columns.size());
  w->batch.columns.push_back(std::move(*result));
  w->batch.schema.fields.push_back(Field{"udf_" + e.name, e.type, e.nullable});
  return MakeColumnRef(index, e.type, e.nullable, e.name);
}

Result<WithUdfResults> WithUdfCallsRun(const Expr& expr, const DeviceBatch& batch,
                                       const EvalContext& eval, const Stream& stream) {
  WithUdfResults w;
  w.batch = batch;
  TANDEM_ASSIGN_OR_RAISE(w.expr, RunUdfCalls(expr, &w, eval, stream));
  return std::move(w);
}

}  // namespace

Result<DeviceColumnPtr> Evaluate(const Expr& expr, const DeviceBatch& batch,
                                 const EvalContext& eval, const Stream& stream) {
  if (internal::FindUdfCall(expr) == nullptr) return EvaluateProgram(expr, batch, eval, stream);
  TANDEM_ASSIGN_OR_RAISE(WithUdfResults w, WithUdfCallsRun(expr, batch, eval, stream));
  return EvaluateProgram(*w.expr, w.batch, eval, stream);
}

Result<Selection> SelectTrue(const Expr& predicate, const DeviceBatch& batch,
                             const EvalContext& eval, const Stream& stream, SelectionParts parts) {
  if (internal::FindUdfCall(predicate) == nullptr) {
    return SelectProgram(predicate, batch, eval, stream, parts);
  }
  TANDEM_ASSIGN_OR_RAISE(WithUdfResults w, WithUdfCallsRun(predicate, batch, eval, stream));
  return SelectProgram(*w.expr, w.batch, eval, stream, parts);
}

}  // namespace tandem::gpu
