// Plans with chosen estimates for the placement tests: a scan of an int64 table of any estimated
// size, and filters, projections, aggregates, joins, sorts and windows over it, each with its
// estimated row count set (as the optimizer would), plus checks over placed plans.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "tandem/catalog/table_source.h"
#include "tandem/placement/placement.h"
#include "tandem/placement/support.h"
#include "tandem/plan/logical_plan.h"

namespace tandem::placement::test {

// A memory table of int64 columns a, b, c (the scan's rows estimate is `rows`; the table itself
// is empty: placement only reads estimates), tagged as files of `kind`: CSV by default, which only
// the host reads, so that the rules below are about the operators above the scan.
inline PlanPtr ScanOf(const std::string& name, double rows,
                      TableSource::Kind kind = TableSource::Kind::kCsv) {
  auto table = std::make_shared<Table>();
  table->schema.fields = {{"a", DataType::Int64(), false},
                          {"b", DataType::Int64(), false},
                          {"c", DataType::Int64(), false}};
  auto source = TableSource::Memory(name, table);
  source->kind = kind;  // priced and tagged as a file scan
  PlanPtr scan = MakeScan(source, {0, 1, 2});
  scan->estimated_rows = rows;
  return scan;
}

inline ExprPtr Col(const PlanPtr& input, int i) {
  const Field& f = input->schema.field(i);
  return MakeColumnRef(i, f.type, f.nullable, f.name);
}

inline PlanPtr With(PlanPtr node, double rows) {
  node->estimated_rows = rows;
  return node;
}

inline PlanPtr FilterOf(PlanPtr input, double rows) {
  ExprPtr pred =
      MakeCall("gt", {Col(input, 0), MakeLiteral(Value::Int64(5))}, DataType::Bool(), false);
  return With(MakeFilter(input, pred), rows);
}

inline PlanPtr ProjectOf(PlanPtr input) {
  const double rows = input->estimated_rows;
  std::vector<ExprPtr> exprs = {Col(input, 0), Col(input, 1), Col(input, 2)};
  return With(MakeProject(input, exprs, {"a", "b", "c"}), rows);
}

inline PlanPtr SumBy(PlanPtr input, double groups) {
  AggregateCall sum;
  sum.kind = AggregateKind::kSum;
  sum.arg = Col(input, 1);
  sum.type = DataType::Int64();
  sum.name = "s";
  AggregateCall count;
  count.kind = AggregateKind::kCountStar;
  count.type = DataType::Int64();
  count.nullable = false;
  count.name = "n";
  return With(MakeAggregate(input, {Col(input, 0)}, {"a"}, {sum, count}), groups);
}

inline PlanPtr JoinOf(PlanPtr left, PlanPtr right, double rows) {
  return With(MakeJoin(left, right, JoinType::kInner, {Col(left, 0)}, {Col(right, 0)}, nullptr),
              rows);
}

inline PlanPtr SortOf(PlanPtr input) {
  const double rows = input->estimated_rows;
  return With(MakeSort(input, {SortKey{Col(input, 0), true, false}}), rows);
}

// A window (ntile(4) over the whole input): never supported on the GPU (no GPU NTILE).
inline PlanPtr WindowOf(PlanPtr input) {
  const double rows = input->estimated_rows;
  WindowCall w;
  w.kind = WindowFunctionKind::kNtile;
  w.args.push_back(MakeLiteral(Value::Int64(4)));
  w.type = DataType::Int64();
  w.nullable = false;
  w.name = "rn";
  return With(MakeWindow(input, {w}), rows);
}

inline CostProfile TestProfile(double pcie_bytes_per_s) {
  CostProfile p;
  p.description = "test";
  p.has_gpu = true;
  p.cpu.throughput.fill(1e9);
  p.cpu.operator_fixed_s = 10e-6;
  p.gpu.throughput.fill(100e9);
  p.gpu.operator_fixed_s = 20e-6;
  p.gpu.query_fixed_s = 200e-6;
  p.transfer.host_to_device_bytes_per_s = pcie_bytes_per_s;
  p.transfer.device_to_host_bytes_per_s = pcie_bytes_per_s;
  p.transfer.fixed_s = 10e-6;
  return p;
}

inline PlacementOptions AutoOptions(const CostProfile& profile) {
  PlacementOptions o;
  o.mode = DeviceMode::kAuto;
  o.profile = profile;
  o.gpu_allowed = true;
  return o;
}

// Calls f on every node of the tree.
inline void Visit(const PlanNode& n, const std::function<void(const PlanNode&)>& f) {
  f(n);
  for (const PlanPtr& c : n.children) Visit(*c, f);
}

inline int Count(const PlanNode& n, const std::function<bool(const PlanNode&)>& pred) {
  int count = 0;
  Visit(n, [&](const PlanNode& x) { count += pred(x) ? 1 : 0; });
  return count;
}

inline bool IsTransition(const PlanNode& n) { return n.kind == PlanKind::kTransition; }
inline bool OnGpuOperator(const PlanNode& n) {
  return n.kind != PlanKind::kTransition && n.device == Device::kGpu;
}

// Whether some leaf-to-root path goes GPU -> CPU -> GPU (counting operators, not transitions).
inline bool HasBounce(const PlanNode& root) {
  // Walks down from the root; state: 0 only CPU operators above, 1 a GPU operator above, 2 a CPU
  // operator above a GPU one. A GPU operator in state 2 is a bounce.
  std::function<bool(const PlanNode&, int)> walk = [&](const PlanNode& x, int state) -> bool {
    int s = state;
    if (x.kind != PlanKind::kTransition) {
      const bool gpu = x.device == Device::kGpu;
      if (state == 0 && gpu) s = 1;
      if (state == 1 && !gpu) s = 2;
      if (state == 2 && gpu) return true;
    }
    for (const PlanPtr& c : x.children) {
      if (walk(*c, s)) return true;
    }
    return false;
  };
  return walk(root, 0);
}

// Whether a GPU operator feeds, through CPU operators that the GPU could all run, another GPU
// operator: a bounce through movable work. A CPU segment that holds an operator the GPU cannot
// run is an island, and going back to the GPU above it is allowed (its crossings are priced).
inline bool HasBounceThroughMovableWork(const PlanNode& root) {
  // Walks down from the root; state: 0 only CPU operators above, 1 a GPU operator above, 2 CPU
  // operators (all supported so far) below a GPU one, 3 the same with an unsupported one.
  std::function<bool(const PlanNode&, int)> walk = [&](const PlanNode& x, int state) -> bool {
    int s = state;
    if (x.kind != PlanKind::kTransition) {
      const bool gpu = x.device == Device::kGpu;
      const bool unsupported = !GpuUnsupportedReason(x, Residency::kFiles).empty();
      if (gpu && state == 2) return true;
      if (gpu) s = 1;
      if (!gpu && state == 1) s = unsupported ? 3 : 2;
      if (!gpu && state == 2 && unsupported) s = 3;
    }
    for (const PlanPtr& c : x.children) {
      if (walk(*c, s)) return true;
    }
    return false;
  };
  return walk(root, 0);
}

// Every transition sits between nodes of different devices, the right way round.
inline bool TransitionsConsistent(const PlanNode& n) {
  bool ok = true;
  Visit(n, [&](const PlanNode& x) {
    for (const PlanPtr& c : x.children) {
      const Device parent = x.device;
      const Device child = c->device;
      if (IsTransition(*c)) {
        if (c->device != parent || c->children[0]->device == c->device) ok = false;
      } else if (!IsTransition(x) && child != parent) {
        ok = false;
      }
    }
  });
  return ok;
}

}  // namespace tandem::placement::test
