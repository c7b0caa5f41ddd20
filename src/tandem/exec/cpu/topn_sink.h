// TopNSink: ORDER BY ... LIMIT n OFFSET m as the sink of the pipeline below it, so that its input
// is never a whole table. Each batch that arrives keeps only its first n + m rows in the sort's
// order (a partial sort, gathered); those candidates accumulate, and once they pass a few times
// n + m rows they are cut back to n + m. Finish runs TopN over what is left. Rows equal on every
// sort key may come from any batch (SQL leaves their choice open), so among ties the rows kept
// depend on the order in which the threads delivered batches.
#pragma once

#include <atomic>
#include <mutex>
#include <vector>

#include "tandem/exec/cpu/pipeline_sink.h"
#include "tandem/plan/logical_plan.h"

namespace tandem::cpu {

class TopNSink final : public PipelineSink {
 public:
  // limit: the Limit with a row count over `sort` (plan::IsTopN).
  TopNSink(const PlanNode& limit, const PlanNode& sort, ExecContext& ctx);
  Status Consume(const Batch& batch, EvalContext& eval) override;
  Result<Table> Finish() override;
  Status Restart() override;
  // Time spent in Consume, over every thread.
  double consume_millis() const { return static_cast<double>(consume_nanos_.load()) / 1e6; }

 private:
  // The first keep_ rows of `rows` in the sort's order (every row when there are fewer).
  Result<std::vector<BatchPtr>> FirstRows(std::vector<BatchPtr> rows, EvalContext& eval) const;

  const PlanNode& limit_;
  const PlanNode& sort_;
  ExecContext& ctx_;
  int64_t keep_ = 0;        // n + m
  int64_t compact_at_ = 0;  // candidate rows that trigger a cut back to keep_
  std::mutex mu_;
  std::vector<BatchPtr> candidates_;
  int64_t candidate_rows_ = 0;
  std::atomic<int64_t> consume_nanos_{0};
};

// RowRangeSink: rows [offset, offset + limit) of what arrives in order from one thread (the
// merge of an external sort): a TopN whose kept rows do not fit as candidates (a large OFFSET)
// runs as the external sort and this.
class RowRangeSink final : public PipelineSink {
 public:
  RowRangeSink(Schema schema, int64_t offset, int64_t limit)
      : schema_(std::move(schema)), offset_(offset), limit_(limit) {}
  Status Consume(const Batch& batch, EvalContext& eval) override;
  Result<Table> Finish() override { return Table{schema_, std::move(kept_)}; }

 private:
  Schema schema_;
  int64_t offset_;  // rows still to skip
  int64_t limit_;   // rows still to keep
  std::vector<BatchPtr> kept_;
};

}  // namespace tandem::cpu
