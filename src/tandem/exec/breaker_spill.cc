// Sorts and windows through disk: a CPU Sort or Window runs over its whole input, and when that
// runs out of host memory, again through disk, as sorted runs merged (cpu/external_sort.h) or
// partitions by a shared PARTITION BY key (cpu/window_spill.h). QueryRun's methods for it.
#include "tandem/exec/cpu/external_sort.h"
#include "tandem/exec/cpu/operator_util.h"
#include "tandem/exec/cpu/operators.h"
#include "tandem/exec/cpu/partition_sink.h"
#include "tandem/exec/cpu/window_spill.h"
#include "tandem/exec/query_run.h"

namespace tandem::exec_detail {

Result<Table> QueryRun::RunWholeOrSpilled(
    const PlanNode& node, bool can_spill,
    const std::function<Result<Table>(const Table&)>& in_memory,
    const std::function<Result<Table>(Table*)>& spilled) {
  const PlanNode& child = *node.children[0];
  auto out_of_memory = [&](const Status& st) {
    return can_spill && st.code() == StatusCode::kOutOfMemory && !ctx_.Cancelled();
  };
  Result<Table> input = RunHost(child);
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
  if (!input) return RunPipelineAt(*node.children[0], &sink).status();
  EvalContext eval = ctx_.eval;
  for (BatchPtr& batch : input->batches) {
    TANDEM_RETURN_NOT_OK(sink.Consume(*batch, eval));
    batch.reset();
  }
  return sink.Finish().status();
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
  const OperatorStart start = StartOperator();
  std::unique_ptr<SpillPartitions> parts;
  auto partition = [&]() -> Result<Table> {
    const int64_t bytes =
        input ? 3 * cpu::opx::TableBytes(*input) : cpu::EstimatedSpillBytes(child);
    TANDEM_ASSIGN_OR_RAISE(
        parts, SpillPartitions::Create(cpu::SpillPartitionCount(bytes, cpu::SpillBudget()),
                                       ctx_.spill_dir));
    cpu::PartitionSink sink(cpu::SharedPartitionKeys(node), nullptr, child.schema, *parts);
    TANDEM_RETURN_NOT_OK(FeedSpill(node, input, sink));
    TANDEM_RETURN_NOT_OK(parts->FinishWriting());
    return Table();
  };
  TANDEM_RETURN_NOT_OK(
      (input ? cpu::opx::CatchOutOfMemory(partition) : WithHostRetry(node, partition)).status());
  const cpu::HostRetry retry = [this](const PlanNode& n, const std::function<Result<Table>()>& op) {
    return WithHostRetry(n, op);
  };
  TANDEM_ASSIGN_OR_RAISE(Table out, cpu::WindowOverPartitions(node, *parts, ctx_, retry));
  TANDEM_RETURN_NOT_OK(CheckOutput(node, out));
  RecordSpilledOperator(
      node, "Window (partitioned on disk: " + std::to_string(parts->count()) + " partitions)", out,
      parts->bytes(), start);
  return out;
}

}  // namespace tandem::exec_detail
