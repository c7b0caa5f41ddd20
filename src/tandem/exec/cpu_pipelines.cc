// CPU pipelines (exec/cpu/pipeline.h): which CPU nodes stream, and the run of the pipeline that
// ends at a node, its joins' build sides run on the way and spilled to disk when they do not fit
// (grace joins, spilling_pipeline.h). QueryRun's methods for it.
#include "tandem/exec/cpu/external_sort.h"
#include "tandem/exec/cpu/flipped_join.h"
#include "tandem/exec/cpu/operator_util.h"
#include "tandem/exec/cpu/operators.h"
#include "tandem/exec/cpu/ordered_window.h"
#include "tandem/exec/cpu/partition_sink.h"
#include "tandem/exec/cpu/topn_sink.h"
#include "tandem/exec/cpu/window_spill.h"
#include "tandem/exec/query_run.h"

namespace tandem::exec_detail {

bool QueryRun::BuiltOnItsLeft(const PlanNode& join) const {
  // A SEMI, ANTI or LEFT join whose left side looks far smaller than its right one is better
  // built on the left (cpu::HashJoin flips it): it runs as a whole-table operator.
  if (join.kind != PlanKind::kJoin || join.children.size() != 2 || !join.children[0] ||
      !join.children[1] || force_stream_.count(&join)) {
    return false;
  }
  const double left = join.children[0]->estimated_rows;
  const double right = join.children[1]->estimated_rows;
  const bool flips = join.join_type == JoinType::kSemi || join.join_type == JoinType::kAnti ||
                     join.join_type == JoinType::kLeft;
  return flips && !join.null_aware && left >= 0 && right >= 0 && left * 4 < right;
}

bool QueryRun::Streams(const PlanNode& node) const {
  if (OnGpuHere(node) || !ShapeIsValid(node)) return false;
  for (const auto& c : node.children) {
    if (!c) return false;
  }
  switch (node.kind) {
    case PlanKind::kFilter:
      return node.predicate != nullptr;
    case PlanKind::kProject:
      return true;
    case PlanKind::kJoin: {
      if (!cpu::JoinProbe::StreamsProbeSide(node)) return false;
      if (force_stream_.count(&node)) return true;
      return !BuiltOnItsLeft(node);
    }
    default:
      return false;
  }
}

bool QueryRun::StreamsIntoFlippedJoin(const PlanNode& join) const {
  if (!ctx_.pipelines || OnGpuHere(join) || !BuiltOnItsLeft(join) ||
      flipped_stream_failed_.count(&join) ||
      !(cpu::FlippedSemiAntiSink::Applies(join) || cpu::FlippedLeftSink::Applies(join))) {
    return false;
  }
  const PlanNode& right = *join.children[1];
  return (Streams(right) || StreamedScan(right)) && !shared_.IsShared(&right);
}

std::optional<Result<Table>> QueryRun::TryStreamIntoFlippedJoin(const PlanNode& join,
                                                                const PlanNode* aggregate) {
  if (!StreamsIntoFlippedJoin(join)) return std::nullopt;
  const PlanNode& right = *join.children[1];
  std::string name = "HashJoin (built on the left, the right side streamed in)";
  auto run = [&]() -> Result<Table> {
    TANDEM_ASSIGN_OR_RAISE(Table left, RunHost(*join.children[0]));
    const OperatorStart start = StartOperator();
    const int right_columns = right.schema.num_fields();
    Table out;
    if (cpu::FlippedSemiAntiSink::Applies(join)) {
      TANDEM_ASSIGN_OR_RAISE(
          std::unique_ptr<cpu::FlippedSemiAntiSink> sink,
          cpu::FlippedSemiAntiSink::Build(join, std::move(left), right_columns, ctx_));
      TANDEM_RETURN_NOT_OK(RunPipelineAt(right, sink.get()).status());
      TANDEM_ASSIGN_OR_RAISE(out, sink->Emit());
      if (sink->bitmap_dropped() > 0) {
        name += ", the key bitmap dropped " + std::to_string(sink->bitmap_dropped()) + " of " +
                std::to_string(sink->right_rows()) + " right rows";
      }
    } else {
      // A LEFT join's rows go straight on into the aggregation above it, when there is one.
      std::optional<cpu::AggregateSink> above;
      if (aggregate) {
        above.emplace(*aggregate, nullptr, ctx_);
        TANDEM_RETURN_NOT_OK(above->Prepare());
      }
      TANDEM_ASSIGN_OR_RAISE(std::unique_ptr<cpu::FlippedLeftSink> sink,
                             cpu::FlippedLeftSink::Build(join, std::move(left), right.schema,
                                                         above ? &*above : nullptr, ctx_));
      TANDEM_RETURN_NOT_OK(RunPipelineAt(right, sink.get()).status());
      EvalContext eval = ctx_.eval;
      TANDEM_ASSIGN_OR_RAISE(out, sink->Emit(eval));
      if (above) {
        OperatorMetrics jm;
        jm.name = name + " into its aggregation";
        jm.rows = sink->rows_made();
        jm.millis = MillisSince(start);
        ctx_.Record(&join, jm);
        const OperatorStart finish = StartOperator();
        TANDEM_ASSIGN_OR_RAISE(out, above->Finish());
        TANDEM_RETURN_NOT_OK(CheckOutput(*aggregate, out));
        RecordMetrics(*aggregate, "HashAggregate (sink of the join)", out, MillisSince(finish),
                      ctx_);
        RecordPeaks(*aggregate, start, ctx_);
        return out;
      }
    }
    TANDEM_RETURN_NOT_OK(CheckOutput(join, out));
    RecordMetrics(join, name, out, MillisSince(start), ctx_);
    RecordPeaks(join, start, ctx_);
    return out;
  };
  Result<Table> out = cpu::opx::CatchOutOfMemory(run);
  if (out.ok() || out.status().code() != StatusCode::kOutOfMemory || ctx_.Cancelled()) {
    return out;
  }
  // Out of host memory: the join runs as it did before (whole, or streamed the other way).
  flipped_stream_failed_.insert(&join);
  ForgetMetrics(join, ctx_);
  if (aggregate) ForgetMetrics(*aggregate, ctx_);
  return std::nullopt;
}

std::optional<Result<Table>> QueryRun::TryPipeline(const PlanNode& node) {
  if (!ctx_.pipelines || OnGpuHere(node)) return std::nullopt;
  if (node.kind == PlanKind::kAggregate) {
    // Worth a pipeline: something streams below, the rows come from Parquet files, or from an
    // aggregation whose groups may go to disk (RunPipelineSource).
    const PlanNode* below = node.children.empty() ? nullptr : node.children[0].get();
    if (!below || (!Streams(*below) && !StreamedScan(*below) && !OutputMaySpill(*below))) {
      return std::nullopt;
    }
  } else if (!Streams(node)) {
    return std::nullopt;
  }
  return RunPipelineAt(node);
}

std::optional<Result<Table>> QueryRun::TryTopNSink(const PlanNode& limit) {
  const PlanNode& sort = *limit.children[0];
  const PlanNode& child = *sort.children[0];
  const bool streams = (Streams(child) || StreamedScan(child)) && !shared_.IsShared(&child);
  if (!ctx_.pipelines || (!streams && !OutputMaySpill(child))) return std::nullopt;
  cpu::TopNSink sink(limit, sort, ctx_);
  Result<Table> out = Table();
  OperatorStart start = StartOperator();
  double millis = 0;
  if (streams) {
    bool first = true;
    out = WithHostRetry(limit, [&]() -> Result<Table> {
      if (!first) TANDEM_RETURN_NOT_OK(sink.Restart());
      first = false;
      TANDEM_RETURN_NOT_OK(RunPipelineAt(child, &sink).status());
      const OperatorStart finish = StartOperator();
      Result<Table> top = sink.Finish();
      // The sink's share of the pipeline's wall time, and its last cut.
      millis = sink.consume_millis() / std::max(1, cpu::opx::OperatorThreads(ctx_)) +
               MillisSince(finish);
      return top;
    });
  } else {
    // An aggregation: its groups from memory, or from disk when they were partitioned.
    std::unique_ptr<SpillFile> groups;
    Result<Table> rows = RunPipelineSource(child, &groups);
    if (!rows.ok()) return rows.status();
    start = StartOperator();
    if (!groups) {
      out = WithHostRetry(limit, [&] { return cpu::TopN(limit, sort, *rows, ctx_); });
    } else {
      out = cpu::opx::CatchOutOfMemory([&]() -> Result<Table> {
        TANDEM_RETURN_NOT_OK(cpu::ConsumeSpilledBlocks(*groups, child.schema, sink, ctx_));
        return sink.Finish();
      });
      // Kept for the external sort below, should the candidates not fit (FeedSpill reads it).
      outputs_on_disk_[&child] = std::move(groups);
    }
    millis = MillisSince(start);
  }
  const ForgetOutputFile forget(this, &child);
  if (!out.ok() && out.status().code() == StatusCode::kOutOfMemory && !ctx_.Cancelled()) {
    // The rows to keep do not fit as candidates (a large OFFSET): an external sort, merged into
    // the range of rows the Limit keeps.
    TANDEM_RETURN_NOT_OK(sink.Restart());  // the candidates' memory back
    ForgetMetrics(sort, ctx_);
    start = StartOperator();
    cpu::RowRangeSink range(sort.schema, std::max<int64_t>(limit.offset, 0), limit.limit);
    TANDEM_ASSIGN_OR_RAISE(Table kept, cpu::opx::CatchOutOfMemory([&]() -> Result<Table> {
                             TANDEM_RETURN_NOT_OK(SortInto(sort, {}, range));
                             return range.Finish();
                           }));
    TANDEM_RETURN_NOT_OK(CheckOutput(limit, kept));
    RecordMetrics(limit, "Limit (over an external sort: the TopN's rows did not fit)", kept,
                  MillisSince(start), ctx_);
    RecordPeaks(limit, start, ctx_);
    return kept;
  }
  if (!out.ok()) return out.status();
  TANDEM_RETURN_NOT_OK(CheckOutput(limit, *out));
  RecordMetrics(sort, "Sort (in TopN)", *out, 0, ctx_);
  RecordMetrics(limit, streams ? "TopN (pipeline sink)" : "TopN", *out, millis, ctx_);
  RecordPeaks(limit, start, ctx_);
  return out;
}

Result<std::shared_ptr<SpillPartitions>> QueryRun::SpillBuildPipeline(const PlanNode& join) {
  const PlanNode& side = *join.children[1];
  if (side.kind == PlanKind::kAggregate || !(Streams(side) || StreamedScan(side)) ||
      shared_.IsShared(&side)) {
    return std::shared_ptr<SpillPartitions>();
  }
  std::vector<const Expr*> keys;
  for (const ExprPtr& k : join.right_keys) keys.push_back(k.get());
  // Each attempt writes fresh partitions (a failed one leaves its rows in its own).
  std::shared_ptr<SpillPartitions> spilled;
  TANDEM_RETURN_NOT_OK(WithHostRetry(side, [&]() -> Result<Table> {
                         const int count = cpu::SpillPartitionCount(cpu::EstimatedSpillBytes(side),
                                                                    cpu::SpillBudget());
                         TANDEM_ASSIGN_OR_RAISE(std::unique_ptr<SpillPartitions> parts,
                                                SpillPartitions::Create(count, ctx_.spill_dir));
                         cpu::PartitionSink sink(keys, nullptr, side.schema, *parts);
                         TANDEM_RETURN_NOT_OK(RunPipelineAt(side, &sink).status());
                         TANDEM_RETURN_NOT_OK(parts->FinishWriting());
                         spilled = std::move(parts);
                         return Table();
                       }).status());
  return spilled;
}

Result<std::shared_ptr<SpillPartitions>> QueryRun::SpillBuildSide(const PlanNode& join,
                                                                  const Table& right) {
  // Writing the partitions can run out of memory too (the rows of a morsel split by partition):
  // again, then on one thread; each attempt writes fresh partitions.
  std::shared_ptr<SpillPartitions> spilled;
  TANDEM_RETURN_NOT_OK(WithHostRetry(join, [&]() -> Result<Table> {
                         TANDEM_ASSIGN_OR_RAISE(spilled, cpu::SpillBuildSide(join, right, ctx_));
                         return Table();
                       }).status());
  return spilled;
}

bool QueryRun::OutputMaySpill(const PlanNode& node) const {
  if (!ctx_.pipelines || OnGpuHere(node) || shared_.IsShared(&node)) return false;
  // (Not one without keys: its one row is never large.)
  if (node.kind == PlanKind::kAggregate) {
    return !node.group_keys.empty() && cpu::CanSpillAggregate(node);
  }
  if (node.kind == PlanKind::kSetOp) return true;
  return node.kind == PlanKind::kWindow &&
         (!cpu::SplitByPartitionKeys(node).steps.empty() || cpu::ComputesInOrderedChunks(node));
}

std::unique_ptr<SpillFile>* QueryRun::OutputFileOf(const PlanNode& node) const {
  return output_to_disk_.node == &node ? output_to_disk_.file : nullptr;
}

Result<Table> QueryRun::RunPipelineSource(const PlanNode& node,
                                          std::unique_ptr<SpillFile>* on_disk) {
  if (!OutputMaySpill(node)) return RunHost(node);
  const ScopedValue<OutputToDisk> to_disk(&output_to_disk_, OutputToDisk{&node, on_disk});
  return RunHost(node);
}

Result<Table> QueryRun::RunPipelineAt(const PlanNode& node, cpu::PipelineSink* into) {
  const bool aggregate = node.kind == PlanKind::kAggregate;
  // An aggregation that a pipeline above reads (RunPipelineSource): where its groups go when
  // they are partitioned on disk.
  std::unique_ptr<SpillFile>* groups_file = aggregate ? OutputFileOf(node) : nullptr;
  // The streaming nodes from the top down; the build side of each join runs on the way. A build
  // side whose hash table does not fit the host budget is spilled: that join goes grace.
  std::vector<const PlanNode*> chain;
  std::vector<std::shared_ptr<const cpu::JoinProbe>> probes;
  std::vector<std::shared_ptr<SpillPartitions>> build_spills;
  std::vector<double> build_ms;
  const PlanNode* cur = aggregate ? node.children[0].get() : &node;
  // A subplan that occurs more than once ends the chain: it runs (once) as the source.
  while (Streams(*cur) && (cur == &node || !shared_.IsShared(cur))) {
    TANDEM_RETURN_NOT_OK(CheckCancelled());
    std::shared_ptr<const cpu::JoinProbe> probe;
    std::shared_ptr<SpillPartitions> spilled;
    double ms = 0;
    Result<Table> collected = Table();
    if (cur->kind == PlanKind::kJoin) {
      // A build side whose rows went to disk (an aggregation's groups) is partitioned from there:
      // the join goes grace.
      std::unique_ptr<SpillFile> build_rows;
      collected = cpu::CanGraceJoin(*cur) ? RunPipelineSource(*cur->children[1], &build_rows)
                                          : RunHost(*cur->children[1]);
      if (collected.ok() && build_rows) {
        TANDEM_RETURN_NOT_OK(WithHostRetry(*cur, [&]() -> Result<Table> {
                               TANDEM_ASSIGN_OR_RAISE(
                                   spilled, cpu::SpillBuildSideFrom(*cur, *build_rows, ctx_));
                               return Table();
                             }).status());
      } else if (!collected.ok() && collected.status().code() == StatusCode::kOutOfMemory &&
                 cpu::CanGraceJoin(*cur) && !ctx_.Cancelled()) {
        TANDEM_ASSIGN_OR_RAISE(spilled, SpillBuildPipeline(*cur));
        if (!spilled) return collected.status();
      } else if (!collected.ok()) {
        return collected.status();
      }
    }
    if (cur->kind == PlanKind::kJoin && !spilled) {
      Table right = std::move(*collected);
      const OperatorStart start = StartOperator();
      std::unique_ptr<cpu::JoinProbe> built;
      auto build = [&]() -> Result<Table> {
        TANDEM_ASSIGN_OR_RAISE(built, cpu::JoinProbe::Build(*cur, right, ctx_));
        return Table();
      };
      const Status st = cpu::CanGraceJoin(*cur) ? cpu::opx::CatchOutOfMemory(build).status()
                                                : WithHostRetry(*cur, build).status();
      if (st.code() == StatusCode::kOutOfMemory && cpu::CanGraceJoin(*cur)) {
        TANDEM_ASSIGN_OR_RAISE(spilled, SpillBuildSide(*cur, right));
      } else {
        TANDEM_RETURN_NOT_OK(st);
      }
      probe = std::move(built);
      ms = MillisSince(start);
    }
    chain.push_back(cur);
    probes.push_back(std::move(probe));
    build_spills.push_back(std::move(spilled));
    build_ms.push_back(ms);
    cur = cur->children[0].get();
  }
  cpu::Pipeline p;
  p.top = &node;
  std::unique_ptr<SpillFile> source_groups;  // an aggregation's groups on disk, read in blocks
  if (StreamedScan(*cur)) {
    p.scan = cur;
  } else {
    Result<Table> source = RunPipelineSource(*cur, &source_groups);
    bool can_give_way = false;
    for (size_t i = 0; i < chain.size(); ++i) {
      can_give_way = can_give_way || (probes[i] && cpu::CanGraceJoin(*chain[i]));
    }
    if (!source.ok() && source.status().code() == StatusCode::kOutOfMemory && can_give_way &&
        !ctx_.Cancelled()) {
      // The joins' hash tables, built first, leave too little for the source (an aggregation
      // below them, say): they go grace, their build rows on disk, and the source runs again.
      for (size_t i = 0; i < chain.size(); ++i) {
        if (!probes[i] || !cpu::CanGraceJoin(*chain[i])) continue;
        const Table right = probes[i]->right();
        probes[i].reset();
        TANDEM_ASSIGN_OR_RAISE(build_spills[i], SpillBuildSide(*chain[i], right));
      }
      ForgetMetrics(*cur, ctx_);
      source_groups.reset();
      source = RunPipelineSource(*cur, &source_groups);
    }
    TANDEM_ASSIGN_OR_RAISE(p.input, std::move(source));
    if (source_groups) {
      p.spilled = source_groups.get();
      p.spilled_schema = cur->schema;
    }
  }
  // A Filter right below the aggregation runs inside it (rows are aggregated where they lie).
  const PlanNode* fused_filter = nullptr;
  if (aggregate && !chain.empty() && chain.front()->kind == PlanKind::kFilter) {
    fused_filter = chain.front();
    chain.erase(chain.begin());
    probes.erase(probes.begin());
    build_spills.erase(build_spills.begin());
    build_ms.erase(build_ms.begin());
  }
  const Expr* fused_predicate = fused_filter ? fused_filter->predicate.get() : nullptr;
  // A Filter right below a join's probe (its build side in memory) runs inside the probe: the
  // rows that pass are copied once, after the probe's key test, not once for each.
  std::vector<const PlanNode*> probe_filters(chain.size(), nullptr);
  for (size_t i = 1; i < chain.size();) {
    const PlanNode* f = chain[i];
    if (f->kind == PlanKind::kFilter && f->predicate && chain[i - 1]->kind == PlanKind::kJoin &&
        probes[i - 1] && !build_spills[i - 1] && chain[i - 1]->children[0].get() == f) {
      probe_filters[i - 1] = f;
      chain.erase(chain.begin() + static_cast<std::ptrdiff_t>(i));
      probes.erase(probes.begin() + static_cast<std::ptrdiff_t>(i));
      build_spills.erase(build_spills.begin() + static_cast<std::ptrdiff_t>(i));
      build_ms.erase(build_ms.begin() + static_cast<std::ptrdiff_t>(i));
      probe_filters.erase(probe_filters.begin() + static_cast<std::ptrdiff_t>(i));
    } else {
      ++i;
    }
  }
  cpu::SpillableSteps spill;
  spill.build_spills.assign(build_spills.rbegin(), build_spills.rend());  // bottom-up, as steps
  auto make_steps = [&]() {
    p.steps.clear();
    for (size_t i = chain.size(); i-- > 0;) {
      const PlanNode& n = *chain[i];
      if (n.kind == PlanKind::kFilter) {
        p.steps.push_back(cpu::MakeFilterStep(n, i > 0 ? chain[i - 1] : nullptr));
      } else if (n.kind == PlanKind::kProject) {
        p.steps.push_back(cpu::MakeProjectStep(n));
      } else {
        p.steps.push_back(cpu::MakeProbeStep(n, probes[i], ctx_, probe_filters[i]));
      }
    }
  };
  const cpu::HostRetry retry = [this](const PlanNode& n, const std::function<Result<Table>()>& op) {
    return WithHostRetry(n, op);
  };
  const OperatorStart start = StartOperator();
  cpu::PipelineTimes times;
  int64_t selected = 0;
  auto run = [&]() -> Result<Table> {
    make_steps();
    std::optional<cpu::AggregateSink> sink;
    p.sink = into;
    if (aggregate) {
      sink.emplace(node, fused_predicate, ctx_);
      TANDEM_RETURN_NOT_OK(sink->Prepare());
      UseKnownKeyRange(p, cpu::opx::OperatorThreads(ctx_), &*sink);
      p.sink = &*sink;
    }
    Result<Table> out = cpu::RunPipelineSpilling(p, spill, ctx_, retry, &times);
    p.sink = nullptr;
    if (!out.ok() || !sink) return out;
    selected = sink->selected_rows();
    const auto finish = std::chrono::steady_clock::now();
    out = sink->Finish();
    times.sink_finish_ms = MillisSince(finish);
    return out;
  };
  // Out of memory with the joins' hash tables in memory (the rows they make, say): the joins
  // that can go grace give up their tables for partitions on disk.
  auto joins_to_grace = [&]() -> Status {
    p.steps.clear();  // the steps hold the hash tables too
    for (size_t i = 0; i < chain.size(); ++i) {
      if (!probes[i] || !cpu::CanGraceJoin(*chain[i])) continue;
      // The build rows (their batches are shared), without the hash table over them.
      const Table right = probes[i]->right();
      probes[i].reset();
      TANDEM_ASSIGN_OR_RAISE(spill.build_spills[chain.size() - 1 - i],
                             SpillBuildSide(*chain[i], right));
      build_spills[i] = spill.build_spills[chain.size() - 1 - i];
    }
    return Status::OK();
  };
  auto out_of_memory = [&](const Result<Table>& r) {
    return !r.ok() && r.status().code() == StatusCode::kOutOfMemory && !ctx_.Cancelled();
  };
  Result<Table> result = cpu::opx::CatchOutOfMemory(run);
  if (out_of_memory(result) && !into) {
    TANDEM_RETURN_NOT_OK(joins_to_grace());
    if (aggregate && cpu::CanSpillAggregate(node)) {
      // Partial states that outgrow the budget: the input goes to disk by key, and each
      // partition is aggregated on its own; again, then on one thread, as for any operator.
      result = WithHostRetry(node, [&]() -> Result<Table> {
        make_steps();
        SpillFile* to_disk = nullptr;
        if (groups_file) {  // a fresh file for each attempt
          TANDEM_ASSIGN_OR_RAISE(*groups_file, SpillFile::Create(ctx_.spill_dir));
          to_disk = groups_file->get();
        }
        return cpu::AggregateBySpilling(p, spill, node, fused_predicate, ctx_, retry, &times,
                                        &selected, to_disk);
      });
    } else {
      // Again (with the joins gone grace), then on one thread.
      result = WithHostRetry(node, run);
      // Its first attempt is already the pipeline's second run: say so (--timing).
      if (result.ok() && !ctx_.WasRetried(&node)) {
        ++ctx_.host_oom_retries;
        ctx_.MarkRetried(&node);
      }
    }
  }
  if (!result.ok()) return result.status();
  TANDEM_RETURN_NOT_OK(CheckOutput(node, *result));
  RecordPipelineMetrics(p, aggregate, times, build_ms, *result, ctx_);
  if (fused_filter) {
    OperatorMetrics fm;
    fm.name = "Filter (fused into HashAggregate)";
    fm.rows = selected;
    ctx_.Record(fused_filter, fm);
  }
  NoteSpills(chain, spill, node, ctx_);
  if (groups_file && *groups_file) {
    OperatorMetrics m;
    if (const OperatorMetrics* own = ctx_.Find(&node)) m = *own;
    m.name += " (its groups written to disk as made, read back by the pipeline above)";
    m.spilled_bytes += (*groups_file)->bytes();
    ctx_.spilled_bytes += (*groups_file)->bytes();
    ctx_.Record(&node, m);
    RecordOutputFile(node, **groups_file);
  }
  RecordPeaks(node, start, ctx_);
  return result;
}

namespace {

// Whether the rows of `node` come in an order the query asked for: an ORDER BY, under the
// projections, filters and limits over it.
bool Ordered(const PlanNode* node) {
  while (node && (node->kind == PlanKind::kProject || node->kind == PlanKind::kFilter ||
                  node->kind == PlanKind::kLimit)) {
    node = node->children.empty() ? nullptr : node->children[0].get();
  }
  return node && node->kind == PlanKind::kSort;
}

}  // namespace

Result<Table> QueryRun::RunInto(const PlanNode& root, cpu::PipelineSink& sink) {
  // The pipeline's source: where the rows' order comes from. Batches reach a sink from many
  // threads in any order, so rows in an ORDER BY's order are made whole first.
  const PlanNode* source = &root;
  while (Streams(*source) && (source == &root || !shared_.IsShared(source))) {
    source = source->children[0].get();
  }
  if (ctx_.pipelines && Streams(root) && !shared_.IsShared(&root) && !Ordered(source)) {
    // Out of memory, the pipeline runs again as any operator would (its scans in pieces, then
    // on one thread) when the sink can forget the rows it took.
    bool first = true;
    auto run = [&]() -> Result<Table> {
      if (!first) TANDEM_RETURN_NOT_OK(sink.Restart());
      first = false;
      return RunPipelineAt(root, &sink);
    };
    TANDEM_RETURN_NOT_OK(WithHostRetry(root, run).status());
    return sink.Finish();
  }
  if (OutputMaySpill(root)) {
    // An aggregation, window or set operation: its rows from memory, or from disk when they
    // went there.
    const ForgetOutputFile forget(this, &root);
    TANDEM_RETURN_NOT_OK(FeedChild(root, sink));
    return sink.Finish();
  }
  Result<Table> whole = cpu::opx::CatchOutOfMemory([&] { return RunHost(root); });
  if (!whole.ok()) {
    // Rows in an ORDER BY's order that do not fit whole: sorted through disk and merged straight
    // into the sink (projections and filters over the sort applied to each block).
    std::vector<const PlanNode*> above;
    const PlanNode* sort = &root;
    while (sort->kind == PlanKind::kProject || sort->kind == PlanKind::kFilter) {
      above.push_back(sort);
      sort = sort->children[0].get();
    }
    bool on_cpu = !OnGpuHere(*sort);
    for (const PlanNode* n : above) on_cpu = on_cpu && !OnGpuHere(*n);
    if (whole.status().code() != StatusCode::kOutOfMemory || !ctx_.pipelines || !on_cpu ||
        sort->kind != PlanKind::kSort || ctx_.Cancelled()) {
      return whole.status();
    }
    ForgetMetrics(root, ctx_);
    TANDEM_RETURN_NOT_OK(SortInto(*sort, above, sink));
    return sink.Finish();
  }
  EvalContext eval = ctx_.eval;
  for (BatchPtr& batch : whole->batches) {
    TANDEM_RETURN_NOT_OK(sink.Consume(*batch, eval));
    batch.reset();
  }
  return sink.Finish();
}

Status QueryRun::SortInto(const PlanNode& sort, const std::vector<const PlanNode*>& above,
                          cpu::PipelineSink& sink) {
  const OperatorStart start = StartOperator();
  const PlanNode& child = *sort.children[0];
  const ForgetOutputFile forget(this, &child);
  std::optional<cpu::SortRunSink> runs;
  auto fill = [&]() -> Result<Table> {
    runs.emplace(sort, cpu::SpillBudget() / 4, ctx_);
    TANDEM_RETURN_NOT_OK(FeedSpill(sort, nullptr, *runs));
    return Table();
  };
  TANDEM_RETURN_NOT_OK(WithHostRetry(sort, fill).status());
  EvalContext eval = ctx_.eval;
  int64_t rows = 0;
  TANDEM_RETURN_NOT_OK(runs->MergeInto(cpu::SpillBudget(), [&](BatchPtr block) -> Status {
    rows += block->num_rows;
    Table t{sort.schema, {std::move(block)}};
    for (auto it = above.rbegin(); it != above.rend(); ++it) {
      const PlanNode& op = **it;
      TANDEM_ASSIGN_OR_RAISE(
          t, op.kind == PlanKind::kProject ? cpu::Project(op, t, ctx_) : cpu::Filter(op, t, ctx_));
    }
    for (const BatchPtr& b : t.batches) TANDEM_RETURN_NOT_OK(sink.Consume(*b, eval));
    return Status::OK();
  }));
  const int passes = runs->merge_passes();
  OperatorMetrics m;
  m.name = "Sort (external: " + std::to_string(runs->runs_written()) + " sorted runs on disk, " +
           std::to_string(passes) + (passes == 1 ? " merge pass" : " merge passes") +
           ", merged in order into what reads it)";
  m.rows = rows;
  m.millis = MillisSince(start);
  m.spilled_bytes = runs->spilled_bytes();
  ctx_.Record(&sort, m);
  ctx_.spilled_bytes += runs->spilled_bytes();
  RecordPeaks(sort, start, ctx_);
  return Status::OK();
}

}  // namespace tandem::exec_detail
