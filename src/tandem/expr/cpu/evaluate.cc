// The CPU evaluator's entry points: walks a bound expression, evaluating children into Datums
// (column references zero-copy, literals as scalars) and dispatching calls to their kernels.
// A call whose operands are all scalars runs once on one-row columns and stays a scalar. CASE
// results and the later conjuncts of a selective filter run only on the rows that reach them.
#include "tandem/expr/cpu/evaluate.h"

#include <algorithm>
#include <cstring>

#include "tandem/column/take.h"
#include "tandem/expr/cpu/kernels.h"
#include "tandem/expr/cpu/kernels_udf.h"

namespace tandem::cpu {
namespace {

using internal::Datum;

Result<Datum> EvalDatum(const Expr& e, const Batch& in, EvalContext& ctx);

// Runs `kernel` over args; all-scalar operands run on one row and give a scalar back.
template <typename Kernel>
Result<Datum> RunKernel(const Expr& e, std::vector<Datum>& args, int64_t rows, EvalContext& ctx,
                        Kernel&& kernel) {
  bool all_scalar = true;
  for (const Datum& d : args) all_scalar &= d.is_scalar();
  if (all_scalar) {
    std::vector<Datum> one;
    one.reserve(args.size());
    for (const Datum& d : args) one.push_back(Datum::Of(internal::ToColumn(d, 1)));
    internal::CallContext cc{e, 1, ctx};
    TANDEM_ASSIGN_OR_RAISE(ColumnPtr c, kernel(cc, one));
    return Datum::Scalar(GetValue(*c, 0));
  }
  internal::CallContext cc{e, rows, ctx};
  TANDEM_ASSIGN_OR_RAISE(ColumnPtr c, kernel(cc, args));
  return Datum::Of(std::move(c));
}

// The rows of `in` listed in rows, as a batch holding only the columns `e` reads (the others
// stay null: nothing reads them).
Batch GatherFor(const Expr& e, const Batch& in, const std::vector<int32_t>& rows) {
  std::vector<int> cols;
  CollectColumns(e, &cols);
  Batch sub;
  sub.schema = in.schema;
  sub.num_rows = static_cast<int64_t>(rows.size());
  sub.columns.resize(in.columns.size());
  for (int c : cols) {
    if (c < 0 || c >= in.num_columns() || sub.columns[c]) continue;
    sub.columns[c] = Take(*in.columns[c], rows.data(), sub.num_rows);
  }
  return sub;
}

// e evaluated for the rows listed in `rows` (all rows of `in` when `all`): column references and
// literals cost nothing on the whole batch, anything else runs on the gathered rows only, so an
// expression never sees (nor fails on) rows it does not decide.
struct RowsDatum {
  Datum datum;
  bool full_length;  // datum row i is batch row i (else datum row j is batch row rows[j])
};
Result<RowsDatum> EvalOnRows(const Expr& e, const Batch& in, const std::vector<int32_t>& rows,
                             bool all, EvalContext& ctx) {
  if (all || e.kind == ExprKind::kLiteral || e.kind == ExprKind::kColumnRef) {
    TANDEM_ASSIGN_OR_RAISE(Datum d, EvalDatum(e, in, ctx));
    return RowsDatum{std::move(d), true};
  }
  const Batch sub = GatherFor(e, in, rows);
  TANDEM_ASSIGN_OR_RAISE(Datum d, EvalDatum(e, sub, ctx));
  return RowsDatum{std::move(d), false};
}

// Whether row j of a boolean RowsDatum (for batch row rows[j]) is TRUE.
inline bool IsTrueAt(const RowsDatum& r, const std::vector<int32_t>& rows, size_t j) {
  const Datum& d = r.datum;
  if (d.is_scalar()) return !d.scalar.is_null && d.scalar.AsBool();
  const int64_t i = r.full_length ? rows[j] : static_cast<int64_t>(j);
  return d.column->IsValid(i) && d.column->GetBool(i);
}

// CASE WHEN w1 THEN t1 ... ELSE e END: each WHEN runs on the rows no earlier WHEN took, each
// result on the rows that reach it (no errors from untaken branches), then one gather.
Result<Datum> EvalCase(const Expr& e, const Batch& in, EvalContext& ctx) {
  const int64_t n = in.num_rows;
  const size_t pairs = (e.args.size() - (e.has_else ? 1 : 0)) / 2;
  std::vector<int32_t> remaining(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) remaining[i] = static_cast<int32_t>(i);
  bool all = true;
  std::vector<internal::CaseBranch> branches;
  for (size_t p = 0; p < pairs && !remaining.empty(); ++p) {
    TANDEM_ASSIGN_OR_RAISE(RowsDatum w, EvalOnRows(*e.args[2 * p], in, remaining, all, ctx));
    if (!w.datum.is_null_scalar() && w.datum.type().id != TypeId::kBool) {
      return Status::Internal("CASE condition is not boolean: " + e.args[2 * p]->ToString());
    }
    std::vector<int32_t> hits, rest;
    for (size_t j = 0; j < remaining.size(); ++j) {
      (IsTrueAt(w, remaining, j) ? hits : rest).push_back(remaining[j]);
    }
    if (hits.empty()) continue;
    const bool hits_all = all && rest.empty();
    TANDEM_ASSIGN_OR_RAISE(RowsDatum t, EvalOnRows(*e.args[2 * p + 1], in, hits, hits_all, ctx));
    branches.push_back({std::move(t.datum), std::move(hits), t.full_length});
    remaining = std::move(rest);
    all = false;
  }
  if (e.has_else && !remaining.empty()) {
    TANDEM_ASSIGN_OR_RAISE(RowsDatum t, EvalOnRows(*e.args.back(), in, remaining, all, ctx));
    branches.push_back({std::move(t.datum), std::move(remaining), t.full_length});
  }
  internal::CallContext cc{e, n, ctx};
  TANDEM_ASSIGN_OR_RAISE(ColumnPtr c, internal::AssembleCase(cc, &branches));
  return Datum::Of(std::move(c));
}

Result<std::vector<Datum>> EvalArgs(const Expr& e, const Batch& in, EvalContext& ctx) {
  std::vector<Datum> args;
  args.reserve(e.args.size());
  for (const auto& a : e.args) {
    TANDEM_ASSIGN_OR_RAISE(Datum d, EvalDatum(*a, in, ctx));
    args.push_back(std::move(d));
  }
  return args;
}

Result<Datum> EvalDatum(const Expr& e, const Batch& in, EvalContext& ctx) {
  switch (e.kind) {
    case ExprKind::kColumnRef: {
      if (e.outer_depth != 0) {
        return Status::Internal("outer column reference reached the evaluator: " + e.ToString());
      }
      if (e.column_index < 0 || e.column_index >= in.num_columns()) {
        return Status::Internal("column #" + std::to_string(e.column_index) +
                                " out of range of a batch of " + std::to_string(in.num_columns()) +
                                " columns: " + e.ToString());
      }
      return Datum::Of(in.columns[e.column_index]);
    }
    case ExprKind::kLiteral: {
      Value v = e.literal;
      if (v.type != e.type && v.is_null) v.type = e.type;
      return Datum::Scalar(std::move(v));
    }
    case ExprKind::kCall: {
      if (e.udf) {
        TANDEM_ASSIGN_OR_RAISE(std::vector<Datum> args, EvalArgs(e, in, ctx));
        return internal::EvaluateUdfCall(e, args, in.num_rows);
      }
      const internal::KernelEntry* k = internal::FindKernel(e.name);
      if (!k) return Status::Internal("no CPU kernel for function " + e.name);
      TANDEM_ASSIGN_OR_RAISE(std::vector<Datum> args, EvalArgs(e, in, ctx));
      if (k->null_propagating) {
        for (const Datum& d : args) {
          if (d.is_null_scalar()) return Datum::Scalar(Value::Null(e.type));
        }
      }
      return RunKernel(e, args, in.num_rows, ctx, k->fn);
    }
    case ExprKind::kCast: {
      TANDEM_ASSIGN_OR_RAISE(std::vector<Datum> args, EvalArgs(e, in, ctx));
      if (args.size() != 1) return Status::Internal("cast without one argument");
      if (args[0].type() == e.type) return std::move(args[0]);
      if (args[0].is_null_scalar()) return Datum::Scalar(Value::Null(e.type));
      return RunKernel(e, args, in.num_rows, ctx,
                       [&](const internal::CallContext& cc, const std::vector<Datum>& a) {
                         return internal::CastColumn(e, a[0], e.type, cc.rows, e.try_cast);
                       });
    }
    case ExprKind::kCase:
      return EvalCase(e, in, ctx);
    case ExprKind::kInList: {
      TANDEM_ASSIGN_OR_RAISE(std::vector<Datum> args, EvalArgs(e, in, ctx));
      return RunKernel(e, args, in.num_rows, ctx, internal::EvaluateInListKernel);
    }
    case ExprKind::kSubquery:
      return Status::Internal("subquery reached the evaluator: " + e.ToString());
  }
  return Status::Internal("unknown expression kind");
}

void CollectConjuncts(const Expr& e, std::vector<const Expr*>* out) {
  if (e.kind == ExprKind::kCall && e.name == "and" && e.args.size() == 2) {
    CollectConjuncts(*e.args[0], out);
    CollectConjuncts(*e.args[1], out);
    return;
  }
  out->push_back(&e);
}

// A conjunct cheap enough to run on every row rather than on gathered ones: a comparison,
// IS [NOT] NULL or NOT over column references and constants of fixed-width types.
bool IsCheapConjunct(const Expr& e) {
  if (e.kind != ExprKind::kCall) return false;
  static const char* const kCheap[] = {"eq", "ne", "lt",      "le",
                                       "gt", "ge", "is_null", "is_not_null"};
  bool cheap_name = false;
  for (const char* name : kCheap) cheap_name |= e.name == name;
  if (!cheap_name) return false;
  for (const auto& a : e.args) {
    if (a->kind != ExprKind::kColumnRef && a->kind != ExprKind::kLiteral) return false;
    if (a->type.is_string_like()) return false;
  }
  return true;
}

}  // namespace

Result<ColumnPtr> Evaluate(const Expr& expr, const Batch& input, EvalContext& ctx) {
  TANDEM_ASSIGN_OR_RAISE(Datum d, EvalDatum(expr, input, ctx));
  if (d.column) return d.column;
  Value v = std::move(d.scalar);
  if (v.type != expr.type && v.is_null) v.type = expr.type;
  return BroadcastValue(v, input.num_rows);
}

Result<std::vector<int32_t>> EvaluateSelection(const Expr& predicate, const Batch& input,
                                               EvalContext& ctx) {
  const int64_t n = input.num_rows;
  std::vector<const Expr*> conjuncts;
  CollectConjuncts(predicate, &conjuncts);
  // Cheap conjuncts first: the later, dearer ones then see fewer rows.
  std::stable_partition(conjuncts.begin(), conjuncts.end(),
                        [](const Expr* c) { return IsCheapConjunct(*c); });
  // TRUE rows of every conjunct so far: first as a bitmap (AND of value AND valid bitmaps; NULL
  // counts as not TRUE), then, once few rows are left, as a list of rows on which the next
  // conjuncts run alone (gathered).
  const int64_t bytes = bit_util::BytesForBits(n);
  std::shared_ptr<Buffer> acc;
  std::vector<int32_t> sel;
  bool listed = false;
  for (const Expr* c : conjuncts) {
    if (!listed && acc) {
      const int64_t left = bit_util::CountSetBits(acc->data(), 0, n);
      if (left <= n / (IsCheapConjunct(*c) ? 16 : 2)) {
        internal::BitsToIndexes(acc->data(), nullptr, n, &sel);
        listed = true;
      }
    }
    if (listed) {
      if (sel.empty()) return sel;
      const Batch sub = GatherFor(*c, input, sel);
      TANDEM_ASSIGN_OR_RAISE(Datum d, EvalDatum(*c, sub, ctx));
      if (d.is_scalar()) {
        if (d.scalar.is_null || !d.scalar.AsBool()) return std::vector<int32_t>{};
        continue;
      }
      const Column& col = *d.column;
      if (col.type().id != TypeId::kBool) {
        return Status::Internal("filter predicate is not boolean: " + c->ToString());
      }
      size_t kept = 0;
      for (size_t j = 0; j < sel.size(); ++j) {
        const bool take =
            col.IsValid(static_cast<int64_t>(j)) && col.GetBool(static_cast<int64_t>(j));
        sel[kept] = sel[j];
        kept += take;
      }
      sel.resize(kept);
      continue;
    }
    TANDEM_ASSIGN_OR_RAISE(Datum d, EvalDatum(*c, input, ctx));
    if (d.is_scalar()) {
      if (d.scalar.is_null || !d.scalar.AsBool()) return std::vector<int32_t>{};
      continue;
    }
    const Column& col = *d.column;
    if (col.type().id != TypeId::kBool) {
      return Status::Internal("filter predicate is not boolean: " + c->ToString());
    }
    if (!acc) {
      acc = Buffer::AllocateUninitialized(bytes);
      std::memcpy(acc->mutable_data(), col.values()->data(), static_cast<size_t>(bytes));
    } else {
      uint8_t* a = acc->mutable_data();
      const uint8_t* v = col.values()->data();
      for (int64_t i = 0; i < bytes; ++i) a[i] &= v[i];
    }
    if (col.null_count() > 0) {
      uint8_t* a = acc->mutable_data();
      const uint8_t* v = col.validity_bits();
      for (int64_t i = 0; i < bytes; ++i) a[i] &= v[i];
    }
  }
  if (listed) return sel;
  std::vector<int32_t> out;
  if (!acc) {
    out.resize(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) out[i] = static_cast<int32_t>(i);
    return out;
  }
  internal::BitsToIndexes(acc->data(), nullptr, n, &out);
  return out;
}

Result<Value> EvaluateConstant(const Expr& expr, EvalContext& ctx) {
  Batch empty;
  empty.num_rows = 1;
  TANDEM_ASSIGN_OR_RAISE(Datum d, EvalDatum(expr, empty, ctx));
  Value v = d.column ? GetValue(*d.column, 0) : std::move(d.scalar);
  if (v.is_null) v.type = expr.type;
  return v;
}

}  // namespace tandem::cpu
