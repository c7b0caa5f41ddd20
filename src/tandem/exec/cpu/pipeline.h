// CPU pipelines (push-based, morsel-driven, in the manner of HyPer and DuckDB): batches from a
// source run through streaming operators (Filter, Project, the probe of a hash join whose build
// side is done) on the thread that produced them, and end in a sink: a hash aggregation's
// partial states, or the pipeline's output kept in source order. Nothing between the source and
// the sink is ever a whole table, so memory holds a few batches per thread instead of every
// intermediate result, and each batch is still in the caches when the next operator reads it.
//
// The source is a Parquet scan read row group by row group on the reader's threads (each row
// group decoded, then pushed through while the other threads decode), or a table already in
// memory (a cached table, or the output of the pipeline below a breaker), cut into morsels that
// the threads take in turn. The executor (exec/cpu_pipelines.cc) cuts the plan into pipelines at
// breakers (aggregation, the build side of a join, sort, window, set operations, device
// transitions).
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "tandem/exec/cpu/hash_aggregate.h"
#include "tandem/exec/cpu/join_probe.h"
#include "tandem/exec/exec_context.h"
#include "tandem/memory/spill_file.h"

namespace tandem::cpu {

// One streaming operator of a pipeline; Apply runs on many threads at once.
class PipelineStep {
 public:
  explicit PipelineStep(const PlanNode& node) : node_(node) {}
  virtual ~PipelineStep() = default;
  const PlanNode& node() const { return node_; }
  virtual const char* name() const = 0;
  // Appends the output of one input batch to *out: no batch, one, or several.
  virtual Status Apply(const BatchPtr& in, EvalContext& eval, std::vector<BatchPtr>* out) = 0;

  // What the step did, over every thread.
  std::atomic<int64_t> rows{0};
  std::atomic<int64_t> batches{0};
  std::atomic<int64_t> bytes{0};
  std::atomic<int64_t> nanos{0};

  // A Filter run inside this step (a join's probe), or null; the rows it let through and its
  // time (part of nanos), for its own line in EXPLAIN ANALYZE.
  const PlanNode* fused_filter = nullptr;
  std::atomic<int64_t> fused_rows{0};
  std::atomic<int64_t> fused_nanos{0};

 private:
  const PlanNode& node_;
};

// `consumer`: the Project the Filter's rows go to next, or null. The rows that pass are copied
// only for the columns the Project reads (the others become NULL placeholders it never looks
// at): TPC-H Q13 filters 15M orders on o_comment and then drops it.
std::unique_ptr<PipelineStep> MakeFilterStep(const PlanNode& node, const PlanNode* consumer);
std::unique_ptr<PipelineStep> MakeProjectStep(const PlanNode& node);
// The probe of a join whose right side `probe` has built (JoinProbe::StreamsProbeSide). A grace
// hash join (exec/cpu/partition_sink.h) builds one partition at a time and sets each in turn.
// `filter`: the Filter right below the join on its probe side, run inside the probe (the rows
// that pass are copied once, after the probe's own key test, not once for each), or null.
std::unique_ptr<PipelineStep> MakeProbeStep(const PlanNode& node,
                                            std::shared_ptr<const JoinProbe> probe,
                                            ExecContext& ctx, const PlanNode* filter = nullptr);
void SetProbe(PipelineStep& probe_step, std::shared_ptr<const JoinProbe> probe);

struct Pipeline {
  // The source: a Parquet scan read row group by row group (scan != null), the blocks of a
  // spill file (spilled != null; a partition of a grace join's probe side), else `input`.
  const PlanNode* scan = nullptr;
  const SpillFile* spilled = nullptr;
  Schema spilled_schema;
  Table input;
  // In the order batches pass them; shared by the pipelines a grace hash join runs one after
  // another, so their metrics add up.
  std::vector<std::shared_ptr<PipelineStep>> steps;
  // Prepared by the caller (AggregateSink::Prepare), or a PartitionSink; null: the output
  // batches are collected in source order.
  PipelineSink* sink = nullptr;
  // Whether RunPipeline finishes the sink (false: the caller does, after feeding it from
  // several runs).
  bool finish_sink = true;
  const PlanNode* top = nullptr;  // the node whose rows the pipeline produces
};

struct PipelineTimes {
  double wall_ms = 0;
  double sink_finish_ms = 0;   // the aggregation's merge, after the last batch
  double sink_thread_ms = 0;   // folding batches into the sink, over every thread
  int threads = 1;             // threads that can have taken part
  int64_t source_batches = 0;  // what a streamed scan handed to the first step
  int64_t source_bytes = 0;
};

// Runs the pipeline to its end: the sink's result, or the collected output batches.
Result<Table> RunPipeline(Pipeline& pipeline, ExecContext& ctx, PipelineTimes* times);

// For a sink's one integer group key (input column `column` of the sink), the column of the
// pipeline's source it passes through unchanged, or -1.
int SourceColumnOf(const Pipeline& pipeline, int column);

}  // namespace tandem::cpu
