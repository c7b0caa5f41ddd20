// Shared helpers of the CPU operators.
#include "tandem/exec/cpu/operator_util.h"

#include <algorithm>
#include <numeric>

#include "tandem/column/take.h"
#include "tandem/common/thread_pool.h"
#include "tandem/expr/cpu/evaluate.h"

namespace tandem::cpu::opx {

Result<ColumnPtr> EvaluateOrReference(const Expr& expr, const Batch& batch, EvalContext& ctx) {
  if (expr.kind == ExprKind::kColumnRef && expr.outer_depth == 0 && expr.column_index >= 0 &&
      expr.column_index < batch.num_columns() &&
      batch.columns[expr.column_index]->type() == expr.type) {
    return batch.columns[expr.column_index];
  }
  return Evaluate(expr, batch, ctx);
}

Result<std::vector<int32_t>> SelectTrueRows(const Expr& predicate, const Batch& batch,
                                            EvalContext& ctx) {
  if (predicate.kind == ExprKind::kColumnRef && predicate.outer_depth == 0 &&
      predicate.column_index >= 0 && predicate.column_index < batch.num_columns() &&
      batch.columns[predicate.column_index]->type().id == TypeId::kBool) {
    const Column& c = *batch.columns[predicate.column_index];
    std::vector<int32_t> rows;
    rows.reserve(static_cast<size_t>(c.length()));
    for (int64_t i = 0; i < c.length(); ++i) {
      if (c.IsValid(i) && c.GetBool(i)) rows.push_back(static_cast<int32_t>(i));
    }
    return rows;
  }
  return EvaluateSelection(predicate, batch, ctx);
}

BatchPtr SliceBatch(const Batch& batch, int64_t begin, int64_t length) {
  std::vector<int32_t> idx(static_cast<size_t>(length));
  std::iota(idx.begin(), idx.end(), static_cast<int32_t>(begin));
  auto out = TakeBatch(batch, idx.data(), length);
  out->num_rows = length;
  return out;
}

std::vector<BatchPtr> Morsels(const Table& table, int workers, int64_t morsel_rows) {
  std::vector<BatchPtr> out;
  const bool split = static_cast<int64_t>(table.batches.size()) < 4 * workers;
  for (const auto& b : table.batches) {
    if (!split || b->num_rows <= 2 * morsel_rows || b->num_rows > INT32_MAX) {
      out.push_back(b);
      continue;
    }
    for (int64_t begin = 0; begin < b->num_rows; begin += morsel_rows) {
      out.push_back(SliceBatch(*b, begin, std::min(morsel_rows, b->num_rows - begin)));
    }
  }
  return out;
}

int OperatorThreads(const ExecContext& ctx) {
  if (ctx.num_threads > 0) return ctx.num_threads;
  return std::max(1, ThreadPool::Default().num_threads());
}

int64_t TableBytes(const Table& table) {
  int64_t bytes = 0;
  for (const auto& b : table.batches) {
    for (const auto& c : b->columns) {
      if (c->validity()) bytes += c->validity()->size();
      if (c->values()) bytes += c->values()->size();
      if (c->data()) bytes += c->data()->size();
    }
  }
  return bytes;
}

}  // namespace tandem::cpu::opx
