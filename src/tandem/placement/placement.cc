// The placement planner (see placement.h): units (one decision each), the dynamic program over
// them, the rebuilt plan with devices and transitions, and the explain notes.
#include "tandem/placement/placement.h"

#include <algorithm>
#include <initializer_list>
#include <limits>
#include <unordered_map>

#include "tandem/plan/fusion.h"

namespace tandem::placement {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Output states of the dynamic program (see placement.h).
enum State { kCleanCpu = 0, kAnyCpu = 1, kGpu = 2, kIslandCpu = 3 };
constexpr int kNumStates = 4;

Residency ResidencyOf(const PlacementOptions& options, const PlanNode& node) {
  if (node.kind != PlanKind::kScan || !options.residency || !node.source) return Residency::kFiles;
  return options.residency(node);
}

// One placement decision: a node, or a Limit over a Sort run as one TopN.
struct Unit {
  const PlanNode* top = nullptr;
  const PlanNode* sort = nullptr;  // the Sort of a TopN
  std::vector<const PlanNode*> inputs;
  OpClass op = OpClass::kValues;
  Residency residency = Residency::kFiles;
  std::string gpu_reason;  // "" when the GPU supports the unit
};

using Units = std::unordered_map<const PlanNode*, Unit>;

void CollectUnits(const PlanNode& n, const PlacementOptions& options, Units* units) {
  if (units->count(&n)) return;
  Unit u;
  u.top = &n;
  u.residency = ResidencyOf(options, n);
  const PlanNode* bottom = &n;
  if (plan::IsLimitOverSort(n)) {
    u.sort = n.children[0].get();
    bottom = u.sort;
    u.op = OpClass::kTopN;
    u.gpu_reason = GpuUnsupportedReason(*u.sort, Residency::kFiles);
    if (u.gpu_reason.empty()) u.gpu_reason = GpuUnsupportedReason(n, Residency::kFiles);
  } else {
    u.op = ClassOf(n);
    u.gpu_reason = GpuUnsupportedReason(n, u.residency);
  }
  for (const PlanPtr& c : bottom->children) u.inputs.push_back(c.get());
  (*units)[&n] = u;
  for (const PlanNode* in : units->at(&n).inputs) CollectUnits(*in, options, units);
}

// The share of a standalone filter's cost that a filter over numbers and dates fused into a CPU
// file scan costs. EXPLAIN ANALYZE on the H200 host, TPC-H SF10 from Parquet: lineitem scans
// with fused date filters (Q6, Q14) read 3.7-4.3 GB/s of Parquet, as fast as plain scans, while
// Q19's fused string predicates took ~180 ms more than Q14's scan of as many bytes, about a
// standalone filter's whole estimated cost.
constexpr double kFusedFilterCostShare = 0.1;

// Whether the predicate reads a string column of `schema`.
bool ReadsStrings(const Expr& predicate, const Schema& schema) {
  std::vector<int> columns;
  CollectColumns(predicate, &columns);
  for (int c : columns) {
    if (c >= 0 && c < schema.num_fields() && schema.field(c).type.is_string_like()) return true;
  }
  return false;
}

// A filter directly over a scan of Parquet files (the CPU executor fuses the two).
bool FusesIntoFileScan(const PlacementOptions& options, const Unit& u) {
  return u.op == OpClass::kFilter && plan::IsFilterOverFileScan(*u.top, [&](const PlanNode& scan) {
           return ResidencyOf(options, scan) == Residency::kFiles;
         });
}

// Seconds of a unit on a device given its inputs' bytes.
double UnitSeconds(const PlacementOptions& options, const Unit& u, Device device) {
  const CostProfile& profile = options.profile;
  if (u.op == OpClass::kScan && u.residency != Residency::kFiles) {
    const DeviceProfile& p = device == Device::kGpu ? profile.gpu : profile.cpu;
    double s = p.operator_fixed_s;  // the columns are referenced, not copied
    if (u.residency == Residency::kDevice && device == Device::kCpu) {
      s += TransferSeconds(profile, Device::kCpu, EstimatedOutputBytes(*u.top));
    }
    return s;
  }
  if (u.op == OpClass::kScan && device == Device::kGpu && profile.gpu.file_scan_bytes_per_s > 0) {
    return profile.gpu.operator_fixed_s +
           EstimatedOutputBytes(*u.top) / profile.gpu.file_scan_bytes_per_s;
  }
  std::vector<double> in;
  double input_rows = 0;
  for (const PlanNode* c : u.inputs) {
    in.push_back(EstimatedOutputBytes(*c));
    input_rows = std::max(input_rows, EstimatedRows(*c));
  }
  double seconds = OperatorSeconds(profile, device, u.op, *u.top, in);
  if (device == Device::kCpu && FusesIntoFileScan(options, u)) {
    // The CPU runs this filter inside the scan, on each batch while it is still in cache: no
    // unfiltered table is materialized. Numeric and date predicates then barely change the
    // scan's rate; string comparisons keep their whole cost (see kFusedFilterCostShare).
    if (!u.top->predicate || !ReadsStrings(*u.top->predicate, u.inputs[0]->schema)) {
      seconds = profile.cpu.operator_fixed_s +
                (seconds - profile.cpu.operator_fixed_s) * kFusedFilterCostShare;
    }
  }
  // UDF calls: a CPU-only one is priced on the CPU in every plan (it cannot leave it), so its
  // cost shifts both estimates alike; a GPU-capable one is priced on the device it runs on.
  seconds += UdfSeconds(profile, device, *u.top, input_rows);
  if (u.sort) seconds += UdfSeconds(profile, device, *u.sort, input_rows);
  return seconds;
}

// The dynamic program over units, optionally forcing one unit onto the GPU (for the "gpu est"
// of explain) or keeping every unit off it (the all-CPU plan).
class Solver {
 public:
  Solver(const PlacementOptions& options, const Units& units, bool allow_gpu,
         const PlanNode* force_gpu)
      : options_(options), units_(units), allow_gpu_(allow_gpu), force_gpu_(force_gpu) {}

  // Cheapest cost with the root's output on the host (per-query costs excluded); kInf if none.
  double Solve(const PlanNode& root, std::unordered_map<const PlanNode*, Device>* assignment) {
    const Entry& e = Get(&root);
    const double via_gpu = e.choice[kGpu].cost + TransferSeconds(options_.profile, Device::kCpu,
                                                                 EstimatedOutputBytes(root));
    const State best = via_gpu < e.choice[kAnyCpu].cost ? kGpu : kAnyCpu;
    const double cost = std::min(via_gpu, e.choice[kAnyCpu].cost);
    if (assignment && cost < kInf) Assign(&root, best, assignment);
    return cost;
  }

 private:
  struct Choice {
    double cost = kInf;
    Device device = Device::kCpu;
    std::vector<State> inputs;  // the state each input is taken in
  };
  struct Entry {
    Choice choice[kNumStates];
  };

  // The cheapest of the CPU states `states` of an input, or kGpu when `via_gpu` (its GPU output
  // brought to the host) is cheaper still; ties keep the earlier state.
  static State Cheapest(const Choice* c, std::initializer_list<State> states, double via_gpu) {
    State best = *states.begin();
    for (State s : states) {
      if (c[s].cost < c[best].cost) best = s;
    }
    return via_gpu < c[best].cost ? kGpu : best;
  }

  bool GpuPossible(const Unit& u) const {
    if (u.top == force_gpu_) return true;
    return allow_gpu_ && u.gpu_reason.empty();
  }
  bool CpuPossible(const Unit& u) const {
    // A device-resident table is scanned on the GPU (the CPU would copy it back first).
    if (u.top == force_gpu_) return false;
    return !(u.op == OpClass::kScan && u.residency == Residency::kDevice && u.gpu_reason.empty());
  }

  const Entry& Get(const PlanNode* n) {
    auto it = memo_.find(n);
    if (it != memo_.end()) return it->second;
    const Unit& u = units_.at(n);
    std::vector<const Entry*> in;
    for (const PlanNode* c : u.inputs) in.push_back(&Get(c));
    Entry e;
    const CostProfile& profile = options_.profile;
    if (CpuPossible(u)) {
      const double op = UnitSeconds(options_, u, Device::kCpu);
      Choice clean{op, Device::kCpu, {}};
      Choice any{op, Device::kCpu, {}};
      Choice island{op, Device::kCpu, {}};
      // An operator the GPU cannot run makes an island: its output may go back to the GPU
      // whatever ran below it. A supported operator stays island-eligible only above one.
      const bool unsupported = !u.gpu_reason.empty();
      for (size_t i = 0; i < in.size(); ++i) {
        const Choice* c = in[i]->choice;
        clean.cost += c[kCleanCpu].cost;
        clean.inputs.push_back(kCleanCpu);
        const double back = c[kGpu].cost + TransferSeconds(profile, Device::kCpu,
                                                           EstimatedOutputBytes(*u.inputs[i]));
        const State s = Cheapest(c, {kCleanCpu, kIslandCpu, kAnyCpu}, back);
        any.cost += s == kGpu ? back : c[s].cost;
        any.inputs.push_back(s);
        const State t = unsupported ? s : Cheapest(c, {kCleanCpu, kIslandCpu}, kInf);
        island.cost += t == kGpu ? back : c[t].cost;
        island.inputs.push_back(t);
      }
      e.choice[kCleanCpu] = clean;
      e.choice[kAnyCpu] = any;
      e.choice[kIslandCpu] = island;
    }
    if (GpuPossible(u)) {
      Choice gpu{UnitSeconds(options_, u, Device::kGpu), Device::kGpu, {}};
      for (size_t i = 0; i < in.size(); ++i) {
        const Choice* c = in[i]->choice;
        // From the host only out of a path that never left the GPU's side of the plan or out
        // of an island: never GPU -> (movable CPU work) -> GPU.
        const State from = c[kIslandCpu].cost < c[kCleanCpu].cost ? kIslandCpu : kCleanCpu;
        const double up = c[from].cost + TransferSeconds(profile, Device::kGpu,
                                                         EstimatedOutputBytes(*u.inputs[i]));
        if (c[kGpu].cost <= up) {
          gpu.cost += c[kGpu].cost;
          gpu.inputs.push_back(kGpu);
        } else {
          gpu.cost += up;
          gpu.inputs.push_back(from);
        }
      }
      e.choice[kGpu] = gpu;
    }
    return memo_.emplace(n, std::move(e)).first->second;
  }

  void Assign(const PlanNode* n, State s, std::unordered_map<const PlanNode*, Device>* out) {
    const Choice& c = memo_.at(n).choice[s];
    (*out)[n] = c.device;
    const Unit& u = units_.at(n);
    for (size_t i = 0; i < u.inputs.size(); ++i) Assign(u.inputs[i], c.inputs[i], out);
  }

  const PlacementOptions& options_;
  const Units& units_;
  bool allow_gpu_;
  const PlanNode* force_gpu_;
  std::unordered_map<const PlanNode*, Entry> memo_;
};

using Assignment = std::unordered_map<const PlanNode*, Device>;

// device=gpu: every supported unit on the GPU, device-resident scans included.
void AssignForced(const PlanNode* n, const Units& units, bool gpu_allowed, Assignment* out) {
  const Unit& u = units.at(n);
  const bool gpu = gpu_allowed && u.gpu_reason.empty();
  (*out)[n] = gpu ? Device::kGpu : Device::kCpu;
  for (const PlanNode* in : u.inputs) AssignForced(in, units, gpu_allowed, out);
}

void AssignCpu(const PlanNode* n, const Units& units, Assignment* out) {
  (*out)[n] = Device::kCpu;
  for (const PlanNode* in : units.at(n).inputs) AssignCpu(in, units, out);
}

struct Estimates {
  double cpu_ms = -1;
  double gpu_ms = -1;
};

PlanPtr Wrap(PlanPtr child, Device to) {
  if (child->device == to) return child;
  return MakeTransition(std::move(child), to);
}

class Builder {
 public:
  Builder(const PlacementOptions& options, const Units& units, const Assignment& assignment,
          const std::unordered_map<const PlanNode*, Estimates>& estimates)
      : options_(options), units_(units), assignment_(assignment), estimates_(estimates) {}

  PlanPtr Build(const PlanNode* n) {
    const Unit& u = units_.at(n);
    const Device d = assignment_.at(n);
    std::vector<PlanPtr> children;
    for (const PlanNode* in : u.inputs) {
      PlanPtr c = Build(in);
      c->placement.est_bytes = EstimatedOutputBytes(*c);
      PlanPtr wrapped = Wrap(std::move(c), d);
      wrapped->placement.est_bytes = EstimatedOutputBytes(*wrapped);
      children.push_back(std::move(wrapped));
    }
    const PlacementNote note = NoteFor(u, d);
    auto top = std::make_shared<PlanNode>(*n);
    top->device = d;
    top->placement = note;
    top->placement.est_bytes = EstimatedOutputBytes(*n);
    if (u.sort) {
      auto sort = std::make_shared<PlanNode>(*u.sort);
      sort->device = d;
      sort->placement = note;
      sort->placement.est_bytes = EstimatedOutputBytes(*u.sort);
      sort->children = std::move(children);
      top->children = {sort};
    } else {
      top->children = std::move(children);
    }
    return top;
  }

 private:
  PlacementNote NoteFor(const Unit& u, Device d) const {
    PlacementNote note;
    if (d == Device::kGpu) {
      note.kind = PlacementNote::Kind::kOnGpu;
      return note;
    }
    note.kind = PlacementNote::Kind::kUnsupported;
    if (options_.mode == DeviceMode::kCpu) {
      note.reason = "tandem.sql.device=cpu";
    } else if (!options_.gpu_allowed) {
      note.reason = options_.no_gpu_reason.empty() ? "no usable GPU" : options_.no_gpu_reason;
    } else if (!u.gpu_reason.empty()) {
      note.reason = u.gpu_reason;
    } else {
      note.kind = PlacementNote::Kind::kCostModel;
      auto it = estimates_.find(u.top);
      if (it != estimates_.end()) {
        note.cpu_est_ms = it->second.cpu_ms;
        note.gpu_est_ms = it->second.gpu_ms;
      }
    }
    return note;
  }

  const PlacementOptions& options_;
  const Units& units_;
  const Assignment& assignment_;
  const std::unordered_map<const PlanNode*, Estimates>& estimates_;
};

bool AnyGpu(const Assignment& a) {
  for (const auto& [node, device] : a) {
    if (device == Device::kGpu) return true;
  }
  return false;
}

void CollectSeconds(const PlanNode& n, const PlacementOptions& options, double* seconds,
                    bool* any_gpu) {
  if (n.kind == PlanKind::kTransition) {
    if (!n.children.empty() && n.children[0]) {
      *seconds += TransferSeconds(options.profile, n.device, EstimatedOutputBytes(*n.children[0]));
      CollectSeconds(*n.children[0], options, seconds, any_gpu);
    }
    return;
  }
  if (n.device == Device::kGpu) *any_gpu = true;
  Unit u;
  u.top = &n;
  u.residency = ResidencyOf(options, n);
  const PlanNode* bottom = &n;
  if (plan::IsTopN(n)) {
    u.sort = n.children[0].get();
    bottom = u.sort;
    u.op = OpClass::kTopN;
  } else {
    u.op = ClassOf(n);
  }
  for (const PlanPtr& c : bottom->children) {
    if (c) u.inputs.push_back(c.get());
  }
  *seconds += UnitSeconds(options, u, n.device);
  for (const PlanNode* in : u.inputs) CollectSeconds(*in, options, seconds, any_gpu);
}

}  // namespace

double GpuQuerySeconds(const PlacementOptions& options) {
  return options.profile.gpu.query_fixed_s +
         (options.include_gpu_startup ? options.profile.gpu.startup_s : 0);
}

double EstimatePlacedSeconds(const PlanNode& placed, const PlacementOptions& options) {
  double seconds = 0;
  bool any_gpu = false;
  CollectSeconds(placed, options, &seconds, &any_gpu);
  if (placed.device == Device::kGpu) {
    seconds += TransferSeconds(options.profile, Device::kCpu, EstimatedOutputBytes(placed));
  }
  if (any_gpu) seconds += GpuQuerySeconds(options);
  return seconds;
}

Result<PlacementResult> Place(const PlanPtr& plan, const PlacementOptions& options) {
  if (!plan) return Status::Internal("placement of a null plan");
  Units units;
  CollectUnits(*plan, options, &units);
  const bool gpu_allowed = options.gpu_allowed && options.profile.has_gpu;
  const double query_fixed = GpuQuerySeconds(options);

  // The all-CPU plan (device-resident scans stay on the GPU: the CPU cannot read them directly).
  Assignment cpu_assignment;
  Solver cpu_solver(options, units, /*allow_gpu=*/false, nullptr);
  double cpu_seconds = cpu_solver.Solve(*plan, &cpu_assignment);
  if (cpu_seconds == kInf) {
    cpu_assignment.clear();
    AssignCpu(plan.get(), units, &cpu_assignment);
  } else if (AnyGpu(cpu_assignment)) {
    cpu_seconds += query_fixed;
  }

  Assignment chosen;
  std::unordered_map<const PlanNode*, Estimates> estimates;
  if (options.mode == DeviceMode::kCpu) {
    AssignCpu(plan.get(), units, &chosen);
  } else if (options.mode == DeviceMode::kGpu) {
    AssignForced(plan.get(), units, gpu_allowed, &chosen);
  } else if (!gpu_allowed) {
    chosen = cpu_assignment;
  } else {
    Solver solver(options, units, /*allow_gpu=*/true, nullptr);
    double seconds = solver.Solve(*plan, &chosen);
    if (AnyGpu(chosen)) seconds += query_fixed;
    if (!(seconds < cpu_seconds * (1 - options.min_gain))) {
      chosen = cpu_assignment;
      seconds = cpu_seconds;
    }
    // Explain: for each supported unit the cost model kept on the CPU, the best plan with it
    // on the GPU.
    for (const auto& [node, unit] : units) {
      if (chosen.at(node) != Device::kCpu || !unit.gpu_reason.empty()) continue;
      Solver forced(options, units, /*allow_gpu=*/true, node);
      const double forced_seconds = forced.Solve(*plan, nullptr) + query_fixed;
      estimates[node] = {seconds * 1e3, forced_seconds * 1e3};
    }
  }

  PlacementResult result;
  Builder builder(options, units, chosen, estimates);
  PlanPtr placed = builder.Build(plan.get());
  result.plan = Wrap(std::move(placed), Device::kCpu);  // results are read on the host
  result.plan->placement.est_bytes = EstimatedOutputBytes(*result.plan);
  result.uses_gpu = AnyGpu(chosen);
  result.estimated_ms = EstimatePlacedSeconds(*result.plan, options) * 1e3;
  Builder cpu_builder(options, units, cpu_assignment, estimates);
  result.all_cpu_estimated_ms =
      EstimatePlacedSeconds(*Wrap(cpu_builder.Build(plan.get()), Device::kCpu), options) * 1e3;
  return result;
}

}  // namespace tandem::placement
