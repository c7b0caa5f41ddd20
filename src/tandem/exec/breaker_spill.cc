// Sorts and windows through disk: a CPU Sort or Window runs over its whole input, and when that
// runs out of host memory, again through disk, as sorted runs merged (cpu/external_sort.h) or
// partitions by PARTITION BY keys (cpu/window_spill.h). QueryRun's methods for it.
#include "tandem/exec/cpu/external_sort.h"
#include "tandem/exec/cpu/operator_util.h"
#include "tandem/exec/cpu/operators.h"
#include "tandem/exec/cpu/ordered_window.h"
#include "tandem/exec/cpu/partition_sink.h"
#include "tandem/exec/cpu/spool_sink.h"
#include "tandem/exec/cpu/window_spill.h"
#include "tandem/exec/query_run.h"
#include "tandem/plan/rewrite_util.h"

namespace tandem::exec_detail {

Result<Table> QueryRun::RunWholeOrSpilled(
    const PlanNode& node, bool can_spill,
    const std::function<Result<Table>(const Table&)>& in_memory,
    const std::function<Result<Table>(Table*)>& spilled) {
  const PlanNode& child = *node.children[0];
  auto out_of_memory = [&](const Status& st) {
    return can_spill && st.code() == StatusCode::kOutOfMemory && !ctx_.Cancelled();
  };
  // The child's output file on disk (if it went there) lives until this node is done with it.
  const ForgetOutputFile forget(this, &child);
  std::unique_ptr<SpillFile> groups;
  Result<Table> input = RunPipelineSource(child, &groups);
  if (input.ok() && groups) {
    // The input went to disk as it was made (its operator's state did not fit): read whole when
    // it fits, else the spilled path reads it from there (FeedSpill).
    SpillFile& file = *groups;
    outputs_on_disk_[&child] = std::move(groups);
    input = cpu::opx::CatchOutOfMemory([&] { return file.ReadAll(child.schema); });
    if (!input.ok() && out_of_memory(input.status())) return spilled(nullptr);
  }
  if (!input.ok()) {
    // Collecting the input ran out: the pipeline below runs again straight into the spill.
    const bool streams = (Streams(child) || StreamedScan(child)) && !shared_.IsShared(&child);
    if (!streams || !out_of_memory(input.status())) return input.status();
    ForgetMetrics(child, ctx_);
    return spilled(nullptr);
  }
  const OperatorStart start = StartOperator();
  Result<Table> out = cpu::opx::CatchOutOfMemory([&] { return in_memory(*input); });
  if (!out.ok()) {
    if (!out_of_memory(out.status())) return out.status();
    return spilled(&*input);
  }
  input = Table();  // free the input before the parent runs
  TANDEM_RETURN_NOT_OK(CheckOutput(node, *out));
  RecordMetrics(node, OperatorName(node), *out, MillisSince(start), ctx_);
  RecordPeaks(node, start, ctx_);
  return out;
}

Status QueryRun::FeedSpill(const PlanNode& node, Table* input, cpu::PipelineSink& sink) {
  if (input) {
    TANDEM_RETURN_NOT_OK(FeedRows(input, sink));
  } else {
    // A pipeline leaves its sink open (RunPipelineAt): the rows a sort still holds are its last
    // run only once finished.
    TANDEM_RETURN_NOT_OK(FeedChild(*node.children[0], sink));
  }
  return sink.Finish().status();
}

Status QueryRun::FeedChild(const PlanNode& child, cpu::PipelineSink& sink) {
  auto kept = outputs_on_disk_.find(&child);
  if (kept == outputs_on_disk_.end()) {
    if ((Streams(child) || StreamedScan(child)) && !shared_.IsShared(&child)) {
      return RunPipelineAt(child, &sink).status();
    }
    std::unique_ptr<SpillFile> on_disk;
    TANDEM_ASSIGN_OR_RAISE(Table rows, RunPipelineSource(child, &on_disk));
    if (!on_disk) return FeedRows(&rows, sink);
    // Kept for a retry of the reader (ForgetOutputFile drops it when the reader is done).
    kept = outputs_on_disk_.emplace(&child, std::move(on_disk)).first;
  }
  return cpu::ConsumeSpilledBlocks(*kept->second, child.schema, sink, ctx_);
}

Status QueryRun::AppendChildRows(const PlanNode& retried, const PlanNode& child, SpillFile* file) {
  // An input that streams goes straight from its pipeline; a retry truncates only its rows.
  cpu::FileAppendSink sink(file);
  bool first = true;
  return WithHostRetry(retried,
                       [&]() -> Result<Table> {
                         if (!first) TANDEM_RETURN_NOT_OK(sink.Restart());
                         first = false;
                         TANDEM_RETURN_NOT_OK(FeedChild(child, sink));
                         return Table();
                       })
      .status();
}

Status QueryRun::FeedRows(Table* rows, cpu::PipelineSink& sink) {
  EvalContext eval = ctx_.eval;
  for (BatchPtr& batch : rows->batches) {
    TANDEM_RETURN_NOT_OK(sink.Consume(*batch, eval));
    batch.reset();
  }
  return Status::OK();
}

Status QueryRun::UnionAllToDisk(const PlanNode& node, std::unique_ptr<SpillFile>* file) {
  const OperatorStart start = StartOperator();
  TANDEM_ASSIGN_OR_RAISE(*file, SpillFile::Create(ctx_.spill_dir));
  for (const PlanPtr& input : node.children) {
    const PlanNode& child = *input;
    const ForgetOutputFile forget(this, &child);
    TANDEM_RETURN_NOT_OK(AppendChildRows(child, child, file->get()));
  }
  TANDEM_RETURN_NOT_OK((*file)->FinishWriting());
  OperatorMetrics m;
  m.name =
      "SetOperation (UNION ALL: its inputs' rows written to disk as made, read back by the "
      "operator above)";
  m.millis = MillisSince(start);
  m.spilled_bytes = (*file)->bytes();
  ctx_.Record(&node, m);
  ctx_.spilled_bytes += (*file)->bytes();
  RecordOutputFile(node, **file);
  RecordPeaks(node, start, ctx_);
  return Status::OK();
}

Result<Table> QueryRun::SetOpBySpilling(const PlanNode& node) {
  const OperatorStart start = StartOperator();
  int64_t estimate = 0;
  for (const PlanPtr& input : node.children) estimate += cpu::EstimatedSpillBytes(*input);
  const int count = cpu::SpillPartitionCount(estimate, cpu::SpillBudget());
  std::vector<std::unique_ptr<SpillPartitions>> parts(node.children.size());
  // Each input partitioned by all its columns.
  std::vector<std::vector<ExprPtr>> columns(node.children.size());
  std::vector<std::vector<const Expr*>> keys(node.children.size());
  int64_t spilled = 0;
  for (size_t i = 0; i < node.children.size(); ++i) {
    const PlanNode& child = *node.children[i];
    const ForgetOutputFile forget(this, &child);
    for (int c = 0; c < child.schema.num_fields(); ++c) {
      columns[i].push_back(plan::ColumnOf(child, c));
      keys[i].push_back(columns[i].back().get());
    }
    // Each attempt writes fresh partitions (a failed one leaves its rows in its own).
    TANDEM_RETURN_NOT_OK(WithHostRetry(child, [&]() -> Result<Table> {
                           TANDEM_ASSIGN_OR_RAISE(parts[i],
                                                  SpillPartitions::Create(count, ctx_.spill_dir));
                           cpu::PartitionSink sink(keys[i], nullptr, child.schema, *parts[i]);
                           TANDEM_RETURN_NOT_OK(FeedChild(child, sink));
                           TANDEM_RETURN_NOT_OK(parts[i]->FinishWriting());
                           return Table();
                         }).status());
    spilled += parts[i]->bytes();
  }
  std::unique_ptr<SpillFile>* out_file = OutputFileOf(node);
  if (out_file) {
    TANDEM_ASSIGN_OR_RAISE(*out_file, SpillFile::Create(ctx_.spill_dir));
  }
  Table out{node.schema, {}};
  const std::function<Status(Table)> emit = [&](Table part) -> Status {
    if (!out_file) {
      for (BatchPtr& b : part.batches) out.batches.push_back(std::move(b));
      return Status::OK();
    }
    for (const BatchPtr& b : cpu::opx::Morsels(part, 1, ctx_.cpu_batch_rows)) {
      TANDEM_RETURN_NOT_OK((*out_file)->Append(*b));
    }
    return Status::OK();
  };
  int resplits = 0;
  for (int q = 0; q < count; ++q) {
    TANDEM_RETURN_NOT_OK(CheckCancelled());
    std::vector<SpillFile*> files;
    for (const auto& p : parts) files.push_back(&p->file(q));
    TANDEM_RETURN_NOT_OK(SetOpPartition(node, files, keys, 0, &resplits, &spilled, emit));
  }
  std::string how = "partitioned on disk: " + std::to_string(count) + " partitions";
  if (resplits > 0) how += ", " + std::to_string(resplits) + " split again";
  TANDEM_RETURN_NOT_OK(
      RecordSpilledOutput(node, "SetOperation", how, out, spilled, start, out_file));
  return out;
}

Status QueryRun::SetOpPartition(const PlanNode& node, const std::vector<SpillFile*>& files,
                                const std::vector<std::vector<const Expr*>>& keys, int depth,
                                int* resplits, int64_t* spilled,
                                const std::function<Status(Table)>& emit) {
  Result<Table> part = cpu::opx::CatchOutOfMemory([&]() -> Result<Table> {
    std::vector<Table> inputs;
    for (size_t i = 0; i < files.size(); ++i) {
      TANDEM_ASSIGN_OR_RAISE(Table rows, files[i]->ReadAll(node.children[i]->schema));
      inputs.push_back(std::move(rows));
    }
    return cpu::SetOperation(node, inputs, ctx_);
  });
  if (part.ok()) return emit(std::move(part).value());
  if (part.status().code() != StatusCode::kOutOfMemory || depth >= cpu::kMaxSplitDepth ||
      ctx_.Cancelled()) {
    return part.status();
  }
  // Too large (the partition count came from estimates): every input's partition split again
  // with another partition function, the pieces run in turn.
  ++*resplits;
  std::vector<std::unique_ptr<SpillPartitions>> pieces(files.size());
  for (size_t i = 0; i < files.size(); ++i) {
    const Schema& schema = node.children[i]->schema;
    TANDEM_ASSIGN_OR_RAISE(pieces[i], SpillPartitions::Create(cpu::kSplitPieces, ctx_.spill_dir));
    cpu::PartitionSink split(keys[i], nullptr, schema, *pieces[i],
                             static_cast<uint64_t>(depth) + 1);
    TANDEM_RETURN_NOT_OK(cpu::ConsumeSpilledBlocks(*files[i], schema, split, ctx_));
    TANDEM_RETURN_NOT_OK(pieces[i]->FinishWriting());
    *spilled += pieces[i]->bytes();
  }
  for (int q = 0; q < cpu::kSplitPieces; ++q) {
    TANDEM_RETURN_NOT_OK(CheckCancelled());
    std::vector<SpillFile*> piece_files;
    for (const auto& p : pieces) piece_files.push_back(&p->file(q));
    TANDEM_RETURN_NOT_OK(
        SetOpPartition(node, piece_files, keys, depth + 1, resplits, spilled, emit));
  }
  return Status::OK();
}

void QueryRun::RecordOutputFile(const PlanNode& node, const SpillFile& file) {
  OperatorMetrics m;
  if (const OperatorMetrics* own = ctx_.Find(&node)) m = *own;
  m.rows = file.rows();
  m.batches = file.num_blocks();
  m.bytes = file.bytes();
  ctx_.Record(&node, m);
}

Status QueryRun::RecordSpilledOutput(const PlanNode& node, const std::string& name, std::string how,
                                     const Table& out, int64_t spilled, const OperatorStart& start,
                                     std::unique_ptr<SpillFile>* out_file) {
  if (out_file) {
    TANDEM_RETURN_NOT_OK((*out_file)->FinishWriting());
    how += "; its rows written to disk as made, read back by the operator above";
    spilled += (*out_file)->bytes();
  }
  RecordSpilledOperator(node, name + " (" + how + ")", out, spilled, start);
  if (out_file) RecordOutputFile(node, **out_file);
  return Status::OK();
}

void QueryRun::RecordSpilledOperator(const PlanNode& node, const std::string& name,
                                     const Table& out, int64_t spilled,
                                     const OperatorStart& start) {
  RecordMetrics(node, name, out, MillisSince(start), ctx_);
  OperatorMetrics m = *ctx_.Find(&node);
  m.spilled_bytes = spilled;
  ctx_.Record(&node, m);
  ctx_.spilled_bytes += spilled;
  RecordPeaks(node, start, ctx_);
}

Result<Table> QueryRun::ExternalSort(const PlanNode& node, Table* input) {
  const OperatorStart start = StartOperator();
  std::optional<cpu::SortRunSink> sink;
  auto run = [&]() -> Result<Table> {
    // A run and its sort's items and gathered blocks, with room for the rows still arriving.
    sink.emplace(node, cpu::SpillBudget() / 4, ctx_);
    TANDEM_RETURN_NOT_OK(FeedSpill(node, input, *sink));
    return sink->Merge(cpu::SpillBudget());
  };
  // The input's batches go as they are taken: only a run of the pipeline can be tried again.
  TANDEM_ASSIGN_OR_RAISE(Table out,
                         input ? cpu::opx::CatchOutOfMemory(run) : WithHostRetry(node, run));
  TANDEM_RETURN_NOT_OK(CheckOutput(node, out));
  const int passes = sink->merge_passes();
  RecordSpilledOperator(node,
                        "Sort (external: " + std::to_string(sink->runs_written()) +
                            " sorted runs on disk, " + std::to_string(passes) +
                            (passes == 1 ? " merge pass)" : " merge passes)"),
                        out, sink->spilled_bytes(), start);
  return out;
}

Result<Table> QueryRun::WindowBySpilling(const PlanNode& node, Table* input) {
  const PlanNode& child = *node.children[0];
  const cpu::WindowSteps split = cpu::SplitByPartitionKeys(node);
  if (split.steps.empty()) return WindowInOrder(node, input);
  const OperatorStart start = StartOperator();
  auto partitions_for = [&](int64_t bytes) {
    return SpillPartitions::Create(cpu::SpillPartitionCount(bytes, cpu::SpillBudget()),
                                   ctx_.spill_dir);
  };
  std::unique_ptr<SpillPartitions> parts;
  auto partition = [&]() -> Result<Table> {
    const auto on_disk = outputs_on_disk_.find(&child);
    const int64_t bytes = input                               ? 3 * cpu::opx::TableBytes(*input)
                          : on_disk != outputs_on_disk_.end() ? 3 * on_disk->second->bytes()
                                                              : cpu::EstimatedSpillBytes(child);
    TANDEM_ASSIGN_OR_RAISE(parts, partitions_for(bytes));
    cpu::PartitionSink sink(cpu::SharedPartitionKeys(*split.steps[0]), nullptr, child.schema,
                            *parts);
    TANDEM_RETURN_NOT_OK(FeedSpill(node, input, sink));
    TANDEM_RETURN_NOT_OK(parts->FinishWriting());
    return Table();
  };
  TANDEM_RETURN_NOT_OK(
      (input ? cpu::opx::CatchOutOfMemory(partition) : WithHostRetry(node, partition)).status());
  // Every step's partition runs again where any operator would; metrics name the node itself.
  const cpu::HostRetry retry = [this, &node](const PlanNode&,
                                             const std::function<Result<Table>()>& op) {
    return WithHostRetry(node, op);
  };
  int64_t spilled = 0;
  std::string counts;
  cpu::WindowPartitionCounts large;
  Table last{split.steps.back()->schema, {}};
  // The last step's columns in the node's order (views of the same columns).
  auto in_node_order = [&](const Batch& b) {
    auto batch = std::make_shared<Batch>();
    batch->schema = node.schema;
    batch->num_rows = b.num_rows;
    for (int c : split.output_columns) batch->columns.push_back(b.columns[c]);
    return batch;
  };
  // A reader that takes the output from disk (RunPipelineSource): each partition's rows go there.
  std::unique_ptr<SpillFile>* out_file = OutputFileOf(node);
  if (out_file) {
    TANDEM_ASSIGN_OR_RAISE(*out_file, SpillFile::Create(ctx_.spill_dir));
  }
  for (size_t i = 0; i < split.steps.size(); ++i) {
    const PlanNode& step = *split.steps[i];
    spilled += parts->bytes();
    counts += (i == 0                        ? ""
               : i + 1 == split.steps.size() ? " and "
                                             : ", ") +
              std::to_string(parts->count());
    if (i + 1 == split.steps.size()) {
      TANDEM_RETURN_NOT_OK(cpu::WindowOverPartitions(
          step, *parts, ctx_, retry,
          [&](Table part) {
            if (!out_file) {
              for (BatchPtr& b : part.batches) last.batches.push_back(std::move(b));
              return Status::OK();
            }
            for (const BatchPtr& b : cpu::opx::Morsels(part, 1, ctx_.cpu_batch_rows)) {
              TANDEM_RETURN_NOT_OK((*out_file)->Append(*in_node_order(*b)));
            }
            return Status::OK();
          },
          &large));
      break;
    }
    // This step's rows, the next step's input, go to disk by the next step's keys.
    TANDEM_ASSIGN_OR_RAISE(std::unique_ptr<SpillPartitions> next, partitions_for(parts->bytes()));
    cpu::PartitionSink sink(cpu::SharedPartitionKeys(*split.steps[i + 1]), nullptr, step.schema,
                            *next);
    EvalContext eval = ctx_.eval;
    TANDEM_RETURN_NOT_OK(cpu::WindowOverPartitions(
        step, *parts, ctx_, retry,
        [&](Table part) {
          for (BatchPtr& b : part.batches) {
            TANDEM_RETURN_NOT_OK(sink.Consume(*b, eval));
            b.reset();
          }
          return Status::OK();
        },
        &large));
    TANDEM_RETURN_NOT_OK(next->FinishWriting());
    parts = std::move(next);
  }
  Table out{node.schema, {}};
  for (const BatchPtr& b : last.batches) out.batches.push_back(in_node_order(*b));
  last = Table();
  TANDEM_RETURN_NOT_OK(CheckOutput(node, out));
  std::string how =
      split.steps.size() == 1
          ? "partitioned on disk: " + counts + " partitions"
          : "in " + std::to_string(split.steps.size()) +
                " steps by their PARTITION BY keys, each partitioned on disk: " + counts +
                " partitions";
  spilled += large.spilled_bytes;
  if (large.sorted_files > 0) {
    how += "; " + std::to_string(large.sorted_files) +
           (large.sorted_files == 1 ? " partition" : " partitions") +
           " too large sorted by key on disk, " + std::to_string(large.large_partitions) +
           (large.large_partitions == 1 ? " window partition" : " window partitions") +
           " in ordered chunks";
  }
  TANDEM_RETURN_NOT_OK(RecordSpilledOutput(node, "Window", how, out, spilled, start, out_file));
  return out;
}

Result<Table> QueryRun::WindowInOrder(const PlanNode& node, Table* input) {
  if (!cpu::ComputesInOrderedChunks(node)) {
    return Status::Internal("window that cannot spill spilled");
  }
  const OperatorStart start = StartOperator();
  const PlanNode& child = *node.children[0];
  const std::vector<SortKey>& order_by = cpu::ChunkOrder(node);
  const bool read_twice = cpu::NeedsEveryRowFirst(node);
  // The window's rows go to a spill file when what reads them can take them from there
  // (RunPipelineSource), else to one table.
  std::unique_ptr<SpillFile>* out_file = OutputFileOf(node);
  if (out_file) {
    TANDEM_ASSIGN_OR_RAISE(*out_file, SpillFile::Create(ctx_.spill_dir));
  }
  Table out{node.schema, {}};
  std::optional<cpu::OrderedWindowChunks> chunks;
  int64_t chunk_rows = 0;
  auto start_chunks = [&](int64_t bytes, int64_t rows) {
    chunk_rows = cpu::ChunkRows(node, rows > 0 ? bytes / rows : 1);
    chunks.emplace(node, chunk_rows, ctx_, [&, out_file](BatchPtr b) -> Status {
      if (out_file) return (*out_file)->Append(*b);
      out.batches.push_back(std::move(b));
      return Status::OK();
    });
  };
  std::optional<cpu::SortRunSink> sink;
  // The rows in order on disk, when they are read twice or do not fit unsorted.
  std::unique_ptr<SpillFile> rows_file;
  std::string how;
  if (order_by.empty() && input) {
    // No order to sort by: the chunks are the input's rows as they come.
    start_chunks(cpu::opx::TableBytes(*input), input->num_rows());
    if (read_twice) {
      for (const BatchPtr& b : input->batches) TANDEM_RETURN_NOT_OK(chunks->PrepareBatch(b));
      TANDEM_RETURN_NOT_OK(chunks->FinishPrepare());
    }
    for (BatchPtr& b : input->batches) TANDEM_RETURN_NOT_OK(chunks->Consume(std::move(b)));
    input->batches.clear();
  } else if (order_by.empty()) {
    // Nor do the rows fit: they go to disk as they come (in any order).
    TANDEM_ASSIGN_OR_RAISE(rows_file, SpillFile::Create(ctx_.spill_dir));
    TANDEM_RETURN_NOT_OK(AppendChildRows(node, child, rows_file.get()));
    TANDEM_RETURN_NOT_OK(rows_file->FinishWriting());
    how = "its rows on disk, ";
  } else {
    // The input sorted by the calls' ORDER BY through disk; its merge feeds the chunks, or a file
    // read twice.
    const PlanPtr sort = MakeSort(node.children[0], order_by);
    auto run = [&]() -> Result<Table> {
      sink.emplace(*sort, cpu::SpillBudget() / 4, ctx_);
      TANDEM_RETURN_NOT_OK(FeedSpill(node, input, *sink));
      return Table();
    };
    TANDEM_RETURN_NOT_OK(
        (input ? cpu::opx::CatchOutOfMemory(run) : WithHostRetry(node, run)).status());
    if (read_twice) {
      TANDEM_ASSIGN_OR_RAISE(rows_file, SpillFile::Create(ctx_.spill_dir));
    }
    // The merge holds a block per run; the chunks the rest.
    TANDEM_RETURN_NOT_OK(sink->MergeInto(cpu::SpillBudget() / 2, [&](BatchPtr b) -> Status {
      if (rows_file) return rows_file->Append(*b);
      if (!chunks) start_chunks(cpu::opx::BatchBytes(*b), b->num_rows);
      return chunks->Consume(std::move(b));
    }));
    if (rows_file) TANDEM_RETURN_NOT_OK(rows_file->FinishWriting());
    const int passes = sink->merge_passes();
    how = std::to_string(sink->runs_written()) + " sorted runs on disk, " + std::to_string(passes) +
          (passes == 1 ? " merge pass, " : " merge passes, ");
  }
  if (rows_file) {
    // Read once for what needs every row first (when a call does), then for the chunks.
    start_chunks(rows_file->bytes(), rows_file->rows());
    for (int pass = read_twice ? 0 : 1; pass < 2; ++pass) {
      for (int64_t i = 0; i < rows_file->num_blocks(); ++i) {
        TANDEM_RETURN_NOT_OK(CheckCancelled());
        TANDEM_ASSIGN_OR_RAISE(BatchPtr b, rows_file->ReadBlock(i, child.schema));
        TANDEM_RETURN_NOT_OK(pass == 0 ? chunks->PrepareBatch(b) : chunks->Consume(std::move(b)));
      }
      if (pass == 0) TANDEM_RETURN_NOT_OK(chunks->FinishPrepare());
    }
    if (read_twice) how += "read twice, ";
  }
  if (!chunks) {  // no rows at all
    start_chunks(0, 0);
    if (read_twice) TANDEM_RETURN_NOT_OK(chunks->FinishPrepare());
  }
  TANDEM_RETURN_NOT_OK(chunks->Finish());
  TANDEM_RETURN_NOT_OK(CheckOutput(node, out));
  int64_t spilled = (sink ? sink->spilled_bytes() : 0) + (rows_file ? rows_file->bytes() : 0);
  how = (sink ? "in order: " : "") + how + "computed in chunks of " + std::to_string(chunk_rows) +
        " rows";
  TANDEM_RETURN_NOT_OK(
      RecordSpilledOutput(node, "Window", "one partition, " + how, out, spilled, start, out_file));
  return out;
}

}  // namespace tandem::exec_detail
