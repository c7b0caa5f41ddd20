// PartitionSink: the sink of a pipeline whose result does not fit the host budget. Each batch
// (after an optional filter) is split by a hash of key expressions into SpillPartitions on disk,
// so that rows with equal keys land in the same partition: an aggregation then runs partition by
// partition (its groups never span two), and a grace hash join joins partition p of one side
// with partition p of the other. The hash is the group table's (NULLs together, NaN = NaN,
// -0.0 = 0.0), which puts every pair of equal join keys together too.
#pragma once

#include <atomic>
#include <vector>

#include "tandem/exec/cpu/pipeline_sink.h"
#include "tandem/expr/expr.h"
#include "tandem/memory/spill_file.h"

namespace tandem::cpu {

class PartitionSink final : public PipelineSink {
 public:
  // `schema`: the batches' schema; `keys`: expressions over it; `predicate`: a filter applied
  // first (null: none).
  // `seed` varies the partition function (a partition too large is split again with another).
  PartitionSink(std::vector<const Expr*> keys, const Expr* predicate, Schema schema,
                SpillPartitions& parts, uint64_t seed = 0)
      : keys_(std::move(keys)),
        predicate_(predicate),
        schema_(std::move(schema)),
        parts_(parts),
        seed_(seed) {}

  Status Consume(const Batch& batch, EvalContext& eval) override;
  Result<Table> Finish() override { return Table{schema_, {}}; }
  int64_t rows_selected() const { return selected_.load(); }

 private:
  std::vector<const Expr*> keys_;
  const Expr* predicate_;
  Schema schema_;
  SpillPartitions& parts_;
  uint64_t seed_;
  std::atomic<int64_t> selected_{0};
};

// Partitions for `bytes` of input when `budget` bytes are to hold one at a time: a power of
// two from 4 to 128.
int SpillPartitionCount(int64_t bytes, int64_t budget);

}  // namespace tandem::cpu
