// Shared expression and plan-node helpers of the optimizer passes (see rewrite_util.h).
#include "tandem/plan/rewrite_util.h"

#include <algorithm>

namespace tandem::plan {

std::vector<ExprPtr> SplitConjuncts(const ExprPtr& predicate) {
  std::vector<ExprPtr> out;
  if (!predicate) return out;
  if (predicate->kind == ExprKind::kCall && predicate->name == "and" &&
      predicate->args.size() == 2) {
    for (const auto& a : predicate->args) {
      auto part = SplitConjuncts(a);
      out.insert(out.end(), part.begin(), part.end());
    }
    return out;
  }
  out.push_back(predicate);
  return out;
}

ExprPtr MakeBoolCall(const std::string& name, std::vector<ExprPtr> args) {
  bool nullable = false;
  if (name != "is_null" && name != "is_not_null" && name != "is_distinct_from" &&
      name != "is_not_distinct_from") {
    for (const auto& a : args) nullable = nullable || a->nullable;
  }
  return MakeCall(name, std::move(args), DataType::Bool(), nullable);
}

namespace {

ExprPtr CombineRange(const std::string& name, const std::vector<ExprPtr>& parts, size_t begin,
                     size_t end) {
  if (end - begin == 1) return parts[begin];
  // The larger half on the left: up to three parts the tree is the left-deep one.
  const size_t mid = begin + (end - begin + 1) / 2;
  return MakeBoolCall(name,
                      {CombineRange(name, parts, begin, mid), CombineRange(name, parts, mid, end)});
}

}  // namespace

ExprPtr CombineBalanced(const std::string& name, const std::vector<ExprPtr>& parts) {
  if (parts.empty()) return nullptr;
  return CombineRange(name, parts, 0, parts.size());
}

ExprPtr CombineConjuncts(const std::vector<ExprPtr>& conjuncts) {
  return CombineBalanced("and", conjuncts);
}

std::vector<int> ColumnsOf(const Expr& e) {
  std::vector<int> cols;
  CollectColumns(e, &cols);
  std::sort(cols.begin(), cols.end());
  cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
  return cols;
}

namespace {

bool PlanReadsDepth(const PlanNode& node, int depth);

// Whether `e` reads a column `depth` or more levels out.
bool ExprReadsDepth(const Expr& e, int depth) {
  if (e.kind == ExprKind::kColumnRef && e.outer_depth >= depth) return true;
  for (const auto& a : e.args) {
    if (ExprReadsDepth(*a, depth)) return true;
  }
  // A subquery's plan is one level further in.
  if (e.kind == ExprKind::kSubquery && e.subquery) return PlanReadsDepth(*e.subquery, depth + 1);
  return false;
}

bool PlanReadsDepth(const PlanNode& node, int depth) {
  for (const auto& e : NodeExpressions(node)) {
    if (ExprReadsDepth(*e, depth)) return true;
  }
  for (const auto& c : node.children) {
    if (PlanReadsDepth(*c, depth)) return true;
  }
  return false;
}

}  // namespace

bool HasOuterRef(const Expr& e) { return ExprReadsDepth(e, 1); }

bool ContainsSubquery(const Expr& e) {
  if (e.kind == ExprKind::kSubquery) return true;
  for (const auto& a : e.args) {
    if (ContainsSubquery(*a)) return true;
  }
  return false;
}

bool PlanHasOuterRef(const PlanNode& node) { return PlanReadsDepth(node, 1); }

ExprPtr RewriteColumnRefs(const ExprPtr& e, const ColumnRefRewrite& fn) {
  if (e->kind == ExprKind::kColumnRef) {
    ExprPtr r = fn(*e);
    return r ? r : e;
  }
  if (e->args.empty()) return e;
  std::vector<ExprPtr> args;
  args.reserve(e->args.size());
  bool changed = false;
  for (const auto& a : e->args) {
    args.push_back(RewriteColumnRefs(a, fn));
    changed = changed || args.back() != a;
  }
  if (!changed) return e;
  auto copy = std::make_shared<Expr>(*e);
  copy->args = std::move(args);
  return copy;
}

ExprPtr ShiftColumns(const ExprPtr& e, int delta) {
  if (delta == 0) return e;
  return RewriteColumnRefs(e, [delta](const Expr& ref) -> ExprPtr {
    if (ref.outer_depth != 0) return nullptr;
    auto c = std::make_shared<Expr>(ref);
    c->column_index += delta;
    return c;
  });
}

ExprPtr SubstituteColumns(const ExprPtr& e, const std::vector<ExprPtr>& replacements) {
  return RewriteColumnRefs(e, [&](const Expr& ref) -> ExprPtr {
    if (ref.outer_depth != 0) return nullptr;
    return replacements.at(static_cast<size_t>(ref.column_index));
  });
}

std::vector<ExprPtr> NodeExpressions(const PlanNode& n) {
  std::vector<ExprPtr> out;
  auto add = [&](const ExprPtr& e) {
    if (e) out.push_back(e);
  };
  add(n.predicate);
  for (const auto& e : n.exprs) add(e);
  for (const auto& p : n.projections) {
    for (const auto& e : p) add(e);
  }
  for (const auto& e : n.group_keys) add(e);
  for (const auto& a : n.aggregates) {
    add(a.arg);
    add(a.filter);
  }
  for (const auto& e : n.left_keys) add(e);
  for (const auto& e : n.right_keys) add(e);
  add(n.condition);
  for (const auto& k : n.sort_keys) add(k.expr);
  for (const auto& w : n.windows) {
    for (const auto& e : w.args) add(e);
    for (const auto& e : w.partition_by) add(e);
    for (const auto& k : w.order_by) add(k.expr);
  }
  return out;
}

PlanPtr MapNodeExpressions(const PlanNode& node, const std::function<ExprPtr(const ExprPtr&)>& fn) {
  auto n = std::make_shared<PlanNode>(node);
  auto map = [&](ExprPtr& e) {
    if (e) e = fn(e);
  };
  map(n->predicate);
  for (auto& e : n->exprs) map(e);
  for (auto& p : n->projections) {
    for (auto& e : p) map(e);
  }
  for (auto& e : n->group_keys) map(e);
  for (auto& a : n->aggregates) {
    map(a.arg);
    map(a.filter);
  }
  for (auto& e : n->left_keys) map(e);
  for (auto& e : n->right_keys) map(e);
  map(n->condition);
  for (auto& k : n->sort_keys) map(k.expr);
  for (auto& w : n->windows) {
    for (auto& e : w.args) map(e);
    for (auto& e : w.partition_by) map(e);
    for (auto& k : w.order_by) map(k.expr);
  }
  return n;
}

PlanPtr WithChildren(const PlanNode& node, std::vector<PlanPtr> children) {
  auto n = std::make_shared<PlanNode>(node);
  n->children = std::move(children);
  return n;
}

ExprPtr ColumnOf(const PlanNode& node, int i) {
  const Field& f = node.schema.field(i);
  return MakeColumnRef(i, f.type, f.nullable, f.name);
}

PlanPtr ProjectColumns(const PlanPtr& child, const std::vector<int>& columns) {
  std::vector<ExprPtr> exprs;
  std::vector<std::string> names;
  for (int c : columns) {
    exprs.push_back(ColumnOf(*child, c));
    names.push_back(child->schema.field(c).name);
  }
  auto p = MakeProject(child, std::move(exprs), std::move(names));
  p->estimated_rows = child->estimated_rows;
  return p;
}

namespace {

enum class Side { kNone, kLeft, kRight, kBoth };

// Which join input(s) an expression reads; outer references count as constants.
Side SideOf(const Expr& e, int left_width) {
  bool left = false, right = false;
  for (int c : ColumnsOf(e)) (c < left_width ? left : right) = true;
  if (left && right) return Side::kBoth;
  return left ? Side::kLeft : right ? Side::kRight : Side::kNone;
}

}  // namespace

void SplitJoinConjuncts(const std::vector<ExprPtr>& conjuncts, int left_width,
                        std::vector<ExprPtr>* left_keys, std::vector<ExprPtr>* right_keys,
                        std::vector<ExprPtr>* rest) {
  for (const auto& c : conjuncts) {
    if (c->kind == ExprKind::kCall && c->name == "eq" && c->args.size() == 2 &&
        c->args[0]->type == c->args[1]->type && !ContainsSubquery(*c)) {
      const Side a = SideOf(*c->args[0], left_width);
      const Side b = SideOf(*c->args[1], left_width);
      if (a == Side::kLeft && b == Side::kRight) {
        left_keys->push_back(c->args[0]);
        right_keys->push_back(ShiftColumns(c->args[1], -left_width));
        continue;
      }
      if (a == Side::kRight && b == Side::kLeft) {
        left_keys->push_back(c->args[1]);
        right_keys->push_back(ShiftColumns(c->args[0], -left_width));
        continue;
      }
    }
    rest->push_back(c);
  }
}

std::vector<ExprPtr> JoinConjuncts(const PlanNode& join) {
  std::vector<ExprPtr> out;
  const int left_width = join.children[0]->schema.num_fields();
  for (size_t i = 0; i < join.left_keys.size(); ++i) {
    out.push_back(
        MakeBoolCall("eq", {join.left_keys[i], ShiftColumns(join.right_keys[i], left_width)}));
  }
  for (const auto& c : SplitConjuncts(join.condition)) out.push_back(c);
  return out;
}

std::string PositionSuffix(const Expr& e) {
  return e.pos.line > 0 ? " (line " + e.pos.ToString() + ")" : "";
}

}  // namespace tandem::plan
