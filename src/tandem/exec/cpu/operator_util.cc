// Shared helpers of the CPU operators.
#include "tandem/exec/cpu/operator_util.h"

#include <algorithm>
#include <atomic>
#include <numeric>

#include "tandem/column/take.h"
#include "tandem/common/out_of_memory.h"
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

Result<BatchPtr> ProjectBatch(const std::vector<ExprPtr>& exprs, const Schema& schema,
                              const Batch& batch, EvalContext& ctx) {
  auto out = std::make_shared<Batch>();
  out->schema = schema;
  out->num_rows = batch.num_rows;
  for (const auto& e : exprs) {
    TANDEM_ASSIGN_OR_RAISE(auto col, EvaluateOrReference(*e, batch, ctx));
    if (col->length() != batch.num_rows) {
      return Status::Internal("expression " + e->ToString() + " gave " +
                              std::to_string(col->length()) + " values for " +
                              std::to_string(batch.num_rows) + " rows");
    }
    out->columns.push_back(std::move(col));
  }
  return out;
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

Result<BatchPtr> FilterBatch(const Expr& predicate, const Batch& batch, const Schema& schema,
                             EvalContext& ctx, const std::vector<bool>* read) {
  if (batch.num_rows == 0) return BatchPtr();
  TANDEM_ASSIGN_OR_RAISE(auto rows, SelectTrueRows(predicate, batch, ctx));
  if (rows.empty()) return BatchPtr();
  if (static_cast<int64_t>(rows.size()) == batch.num_rows) {
    auto same = std::make_shared<Batch>(batch);  // shares the columns
    same->schema = schema;
    return same;
  }
  const auto m = static_cast<int64_t>(rows.size());
  auto out = std::make_shared<Batch>();
  out->schema = schema;
  out->num_rows = m;
  for (size_t c = 0; c < batch.columns.size(); ++c) {
    const ColumnPtr& col = batch.columns[c];
    const bool unread = read && c < read->size() && !(*read)[c];
    out->columns.push_back(unread ? BroadcastValue(Value::Null(col->type()), m)
                                  : Take(*col, rows.data(), m));
  }
  return out;
}

Table SplitLargeBatches(Table table, int64_t max_rows) {
  max_rows = std::max<int64_t>(max_rows, 1);
  bool any = false;
  for (const auto& b : table.batches) any |= b->num_rows > max_rows;
  if (!any) return table;
  std::vector<BatchPtr> out;
  for (auto& b : table.batches) {
    if (b->num_rows <= max_rows) {
      out.push_back(std::move(b));
      continue;
    }
    // Even pieces (each a multiple of 8 rows but the last, so views stay zero-copy) so no piece
    // is tiny; rounding up to 8 must not pass max_rows, so then round down (below 8: copies).
    const int64_t pieces = (b->num_rows + max_rows - 1) / max_rows;
    int64_t step = (b->num_rows + pieces - 1) / pieces;
    step = (step + 7) / 8 * 8;
    if (step > max_rows) step = max_rows >= 8 ? max_rows / 8 * 8 : max_rows;
    for (int64_t begin = 0; begin < b->num_rows; begin += step) {
      out.push_back(SliceBatchView(*b, begin, std::min(step, b->num_rows - begin)));
    }
  }
  table.batches = std::move(out);
  return table;
}

Table SelectColumns(const Table& table, const std::vector<int>& columns, const Schema& schema) {
  Table out;
  out.schema = schema;
  for (const BatchPtr& b : table.batches) {
    auto batch = std::make_shared<Batch>();
    batch->schema = schema;
    batch->num_rows = b->num_rows;
    for (int c : columns) batch->columns.push_back(b->columns[c]);
    out.batches.push_back(std::move(batch));
  }
  return out;
}

std::vector<Table> RowChunks(const Table& table, int count) {
  const int64_t total = table.num_rows();
  const int64_t per = std::max<int64_t>(1, (total + std::max(count, 1) - 1) / std::max(count, 1));
  std::vector<Table> out;
  Table cur;
  cur.schema = table.schema;
  int64_t cur_rows = 0;
  for (const BatchPtr& b : table.batches) {
    for (int64_t off = 0; off < b->num_rows;) {
      const int64_t take = std::min(b->num_rows - off, per - cur_rows);
      cur.batches.push_back(SliceBatchView(*b, off, take));
      off += take;
      cur_rows += take;
      if (cur_rows == per) {
        out.push_back(std::move(cur));
        cur = Table();
        cur.schema = table.schema;
        cur_rows = 0;
      }
    }
  }
  if (cur_rows > 0 || out.empty()) out.push_back(std::move(cur));
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
      out.push_back(SliceBatchView(*b, begin, std::min(morsel_rows, b->num_rows - begin)));
    }
  }
  return out;
}

int OperatorThreads(const ExecContext& ctx) {
  if (ctx.num_threads > 0) return ctx.num_threads;
  return std::max(1, ThreadPool::Default().num_threads());
}

Status ForEachMorsel(int64_t n, int threads, const EvalContext& eval,
                     const std::function<Status(int64_t, EvalContext&)>& fn) {
  const int workers = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(threads, n)));
  std::atomic<int64_t> next{0};
  std::atomic<bool> failed{false};  // after a failure no worker takes another morsel
  return ThreadPool::Default().ParallelFor(
      workers,
      [&](int64_t) -> Status {
        EvalContext mine = eval;
        while (!failed.load(std::memory_order_relaxed)) {
          const int64_t i = next.fetch_add(1);
          if (i >= n) return Status::OK();
          Status st = fn(i, mine);
          if (!st.ok()) {
            failed.store(true, std::memory_order_relaxed);
            return st;
          }
        }
        return Status::OK();
      },
      workers);
}

int64_t ColumnBytes(const Column& c) {
  int64_t bytes = 0;
  if (c.validity()) bytes += c.validity()->size();
  if (c.values()) bytes += c.values()->size();
  if (c.data()) bytes += c.data()->size();
  return bytes;
}

int64_t BatchBytes(const Batch& batch) {
  int64_t bytes = 0;
  for (const auto& c : batch.columns) bytes += ColumnBytes(*c);
  return bytes;
}

int64_t TableBytes(const Table& table) {
  int64_t bytes = 0;
  for (const auto& b : table.batches) bytes += BatchBytes(*b);
  return bytes;
}

Result<Table> CatchOutOfMemory(const std::function<Result<Table>()>& op) {
  try {
    return op();
  } catch (const std::bad_alloc& e) {
    return Status::OutOfMemory(OutOfMemoryText(e));
  }
}

}  // namespace tandem::cpu::opx
