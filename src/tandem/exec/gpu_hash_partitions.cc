// GPU hash partitions (exec/hash_partition_plan.h, docs/gpu.md): a GPU part over tables cached in
// GPU memory runs once per hash partition of the key its equi-joins share, so that a join's
// build side and an aggregation's groups hold one partition's rows at a time. The inputs that
// are the same in every partition run once and stand in for their nodes; each split scan's
// partition is gathered from the cached table, and each split input from the host from its rows
// uploaded once (device_overrides_); the outputs are concatenated on the GPU, or, for an
// aggregation split in two, its partial rows are merged once.
// QueryRun's methods for it.
#include "tandem/exec/cpu/operator_util.h"
#include "tandem/exec/exec_context.h"
#include "tandem/exec/gpu/gpu_operators_more.h"
#include "tandem/exec/query_run.h"
#include "tandem/gpu/device_column.h"

namespace tandem::exec_detail {

std::optional<HashPartitionPlan> QueryRun::HashPartitionsFor(const PlanNode& part) const {
  HashPartitionHooks hooks;
  hooks.runs_here = [this](const PlanNode& n) {
    return n.kind != PlanKind::kTransition && OnGpuHere(n) && ShapeIsValid(n);
  };
  hooks.can_split_scan = [this](const PlanNode& scan) {
    const CachedTable* cached = CacheOf(scan);
    return cached && cached->device && OnGpuHere(scan);
  };
  hooks.can_split_input = [this](const PlanNode& transition) {
    return !cpu_only_ && transition.device == Device::kGpu;  // host to device
  };
  hooks.can_split_aggregate = [](const PlanNode& agg, int child_key) {
    ExprPtr key;
    if (child_key >= 0) {
      const Field& f = agg.children[0]->schema.fields[child_key];
      key = MakeColumnRef(child_key, f.type, f.nullable, f.name);
    }
    std::string why;
    std::optional<SplitAggregate> split = SplitForChunks(agg, &why, key.get());
    return split && gpu::AggregateUnsupported(*split->partial).empty();
  };
  return PlanHashPartitions(part, hooks);
}

std::optional<Result<gpu::DeviceBatchPtr>> QueryRun::InHashPartitions(const PlanNode& node) {
  if (!forced_partitions_ || forced_partitions_->top != &node || in_slice_) return std::nullopt;
  return RunInHashPartitions(*forced_partitions_, forced_partition_count_, nullptr);
}

Result<gpu::DeviceBatchPtr> QueryRun::RunInHashPartitions(const HashPartitionPlan& plan, int parts,
                                                          Table* to_host) {
  const PlanNode& top = *plan.top;
  DeviceOverrideScope stand_ins(&device_overrides_);  // gone when the run ends
  TANDEM_ASSIGN_OR_RAISE(gpu::GpuContext * g, Gpu());
  const OperatorStart start = StartOperator();
  {
    // A GPU part nested in an input (under a CPU operator) is a part of its own.
    const ScopedValue<const HashPartitionPlan*> not_nested(&forced_partitions_, nullptr);
    for (const PlanNode* r : plan.replicated) {
      TANDEM_ASSIGN_OR_RAISE(gpu::DeviceBatchPtr out, RunDevice(*r));
      stand_ins[r] = std::move(out);
    }
  }
  std::vector<gpu::DeviceBatchPtr> wholes;
  for (const auto& [source, col] : plan.split_scans) {
    if (source->kind == PlanKind::kTransition) {
      // The rows from the host, uploaded once (a part nested in them is a part of its own).
      const ScopedValue<const HashPartitionPlan*> not_nested(&forced_partitions_, nullptr);
      TANDEM_ASSIGN_OR_RAISE(gpu::DeviceBatchPtr rows, RunDevice(*source));
      wholes.push_back(std::move(rows));
    } else {
      const CachedTable* cached = CacheOf(*source);
      if (!cached || !cached->device) {
        return Status::Internal("hash partitions of an uncached scan");
      }
      wholes.push_back(SelectDeviceColumns(*source, *cached));
    }
    stand_ins[source];  // set partition by partition below
  }
  std::optional<SplitAggregate> split;
  if (plan.split_aggregate) {
    ExprPtr key;
    if (plan.child_key >= 0) {
      const Field& f = top.children[0]->schema.fields[plan.child_key];
      key = MakeColumnRef(plan.child_key, f.type, f.nullable, f.name);
    }
    std::string why;
    split = SplitForChunks(top, &why, key.get());
    if (!split) return Status::Internal("hash partitions: the aggregation does not split: " + why);
  }
  const PlanNode& each = split ? *split->partial : top;
  std::vector<gpu::DeviceBatchPtr> outs;
  Table partials;
  if (split) partials.schema = split->partial->schema;
  std::map<const PlanNode*, OperatorMetrics> sums;
  double partition_ms = 0;
  for (int p = 0; p < parts; ++p) {
    TANDEM_RETURN_NOT_OK(CheckCancelled());
    const auto t = Clock::now();
    for (size_t i = 0; i < wholes.size(); ++i) {
      const auto& [scan, col] = plan.split_scans[i];
      TANDEM_ASSIGN_OR_RAISE(device_overrides_[scan],
                             gpu::HashPartitionRows(*wholes[i], col, parts, p, *g->stream));
    }
    partition_ms += MillisSince(t);
    Result<gpu::DeviceBatchPtr> out = [&] {
      const ScopedValue<bool> partitioning(&in_slice_, true);
      return RunGpuOperator(each);
    }();
    TANDEM_RETURN_NOT_OK(out.status());
    for (const PlanNode* n : plan.per_partition) {
      if (n == &top || n->kind == PlanKind::kScan || n->kind == PlanKind::kTransition) continue;
      AddSliceMetrics(ctx_.Find(n), &sums[n]);
    }
    AddSliceMetrics(ctx_.Find(&each), &sums[&top]);
    if (split) ctx_.Forget(&each);
    for (const auto& [scan, _col] : plan.split_scans) device_overrides_[scan].reset();
    if (split || to_host) {
      // The part's rows go to the host partition by partition (they never pile up on the GPU).
      TANDEM_ASSIGN_OR_RAISE(Table host, ToHost(**out));
      Table& into = split ? partials : *to_host;
      for (BatchPtr& b : host.batches) into.batches.push_back(std::move(b));
    } else {
      outs.push_back(std::move(out).value());
    }
  }
  // The inputs computed once are done with: their memory goes before the merge.
  for (const PlanNode* r : plan.replicated) device_overrides_.erase(r);
  for (auto& [n, m] : sums) ctx_.Record(n, m);
  for (size_t i = 0; i < wholes.size(); ++i) {
    const PlanNode& source = *plan.split_scans[i].first;
    const std::string in_partitions =
        " hash partitions of " + source.schema.fields[plan.split_scans[i].second].name + ")";
    const double millis = partition_ms / static_cast<double>(wholes.size());
    if (source.kind == PlanKind::kTransition) {
      // The upload's own metrics (its peaks too), named for the cut and with its time added.
      const OperatorMetrics* upload = ctx_.Find(&source);
      OperatorMetrics m = upload ? *upload : OperatorMetrics{};
      m.name = "HostToDevice (cut on the GPU in " + std::to_string(parts) + in_partitions;
      m.device = "pcie";
      m.millis += millis;
      ctx_.Record(&source, m);
      continue;
    }
    RecordDeviceMetrics(source,
                        "Scan " + CacheOf(source)->name + " (cached in GPU memory, in " +
                            std::to_string(parts) + in_partitions,
                        "gpu", wholes[i]->num_rows, gpu::DeviceBytes(*wholes[i]), millis, ctx_);
  }
  // The inputs uploaded from the host are done with too, before the merge.
  wholes.clear();
  gpu::DeviceBatchPtr result;
  std::string how;
  const auto finish_start = Clock::now();
  if (split) {
    bool on_gpu = false;
    TANDEM_ASSIGN_OR_RAISE(result, MergePartials(top, *split, partials, &on_gpu));
    how = ", " + std::to_string(partials.num_rows()) + " partial rows merged on the " +
          (on_gpu ? "GPU" : "CPU");
  } else if (to_host) {
    how = ", each partition's rows handed to the host";
  } else {
    TANDEM_ASSIGN_OR_RAISE(result, ConcatOnDevice(std::move(outs), top.schema));
  }
  TANDEM_RETURN_NOT_OK(FinishGpuOperator());
  if (result) TANDEM_RETURN_NOT_OK(CheckDeviceOutput(top, result.get()));
  const OperatorMetrics* own = ctx_.Find(&top);
  char text[96];
  std::snprintf(text, sizeof(text), "; finished in %.1f ms)", MillisSince(finish_start));
  RecordDeviceMetrics(top,
                      (own ? own->name : std::string(OperatorName(top))) + " (in " +
                          std::to_string(parts) + " hash partitions of " + plan.key_name + how +
                          text,
                      "gpu", result ? result->num_rows : to_host->num_rows(),
                      result ? gpu::DeviceBytes(*result) : cpu::opx::TableBytes(*to_host),
                      (own ? own->millis : 0) + MillisSince(finish_start), ctx_);
  RecordPeaks(top, start, ctx_);
  ++ctx_.gpu_partitioned_parts;
  return result;
}

Result<gpu::DeviceBatchPtr> QueryRun::ConcatOnDevice(std::vector<gpu::DeviceBatchPtr> outs,
                                                     const Schema& schema) {
  if (outs.empty()) return Status::Internal("nothing to concatenate");
  if (outs.size() == 1) return outs[0];
  // UNION ALL, pairwise (each row copied log2(count) times).
  TANDEM_ASSIGN_OR_RAISE(gpu::GpuContext * g, Gpu());
  PlanPtr a = MakeValues(schema, {}), b = MakeValues(schema, {});
  PlanPtr concat = MakeSetOp({a, b}, SetOpKind::kUnion, true);
  concat->device = Device::kGpu;
  while (outs.size() > 1) {
    std::vector<gpu::DeviceBatchPtr> next;
    for (size_t i = 0; i + 1 < outs.size(); i += 2) {
      TANDEM_ASSIGN_OR_RAISE(gpu::DeviceBatchPtr both,
                             gpu::SetOperation(*concat, *outs[i], *outs[i + 1], *g));
      outs[i].reset();
      outs[i + 1].reset();
      next.push_back(std::move(both));
    }
    if (outs.size() % 2 == 1) next.push_back(std::move(outs.back()));
    outs = std::move(next);
  }
  return outs[0];
}

}  // namespace tandem::exec_detail
