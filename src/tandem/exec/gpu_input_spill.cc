// A GPU operator's finished inputs, moved to host memory while a later input runs out of GPU
// memory, and back (the spill of device buffers to host memory that a memory manager owes a
// query before it gives up the GPU). A join's probe side, say, sits on the GPU while its build
// side runs; when the build side cannot get memory, the columns only the probe side holds go to
// host memory, the build side runs again in the room they leave, and they come back. Columns
// another holder shares (a table cached on the GPU, an output an identical subplan reuses, a
// slice standing in for a node) free nothing and stay. When nothing can move, or the input runs
// out again, the out-of-memory error goes on to the part's retries (hash partitions, slices, the
// CPU: RunGpuPart). QueryRun's method for it.
#include <new>

#include "tandem/common/text.h"
#include "tandem/exec/query_run.h"
#include "tandem/gpu/device_column.h"

namespace tandem::exec_detail {

Result<gpu::DeviceBatchPtr> QueryRun::RunDeviceMakingRoom(const PlanNode& input,
                                                          std::vector<gpu::DeviceBatchPtr>* held,
                                                          InputSpill* spill) {
  Result<gpu::DeviceBatchPtr> out = RunDevice(input);
  // Only the GPU's: moving columns into host memory cannot help an input short of host memory.
  if (out.ok() || out.status().code() != StatusCode::kOutOfMemory || ctx_.Cancelled() ||
      held->empty() || !ctx_.gpu_input_spill ||
      out.status().message().find("GPU out of memory") == std::string::npos) {
    return out;
  }
  TANDEM_ASSIGN_OR_RAISE(gpu::GpuContext * g, Gpu());
  // The host copies first; a failure leaves every input as it was and the error as it came.
  struct Moved {
    size_t input, column;
    ColumnPtr host;
    int64_t bytes;
  };
  std::vector<Moved> moved;
  for (size_t i = 0; i < held->size(); ++i) {
    const gpu::DeviceBatchPtr& batch = (*held)[i];
    if (!batch || batch.use_count() != 1) continue;
    for (size_t c = 0; c < batch->columns.size(); ++c) {
      const gpu::DeviceColumnPtr& col = batch->columns[c];
      if (!col || col.use_count() != 1) continue;
      Result<ColumnPtr> host = Status::OutOfMemory("host memory");
      try {
        host = gpu::ColumnToHost(*col, *g->stream);
      } catch (const std::bad_alloc&) {  // over the host budget
      }
      if (!host.ok()) return host.status().code() == StatusCode::kOutOfMemory ? out : host.status();
      moved.push_back({i, c, *host, col->validity.size() + col->values.size() + col->data.size()});
    }
  }
  int64_t bytes = 0;
  for (const Moved& m : moved) bytes += m.bytes;
  if (bytes == 0) return out;
  for (const Moved& m : moved) (*held)[m.input]->columns[m.column].reset();
  ForgetMetrics(input, ctx_);
  out = RunDevice(input);
  if (!out.ok()) return out;  // the part's retries take it from here; the inputs go with it
  for (const Moved& m : moved) {
    TANDEM_ASSIGN_OR_RAISE((*held)[m.input]->columns[m.column],
                           gpu::ColumnToDevice(*m.host, *g->stream));
  }
  spill->bytes += bytes;
  ++spill->times;
  ctx_.gpu_input_spill_bytes += bytes;
  ++ctx_.gpu_input_spills;
  return out;
}

std::string QueryRun::InputSpill::Note() const {
  if (times == 0) return "";
  return " (inputs moved to host memory while another ran out of GPU memory, and back: " +
         FormatByteSize(bytes) + ")";
}

}  // namespace tandem::exec_detail
