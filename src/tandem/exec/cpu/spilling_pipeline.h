// Pipelines whose sinks outgrow the host budget (tandem.memory.host.limit) spill instead of
// failing (exec/cpu/partition_sink.h):
//
// - Grace hash join: a join whose hash table does not fit has its build side written to disk in
//   partitions by key hash. The part of the pipeline below the join then runs into a
//   PartitionSink on the probe keys, and each partition pair is joined in turn, its probe rows
//   going on through the steps above the join into the pipeline's sink. Several joins of one
//   pipeline may each go this way (the partitions of one run through the next).
// - Partitioned aggregation: an aggregation whose partial states do not fit runs its pipeline
//   again into a PartitionSink on the group keys (its filter applied first) and aggregates the
//   partitions one at a time; a group lies in one partition only, so their results are the
//   result.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "tandem/exec/cpu/pipeline.h"
#include "tandem/memory/spill_file.h"

namespace tandem::cpu {

// How many times a partition on disk that still does not fit may be split again (another
// partition function each time), and into how many pieces.
constexpr int kMaxSplitDepth = 4;
constexpr int kSplitPieces = 8;

// Runs op, trying again where the executor would after running out of memory
// (QueryRun::WithHostRetry).
using HostRetry =
    std::function<Result<Table>(const PlanNode&, const std::function<Result<Table>()>&)>;

struct SpillableSteps {
  // Parallel to Pipeline::steps: the spilled build side of a grace join at that step, or null.
  std::vector<std::shared_ptr<SpillPartitions>> build_spills;
  // Parallel to build_spills: bytes each grace join wrote besides its build side (its probe
  // side, and both sides of partitions split again).
  std::vector<int64_t> probe_bytes;
  // Parallel to build_spills: partitions (or pieces) of each grace join split again.
  std::vector<int> join_resplits;
  int64_t aggregate_bytes = 0;   // the partitioned aggregation's input
  int aggregate_partitions = 0;  // its partitions
  int aggregate_resplits = 0;    // partitions (or pieces) that had to be split again
  int aggregate_passes = 1;      // runs of the input (one per DISTINCT argument of a global one)
};

// Host memory a spilled operator may plan to hold at once (a part of what the budget has free),
// and roughly what `node`'s rows with their hash table take (for SpillPartitionCount).
int64_t SpillBudget(int64_t releasable = 0);
int64_t EstimatedSpillBytes(const PlanNode& node);

// Whether a streamed join may go grace: its build side may be split by key (not a null-aware
// NOT IN, whose answer depends on the whole build side).
bool CanGraceJoin(const PlanNode& join);
// Writes the build side of `join` (its right input) to disk in partitions by key.
Result<std::shared_ptr<SpillPartitions>> SpillBuildSide(const PlanNode& join, const Table& right,
                                                        ExecContext& ctx);

// The same for a build side on disk already (an aggregation's groups, RunPipelineSource).
Result<std::shared_ptr<SpillPartitions>> SpillBuildSideFrom(const PlanNode& join,
                                                            const SpillFile& rows,
                                                            ExecContext& ctx);

// Runs p (source and steps; its sink is not finished) with the grace joins of `spill`; the
// collected output when p has no sink. times add up over the runs.
Result<Table> RunPipelineSpilling(Pipeline& p, SpillableSteps& spill, ExecContext& ctx,
                                  const HostRetry& retry, PipelineTimes* times);

// Feeds every block of `file` (batches of `schema`) to `sink` on the operator's threads.
Status ConsumeSpilledBlocks(const SpillFile& file, const Schema& schema, PipelineSink& sink,
                            ExecContext& ctx);

// For an aggregation without keys whose DISTINCT calls all take one argument (and whose other
// calls combine, exec/split_aggregate.h): that argument, by which its input can be partitioned
// (each partition's distinct values its own, the partitions' partial rows merged); else null.
const Expr* DistinctPartitionKey(const PlanNode& aggregate);
// An aggregation without keys with DISTINCT calls, split by DISTINCT argument: per argument, its
// calls (the calls without DISTINCT go with the first) as an aggregation of their own, which
// that argument partitions. Empty when it has no DISTINCT call or a part does not combine.
struct DistinctGroup {
  const Expr* key;            // the DISTINCT argument
  std::vector<size_t> calls;  // the aggregation's calls computed by `aggregate`, in its order
  PlanPtr aggregate;          // those calls (the aggregation itself when there is one group)
};
std::vector<DistinctGroup> DistinctGroupsOf(const PlanNode& aggregate);
// Whether an aggregation can be partitioned by a key all its grouping sets share, or by its
// DISTINCT arguments (DistinctGroupsOf).
bool CanSpillAggregate(const PlanNode& aggregate);
// The partitioned aggregation of `aggregate` over what p produces (p's sink is replaced; p runs
// once per DISTINCT argument of a global aggregation with several); the rows that passed
// `predicate` (a fused filter, or null) go to *selected. With `to_disk`, each
// partition's groups are appended to that file as they are made (and no rows are returned): the
// groups need not fit in memory together.
Result<Table> AggregateBySpilling(Pipeline& p, SpillableSteps& spill, const PlanNode& aggregate,
                                  const Expr* predicate, ExecContext& ctx, const HostRetry& retry,
                                  PipelineTimes* times, int64_t* selected,
                                  SpillFile* to_disk = nullptr);

}  // namespace tandem::cpu
