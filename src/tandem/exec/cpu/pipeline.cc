// RunPipeline: pushes each source batch through the steps on the thread that has it, depth
// first (a step's output batches go on at once, so at most a few batches per thread are alive),
// into the sink or the ordered output; times every step on every thread.
#include "tandem/exec/cpu/pipeline.h"

#include <algorithm>
#include <chrono>

#include "tandem/exec/cpu/operator_util.h"
#include "tandem/exec/cpu/operators.h"

namespace tandem::cpu {
namespace {

using Clock = std::chrono::steady_clock;

int64_t NanosSince(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count();
}

// Marks in *read the columns `e` reads at its own query level; false when that cannot be told (a
// subquery may read any column through its outer references).
bool MarkColumnsRead(const Expr& e, std::vector<bool>* read) {
  if (e.kind == ExprKind::kSubquery) return false;
  if (e.kind == ExprKind::kColumnRef && e.outer_depth == 0) {
    if (e.column_index < 0 || e.column_index >= static_cast<int>(read->size())) return false;
    (*read)[e.column_index] = true;
  }
  for (const ExprPtr& a : e.args) {
    if (a && !MarkColumnsRead(*a, read)) return false;
  }
  return true;
}

class FilterStep final : public PipelineStep {
 public:
  FilterStep(const PlanNode& node, const PlanNode* consumer) : PipelineStep(node) {
    if (!consumer || consumer->kind != PlanKind::kProject) return;
    std::vector<bool> read(static_cast<size_t>(node.schema.num_fields()), false);
    for (const ExprPtr& e : consumer->exprs) {
      if (!e || !MarkColumnsRead(*e, &read)) return;
    }
    if (std::find(read.begin(), read.end(), false) != read.end()) read_ = std::move(read);
  }
  const char* name() const override { return "Filter"; }
  Status Apply(const BatchPtr& in, EvalContext& eval, std::vector<BatchPtr>* out) override {
    TANDEM_ASSIGN_OR_RAISE(BatchPtr kept, opx::FilterBatch(*node().predicate, *in, node().schema,
                                                           eval, read_.empty() ? nullptr : &read_));
    if (kept) out->push_back(std::move(kept));
    return Status::OK();
  }

 private:
  std::vector<bool> read_;  // per column: read by the consuming Project (empty: all are)
};

class ProjectStep final : public PipelineStep {
 public:
  using PipelineStep::PipelineStep;
  const char* name() const override { return "Project"; }
  Status Apply(const BatchPtr& in, EvalContext& eval, std::vector<BatchPtr>* out) override {
    TANDEM_ASSIGN_OR_RAISE(BatchPtr projected,
                           opx::ProjectBatch(node().exprs, node().schema, *in, eval));
    out->push_back(std::move(projected));
    return Status::OK();
  }
};

class ProbeStep final : public PipelineStep {
 public:
  ProbeStep(const PlanNode& node, std::shared_ptr<const JoinProbe> probe, ExecContext& ctx,
            const PlanNode* filter)
      : PipelineStep(node), probe_(std::move(probe)), budget_(node, ctx) {
    fused_filter = filter;
  }
  const char* name() const override { return "HashJoin"; }
  Status Apply(const BatchPtr& in, EvalContext& eval, std::vector<BatchPtr>* out) override {
    if (!probe_) return Status::Internal("a join probe ran before its build side");
    if (!fused_filter) return probe_->ProbeBatch(in, nullptr, budget_, eval, out);
    const Clock::time_point start = Clock::now();
    TANDEM_ASSIGN_OR_RAISE(auto rows, opx::SelectTrueRows(*fused_filter->predicate, *in, eval));
    fused_nanos.fetch_add(NanosSince(start), std::memory_order_relaxed);
    fused_rows.fetch_add(static_cast<int64_t>(rows.size()), std::memory_order_relaxed);
    if (rows.empty()) return Status::OK();
    const bool all = static_cast<int64_t>(rows.size()) == in->num_rows;
    return probe_->ProbeBatch(in, all ? nullptr : &rows, budget_, eval, out);
  }
  void set_probe(std::shared_ptr<const JoinProbe> probe) { probe_ = std::move(probe); }

 private:
  std::shared_ptr<const JoinProbe> probe_;
  OutputBudget budget_;
};

// Pushes `batch` through steps[i..] into the sink or `collected`.
Status Push(Pipeline& p, size_t i, const BatchPtr& batch, EvalContext& eval, ExecContext& ctx,
            std::atomic<int64_t>* sink_nanos, std::vector<BatchPtr>* collected) {
  if (!batch || batch->num_rows == 0) return Status::OK();
  if (ctx.Cancelled()) return ExecContext::CancelledError();
  if (i == p.steps.size()) {
    if (!p.sink) {
      collected->push_back(batch);
      return Status::OK();
    }
    const Clock::time_point start = Clock::now();
    Status st = p.sink->Consume(*batch, eval);
    sink_nanos->fetch_add(NanosSince(start), std::memory_order_relaxed);
    return st;
  }
  PipelineStep& step = *p.steps[i];
  std::vector<BatchPtr> out;
  const Clock::time_point start = Clock::now();
  TANDEM_RETURN_NOT_OK(step.Apply(batch, eval, &out));
  step.nanos.fetch_add(NanosSince(start), std::memory_order_relaxed);
  for (auto& b : out) {
    if (!b || b->num_rows == 0) continue;
    step.rows.fetch_add(b->num_rows, std::memory_order_relaxed);
    step.batches.fetch_add(1, std::memory_order_relaxed);
    if (!p.sink && i + 1 == p.steps.size()) {
      step.bytes.fetch_add(opx::TableBytes(Table{b->schema, {b}}), std::memory_order_relaxed);
    }
    TANDEM_RETURN_NOT_OK(Push(p, i + 1, b, eval, ctx, sink_nanos, collected));
    b.reset();  // the next step is done with it
  }
  return Status::OK();
}

// The node in `top`'s subtree whose child `node` is, or null.
const PlanNode* ParentOf(const PlanNode& top, const PlanNode& node) {
  for (const auto& child : top.children) {
    if (child.get() == &node) return &top;
    if (const PlanNode* found = ParentOf(*child, node)) return found;
  }
  return nullptr;
}

}  // namespace

std::unique_ptr<PipelineStep> MakeFilterStep(const PlanNode& node, const PlanNode* consumer) {
  return std::make_unique<FilterStep>(node, consumer);
}

std::unique_ptr<PipelineStep> MakeProjectStep(const PlanNode& node) {
  return std::make_unique<ProjectStep>(node);
}

std::unique_ptr<PipelineStep> MakeProbeStep(const PlanNode& node,
                                            std::shared_ptr<const JoinProbe> probe,
                                            ExecContext& ctx, const PlanNode* filter) {
  return std::make_unique<ProbeStep>(node, std::move(probe), ctx, filter);
}

void SetProbe(PipelineStep& probe_step, std::shared_ptr<const JoinProbe> probe) {
  static_cast<ProbeStep&>(probe_step).set_probe(std::move(probe));
}

Result<Table> RunPipeline(Pipeline& p, ExecContext& ctx, PipelineTimes* times) {
  const Clock::time_point start = Clock::now();
  std::atomic<int64_t> sink_nanos{0};
  std::atomic<int64_t> source_batches{0};
  std::atomic<int64_t> source_bytes{0};
  const int threads = opx::OperatorThreads(ctx);
  Table out;
  out.schema = p.top->schema;
  if (p.scan) {
    ScanPieceFn each = [&](BatchPtr piece) -> Result<std::vector<BatchPtr>> {
      EvalContext eval = ctx.eval;
      source_batches.fetch_add(1, std::memory_order_relaxed);
      source_bytes.fetch_add(opx::TableBytes(Table{piece->schema, {piece}}),
                             std::memory_order_relaxed);
      std::vector<BatchPtr> collected;
      TANDEM_RETURN_NOT_OK(Push(p, 0, piece, eval, ctx, &sink_nanos, &collected));
      return collected;
    };
    // The Filter over the scan (a step, or run inside a probe or the aggregation): its
    // conditions on string columns are tested on the dictionaries as the row groups are read.
    const PlanNode* parent = ParentOf(*p.top, *p.scan);
    const Expr* filter = parent && parent->kind == PlanKind::kFilter && parent->predicate
                             ? parent->predicate.get()
                             : nullptr;
    TANDEM_ASSIGN_OR_RAISE(Table passed, ScanStreaming(*p.scan, ctx, each, filter));
    out.batches = std::move(passed.batches);
  } else if (p.spilled) {
    const int64_t blocks = p.spilled->num_blocks();
    std::vector<std::vector<BatchPtr>> results(static_cast<size_t>(blocks));
    TANDEM_RETURN_NOT_OK(
        opx::ForEachMorsel(blocks, threads, ctx.eval, [&](int64_t m, EvalContext& eval) -> Status {
          TANDEM_ASSIGN_OR_RAISE(BatchPtr block, p.spilled->ReadBlock(m, p.spilled_schema));
          source_batches.fetch_add(1, std::memory_order_relaxed);
          source_bytes.fetch_add(opx::TableBytes(Table{block->schema, {block}}),
                                 std::memory_order_relaxed);
          return Push(p, 0, block, eval, ctx, &sink_nanos, &results[m]);
        }));
    for (auto& r : results) {
      for (auto& b : r) out.batches.push_back(std::move(b));
    }
  } else {
    const std::vector<BatchPtr> morsels = opx::Morsels(p.input, threads, ctx.cpu_batch_rows);
    std::vector<std::vector<BatchPtr>> results(morsels.size());
    TANDEM_RETURN_NOT_OK(opx::ForEachMorsel(
        static_cast<int64_t>(morsels.size()), threads, ctx.eval, [&](int64_t m, EvalContext& eval) {
          return Push(p, 0, morsels[m], eval, ctx, &sink_nanos, &results[m]);
        }));
    for (auto& r : results) {
      for (auto& b : r) out.batches.push_back(std::move(b));
    }
  }
  const Clock::time_point finish = Clock::now();
  if (p.sink && p.finish_sink) {
    TANDEM_ASSIGN_OR_RAISE(out, p.sink->Finish());
  }
  if (times) {
    times->wall_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    times->sink_finish_ms =
        std::chrono::duration<double, std::milli>(Clock::now() - finish).count();
    times->sink_thread_ms = static_cast<double>(sink_nanos.load()) / 1e6;
    times->threads = threads;
    times->source_batches = source_batches.load();
    times->source_bytes = source_bytes.load();
  }
  return out;
}

int SourceColumnOf(const Pipeline& p, int column) {
  for (size_t i = p.steps.size(); i-- > 0 && column >= 0;) {
    const PlanNode& node = p.steps[i]->node();
    switch (node.kind) {
      case PlanKind::kFilter:
        break;
      case PlanKind::kProject: {
        if (column >= static_cast<int>(node.exprs.size())) return -1;
        const Expr& e = *node.exprs[column];
        column = e.kind == ExprKind::kColumnRef && e.outer_depth == 0 ? e.column_index : -1;
        break;
      }
      case PlanKind::kJoin:  // output: the left columns, then the right ones (if any)
        if (column >= node.children[0]->schema.num_fields()) return -1;
        break;
      default:
        return -1;
    }
  }
  return column;
}

}  // namespace tandem::cpu
