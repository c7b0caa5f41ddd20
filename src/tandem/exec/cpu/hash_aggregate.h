// Hash aggregation with a Filter fused in: the executor runs Filter -> Aggregate as one operator
// so the rows that pass are aggregated where they lie, without a filtered copy of the input.
#pragma once

#include <memory>

#include "tandem/exec/cpu/operators.h"
#include "tandem/exec/cpu/pipeline_sink.h"

namespace tandem::cpu {

// HashAggregate over the rows of `input` where `predicate` (over the input's columns) is TRUE;
// *rows_selected (if given) receives how many rows passed, for the Filter's metrics.
Result<Table> HashAggregateFiltered(const PlanNode& node, const Expr& predicate, const Table& input,
                                    ExecContext& ctx, int64_t* rows_selected);

// Direct indexing (GroupTable::UseDirectIndex) pays for keys in [min, max] over `rows` input
// rows when the range is not much larger than the rows and one index over it fits in memory
// (each of the `workers` tables makes its index only where its rows fall, and hashes instead
// when they spread thinly): sets [lo, lo + span).
bool DirectIndexSpanFits(int64_t min, int64_t max, int64_t rows, int workers, int64_t* lo,
                         int64_t* span);
// The same over the values of an integer-like column of a table without NULLs.
bool DirectIndexRangeOf(const Table& input, int column, int workers, int64_t* lo, int64_t* span);

class Aggregation;

// The same aggregation fed batch by batch, from any number of threads at once: the sink of a
// pipeline (exec/cpu/pipeline.h). Each call takes a partial state no other thread holds, so the
// partial states number the threads that ever ran at once, as in HashAggregate.
class AggregateSink final : public PipelineSink {
 public:
  // predicate: a fused Filter's (rows where it is not TRUE are skipped), or null.
  AggregateSink(const PlanNode& node, const Expr* predicate, ExecContext& ctx);
  ~AggregateSink() override;

  Status Prepare();  // first
  // The input column of the one integer group key that direct indexing could use, or -1; with
  // its value range known before the first row (source statistics), UseDirectIndex turns it on.
  int DirectIndexKeyColumn() const;
  void UseDirectIndex(int64_t lo, int64_t span);
  Status Consume(const Batch& batch, EvalContext& eval) override;  // thread-safe
  Result<Table> Finish() override;                                 // once, after every Consume
  int64_t selected_rows() const;

 private:
  std::unique_ptr<Aggregation> impl_;
};

}  // namespace tandem::cpu
