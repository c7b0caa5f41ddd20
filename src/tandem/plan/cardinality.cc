// Cardinality estimation (see cardinality.h).
#include "tandem/plan/cardinality.h"

#include <algorithm>
#include <cmath>

#include "tandem/plan/rewrite_util.h"

namespace tandem::plan {
namespace {

constexpr double kUnknownTableRows = 1000;

bool IsComparison(const std::string& name) {
  return name == "lt" || name == "le" || name == "gt" || name == "ge";
}

const ColumnEstimate* ColumnOfExpr(const Expr& e, const RelEstimate& input) {
  const Expr* x = &e;
  while (x->kind == ExprKind::kCast) x = x->args[0].get();
  if (x->kind != ExprKind::kColumnRef || x->outer_depth != 0) return nullptr;
  if (x->column_index < 0 || x->column_index >= static_cast<int>(input.columns.size())) {
    return nullptr;
  }
  return &input.columns[x->column_index];
}

double DomainOf(const Expr& e, const RelEstimate& input) {
  const ColumnEstimate* c = ColumnOfExpr(e, input);
  return c && c->domain > 0 ? c->domain : input.rows;
}

// The table all keys come from unchanged, or null.
const ColumnEstimate* CommonOrigin(const std::vector<ExprPtr>& keys, const RelEstimate& input) {
  const ColumnEstimate* first = nullptr;
  for (const auto& k : keys) {
    const ColumnEstimate* c = ColumnOfExpr(*k, input);
    if (!c || !c->origin) return nullptr;
    if (first && first->origin != c->origin) return nullptr;
    if (!first) first = c;
  }
  return first;
}

}  // namespace

double EstimateSelectivity(const Expr& p, const RelEstimate& input) {
  switch (p.kind) {
    case ExprKind::kLiteral:
      return p.literal.is_null ? 0.0 : (p.type.id == TypeId::kBool && !p.literal.AsBool() ? 0 : 1);
    case ExprKind::kInList: {
      const double s = std::min(0.5, 0.1 * static_cast<double>(p.args.size() - 1));
      return p.negated ? 1 - s : s;
    }
    case ExprKind::kCall: {
      if (p.name == "and" && p.args.size() == 2) {
        return EstimateSelectivity(*p.args[0], input) * EstimateSelectivity(*p.args[1], input);
      }
      if (p.name == "or" && p.args.size() == 2) {
        const double a = EstimateSelectivity(*p.args[0], input);
        const double b = EstimateSelectivity(*p.args[1], input);
        return a + b - a * b;
      }
      if (p.name == "not" && p.args.size() == 1) {
        return 1 - EstimateSelectivity(*p.args[0], input);
      }
      if (p.name == "eq" || p.name == "is_not_distinct_from") return 0.1;
      if (p.name == "ne" || p.name == "is_distinct_from") return 0.9;
      if (IsComparison(p.name)) return 0.3;
      if (p.name == "like" || p.name == "ilike") return 0.1;
      if (p.name == "is_null") return 0.05;
      if (p.name == "is_not_null") return 0.95;
      return 0.5;
    }
    default:
      return 0.5;
  }
}

double EstimateJoinRows(const RelEstimate& l, const RelEstimate& r, JoinType type,
                        const std::vector<ExprPtr>& left_keys,
                        const std::vector<ExprPtr>& right_keys, const ExprPtr& condition) {
  double key_sel = 1;
  double ndv_l = l.rows, ndv_r = r.rows;
  if (!left_keys.empty()) {
    double dom = 1;
    for (size_t i = 0; i < left_keys.size(); ++i) {
      dom *= std::min(DomainOf(*left_keys[i], l), DomainOf(*right_keys[i], r));
    }
    // Several keys from one table together identify at most that table's rows.
    if (const auto* o = CommonOrigin(left_keys, l); o && o->origin_rows > 0) {
      dom = std::min(dom, o->origin_rows);
    }
    if (const auto* o = CommonOrigin(right_keys, r); o && o->origin_rows > 0) {
      dom = std::min(dom, o->origin_rows);
    }
    dom = std::max(dom, 1.0);
    ndv_l = std::min(dom, std::max(l.rows, 1.0));
    ndv_r = std::min(dom, std::max(r.rows, 1.0));
    key_sel = 1 / std::max(ndv_l, ndv_r);
  }
  double cond_sel = 1;
  if (condition) {
    RelEstimate both;
    both.rows = l.rows * r.rows;
    both.columns = l.columns;
    both.columns.insert(both.columns.end(), r.columns.begin(), r.columns.end());
    cond_sel = EstimateSelectivity(*condition, both);
  }
  const double inner = l.rows * r.rows * key_sel * cond_sel;
  switch (type) {
    case JoinType::kInner:
      return inner;
    case JoinType::kLeft:
      return std::max(inner, l.rows);
    case JoinType::kRight:
      return std::max(inner, r.rows);
    case JoinType::kFull:
      return std::max(inner, l.rows + r.rows);
    case JoinType::kMark:
      return l.rows;
    case JoinType::kSemi:
    case JoinType::kAnti: {
      double matched = left_keys.empty() ? 0.5 : std::min(1.0, ndv_r / ndv_l);
      matched *= cond_sel;
      if (r.rows <= 0) matched = 0;
      return type == JoinType::kSemi ? l.rows * matched : l.rows * std::max(0.1, 1 - matched);
    }
  }
  return inner;
}

RelEstimate EstimateNode(const PlanNode& n, const std::vector<RelEstimate>& in) {
  RelEstimate out;
  switch (n.kind) {
    case PlanKind::kScan: {
      out.rows = n.source && n.source->estimated_rows >= 0
                     ? static_cast<double>(n.source->estimated_rows)
                     : kUnknownTableRows;
      for (size_t i = 0; i < n.scan_columns.size(); ++i) {
        out.columns.push_back({out.rows, n.source.get(), out.rows});
      }
      break;
    }
    case PlanKind::kFilter:
      out = in[0];
      out.rows = in[0].rows * EstimateSelectivity(*n.predicate, in[0]);
      break;
    case PlanKind::kProject:
      out.rows = in[0].rows;
      for (const auto& e : n.exprs) {
        const ColumnEstimate* c =
            e->kind == ExprKind::kColumnRef ? ColumnOfExpr(*e, in[0]) : nullptr;
        out.columns.push_back(c ? *c : ColumnEstimate{in[0].rows, nullptr, -1});
      }
      break;
    case PlanKind::kAggregate: {
      double groups = n.group_keys.empty() ? 1 : 1;
      for (const auto& k : n.group_keys) groups *= std::min(DomainOf(*k, in[0]), in[0].rows);
      if (!n.group_keys.empty()) groups = std::min(groups, in[0].rows);
      const double sets =
          n.grouping_sets.empty() ? 1.0 : static_cast<double>(n.grouping_sets.size());
      out.rows = std::max(1.0, groups * sets);
      for (const auto& k : n.group_keys) {
        const ColumnEstimate* c = ColumnOfExpr(*k, in[0]);
        out.columns.push_back(c ? *c : ColumnEstimate{out.rows, nullptr, -1});
      }
      for (size_t i = 0; i < n.aggregates.size(); ++i)
        out.columns.push_back({out.rows, nullptr, -1});
      if (!n.grouping_sets.empty()) out.columns.push_back({sets, nullptr, -1});
      break;
    }
    case PlanKind::kJoin: {
      out.rows =
          EstimateJoinRows(in[0], in[1], n.join_type, n.left_keys, n.right_keys, n.condition);
      out.columns = in[0].columns;
      if (n.join_type == JoinType::kMark) {
        out.columns.push_back({3, nullptr, -1});  // TRUE, FALSE, NULL
      } else if (n.join_type != JoinType::kSemi && n.join_type != JoinType::kAnti) {
        out.columns.insert(out.columns.end(), in[1].columns.begin(), in[1].columns.end());
      }
      break;
    }
    case PlanKind::kSort:
    case PlanKind::kWindow:
      out = in[0];
      for (size_t i = 0; i < n.windows.size(); ++i) out.columns.push_back({out.rows, nullptr, -1});
      break;
    case PlanKind::kLimit:
      out = in[0];
      out.rows = std::max(0.0, out.rows - static_cast<double>(n.offset));
      if (n.limit >= 0) out.rows = std::min(out.rows, static_cast<double>(n.limit));
      break;
    case PlanKind::kSetOp:
      out = in[0];
      if (n.set_op == SetOpKind::kUnion) out.rows = in[0].rows + in[1].rows;
      if (n.set_op == SetOpKind::kIntersect) out.rows = std::min(in[0].rows, in[1].rows);
      break;
    case PlanKind::kValues:
      out.rows = static_cast<double>(n.rows.size());
      for (int i = 0; i < n.schema.num_fields(); ++i)
        out.columns.push_back({out.rows, nullptr, -1});
      break;
  }
  out.columns.resize(static_cast<size_t>(n.schema.num_fields()));
  if (!std::isfinite(out.rows) || out.rows < 0) out.rows = 0;
  return out;
}

RelEstimate EstimatePlan(const PlanNode& node) {
  std::vector<RelEstimate> in;
  for (const auto& c : node.children) in.push_back(EstimatePlan(*c));
  return EstimateNode(node, in);
}

namespace {

PlanPtr Annotate(const PlanPtr& node, RelEstimate* est) {
  std::vector<PlanPtr> children;
  std::vector<RelEstimate> in;
  for (const auto& c : node->children) {
    in.emplace_back();
    children.push_back(Annotate(c, &in.back()));
  }
  *est = EstimateNode(*node, in);
  auto n = WithChildren(*node, std::move(children));
  n->estimated_rows = std::round(est->rows);
  return n;
}

}  // namespace

PlanPtr AnnotateEstimates(const PlanPtr& plan) {
  RelEstimate est;
  return Annotate(plan, &est);
}

}  // namespace tandem::plan
