// Common subexpressions computed once per batch (see shared_subexpressions.h).
#include "tandem/exec/cpu/shared_subexpressions.h"

#include "tandem/exec/cpu/operator_util.h"

namespace tandem::cpu {
namespace {

// At most this many shared subtrees: each is one more column per batch.
constexpr int kMaxShared = 8;
// Arguments larger than this in all (expression nodes) are left as they are: the search compares
// every pair of subtrees, and a generated query with thousands of terms would spend longer
// searching than it could save.
constexpr int kMaxNodes = 512;

int Size(const Expr& e) {
  int n = 1;
  for (const auto& a : e.args) n += Size(*a);
  return n;
}

// Whether a subtree is worth sharing and safe to: a computation over this query level's
// columns that gives the same values wherever it appears.
bool Shareable(const Expr& e) {
  if (e.kind == ExprKind::kColumnRef || e.kind == ExprKind::kLiteral ||
      e.kind == ExprKind::kSubquery) {
    return false;
  }
  if (IsConstant(e) || HasNonDeterministicCall(e)) return false;
  bool ok = true;
  auto walk = [&](auto& self, const Expr& x) -> void {
    if (x.kind == ExprKind::kSubquery || (x.kind == ExprKind::kColumnRef && x.outer_depth > 0)) {
      ok = false;
    }
    for (const auto& a : x.args) self(self, *a);
  };
  walk(walk, e);
  return ok;
}

// Whether `e` evaluates its arguments only for some rows (CASE, AND, OR, COALESCE ...): what lies
// below it is not shared, since computing it for every row could fail where the query does not.
bool Conditional(const Expr& e) {
  if (e.kind == ExprKind::kCase) return true;
  if (e.kind != ExprKind::kCall) return false;
  for (const char* name : {"and", "or", "coalesce", "if", "ifnull", "nvl", "nvl2", "nullif"}) {
    if (e.name == name) return true;
  }
  return false;
}

void Collect(const ExprPtr& e, std::vector<ExprPtr>* out) {
  if (Shareable(*e)) out->push_back(e);
  if (Conditional(*e)) return;
  for (const auto& a : e->args) Collect(a, out);
}

// `e` with every subtree equal to `target` replaced by `column`.
ExprPtr Replace(const ExprPtr& e, const Expr& target, const ExprPtr& column) {
  if (SameExpr(*e, target)) return column;
  bool changed = false;
  std::vector<ExprPtr> args;
  for (const auto& a : e->args) {
    args.push_back(Replace(a, target, column));
    changed |= args.back() != a;
  }
  if (!changed) return e;
  auto copy = std::make_shared<Expr>(*e);
  copy->args = std::move(args);
  return copy;
}

}  // namespace

SharedSubexpressions::SharedSubexpressions(const std::vector<const Expr*>& exprs, int input_columns)
    : input_columns_(input_columns) {
  int nodes = 0;
  for (const Expr* e : exprs) {
    rewritten_.push_back(e ? std::make_shared<Expr>(*e) : nullptr);
    if (e) nodes += Size(*e);
  }
  if (nodes > kMaxNodes) return;
  while (static_cast<int>(shared_.size()) < kMaxShared) {
    // The largest subtree that occurs twice or more (in one expression or across them).
    std::vector<ExprPtr> candidates;
    for (const auto& e : rewritten_) {
      if (e) Collect(e, &candidates);
    }
    ExprPtr best;
    int best_size = 0;
    for (size_t i = 0; i < candidates.size(); ++i) {
      const int size = Size(*candidates[i]);
      if (size <= best_size) continue;
      for (size_t j = 0; j < candidates.size(); ++j) {
        if (j != i && SameExpr(*candidates[i], *candidates[j])) {
          best = candidates[i];
          best_size = size;
          break;
        }
      }
    }
    if (!best) break;
    const int index = input_columns_ + static_cast<int>(shared_.size());
    const ExprPtr column = MakeColumnRef(index, best->type, best->nullable, best->ToString());
    for (auto& e : rewritten_) {
      if (e) e = Replace(e, *best, column);
    }
    shared_.push_back(best);
  }
}

Result<Batch> SharedSubexpressions::Extend(const Batch& batch, EvalContext& eval) const {
  Batch out = batch;
  for (size_t k = 0; k < shared_.size(); ++k) {
    // A shared subtree found later may read an earlier one's column: evaluate over `out`.
    TANDEM_ASSIGN_OR_RAISE(ColumnPtr column, opx::EvaluateOrReference(*shared_[k], out, eval));
    out.schema.fields.push_back(Field{"shared" + std::to_string(k), shared_[k]->type, true});
    out.columns.push_back(std::move(column));
  }
  return out;
}

}  // namespace tandem::cpu
