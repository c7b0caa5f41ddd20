// Plan node constructors (deriving output schemas) and the text form used by EXPLAIN.
#include "tandem/plan/logical_plan.h"

#include <cstdio>

namespace tandem {
namespace {

PlanPtr NewNode(PlanKind kind, std::vector<PlanPtr> children) {
  auto n = std::make_shared<PlanNode>();
  n->kind = kind;
  n->children = std::move(children);
  return n;
}

const char* JoinTypeName(JoinType t) {
  switch (t) {
    case JoinType::kInner:
      return "INNER";
    case JoinType::kLeft:
      return "LEFT";
    case JoinType::kRight:
      return "RIGHT";
    case JoinType::kFull:
      return "FULL";
    case JoinType::kSemi:
      return "SEMI";
    case JoinType::kAnti:
      return "ANTI";
    case JoinType::kMark:
      return "MARK";
  }
  return "?";
}

std::string JoinList(const std::vector<ExprPtr>& exprs) {
  std::string s;
  for (size_t i = 0; i < exprs.size(); ++i) s += (i ? ", " : "") + exprs[i]->ToString();
  return s;
}

void AppendTree(const PlanNode& node, int depth, std::string* out) {
  out->append(static_cast<size_t>(depth) * 2, ' ');
  out->append(node.Describe());
  out->push_back('\n');
  for (const auto& c : node.children) AppendTree(*c, depth + 1, out);
}

}  // namespace

std::string PlanNode::Describe() const {
  std::string s;
  switch (kind) {
    case PlanKind::kScan: {
      s = "Scan " + (source ? source->name : std::string("?")) + " [";
      for (size_t i = 0; i < schema.fields.size(); ++i)
        s += (i ? ", " : "") + schema.fields[i].name;
      s += "]";
      if (!scan_predicates.empty()) {
        s += " prune-by " + std::to_string(scan_predicates.size()) + " predicate(s)";
      }
      break;
    }
    case PlanKind::kFilter:
      s = "Filter " + predicate->ToString();
      break;
    case PlanKind::kProject:
      s = "Project " + JoinList(exprs);
      break;
    case PlanKind::kAggregate: {
      s = "Aggregate keys=[" + JoinList(group_keys) + "] aggs=[";
      for (size_t i = 0; i < aggregates.size(); ++i) s += (i ? ", " : "") + aggregates[i].name;
      s += "]";
      if (!grouping_sets.empty()) s += " sets=" + std::to_string(grouping_sets.size());
      break;
    }
    case PlanKind::kJoin: {
      const bool cross = left_keys.empty() && !condition && join_type != JoinType::kMark;
      s = cross ? std::string("CrossJoin") : std::string("HashJoin ") + JoinTypeName(join_type);
      if (null_aware) s += " (null-aware)";
      for (size_t i = 0; i < left_keys.size(); ++i) {
        s += (i ? " AND " : " ") + left_keys[i]->ToString() + " = " + right_keys[i]->ToString();
      }
      if (condition) s += " cond " + condition->ToString();
      break;
    }
    case PlanKind::kSort: {
      s = "Sort ";
      for (size_t i = 0; i < sort_keys.size(); ++i) {
        s += (i ? ", " : "") + sort_keys[i].expr->ToString() +
             (sort_keys[i].ascending ? " ASC" : " DESC") +
             (sort_keys[i].nulls_first ? " NULLS FIRST" : " NULLS LAST");
      }
      break;
    }
    case PlanKind::kLimit:
      s = "Limit " + std::to_string(limit) + (offset ? " offset " + std::to_string(offset) : "");
      break;
    case PlanKind::kSetOp: {
      static const char* kOps[] = {"Union", "Intersect", "Except"};
      s = std::string(kOps[static_cast<int>(set_op)]) + (set_all ? " ALL" : "");
      break;
    }
    case PlanKind::kWindow: {
      s = "Window [";
      for (size_t i = 0; i < windows.size(); ++i) s += (i ? ", " : "") + windows[i].name;
      s += "]";
      break;
    }
    case PlanKind::kExpand: {
      s = "Expand " + std::to_string(projections.size()) + " projections [";
      for (size_t i = 0; i < projections.size(); ++i) {
        s += (i ? "; " : "") + JoinList(projections[i]);
      }
      s += "]";
      break;
    }
    case PlanKind::kValues:
      s = "Values " + std::to_string(rows.size()) + " row(s)";
      break;
    case PlanKind::kTransition:
      s = device == Device::kGpu ? "HostToDevice" : "DeviceToHost";
      break;
  }
  if (estimated_rows >= 0)
    s += "  (est. " + std::to_string(static_cast<int64_t>(estimated_rows)) + " rows)";
  return s;
}

const char* DeviceName(Device device) { return device == Device::kGpu ? "gpu" : "cpu"; }

std::string PlacementNote::ToString() const {
  char estimates[96];
  switch (kind) {
    case Kind::kNone:
      return "";
    case Kind::kOnGpu:
      return "on the GPU";
    case Kind::kUnsupported:
      return "on the CPU because " + reason;
    case Kind::kCostModel:
      std::snprintf(estimates, sizeof(estimates), "cpu est %.2f ms, gpu est %.2f ms", cpu_est_ms,
                    gpu_est_ms);
      return std::string("moved to the CPU by the cost model (") + estimates + ")";
    case Kind::kTransition:
      return "transition inserted by the placement planner";
  }
  return "";
}

PlanPtr MakeScan(std::shared_ptr<TableSource> source, std::vector<int> columns) {
  auto n = NewNode(PlanKind::kScan, {});
  for (int c : columns) n->schema.fields.push_back(source->schema.field(c));
  n->source = std::move(source);
  n->scan_columns = std::move(columns);
  n->estimated_rows = static_cast<double>(n->source->estimated_rows);
  return n;
}

PlanPtr MakeFilter(PlanPtr child, ExprPtr predicate) {
  auto n = NewNode(PlanKind::kFilter, {child});
  n->schema = child->schema;
  n->predicate = std::move(predicate);
  return n;
}

PlanPtr MakeProject(PlanPtr child, std::vector<ExprPtr> exprs, std::vector<std::string> names) {
  auto n = NewNode(PlanKind::kProject, {std::move(child)});
  for (size_t i = 0; i < exprs.size(); ++i) {
    n->schema.fields.push_back(
        {i < names.size() ? names[i] : exprs[i]->ToString(), exprs[i]->type, exprs[i]->nullable});
  }
  n->exprs = std::move(exprs);
  return n;
}

PlanPtr MakeAggregate(PlanPtr child, std::vector<ExprPtr> keys, std::vector<std::string> key_names,
                      std::vector<AggregateCall> aggregates,
                      std::vector<std::vector<int>> grouping_sets) {
  auto n = NewNode(PlanKind::kAggregate, {std::move(child)});
  for (size_t i = 0; i < keys.size(); ++i) {
    // With grouping sets a key is NULL in rows of sets that leave it out.
    n->schema.fields.push_back({i < key_names.size() ? key_names[i] : keys[i]->ToString(),
                                keys[i]->type, keys[i]->nullable || !grouping_sets.empty()});
  }
  for (const auto& a : aggregates) n->schema.fields.push_back({a.name, a.type, a.nullable});
  if (!grouping_sets.empty()) n->schema.fields.push_back({"grouping_id", DataType::Int64(), false});
  n->group_keys = std::move(keys);
  n->aggregates = std::move(aggregates);
  n->grouping_sets = std::move(grouping_sets);
  return n;
}

PlanPtr MakeJoin(PlanPtr left, PlanPtr right, JoinType type, std::vector<ExprPtr> left_keys,
                 std::vector<ExprPtr> right_keys, ExprPtr condition, bool null_aware) {
  auto n = NewNode(PlanKind::kJoin, {left, right});
  const bool left_nullable = type == JoinType::kRight || type == JoinType::kFull;
  const bool right_nullable = type == JoinType::kLeft || type == JoinType::kFull;
  for (Field f : left->schema.fields) {
    f.nullable = f.nullable || left_nullable;
    n->schema.fields.push_back(f);
  }
  if (type == JoinType::kMark) {
    n->schema.fields.push_back({"mark", DataType::Bool(), null_aware});
  } else if (type != JoinType::kSemi && type != JoinType::kAnti) {
    for (Field f : right->schema.fields) {
      f.nullable = f.nullable || right_nullable;
      n->schema.fields.push_back(f);
    }
  }
  n->join_type = type;
  n->left_keys = std::move(left_keys);
  n->right_keys = std::move(right_keys);
  n->condition = std::move(condition);
  n->null_aware = null_aware;
  return n;
}

PlanPtr MakeSort(PlanPtr child, std::vector<SortKey> keys) {
  auto n = NewNode(PlanKind::kSort, {child});
  n->schema = child->schema;
  n->sort_keys = std::move(keys);
  return n;
}

PlanPtr MakeLimit(PlanPtr child, int64_t limit, int64_t offset) {
  auto n = NewNode(PlanKind::kLimit, {child});
  n->schema = child->schema;
  n->limit = limit;
  n->offset = offset;
  return n;
}

PlanPtr MakeSetOp(PlanPtr left, PlanPtr right, SetOpKind op, bool all) {
  return MakeSetOp(std::vector<PlanPtr>{std::move(left), std::move(right)}, op, all);
}

PlanPtr MakeSetOp(std::vector<PlanPtr> inputs, SetOpKind op, bool all) {
  auto n = NewNode(PlanKind::kSetOp, inputs);
  n->schema = inputs[0]->schema;
  for (size_t k = 1; k < inputs.size(); ++k) {
    const Schema& s = inputs[k]->schema;
    for (size_t i = 0; i < n->schema.fields.size() && i < s.fields.size(); ++i) {
      n->schema.fields[i].nullable |= s.fields[i].nullable;
    }
  }
  n->set_op = op;
  n->set_all = all;
  return n;
}

PlanPtr MakeWindow(PlanPtr child, std::vector<WindowCall> windows) {
  auto n = NewNode(PlanKind::kWindow, {child});
  n->schema = child->schema;
  for (const auto& w : windows) n->schema.fields.push_back({w.name, w.type, w.nullable});
  n->windows = std::move(windows);
  return n;
}

PlanPtr MakeExpand(PlanPtr child, std::vector<std::vector<ExprPtr>> projections,
                   std::vector<std::string> names) {
  auto n = NewNode(PlanKind::kExpand, {std::move(child)});
  if (!projections.empty()) {
    const std::vector<ExprPtr>& first = projections[0];
    for (size_t i = 0; i < first.size(); ++i) {
      bool nullable = false;
      for (const auto& p : projections) nullable |= i < p.size() && p[i]->nullable;
      n->schema.fields.push_back(
          {i < names.size() ? names[i] : first[i]->ToString(), first[i]->type, nullable});
    }
  }
  n->projections = std::move(projections);
  return n;
}

PlanPtr MakeValues(Schema schema, std::vector<std::vector<Value>> rows) {
  auto n = NewNode(PlanKind::kValues, {});
  n->schema = std::move(schema);
  n->rows = std::move(rows);
  n->estimated_rows = static_cast<double>(n->rows.size());
  return n;
}

PlanPtr MakeTransition(PlanPtr child, Device to) {
  auto n = NewNode(PlanKind::kTransition, {child});
  n->schema = child->schema;
  n->estimated_rows = child->estimated_rows;
  n->device = to;
  n->placement.kind = PlacementNote::Kind::kTransition;
  n->placement.est_bytes = child->placement.est_bytes;
  return n;
}

std::string PlanToString(const PlanNode& root) {
  std::string out;
  AppendTree(root, 0, &out);
  return out;
}

namespace {

void CollectScannedSources(const PlanNode& node, std::set<const TableSource*>* out) {
  if (node.kind == PlanKind::kScan && node.source) out->insert(node.source.get());
  for (const auto& c : node.children) {
    if (c) CollectScannedSources(*c, out);
  }
}

}  // namespace

std::set<const TableSource*> ScannedSources(const PlanNode& root) {
  std::set<const TableSource*> out;
  CollectScannedSources(root, &out);
  return out;
}

}  // namespace tandem
