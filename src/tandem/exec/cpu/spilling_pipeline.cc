// Grace hash joins and partitioned aggregation in pipelines (see spilling_pipeline.h).
#include "tandem/exec/cpu/spilling_pipeline.h"

#include <algorithm>
#include <optional>
#include <string>

#include "tandem/column/take.h"
#include "tandem/exec/cpu/hash_aggregate.h"
#include "tandem/exec/cpu/operator_util.h"
#include "tandem/exec/cpu/operators.h"
#include "tandem/exec/cpu/partition_sink.h"
#include "tandem/exec/split_aggregate.h"
#include "tandem/memory/host_memory.h"

namespace tandem::cpu {
namespace {

// Adds a run's times; the batches of its source count only for the pipeline's own source (a
// partition read back from disk is not what the scan read).
void AddTimes(const PipelineTimes& t, bool own_source, PipelineTimes* total) {
  total->wall_ms += t.wall_ms;
  total->sink_finish_ms += t.sink_finish_ms;
  total->sink_thread_ms += t.sink_thread_ms;
  total->threads = t.threads;
  if (own_source) {
    total->source_batches += t.source_batches;
    total->source_bytes += t.source_bytes;
  }
}

std::vector<const Expr*> Pointers(const std::vector<ExprPtr>& exprs) {
  std::vector<const Expr*> out;
  for (const ExprPtr& e : exprs) out.push_back(e.get());
  return out;
}

// Group keys every grouping set of the aggregation has (all keys of a plain GROUP BY).
std::vector<int> SharedGroupKeys(const PlanNode& aggregate) {
  std::vector<int> keys;
  for (int k = 0; k < static_cast<int>(aggregate.group_keys.size()); ++k) {
    bool in_all = true;
    for (const std::vector<int>& set : aggregate.grouping_sets) {
      in_all &= std::find(set.begin(), set.end(), k) != set.end();
    }
    if (in_all) keys.push_back(k);
  }
  return keys;
}

}  // namespace

Status ConsumeSpilledBlocks(const SpillFile& file, const Schema& schema, PipelineSink& sink,
                            ExecContext& ctx) {
  return opx::ForEachMorsel(file.num_blocks(), opx::OperatorThreads(ctx), ctx.eval,
                            [&](int64_t m, EvalContext& eval) -> Status {
                              TANDEM_ASSIGN_OR_RAISE(BatchPtr block, file.ReadBlock(m, schema));
                              return sink.Consume(*block, eval);
                            });
}

namespace {

Result<Table> RunSteps(const Pipeline& p, size_t from, size_t search, const SpillFile* spilled,
                       SpillableSteps& spill, ExecContext& ctx, const HostRetry& retry,
                       PipelineTimes* times);

// Joins partition pair (build_rows, probe_rows) of the grace join at step g and runs the
// steps above it over the result into p's sink (or *out).
Status JoinPartition(const Pipeline& p, size_t g, SpillFile& build_rows,
                     const SpillFile& probe_rows, int depth, SpillableSteps& spill,
                     ExecContext& ctx, const HostRetry& retry, PipelineTimes* times, Table* out);

// Runs steps [from, end) of p over its source (a scan or table when from == 0, else the spill
// file `spilled`), grace-joining at the spilled joins from step `search` on (the step at `from`
// of a partition's run has that partition's probe set).
Result<Table> RunSteps(const Pipeline& p, size_t from, size_t search, const SpillFile* spilled,
                       SpillableSteps& spill, ExecContext& ctx, const HostRetry& retry,
                       PipelineTimes* times) {
  size_t g = search;
  while (g < p.steps.size() && !(g < spill.build_spills.size() && spill.build_spills[g])) ++g;
  Pipeline run;
  run.top = p.top;
  run.finish_sink = false;
  if (spilled) {
    run.spilled = spilled;
    run.spilled_schema = p.steps[from]->node().children[0]->schema;
  } else {
    run.scan = p.scan;
    run.spilled = p.spilled;
    run.spilled_schema = p.spilled_schema;
    run.input = p.input;
  }
  run.steps.assign(p.steps.begin() + static_cast<ptrdiff_t>(from),
                   p.steps.begin() + static_cast<ptrdiff_t>(g));
  PipelineTimes t;
  if (g == p.steps.size()) {
    run.sink = p.sink;
    Result<Table> out = RunPipeline(run, ctx, &t);
    AddTimes(t, spilled == nullptr, times);
    return out;
  }
  // Grace join at step g: its probe side (what steps [from, g) produce) goes to disk first.
  const PlanNode& join = p.steps[g]->node();
  SpillPartitions& build = *spill.build_spills[g];
  TANDEM_ASSIGN_OR_RAISE(std::unique_ptr<SpillPartitions> probe_parts,
                         SpillPartitions::Create(build.count(), ctx.spill_dir));
  PartitionSink sink(Pointers(join.left_keys), nullptr, join.children[0]->schema, *probe_parts);
  run.sink = &sink;
  TANDEM_RETURN_NOT_OK(RunPipeline(run, ctx, &t).status());
  AddTimes(t, spilled == nullptr, times);
  TANDEM_RETURN_NOT_OK(probe_parts->FinishWriting());
  spill.probe_bytes[g] += probe_parts->bytes();
  Table out;
  out.schema = p.top->schema;
  for (int q = 0; q < build.count(); ++q) {
    if (ctx.Cancelled()) return ExecContext::CancelledError();
    TANDEM_RETURN_NOT_OK(JoinPartition(p, g, build.file(q), probe_parts->file(q), 1, spill, ctx,
                                       retry, times, &out));
  }
  return out;
}

Status JoinPartition(const Pipeline& p, size_t g, SpillFile& build_rows,
                     const SpillFile& probe_rows, int depth, SpillableSteps& spill,
                     ExecContext& ctx, const HostRetry& retry, PipelineTimes* times, Table* out) {
  if (probe_rows.rows() == 0) return Status::OK();
  const PlanNode& join = p.steps[g]->node();
  const Schema& right_schema = join.children[1]->schema;
  // The partition's hash table, then its probe rows through the steps above the join. One that
  // runs out of memory building (too few partitions for its rows, string keys wider than
  // estimated) is split again, both sides with another hash; at the last level it is tried
  // again, then on one thread. So is one that runs out probing (a hash table that leaves too
  // little for what the probe makes) when the rows it made are its own (collected here), not
  // partly in the pipeline's sink, which cannot take rows back.
  std::shared_ptr<const JoinProbe> built;
  auto build = [&]() -> Result<Table> {
    built.reset();
    TANDEM_ASSIGN_OR_RAISE(Table right_rows, build_rows.ReadAll(right_schema));
    TANDEM_ASSIGN_OR_RAISE(std::unique_ptr<JoinProbe> b,
                           JoinProbe::Build(join, std::move(right_rows), ctx));
    built = std::move(b);
    return Table();
  };
  auto probe = [&]() -> Result<Table> {
    SetProbe(*p.steps[g], std::move(built));
    // The step lets go of the hash table however this ends (a std::bad_alloc included).
    struct Unset {
      PipelineStep& step;
      ~Unset() { SetProbe(step, nullptr); }
    } unset{*p.steps[g]};
    return RunSteps(p, g, g + 1, &probe_rows, spill, ctx, retry, times);
  };
  auto both = [&]() -> Result<Table> {
    TANDEM_RETURN_NOT_OK(build().status());
    return probe();
  };
  const bool own_rows = p.sink == nullptr;
  const std::function<Result<Table>()> attempt =
      own_rows ? std::function<Result<Table>()>(both) : std::function<Result<Table>()>(build);
  Result<Table> part =
      depth < kMaxSplitDepth ? opx::CatchOutOfMemory(attempt) : retry(join, attempt);
  bool fed_sink = false;
  if (part.ok() && !own_rows) {
    fed_sink = true;
    part = probe();
  }
  const bool split = !part.ok() && part.status().code() == StatusCode::kOutOfMemory &&
                     depth < kMaxSplitDepth && !fed_sink && !ctx.Cancelled();
  if (split) {
    TANDEM_ASSIGN_OR_RAISE(std::unique_ptr<SpillPartitions> build_pieces,
                           SpillPartitions::Create(kSplitPieces, ctx.spill_dir));
    TANDEM_ASSIGN_OR_RAISE(std::unique_ptr<SpillPartitions> probe_pieces,
                           SpillPartitions::Create(kSplitPieces, ctx.spill_dir));
    const auto seed = static_cast<uint64_t>(depth);
    PartitionSink build_split(Pointers(join.right_keys), nullptr, right_schema, *build_pieces,
                              seed);
    PartitionSink probe_split(Pointers(join.left_keys), nullptr, join.children[0]->schema,
                              *probe_pieces, seed);
    TANDEM_RETURN_NOT_OK(ConsumeSpilledBlocks(build_rows, right_schema, build_split, ctx));
    TANDEM_RETURN_NOT_OK(
        ConsumeSpilledBlocks(probe_rows, join.children[0]->schema, probe_split, ctx));
    TANDEM_RETURN_NOT_OK(build_pieces->FinishWriting());
    TANDEM_RETURN_NOT_OK(probe_pieces->FinishWriting());
    spill.probe_bytes[g] += build_pieces->bytes() + probe_pieces->bytes();
    ++spill.join_resplits[g];
    for (int q = 0; q < kSplitPieces; ++q) {
      TANDEM_RETURN_NOT_OK(JoinPartition(p, g, build_pieces->file(q), probe_pieces->file(q),
                                         depth + 1, spill, ctx, retry, times, out));
    }
    return Status::OK();
  }
  if (!part.ok()) return part.status();
  for (BatchPtr& b : part->batches) out->batches.push_back(std::move(b));
  return Status::OK();
}

// Aggregates the rows of one partition (streamed from its file into an AggregateSink) into
// *out, or into `to_disk` (in batches of the pipelines' size) when given; a partition whose
// groups still do not fit is split again on disk (another partition function) and its pieces
// aggregated in turn.
Status AggregatePartition(const PlanNode& aggregate, const SpillFile& rows,
                          const std::vector<const Expr*>& keys, int depth, ExecContext& ctx,
                          SpillableSteps& spill, Table* out, SpillFile* to_disk) {
  if (rows.rows() == 0) return Status::OK();
  const Schema& schema = aggregate.children[0]->schema;
  Result<Table> part = opx::CatchOutOfMemory([&]() -> Result<Table> {
    AggregateSink sink(aggregate, nullptr, ctx);
    TANDEM_RETURN_NOT_OK(sink.Prepare());
    TANDEM_RETURN_NOT_OK(ConsumeSpilledBlocks(rows, schema, sink, ctx));
    return sink.Finish();
  });
  if (part.ok() && to_disk) {
    for (const BatchPtr& b : opx::Morsels(*part, 1, ctx.cpu_batch_rows)) {
      TANDEM_RETURN_NOT_OK(to_disk->Append(*b));
    }
    return Status::OK();
  }
  if (part.ok()) {
    for (BatchPtr& b : part->batches) out->batches.push_back(std::move(b));
    return Status::OK();
  }
  if (part.status().code() != StatusCode::kOutOfMemory || depth >= kMaxSplitDepth ||
      ctx.Cancelled()) {
    return part.status();
  }
  ++spill.aggregate_resplits;
  TANDEM_ASSIGN_OR_RAISE(std::unique_ptr<SpillPartitions> pieces,
                         SpillPartitions::Create(kSplitPieces, ctx.spill_dir));
  PartitionSink split(keys, nullptr, schema, *pieces, static_cast<uint64_t>(depth));
  TANDEM_RETURN_NOT_OK(ConsumeSpilledBlocks(rows, schema, split, ctx));
  TANDEM_RETURN_NOT_OK(pieces->FinishWriting());
  spill.aggregate_bytes += pieces->bytes();
  for (int q = 0; q < kSplitPieces; ++q) {
    TANDEM_RETURN_NOT_OK(
        AggregatePartition(aggregate, pieces->file(q), keys, depth + 1, ctx, spill, out, to_disk));
  }
  return Status::OK();
}

}  // namespace

int64_t SpillBudget(int64_t releasable) {
  const int64_t free = host_memory::Limit() - host_memory::InUse() + releasable;
  return std::max<int64_t>(free / 2, int64_t{1} << 20);
}

int64_t EstimatedSpillBytes(const PlanNode& node) {
  double width = 0;
  for (const Field& f : node.schema.fields) width += f.type.is_string_like() ? 24 : 8;
  // The rows, and about twice as much again for a hash table or partial states over them.
  const double bytes = 3 * std::max(node.estimated_rows, 1.0) * std::max(width, 8.0);
  return static_cast<int64_t>(std::min(bytes, 9e18));
}

bool CanGraceJoin(const PlanNode& join) {
  return JoinProbe::StreamsProbeSide(join) && !join.null_aware;
}

Result<std::shared_ptr<SpillPartitions>> SpillBuildSide(const PlanNode& join, const Table& right,
                                                        ExecContext& ctx) {
  const int64_t bytes = opx::TableBytes(right);
  // A partition's hash table and encoded keys take about twice its rows' bytes again.
  const int count = SpillPartitionCount(3 * bytes, SpillBudget(bytes));
  TANDEM_ASSIGN_OR_RAISE(std::unique_ptr<SpillPartitions> parts,
                         SpillPartitions::Create(count, ctx.spill_dir));
  PartitionSink sink(Pointers(join.right_keys), nullptr, right.schema, *parts);
  const int threads = opx::OperatorThreads(ctx);
  const std::vector<BatchPtr> morsels = opx::Morsels(right, threads);
  TANDEM_RETURN_NOT_OK(opx::ForEachMorsel(
      static_cast<int64_t>(morsels.size()), threads, ctx.eval,
      [&](int64_t m, EvalContext& eval) { return sink.Consume(*morsels[m], eval); }));
  TANDEM_RETURN_NOT_OK(parts->FinishWriting());
  return std::shared_ptr<SpillPartitions>(std::move(parts));
}

Result<std::shared_ptr<SpillPartitions>> SpillBuildSideFrom(const PlanNode& join,
                                                            const SpillFile& rows,
                                                            ExecContext& ctx) {
  const int count = SpillPartitionCount(3 * rows.bytes(), SpillBudget());
  TANDEM_ASSIGN_OR_RAISE(std::unique_ptr<SpillPartitions> parts,
                         SpillPartitions::Create(count, ctx.spill_dir));
  const Schema& schema = join.children[1]->schema;
  PartitionSink sink(Pointers(join.right_keys), nullptr, schema, *parts);
  TANDEM_RETURN_NOT_OK(ConsumeSpilledBlocks(rows, schema, sink, ctx));
  TANDEM_RETURN_NOT_OK(parts->FinishWriting());
  return std::shared_ptr<SpillPartitions>(std::move(parts));
}

Result<Table> RunPipelineSpilling(Pipeline& p, SpillableSteps& spill, ExecContext& ctx,
                                  const HostRetry& retry, PipelineTimes* times) {
  *times = PipelineTimes{};
  spill.build_spills.resize(p.steps.size());
  spill.probe_bytes.assign(p.steps.size(), 0);
  spill.join_resplits.assign(p.steps.size(), 0);
  return RunSteps(p, 0, 0, nullptr, spill, ctx, retry, times);
}

const Expr* DistinctPartitionKey(const PlanNode& aggregate) {
  const std::vector<DistinctGroup> groups = DistinctGroupsOf(aggregate);
  return groups.size() == 1 ? groups[0].key : nullptr;
}

std::vector<DistinctGroup> DistinctGroupsOf(const PlanNode& aggregate) {
  if (aggregate.kind != PlanKind::kAggregate || !aggregate.group_keys.empty() ||
      !aggregate.grouping_sets.empty()) {
    return {};
  }
  std::vector<DistinctGroup> groups;
  std::vector<size_t> plain;  // the calls without DISTINCT: with the first group
  for (size_t i = 0; i < aggregate.aggregates.size(); ++i) {
    const AggregateCall& a = aggregate.aggregates[i];
    if (!a.distinct || !a.arg) {
      plain.push_back(i);
      continue;
    }
    size_t g = 0;
    while (g < groups.size() && !SameExpr(*groups[g].key, *a.arg)) ++g;
    if (g == groups.size()) groups.push_back(DistinctGroup{a.arg.get(), {}, nullptr});
    groups[g].calls.push_back(i);
  }
  if (groups.empty()) return {};
  for (size_t i : plain) groups[0].calls.push_back(i);
  for (DistinctGroup& group : groups) {
    if (groups.size() == 1) {
      group.aggregate = std::make_shared<PlanNode>(aggregate);
    } else {
      std::sort(group.calls.begin(), group.calls.end());
      auto sub = std::make_shared<PlanNode>(aggregate);
      sub->aggregates.clear();
      sub->schema.fields.clear();
      for (size_t i : group.calls) {
        sub->aggregates.push_back(aggregate.aggregates[i]);
        sub->schema.fields.push_back(aggregate.schema.fields[i]);
      }
      group.aggregate = std::move(sub);
    }
    std::string why;
    if (!SplitForChunks(*group.aggregate, &why, group.key)) return {};
  }
  return groups;
}

bool CanSpillAggregate(const PlanNode& aggregate) {
  return aggregate.kind == PlanKind::kAggregate &&
         (!SharedGroupKeys(aggregate).empty() || !DistinctGroupsOf(aggregate).empty());
}

namespace {

// The rows p produces partitioned on disk by `keys` (p's sink replaced for the run), each
// partition aggregated by `per_partition` into *out (or `to_disk`).
Status PartitionAndAggregate(Pipeline& p, SpillableSteps& spill, const PlanNode& per_partition,
                             const std::vector<const Expr*>& keys, const Expr* predicate,
                             ExecContext& ctx, const HostRetry& retry, PipelineTimes* times,
                             int64_t* selected, Table* out, SpillFile* to_disk) {
  const PlanNode& below = *per_partition.children[0];
  const int count = SpillPartitionCount(EstimatedSpillBytes(below), SpillBudget());
  TANDEM_ASSIGN_OR_RAISE(std::unique_ptr<SpillPartitions> parts,
                         SpillPartitions::Create(count, ctx.spill_dir));
  PartitionSink sink(keys, predicate, below.schema, *parts);
  PipelineSink* own = p.sink;
  p.sink = &sink;
  Result<Table> ran = RunPipelineSpilling(p, spill, ctx, retry, times);
  p.sink = own;
  TANDEM_RETURN_NOT_OK(ran.status());
  TANDEM_RETURN_NOT_OK(parts->FinishWriting());
  *selected = sink.rows_selected();
  spill.aggregate_bytes += parts->bytes();
  spill.aggregate_partitions = count;  // per pass over the input
  out->schema = per_partition.schema;
  for (int q = 0; q < count; ++q) {
    if (ctx.Cancelled()) return ExecContext::CancelledError();
    TANDEM_RETURN_NOT_OK(
        AggregatePartition(per_partition, parts->file(q), keys, 1, ctx, spill, out, to_disk));
  }
  return to_disk ? to_disk->FinishWriting() : Status::OK();
}

}  // namespace

Result<Table> AggregateBySpilling(Pipeline& p, SpillableSteps& spill, const PlanNode& aggregate,
                                  const Expr* predicate, ExecContext& ctx, const HostRetry& retry,
                                  PipelineTimes* times, int64_t* selected, SpillFile* to_disk) {
  spill.aggregate_bytes = 0;
  spill.aggregate_partitions = 0;
  spill.aggregate_resplits = 0;
  spill.aggregate_passes = 1;
  std::vector<const Expr*> keys;
  for (int k : SharedGroupKeys(aggregate)) keys.push_back(aggregate.group_keys[k].get());
  if (!keys.empty()) {
    Table out;
    TANDEM_RETURN_NOT_OK(PartitionAndAggregate(p, spill, aggregate, keys, predicate, ctx, retry,
                                               times, selected, &out, to_disk));
    return out;
  }
  // A global aggregation with DISTINCT calls: per DISTINCT argument, the input partitioned by it,
  // each partition's partial row (its own distinct values), then one merge of those rows; with
  // several arguments, the input runs once per argument and the rows are put side by side.
  const std::vector<DistinctGroup> groups = DistinctGroupsOf(aggregate);
  if (groups.empty()) return Status::Internal("aggregation without keys partitioned");
  spill.aggregate_passes = static_cast<int>(groups.size());
  std::vector<ColumnPtr> columns(aggregate.aggregates.size());
  // The steps' rows as the first pass counted them (each pass makes the same), their times over
  // every pass.
  struct StepCounts {
    int64_t rows, batches, bytes, fused_rows;
  };
  std::vector<StepCounts> first_pass;
  *times = PipelineTimes{};
  for (const DistinctGroup& group : groups) {
    std::string why;
    const std::optional<SplitAggregate> split = SplitForChunks(*group.aggregate, &why, group.key);
    if (!split) return Status::Internal("aggregation without keys partitioned: " + why);
    Table partials;
    PipelineTimes pass;
    TANDEM_RETURN_NOT_OK(PartitionAndAggregate(p, spill, *split->partial, {group.key}, predicate,
                                               ctx, retry, &pass, selected, &partials, nullptr));
    AddTimes(pass, first_pass.empty(), times);
    if (first_pass.empty()) {
      for (const auto& step : p.steps) {
        first_pass.push_back(
            {step->rows.load(), step->batches.load(), step->bytes.load(), step->fused_rows.load()});
      }
    } else {
      for (size_t i = 0; i < p.steps.size() && i < first_pass.size(); ++i) {
        p.steps[i]->rows = first_pass[i].rows;
        p.steps[i]->batches = first_pass[i].batches;
        p.steps[i]->bytes = first_pass[i].bytes;
        p.steps[i]->fused_rows = first_pass[i].fused_rows;
      }
    }
    TANDEM_ASSIGN_OR_RAISE(Table merged, HashAggregate(*split->merge, partials, ctx));
    TANDEM_ASSIGN_OR_RAISE(Table row, Project(*split->finish, merged, ctx));
    if (groups.size() == 1) return row;
    const BatchPtr one = CombineBatches(row);
    if (one->num_rows != 1) return Status::Internal("aggregation without keys made no row");
    for (size_t c = 0; c < group.calls.size(); ++c) columns[group.calls[c]] = one->columns[c];
  }
  auto batch = std::make_shared<Batch>();
  batch->schema = aggregate.schema;
  batch->num_rows = 1;
  batch->columns = std::move(columns);
  return Table{aggregate.schema, {std::move(batch)}};
}

}  // namespace tandem::cpu
