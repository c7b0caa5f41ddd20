// The physical plan (exec/physical_plan.h), built before a query runs by walking the placed plan
// the way QueryRun runs it: the same dispatch order (executor.cc's RunHostOnce, RunCpuOperator,
// RunGpuPart; cpu_pipelines.cc's TryTopNSink, TryPipeline, RunPipelineAt) over the same
// predicates (Streams, StreamedScan, FilterFusesIntoScan, BuiltOnItsLeft, OutputMaySpill, the
// fusion rules of plan/fusion.h, the shared subplans), without running anything. What only a run
// decides is not planned: out of memory (grace joins, an aggregation partitioned on disk, a part
// moved to the CPU), and GPU parts cut by their size (slices past tandem.exec.gpu.chunkBytes,
// hash partitions asked for or estimated ahead); the names then differ and EXPLAIN ANALYZE shows
// both. Known gap: a GPU part over slices runs its joins' build sides before its probe side's
// source, where this numbers the host pipelines feeding it in the order of the join's inputs. A
// change to the dispatch above belongs here too: tests/python/test_physical_plan.py and
// tests/unit/exec/physical_plan_test.cc compare the two on TPC-H.
#include "tandem/exec/cpu/flipped_join.h"
#include "tandem/exec/cpu/spilling_pipeline.h"
#include "tandem/exec/query_run.h"

namespace tandem {

std::string PipelineLabel(const PhysicalOperator& op) {
  if (op.pipeline <= 0) return "";
  const std::string n = std::to_string(op.pipeline);
  if (op.on_gpu) return "GPU part " + n;
  switch (op.role) {
    case PhysicalOperator::Role::kSource:
      return "source of pipeline " + n;
    case PhysicalOperator::Role::kSink:
      return "sink of pipeline " + n;
    default:
      return "pipeline " + n;
  }
}

namespace exec_detail {

using Role = PhysicalOperator::Role;

class PhysicalPlanner {
 public:
  explicit PhysicalPlanner(const QueryRun& run) : run_(run) {}

  PhysicalPlan Plan(const PlanNode& root) {
    Host(root);
    return std::move(out_);
  }

 private:
  // The members of a pipeline being planned, numbered once its inputs are.
  using Members = std::vector<const PlanNode*>;

  void Set(const PlanNode& node, std::string name, Role role, Members* pipeline = nullptr) {
    PhysicalOperator& op = out_[&node];
    op.name = std::move(name);
    op.role = role;
    op.on_gpu = run_.OnGpuHere(node) || node.kind == PlanKind::kTransition;
    if (pipeline) pipeline->push_back(&node);
    if (op.on_gpu && gpu_part_) gpu_part_->push_back(&node);
  }
  void Number(const Members& members) {
    const int id = ++pipelines_;
    for (const PlanNode* n : members) out_[n].pipeline = id;
  }
  std::string ScanName(const PlanNode& scan) const {
    const std::string table = scan.source ? scan.source->name : "?";
    if (const CachedTable* cached = run_.CacheOf(scan)) {
      return "Scan " + cached->name + " (cached in " + (cached->host ? "host" : "GPU") + " memory)";
    }
    return "Scan " + table;
  }
  bool StreamsFrom(const PlanNode& child) const {
    return (run_.Streams(child) || run_.StreamedScan(child)) && !run_.shared_.IsShared(&child);
  }

  // A node the executor would refuse (CheckShape: a child missing or null) is planned as
  // itself, without what is below it: the run reports the error.
  static bool Sound(const PlanNode& node) {
    if (!ShapeIsValid(node)) return false;
    for (const PlanPtr& c : node.children) {
      if (!c) return false;
    }
    return true;
  }

  // QueryRun::RunHost: a subplan that occurs again runs once.
  void Host(const PlanNode& node) {
    if (!Sound(node)) {
      Set(node, OperatorName(node), Role::kAlone);
      return;
    }
    if (run_.shared_.IsShared(&node)) {
      const std::string* key = run_.shared_.KeyOf(&node);
      if (key && !shared_seen_.insert(*key).second) {
        Set(node,
            std::string(OperatorName(node)) +
                " (the output of an identical subplan, computed once for " +
                std::to_string(run_.shared_.Occurrences(&node)) + ")",
            Role::kShared);
        return;
      }
    }
    if (node.kind == PlanKind::kTransition || run_.OnGpuHere(node)) {
      GpuPart(node);
      return;
    }
    Cpu(node);
  }

  // QueryRun::RunCpuOperator's order of choices.
  void Cpu(const PlanNode& node) {
    const auto& ctx = run_.ctx_;
    if (IsTopN(node)) {
      TopN(node);
      return;
    }
    if ((node.kind == PlanKind::kSort || node.kind == PlanKind::kWindow) && ctx.pipelines) {
      Host(*node.children[0]);
      Set(node, OperatorName(node), Role::kAlone);
      return;
    }
    if (node.kind == PlanKind::kAggregate && node.children.size() == 1 && node.children[0] &&
        node.children[0]->kind == PlanKind::kJoin &&
        node.children[0]->join_type == JoinType::kLeft &&
        run_.StreamsIntoFlippedJoin(*node.children[0])) {
      const PlanNode& join = *node.children[0];
      FlippedJoin(join, " into its aggregation");
      Set(node, "HashAggregate (sink of the join)", Role::kFused);
      out_[&node].pipeline = out_[&join].pipeline;
      return;
    }
    if (PipelineEndsAt(node)) {
      PipelineAt(node, nullptr);
      return;
    }
    if (node.kind == PlanKind::kJoin && run_.StreamsIntoFlippedJoin(node)) {
      FlippedJoin(node, "");
      return;
    }
    if (node.kind == PlanKind::kFilter && run_.FilterFusesIntoScan(node)) {
      const PlanNode& scan = *node.children[0];
      Set(scan, ScanName(scan), Role::kAlone);
      Set(node, "Filter (fused into Scan)", Role::kFused);
      return;
    }
    if (IsFilteredAggregate(node) &&
        !(run_.FilterFusesIntoScan(*node.children[0]) && IsSelective(*node.children[0]))) {
      const PlanNode& filter = *node.children[0];
      Host(*filter.children[0]);
      Set(filter, "Filter (fused into HashAggregate)", Role::kFused);
      Set(node, "HashAggregate", Role::kAlone);
      return;
    }
    for (const PlanPtr& c : node.children) {
      if (c) Host(*c);
    }
    Set(node, node.kind == PlanKind::kScan ? ScanName(node) : OperatorName(node), Role::kAlone);
  }

  // QueryRun::TryPipeline's test.
  bool PipelineEndsAt(const PlanNode& node) const {
    if (!run_.ctx_.pipelines) return false;
    if (node.kind == PlanKind::kAggregate) {
      const PlanNode* below = node.children.empty() ? nullptr : node.children[0].get();
      return below &&
             (run_.Streams(*below) || run_.StreamedScan(*below) || run_.OutputMaySpill(*below));
    }
    return run_.Streams(node);
  }

  // QueryRun::TryTopNSink, or a TopN over its input whole.
  void TopN(const PlanNode& limit) {
    const PlanNode& sort = *limit.children[0];
    const PlanNode& child = *sort.children[0];
    const bool streams = StreamsFrom(child);
    if (run_.ctx_.pipelines && streams) {
      Members sink;
      Set(limit, "TopN (pipeline sink)", Role::kSink, &sink);
      Set(sort, "Sort (in TopN)", Role::kFused, &sink);
      PipelineAt(child, &sink);
      return;
    }
    Host(child);
    Set(limit, "TopN", Role::kAlone);
    Set(sort, "Sort (in TopN)", Role::kFused);
  }

  // QueryRun::TryStreamIntoFlippedJoin: the left side whole, the right side's pipeline into its
  // hash table.
  void FlippedJoin(const PlanNode& join, const std::string& suffix) {
    Host(*join.children[0]);
    Members sink;
    Set(join, "HashJoin (built on the left, the right side streamed in)" + suffix, Role::kSink,
        &sink);
    PipelineAt(*join.children[1], &sink);
  }

  // QueryRun::RunPipelineAt: the streaming nodes from `node` down (each join's build side planned
  // on the way), the source, and the sink (an aggregation at `node`, or `sink`'s members).
  void PipelineAt(const PlanNode& node, Members* sink) {
    Members members = sink ? *sink : Members{};
    const bool aggregate = node.kind == PlanKind::kAggregate && !sink;
    std::vector<const PlanNode*> chain;
    const PlanNode* cur = aggregate ? node.children[0].get() : &node;
    while (run_.Streams(*cur) && (cur == &node || !run_.shared_.IsShared(cur))) {
      if (cur->kind == PlanKind::kJoin) Host(*cur->children[1]);
      chain.push_back(cur);
      cur = cur->children[0].get();
    }
    if (run_.StreamedScan(*cur)) {
      Set(*cur, ScanName(*cur), Role::kSource, &members);
    } else {
      Host(*cur);
      // A table in memory is cut into morsels: its scan is the pipeline's source.
      if (cur->kind == PlanKind::kScan && !run_.OnGpuHere(*cur)) {
        out_[cur].role = Role::kSource;
        members.push_back(cur);
      }
    }
    size_t first = 0;
    if (aggregate && !chain.empty() && chain.front()->kind == PlanKind::kFilter) {
      Set(*chain.front(), "Filter (fused into HashAggregate)", Role::kFused, &members);
      first = 1;
    }
    for (size_t i = first; i < chain.size(); ++i) {
      const PlanNode& n = *chain[i];
      const PlanNode* above = i > first ? chain[i - 1] : nullptr;
      if (n.kind == PlanKind::kFilter && above && above->kind == PlanKind::kJoin &&
          above->children[0].get() == &n) {
        Set(n, "Filter (in HashJoin probe)", Role::kFused, &members);
      } else if (n.kind == PlanKind::kJoin) {
        Set(n, "HashJoin (probe pipelined)", Role::kStep, &members);
      } else {
        Set(n, std::string(OperatorName(n)) + " (pipelined)", Role::kStep, &members);
      }
    }
    if (aggregate) Set(node, "HashAggregate (pipeline sink)", Role::kSink, &members);
    Number(members);
  }

  // QueryRun::RunGpuPart and RunDevice: a device-to-host transition (or a GPU node read on the
  // host) over the GPU operators below it, down to the host inputs they upload. The part is
  // numbered with the pipelines, after its inputs: the numbers give the order across devices.
  void GpuPart(const PlanNode& node) {
    Members part;
    Members* outer = gpu_part_;
    gpu_part_ = &part;
    if (node.kind == PlanKind::kTransition) {
      Device(*node.children[0]);
      Set(node, OperatorName(node), Role::kAlone);
    } else {
      Device(node);
    }
    gpu_part_ = outer;
    Number(part);
  }

  void Device(const PlanNode& node) {
    if (!Sound(node)) {
      Set(node, OperatorName(node), Role::kAlone);
      return;
    }
    if (node.kind == PlanKind::kTransition || !run_.OnGpuHere(node)) {
      const PlanNode& source = node.kind == PlanKind::kTransition ? *node.children[0] : node;
      Members* part = gpu_part_;
      gpu_part_ = nullptr;  // the host side is planned on its own
      Host(source);
      gpu_part_ = part;
      if (node.kind == PlanKind::kTransition) Set(node, OperatorName(node), Role::kAlone);
      return;
    }
    const PlanNode* fused = nullptr;
    std::string name = node.kind == PlanKind::kScan ? ScanName(node) : OperatorName(node);
    if (IsTopN(node)) {
      fused = node.children[0].get();
      name = "TopN";
      Set(*fused, "Sort (in TopN)", Role::kFused);
    } else if (IsFilteredAggregate(node)) {
      fused = node.children[0].get();
      Set(*fused, "Filter (fused into HashAggregate)", Role::kFused);
    }
    const PlanNode& below = fused ? *fused : node;
    for (const PlanPtr& c : below.children) {
      if (c) Device(*c);
    }
    Set(node, name, Role::kAlone);
  }

  const QueryRun& run_;
  PhysicalPlan out_;
  int pipelines_ = 0;
  std::set<std::string> shared_seen_;
  Members* gpu_part_ = nullptr;  // the GPU part being planned, if any
};

PhysicalPlan QueryRun::PlanPhysical() const {
  planning_ = true;  // the cached tables a plan looks at are not marked used (LRU order)
  PhysicalPlan plan = PhysicalPlanner(*this).Plan(root_);
  planning_ = false;
  return plan;
}

}  // namespace exec_detail
}  // namespace tandem
