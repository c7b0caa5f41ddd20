// External merge sort: the Sort of more rows than the host budget (tandem.memory.host.limit)
// lets it sort in memory. The in-memory Sort holds its whole input, a key item per row and the
// whole output at once; this one holds the output and little more.
//
// SortRunSink takes the sort's input batch by batch (as a pipeline's sink, or fed from a table
// whose batches it releases). Whenever the rows it holds pass its run size, one thread sorts
// them as the in-memory Sort does (normalized keys, sort_runs.h) and writes them to a spill file
// (memory/spill_file.h) as a sorted run of small blocks; the other threads wait for it, which
// bounds what is held. Merge then reads one block per run at a time and merges the runs by the
// typed key comparison (CompareSortRows): when one block per run would take more than the merge's
// budget, groups of runs are merged into longer runs on disk first (more passes). Ties come out
// in run order, and within a run in the order the rows arrived.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "tandem/exec/cpu/pipeline_sink.h"
#include "tandem/memory/spill_file.h"
#include "tandem/plan/logical_plan.h"

namespace tandem::cpu {

class SortRunSink final : public PipelineSink {
 public:
  // `sort`: the Sort node (its keys are over its input, its schema the rows'); `run_bytes`: the
  // input held before it is sorted and written as a run.
  SortRunSink(const PlanNode& sort, int64_t run_bytes, ExecContext& ctx);
  ~SortRunSink() override;

  Status Consume(const Batch& batch, EvalContext& eval) override;
  // Writes what is held as the last run, if any run was written; returns no rows (Merge does).
  Result<Table> Finish() override;
  // Every row in the sort's order, using at most about `merge_budget` bytes for the blocks being
  // merged (besides the output). Rows never written to a run are sorted in memory.
  Result<Table> Merge(int64_t merge_budget);
  // The same, each block of the merged rows handed to `emit` in order instead of collected: the
  // sort's output need not fit either.
  Status MergeInto(int64_t merge_budget, const std::function<Status(BatchPtr)>& emit);

  int runs_written() const { return runs_written_; }  // intermediate merge passes' runs too
  int merge_passes() const { return merge_passes_; }
  int64_t spilled_bytes() const { return spilled_bytes_; }

  // Rows per block of a run file: what the merge holds per run.
  static constexpr int64_t kRunBlockRows = 8192;

 private:
  Status WriteRun(std::vector<BatchPtr> batches, EvalContext& eval);
  Status MergeGroup(std::vector<std::unique_ptr<SpillFile>> group, int64_t out_rows,
                    const std::function<Status(BatchPtr)>& emit);

  const PlanNode& sort_;
  const int64_t run_bytes_;
  ExecContext& ctx_;
  std::mutex mu_;        // pending_
  std::mutex write_mu_;  // one run is written at a time; the others wait (bounded memory)
  std::vector<BatchPtr> pending_;
  int64_t pending_bytes_ = 0;
  std::vector<std::unique_ptr<SpillFile>> runs_;
  int runs_written_ = 0;
  int merge_passes_ = 0;
  int64_t spilled_bytes_ = 0;
};

}  // namespace tandem::cpu
