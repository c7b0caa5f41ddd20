// Scan predicates for row-group pruning (see scan_predicates.h).
#include "tandem/plan/scan_predicates.h"

#include <limits>
#include <optional>
#include <type_traits>

#include "tandem/plan/rewrite_util.h"
#include "tandem/types/type_dispatch.h"

namespace tandem::plan {
namespace {

using Op = parquet::ScanPredicate::Op;
using StorageValue = decltype(parquet::ScanPredicate::value);

std::optional<Op> OpOf(const std::string& name, bool flipped) {
  if (name == "eq") return Op::kEq;
  if (name == "ne") return Op::kNe;
  if (name == "lt") return flipped ? Op::kGt : Op::kLt;
  if (name == "le") return flipped ? Op::kGe : Op::kLe;
  if (name == "gt") return flipped ? Op::kLt : Op::kGt;
  if (name == "ge") return flipped ? Op::kLe : Op::kGe;
  return std::nullopt;
}

// Whether v is a value of the integer type t; always false for uint64 (keep it simple).
bool IntegerFits(int128_t v, const DataType& t) {
  if (!t.is_integer() || t.id == TypeId::kUInt64) return false;
  auto fits = [&]<typename T>(Tag<T>) {
    if constexpr (std::is_integral_v<T> && sizeof(T) <= 8) {
      return v >= std::numeric_limits<T>::min() && v <= std::numeric_limits<T>::max();
    } else {
      return false;
    }
  };
  return VisitStorage(t, Overloaded{fits, [](auto) { return false; }});
}

int128_t Pow10(int n) {
  int128_t p = 1;
  for (int i = 0; i < n; ++i) p *= 10;
  return p;
}

StorageValue Int128Value(int128_t v) {
  if (v >= INT64_MIN && v <= INT64_MAX) return static_cast<int64_t>(v);
  return v;
}

// The literal (of type `literal.type`) as a value of a column of type `column`, exactly.
std::optional<StorageValue> ToStorage(const Value& literal, const DataType& column) {
  if (literal.is_null) return std::nullopt;
  const DataType& t = literal.type;
  if (column.is_string_like() && t.is_string_like()) return StorageValue(literal.str);
  if (column.is_floating() && t.is_floating()) return StorageValue(literal.f64);
  if ((column.id == TypeId::kDate32 || column.id == TypeId::kTimestamp) && t == column) {
    return StorageValue(literal.i64);
  }
  if (column.is_integer()) {
    int128_t v;
    if (t.is_integer()) {
      v = literal.i64;
    } else if (t.is_decimal()) {
      const int128_t u = literal.DecimalUnscaled();
      const int128_t p = Pow10(t.scale);
      if (u % p != 0) return std::nullopt;
      v = u / p;
    } else {
      return std::nullopt;
    }
    if (!IntegerFits(v, column)) return std::nullopt;
    return Int128Value(v);
  }
  if (column.is_decimal() && t.is_decimal() && t.scale >= column.scale) {
    const int128_t u = literal.DecimalUnscaled();
    const int128_t p = Pow10(t.scale - column.scale);
    if (u % p != 0) return std::nullopt;
    return Int128Value(u / p);
  }
  return std::nullopt;
}

// The scan column an expression reads, seen through lossless widening casts; -1 if none.
int ScanColumnOf(const Expr& e, const PlanNode& scan) {
  const Expr* x = &e;
  while (x->kind == ExprKind::kCast) {
    const DataType& from = x->args[0]->type;
    const DataType& to = x->type;
    const bool widening = (from.is_integer() && (to.is_integer() || to.is_decimal())) ||
                          (from.is_decimal() && to.is_decimal() && to.scale >= from.scale &&
                           to.precision - to.scale >= from.precision - from.scale) ||
                          (from.is_floating() && to.id == TypeId::kFloat64) || (from == to);
    if (!widening || x->try_cast) return -1;
    x = x->args[0].get();
  }
  if (x->kind != ExprKind::kColumnRef || x->outer_depth != 0) return -1;
  if (x->column_index < 0 || x->column_index >= static_cast<int>(scan.scan_columns.size())) {
    return -1;
  }
  return x->column_index;
}

std::optional<parquet::ScanPredicate> ToScanPredicate(const Expr& c, const PlanNode& scan) {
  if (c.kind != ExprKind::kCall) return std::nullopt;
  parquet::ScanPredicate p;
  if ((c.name == "is_null" || c.name == "is_not_null") && c.args.size() == 1) {
    if (c.args[0]->kind != ExprKind::kColumnRef) return std::nullopt;
    const int col = ScanColumnOf(*c.args[0], scan);
    if (col < 0) return std::nullopt;
    p.column = scan.source->schema.field(scan.scan_columns[col]).name;
    p.op = c.name == "is_null" ? Op::kIsNull : Op::kIsNotNull;
    return p;
  }
  if (c.args.size() != 2) return std::nullopt;
  bool flipped = false;
  int col = ScanColumnOf(*c.args[0], scan);
  const Expr* lit = c.args[1].get();
  if (col < 0) {
    col = ScanColumnOf(*c.args[1], scan);
    lit = c.args[0].get();
    flipped = true;
  }
  if (col < 0 || lit->kind != ExprKind::kLiteral) return std::nullopt;
  const auto op = OpOf(c.name, flipped);
  if (!op) return std::nullopt;
  const DataType& column_type = scan.source->schema.field(scan.scan_columns[col]).type;
  const auto value = ToStorage(lit->literal, column_type);
  if (!value) return std::nullopt;
  p.column = scan.source->schema.field(scan.scan_columns[col]).name;
  p.op = *op;
  p.value = *value;
  return p;
}

}  // namespace

PlanPtr AddScanPredicates(const PlanPtr& plan) {
  std::vector<PlanPtr> children;
  for (const auto& c : plan->children) children.push_back(AddScanPredicates(c));
  auto n = WithChildren(*plan, std::move(children));
  if (n->kind == PlanKind::kFilter && n->children[0]->kind == PlanKind::kScan &&
      n->children[0]->source && n->children[0]->source->kind == TableSource::Kind::kParquet) {
    auto scan = std::make_shared<PlanNode>(*n->children[0]);
    for (const auto& c : SplitConjuncts(n->predicate)) {
      if (auto p = ToScanPredicate(*c, *scan)) scan->scan_predicates.push_back(std::move(*p));
    }
    n->children[0] = scan;
  }
  return n;
}

}  // namespace tandem::plan
