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
  // running out of memory); false when the sink cannot (its rows are gone where they went).
  virtual bool Restart() { return false; }
};

}  // namespace tandem::cpu
