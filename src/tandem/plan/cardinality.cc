// Cardinality estimation (see cardinality.h).
#include "tandem/plan/cardinality.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "tandem/plan/rewrite_util.h"

namespace tandem::plan {
namespace {

constexpr double kUnknownTableRows = 1000;
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kMinFraction = 1e-6;

bool IsComparison(const std::string& name) {
  return name == "lt" || name == "le" || name == "gt" || name == "ge";
}

// The comparison that holds with its operands swapped (a < b  <=>  b > a).
std::string Flipped(const std::string& op) {
  if (op == "lt") return "gt";
  if (op == "le") return "ge";
  if (op == "gt") return "lt";
  if (op == "ge") return "le";
  return op;
}

// The column an expression reads unchanged or through casts, or null.
const ColumnEstimate* ColumnOfExpr(const Expr& e, const RelEstimate& input, int* index = nullptr) {
  const Expr* x = &e;
  while (x->kind == ExprKind::kCast) x = x->args[0].get();
  if (x->kind != ExprKind::kColumnRef || x->outer_depth != 0) return nullptr;
  if (x->column_index < 0 || x->column_index >= static_cast<int>(input.columns.size())) {
    return nullptr;
  }
  if (index) *index = x->column_index;
  return &input.columns[x->column_index];
}

// A constant's value in the storage domain of a column of the same type, or false.
bool LiteralInDomain(const Expr& lit, const Expr& column, double* out) {
  if (lit.kind != ExprKind::kLiteral || lit.literal.is_null || !(lit.type == column.type)) {
    return false;
  }
  const DataType& t = column.type;
  if (t.is_floating()) {
    *out = lit.literal.f64;
  } else if (t.is_decimal()) {
    *out = static_cast<double>(lit.literal.DecimalUnscaled());
  } else if (t.is_integer() || t.id == TypeId::kDate32 || t.id == TypeId::kTimestamp) {
    *out = static_cast<double>(lit.literal.i64);
  } else {
    return false;
  }
  return true;
}

// A comparison of a plain column with a constant, normalized to "column op constant".
struct ColumnBound {
  int column = -1;
  std::string op;
  double value = 0;
};

bool AsColumnBound(const Expr& p, const RelEstimate& input, ColumnBound* out) {
  if (p.kind != ExprKind::kCall || p.args.size() != 2) return false;
  if (!IsComparison(p.name) && p.name != "eq") return false;
  for (int side = 0; side < 2; ++side) {
    const Expr& col = *p.args[side];
    const Expr& lit = *p.args[1 - side];
    if (col.kind != ExprKind::kColumnRef || col.outer_depth != 0) continue;
    if (col.column_index < 0 || col.column_index >= static_cast<int>(input.columns.size())) {
      continue;
    }
    if (!LiteralInDomain(lit, col, &out->value)) continue;
    out->column = col.column_index;
    out->op = side == 0 ? p.name : Flipped(p.name);
    return true;
  }
  return false;
}

// "column = constant" in either order, the column possibly under casts (strings, other types).
bool EqualsConstant(const Expr& p, const RelEstimate& input, int* column) {
  if (p.kind != ExprKind::kCall || p.name != "eq" || p.args.size() != 2) return false;
  for (int side = 0; side < 2; ++side) {
    if (p.args[1 - side]->kind == ExprKind::kLiteral &&
        ColumnOfExpr(*p.args[side], input, column)) {
      return true;
    }
  }
  return false;
}

double KnownNdv(const ColumnEstimate* c, double rows) {
  if (!c || c->ndv < 0) return -1;
  return std::max(1.0, std::min(c->ndv, std::max(rows, 1.0)));
}

// Distinct values left of a column with `ndv` values over `rows` rows when a fraction `kept` of
// the rows survives at random: each value has rows/ndv copies and survives if one does.
double ShrinkNdv(double ndv, double rows, double kept) {
  if (ndv < 0 || kept >= 1) return ndv;
  const double copies = std::max(1.0, rows / std::max(ndv, 1.0));
  return ndv * (1 - std::pow(1 - std::clamp(kept, 0.0, 1.0), copies));
}

// Selectivity of a conjunction, and per column the fraction of its distinct values that can
// remain (1 for columns it does not constrain).
struct ConjunctionEffect {
  double selectivity = 1;
  std::map<int, double> value_fraction;
};

ConjunctionEffect AnalyzeConjunction(const std::vector<ExprPtr>& conjuncts,
                                     const RelEstimate& input) {
  ConjunctionEffect effect;
  struct Range {
    double lo = -kInf, hi = kInf;
    bool eq = false;
  };
  std::map<int, Range> ranges;
  for (const auto& c : conjuncts) {
    ColumnBound b;
    if (AsColumnBound(*c, input, &b)) {
      const ColumnEstimate& col = input.columns[b.column];
      if (b.op == "eq") {
        Range& r = ranges[b.column];
        r.eq = true;
        r.lo = std::max(r.lo, b.value);
        r.hi = std::min(r.hi, b.value);
        continue;
      }
      if (col.has_bounds) {
        Range& r = ranges[b.column];
        if (b.op == "lt" || b.op == "le") r.hi = std::min(r.hi, b.value);
        if (b.op == "gt" || b.op == "ge") r.lo = std::max(r.lo, b.value);
        continue;
      }
    }
    int index = -1;
    if (EqualsConstant(*c, input, &index)) {
      const double ndv = KnownNdv(&input.columns[index], input.rows);
      effect.selectivity *= ndv > 0 ? 1 / ndv : 0.1;
      effect.value_fraction[index] = 0;  // one value left
      continue;
    }
    effect.selectivity *= EstimateSelectivity(*c, input);
  }
  for (const auto& [column, r] : ranges) {
    const ColumnEstimate& col = input.columns[column];
    const double ndv = KnownNdv(&col, input.rows);
    double fraction;
    if (r.eq) {
      const bool outside = r.lo > r.hi || (col.has_bounds && (r.lo < col.min || r.lo > col.max));
      fraction = ndv > 0 ? 1 / ndv : 0.1;
      if (outside) fraction = kMinFraction;
      effect.value_fraction[column] = 0;
    } else {
      const double lo = std::max(r.lo, col.min), hi = std::min(r.hi, col.max);
      const double width = col.max - col.min;
      if (hi < lo) {
        fraction = kMinFraction;
      } else if (width <= 0) {
        fraction = 1;
      } else {
        fraction = std::max(kMinFraction, (hi - lo) / width);
      }
      if (ndv > 0) fraction = std::max(fraction, 1 / ndv);  // a range holds at least one value
      effect.value_fraction[column] = fraction;
    }
    effect.selectivity *= std::min(1.0, fraction);
  }
  return effect;
}

// Distinct values of keys taken together, and their distinct values in the source tables.
struct KeySetNdv {
  double ndv = 1;
  double base = 1;
};

KeySetNdv KeysNdv(const std::vector<ExprPtr>& keys, const RelEstimate& input) {
  KeySetNdv k;
  const TableSource* origin = nullptr;
  double origin_rows = -1;
  bool common_origin = true;
  for (const auto& key : keys) {
    const ColumnEstimate* c = ColumnOfExpr(*key, input);
    k.ndv *= EstimateDistinct(*key, input);
    k.base *= c && c->base_ndv > 0 ? c->base_ndv : kInf;
    if (!c || !c->origin || (origin && origin != c->origin)) common_origin = false;
    if (c && c->origin) {
      origin = c->origin;
      origin_rows = c->origin_rows;
    }
  }
  // Several keys from one table together identify at most that table's rows.
  if (common_origin && origin && origin_rows > 0) k.base = std::min(k.base, origin_rows);
  k.ndv = std::max(1.0, std::min(k.ndv, std::max(input.rows, 1.0)));
  return k;
}

// Distinct key combinations of each side that can find a partner: each side's values are
// assumed to lie among the other side's source values (containment).
void JoinKeyNdvs(const RelEstimate& l, const RelEstimate& r, const std::vector<ExprPtr>& lk,
                 const std::vector<ExprPtr>& rk, double* nl, double* nr) {
  const KeySetNdv a = KeysNdv(lk, l), b = KeysNdv(rk, r);
  *nl = std::max(1.0, std::min(a.ndv, b.base));
  *nr = std::max(1.0, std::min(b.ndv, a.base));
}

double ConditionSelectivity(const RelEstimate& l, const RelEstimate& r, const ExprPtr& condition) {
  if (!condition) return 1;
  RelEstimate both;
  both.rows = l.rows * r.rows;
  both.columns = l.columns;
  both.columns.insert(both.columns.end(), r.columns.begin(), r.columns.end());
  return EstimateSelectivity(*condition, both);
}

// Column estimates after a fraction `kept` of the rows survives.
void ShrinkColumns(std::vector<ColumnEstimate>* columns, double rows_before, double kept) {
  for (auto& c : *columns) c.ndv = ShrinkNdv(c.ndv, rows_before, kept);
}

void CapColumns(std::vector<ColumnEstimate>* columns, double rows) {
  for (auto& c : *columns) {
    if (c.ndv >= 0) c.ndv = std::min(c.ndv, std::max(rows, 1.0));
  }
}

}  // namespace

double EstimateDistinct(const Expr& e, const RelEstimate& input) {
  const double ndv = KnownNdv(ColumnOfExpr(e, input), input.rows);
  return ndv > 0 ? ndv : std::max(input.rows, 1.0);
}

double EstimateSelectivity(const Expr& p, const RelEstimate& input) {
  switch (p.kind) {
    case ExprKind::kLiteral:
      return p.literal.is_null ? 0.0 : (p.type.id == TypeId::kBool && !p.literal.AsBool() ? 0 : 1);
    case ExprKind::kInList: {
      const double values = static_cast<double>(p.args.size() - 1);
      const double ndv =
          p.args.empty() ? -1 : KnownNdv(ColumnOfExpr(*p.args[0], input), input.rows);
      const double s = ndv > 0 ? std::min(1.0, values / ndv) : std::min(0.5, 0.1 * values);
      return p.negated ? 1 - s : s;
    }
    case ExprKind::kCall: {
      if (p.name == "and") {
        return AnalyzeConjunction(SplitConjuncts(std::make_shared<Expr>(p)), input).selectivity;
      }
      if (p.name == "or" && p.args.size() == 2) {
        const double a = EstimateSelectivity(*p.args[0], input);
        const double b = EstimateSelectivity(*p.args[1], input);
        return a + b - a * b;
      }
      if (p.name == "not" && p.args.size() == 1) {
        return 1 - EstimateSelectivity(*p.args[0], input);
      }
      if (p.name == "eq" || p.name == "is_not_distinct_from" || p.name == "ne" ||
          p.name == "is_distinct_from") {
        double s = 0.1;
        int column = -1;
        if (p.name == "eq" && EqualsConstant(p, input, &column)) {
          s = AnalyzeConjunction({std::make_shared<Expr>(p)}, input).selectivity;
        } else if (p.args.size() == 2) {
          const double n0 = KnownNdv(ColumnOfExpr(*p.args[0], input), input.rows);
          const double n1 = KnownNdv(ColumnOfExpr(*p.args[1], input), input.rows);
          if (n0 > 0 && n1 > 0) {
            s = 1 / std::max(n0, n1);  // two columns of the same rows
          }
        }
        return p.name == "eq" || p.name == "is_not_distinct_from" ? s : 1 - s;
      }
      if (IsComparison(p.name)) {
        ColumnBound b;
        if (AsColumnBound(p, input, &b) && input.columns[b.column].has_bounds) {
          return AnalyzeConjunction({std::make_shared<Expr>(p)}, input).selectivity;
        }
        return 0.3;
      }
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
  double nl = std::max(l.rows, 1.0), nr = std::max(r.rows, 1.0);
  if (!left_keys.empty() && left_keys.size() == right_keys.size()) {
    JoinKeyNdvs(l, r, left_keys, right_keys, &nl, &nr);
    key_sel = 1 / std::max(nl, nr);
  }
  const double cond_sel = ConditionSelectivity(l, r, condition);
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
      double matched = left_keys.empty() ? 0.5 : std::min(1.0, nr / nl);
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
      const bool known = n.source && n.source->estimated_rows >= 0;
      out.rows = known ? static_cast<double>(n.source->estimated_rows) : kUnknownTableRows;
      const auto* stats = n.source ? &n.source->column_stats : nullptr;
      for (int column : n.scan_columns) {
        ColumnEstimate c;
        c.origin = n.source.get();
        c.origin_rows = out.rows;
        c.ndv = c.base_ndv = std::max(1.0, out.rows);  // unknown: as if a key
        if (stats && column >= 0 && column < static_cast<int>(stats->size())) {
          const SourceColumnStats& s = (*stats)[column];
          if (s.distinct_count >= 0) c.ndv = c.base_ndv = std::max(1.0, s.distinct_count);
          c.has_bounds = s.has_bounds;
          c.min = s.min;
          c.max = s.max;
        }
        out.columns.push_back(c);
      }
      break;
    }
    case PlanKind::kFilter: {
      const ConjunctionEffect effect = AnalyzeConjunction(SplitConjuncts(n.predicate), in[0]);
      out = in[0];
      out.rows = in[0].rows * effect.selectivity;
      const double kept = in[0].rows > 0 ? out.rows / in[0].rows : 1;
      for (size_t i = 0; i < out.columns.size(); ++i) {
        auto& c = out.columns[i];
        const auto f = effect.value_fraction.find(static_cast<int>(i));
        if (f == effect.value_fraction.end()) {
          c.ndv = ShrinkNdv(c.ndv, in[0].rows, kept);
        } else if (c.ndv >= 0 || f->second == 0) {
          c.ndv = f->second == 0 ? 1 : std::max(1.0, KnownNdv(&c, in[0].rows) * f->second);
        }
      }
      CapColumns(&out.columns, out.rows);
      break;
    }
    case PlanKind::kProject:
      out.rows = in[0].rows;
      for (const auto& e : n.exprs) {
        const ColumnEstimate* c = ColumnOfExpr(*e, in[0]);
        ColumnEstimate copy = c ? *c : ColumnEstimate{};
        if (c && e->kind != ExprKind::kColumnRef) copy.has_bounds = false;  // another domain
        out.columns.push_back(copy);
      }
      break;
    case PlanKind::kExpand:
      // Every input row once per projection; a column keeps the estimate of the first
      // projection that reads an input column there (the others give it NULLs or constants).
      out.rows = in[0].rows * static_cast<double>(n.projections.size());
      for (size_t i = 0; i < n.schema.fields.size(); ++i) {
        ColumnEstimate copy;
        for (const auto& p : n.projections) {
          const ColumnEstimate* c = i < p.size() ? ColumnOfExpr(*p[i], in[0]) : nullptr;
          if (!c) continue;
          copy = *c;
          if (p[i]->kind != ExprKind::kColumnRef) copy.has_bounds = false;
          break;
        }
        out.columns.push_back(copy);
      }
      break;
    case PlanKind::kAggregate: {
      double groups = 1;
      for (const auto& k : n.group_keys) groups *= EstimateDistinct(*k, in[0]);
      if (!n.group_keys.empty()) groups = std::min(groups, in[0].rows);
      const double sets =
          n.grouping_sets.empty() ? 1.0 : static_cast<double>(n.grouping_sets.size());
      out.rows = std::max(1.0, groups * sets);
      for (const auto& k : n.group_keys) {
        const ColumnEstimate* c = ColumnOfExpr(*k, in[0]);
        ColumnEstimate copy = c ? *c : ColumnEstimate{};
        if (n.group_keys.size() == 1) copy.ndv = out.rows;
        out.columns.push_back(copy);
      }
      for (size_t i = 0; i < n.aggregates.size(); ++i) out.columns.push_back({});
      if (!n.grouping_sets.empty()) out.columns.push_back({sets, sets});
      CapColumns(&out.columns, out.rows);
      break;
    }
    case PlanKind::kJoin: {
      const RelEstimate& l = in[0];
      const RelEstimate& r = in[1];
      out.rows = EstimateJoinRows(l, r, n.join_type, n.left_keys, n.right_keys, n.condition);
      out.columns = l.columns;
      const bool inner_or_semi = n.join_type == JoinType::kInner || n.join_type == JoinType::kSemi;
      if (inner_or_semi || n.join_type == JoinType::kAnti) {
        ShrinkColumns(&out.columns, l.rows, l.rows > 0 ? out.rows / l.rows : 1);
      }
      if (n.join_type == JoinType::kMark) {
        out.columns.push_back({3, 3});  // TRUE, FALSE, NULL
      } else if (n.join_type != JoinType::kSemi && n.join_type != JoinType::kAnti) {
        std::vector<ColumnEstimate> right = r.columns;
        if (n.join_type == JoinType::kInner) {
          ShrinkColumns(&right, r.rows, r.rows > 0 ? out.rows / r.rows : 1);
        }
        out.columns.insert(out.columns.end(), right.begin(), right.end());
      }
      // Matched keys keep only the values both sides have.
      if (inner_or_semi && n.left_keys.size() == n.right_keys.size()) {
        for (size_t i = 0; i < n.left_keys.size(); ++i) {
          int li = -1, ri = -1;
          const ColumnEstimate* a = ColumnOfExpr(*n.left_keys[i], l, &li);
          const ColumnEstimate* b = ColumnOfExpr(*n.right_keys[i], r, &ri);
          if (!a || !b) continue;
          const double both = std::min(
              {EstimateDistinct(*n.left_keys[i], l), EstimateDistinct(*n.right_keys[i], r),
               a->base_ndv > 0 ? a->base_ndv : kInf, b->base_ndv > 0 ? b->base_ndv : kInf});
          auto& lc = out.columns[li];
          lc.ndv = std::min(lc.ndv >= 0 ? lc.ndv : kInf, both);
          if (n.join_type == JoinType::kInner) {
            auto& rc = out.columns[l.columns.size() + ri];
            rc.ndv = std::min(rc.ndv >= 0 ? rc.ndv : kInf, both);
          }
        }
      }
      CapColumns(&out.columns, out.rows);
      break;
    }
    case PlanKind::kSort:
    case PlanKind::kWindow:
    case PlanKind::kTransition:
      out = in[0];
      for (size_t i = 0; i < n.windows.size(); ++i) out.columns.push_back({});
      break;
    case PlanKind::kLimit:
      out = in[0];
      out.rows = std::max(0.0, out.rows - static_cast<double>(n.offset));
      if (n.limit >= 0) out.rows = std::min(out.rows, static_cast<double>(n.limit));
      CapColumns(&out.columns, out.rows);
      break;
    case PlanKind::kSetOp:
      out = in[0];
      if (n.set_op == SetOpKind::kUnion) {
        for (size_t k = 1; k < in.size(); ++k) out.rows += in[k].rows;
        for (auto& c : out.columns) c.ndv = -1;
      }
      if (n.set_op == SetOpKind::kIntersect) out.rows = std::min(in[0].rows, in[1].rows);
      break;
    case PlanKind::kValues:
      out.rows = static_cast<double>(n.rows.size());
      for (int i = 0; i < n.schema.num_fields(); ++i) out.columns.push_back({});
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
