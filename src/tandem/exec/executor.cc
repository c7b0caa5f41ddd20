// The CPU executor: runs the plan bottom-up (children first), one operator at a time, calling the
// operators of exec/cpu/operators.h. A Limit directly above a Sort runs as one TopN, and an
// Aggregate directly above a Filter as one filtered aggregation. Every node's
// time (its own, children excluded), output rows, batches and bytes are recorded in the context;
// PlanToStringWithMetrics prints them for EXPLAIN ANALYZE.
#include "tandem/exec/executor.h"

#include <chrono>
#include <cstdio>

#include "tandem/catalog/table_source.h"
#include "tandem/exec/cpu/hash_aggregate.h"
#include "tandem/exec/cpu/operator_util.h"
#include "tandem/exec/cpu/operators.h"

namespace tandem {
namespace {

using Clock = std::chrono::steady_clock;

const char* OperatorName(const PlanNode& node) {
  switch (node.kind) {
    case PlanKind::kScan:
      return "Scan";
    case PlanKind::kFilter:
      return "Filter";
    case PlanKind::kProject:
      return "Project";
    case PlanKind::kAggregate:
      return "HashAggregate";
    case PlanKind::kJoin:
      return node.left_keys.empty() && !node.condition ? "CrossJoin" : "HashJoin";
    case PlanKind::kSort:
      return "Sort";
    case PlanKind::kLimit:
      return "Limit";
    case PlanKind::kSetOp:
      return "SetOperation";
    case PlanKind::kWindow:
      return "Window";
    case PlanKind::kValues:
      return "Values";
  }
  return "?";
}

int ExpectedChildren(PlanKind kind) {
  switch (kind) {
    case PlanKind::kScan:
    case PlanKind::kValues:
      return 0;
    case PlanKind::kJoin:
    case PlanKind::kSetOp:
      return 2;
    default:
      return 1;
  }
}

Status CheckOutput(const PlanNode& node, const Table& out) {
  for (const auto& b : out.batches) {
    if (!b || b->num_columns() != node.schema.num_fields()) {
      return Status::Internal(std::string(OperatorName(node)) + " produced a batch of " +
                              std::to_string(b ? b->num_columns() : -1) + " columns for " +
                              std::to_string(node.schema.num_fields()) + " output columns");
    }
  }
  return Status::OK();
}

// Records metrics; a name the operator recorded itself (scans add what they read) is kept.
void RecordMetrics(const PlanNode& node, const std::string& default_name, const Table& out,
                   double millis, ExecContext& ctx) {
  OperatorMetrics m;
  const OperatorMetrics* own = ctx.Find(&node);
  m.name = own && !own->name.empty() ? own->name : default_name;
  m.rows = out.num_rows();
  m.batches = static_cast<int64_t>(out.batches.size());
  m.bytes = cpu::opx::TableBytes(out);
  m.millis = millis;
  ctx.Record(&node, m);
}

double MillisSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// A filter directly over a scan of Parquet files.
bool FilterFusesIntoScan(const PlanNode& filter) {
  if (filter.kind != PlanKind::kFilter || !filter.predicate || filter.children.size() != 1) {
    return false;
  }
  const PlanNode* scan = filter.children[0].get();
  return scan && scan->kind == PlanKind::kScan && scan->source &&
         scan->source->kind == TableSource::Kind::kParquet;
}

// A filter estimated to keep at most half of its input rows.
bool IsSelective(const PlanNode& filter) {
  const double in = filter.children[0]->estimated_rows;
  const double kept = filter.estimated_rows;
  return in > 0 && kept >= 0 && kept <= 0.5 * in;
}

Result<Table> Run(const PlanNode& node, ExecContext& ctx) {
  if (static_cast<int>(node.children.size()) != ExpectedChildren(node.kind)) {
    return Status::Internal(std::string(OperatorName(node)) + " node with " +
                            std::to_string(node.children.size()) + " inputs");
  }
  for (const auto& c : node.children) {
    if (!c) return Status::Internal(std::string(OperatorName(node)) + " node with a null input");
  }
  // Limit over Sort: one TopN.
  if (node.kind == PlanKind::kLimit && node.limit >= 0 &&
      node.children[0]->kind == PlanKind::kSort && node.children[0]->children.size() == 1 &&
      node.children[0]->children[0]) {
    const PlanNode& sort = *node.children[0];
    TANDEM_ASSIGN_OR_RAISE(Table input, Run(*sort.children[0], ctx));
    const auto start = Clock::now();
    TANDEM_ASSIGN_OR_RAISE(Table out, cpu::TopN(node, sort, input, ctx));
    const double millis = MillisSince(start);
    TANDEM_RETURN_NOT_OK(CheckOutput(node, out));
    RecordMetrics(sort, "Sort (in TopN)", out, 0, ctx);
    RecordMetrics(node, "TopN", out, millis, ctx);
    return out;
  }
  // Filter over a Parquet scan: each row group is filtered as soon as it is decoded.
  if (node.kind == PlanKind::kFilter && FilterFusesIntoScan(node)) {
    const PlanNode& scan = *node.children[0];
    const auto start = Clock::now();
    TANDEM_ASSIGN_OR_RAISE(Table out, cpu::ScanFiltered(scan, node, ctx));
    const double millis = MillisSince(start);
    TANDEM_RETURN_NOT_OK(CheckOutput(node, out));
    OperatorMetrics sm;
    if (const OperatorMetrics* own = ctx.Find(&scan)) sm = *own;
    sm.millis = millis;
    ctx.Record(&scan, sm);
    RecordMetrics(node, "Filter (fused into Scan)", out, 0, ctx);
    return out;
  }
  // Aggregate over Filter: the filter runs inside the aggregation (no filtered copy), unless it
  // is selective and can run inside the scan below it instead.
  if (node.kind == PlanKind::kAggregate && node.children[0]->kind == PlanKind::kFilter &&
      node.children[0]->children.size() == 1 && node.children[0]->children[0] &&
      node.children[0]->predicate &&
      !(FilterFusesIntoScan(*node.children[0]) && IsSelective(*node.children[0]))) {
    const PlanNode& filter = *node.children[0];
    TANDEM_ASSIGN_OR_RAISE(Table input, Run(*filter.children[0], ctx));
    const auto start = Clock::now();
    int64_t selected = 0;
    TANDEM_ASSIGN_OR_RAISE(
        Table out, cpu::HashAggregateFiltered(node, *filter.predicate, input, ctx, &selected));
    const double millis = MillisSince(start);
    TANDEM_RETURN_NOT_OK(CheckOutput(node, out));
    OperatorMetrics fm;
    fm.name = "Filter (fused into HashAggregate)";
    fm.rows = selected;
    ctx.Record(&filter, fm);
    RecordMetrics(node, "HashAggregate", out, millis, ctx);
    return out;
  }
  std::vector<Table> inputs;
  for (const auto& c : node.children) {
    TANDEM_ASSIGN_OR_RAISE(Table t, Run(*c, ctx));
    inputs.push_back(std::move(t));
  }
  const auto start = Clock::now();
  Result<Table> result = Status::Internal("unreachable");
  switch (node.kind) {
    case PlanKind::kScan:
      result = cpu::Scan(node, ctx);
      break;
    case PlanKind::kFilter:
      result = cpu::Filter(node, inputs[0], ctx);
      break;
    case PlanKind::kProject:
      result = cpu::Project(node, inputs[0], ctx);
      break;
    case PlanKind::kAggregate:
      result = cpu::HashAggregate(node, inputs[0], ctx);
      break;
    case PlanKind::kJoin:
      result = cpu::HashJoin(node, inputs[0], inputs[1], ctx);
      break;
    case PlanKind::kSort:
      result = cpu::Sort(node, inputs[0], ctx);
      break;
    case PlanKind::kLimit:
      result = cpu::Limit(node, inputs[0], ctx);
      break;
    case PlanKind::kSetOp:
      result = cpu::SetOperation(node, inputs[0], inputs[1], ctx);
      break;
    case PlanKind::kWindow:
      result = cpu::Window(node, inputs[0], ctx);
      break;
    case PlanKind::kValues:
      result = cpu::Values(node, ctx);
      break;
  }
  if (!result.ok()) return result.status();
  inputs.clear();  // free the inputs before the parent runs
  const double millis = MillisSince(start);
  TANDEM_RETURN_NOT_OK(CheckOutput(node, *result));
  RecordMetrics(node, OperatorName(node), *result, millis, ctx);
  return result;
}

std::string FormatBytes(int64_t bytes) {
  char buf[32];
  if (bytes >= (int64_t{1} << 30)) {
    std::snprintf(buf, sizeof(buf), "%.1f GiB", static_cast<double>(bytes) / (1 << 30));
  } else if (bytes >= (1 << 20)) {
    std::snprintf(buf, sizeof(buf), "%.1f MiB", static_cast<double>(bytes) / (1 << 20));
  } else if (bytes >= (1 << 10)) {
    std::snprintf(buf, sizeof(buf), "%.1f KiB", static_cast<double>(bytes) / (1 << 10));
  } else {
    std::snprintf(buf, sizeof(buf), "%lld B", static_cast<long long>(bytes));
  }
  return buf;
}

void AppendTree(const PlanNode& node, const ExecContext& ctx, int depth, std::string* out) {
  out->append(static_cast<size_t>(depth) * 2, ' ');
  out->append(node.Describe());
  if (const OperatorMetrics* m = ctx.Find(&node)) {
    char time[32];
    std::snprintf(time, sizeof(time), "%.2f ms", m->millis);
    out->append("  [" + m->name + " on " + m->device + ": " + std::to_string(m->rows) + " rows, " +
                std::to_string(m->batches) + " batches, " + FormatBytes(m->bytes) + ", " + time +
                "]");
  } else {
    out->append("  [not run]");
  }
  out->push_back('\n');
  for (const auto& c : node.children) {
    if (c) AppendTree(*c, ctx, depth + 1, out);
  }
}

}  // namespace

Result<Table> Execute(const PlanNode& plan, ExecContext& ctx) { return Run(plan, ctx); }

std::string PlanToStringWithMetrics(const PlanNode& root, const ExecContext& ctx) {
  std::string out;
  AppendTree(root, ctx, 0, &out);
  return out;
}

}  // namespace tandem
