// PipelineSink: where a pipeline's batches end (exec/cpu/pipeline.h). Consume is called from
// many threads at once; Finish once, after the last Consume, gives the sink's result.
#pragma once

#include "tandem/column/table.h"
#include "tandem/exec/exec_context.h"

namespace tandem::cpu {

class PipelineSink {
 public:
  virtual ~PipelineSink() = default;
  virtual Status Consume(const Batch& batch, EvalContext& eval) = 0;
  virtual Result<Table> Finish() = 0;
  // Forgets every row consumed so far, for a pipeline that runs again from its start (after
  // running out of memory). A sink that cannot (its rows are gone where they went) says so as
  // running out of memory, which the retry then ends with.
  virtual Status Restart() {
    return Status::OutOfMemory(
        "host memory limit reached (tandem.memory.host.limit) after rows went where they cannot "
        "be taken back to run again");
  }
};

}  // namespace tandem::cpu
