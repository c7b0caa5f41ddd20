// Helpers the CPU operators share: expression evaluation with a zero-copy path for plain column
// references, selection of TRUE rows, row-range slicing of batches, worker counts.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "tandem/column/batch.h"
#include "tandem/column/slice.h"
#include "tandem/column/table.h"
#include "tandem/exec/exec_context.h"
#include "tandem/expr/expr.h"

namespace tandem::cpu::opx {

// Evaluates `expr` over the batch; a column reference of this query level returns the input
// column itself (no copy).
Result<ColumnPtr> EvaluateOrReference(const Expr& expr, const Batch& batch, EvalContext& ctx);

// One output batch of `schema`: each expression evaluated over `batch` (or referenced).
Result<BatchPtr> ProjectBatch(const std::vector<ExprPtr>& exprs, const Schema& schema,
                              const Batch& batch, EvalContext& ctx);

// Rows where `predicate` is TRUE (not FALSE, not NULL); a boolean column reference is read
// directly.
Result<std::vector<int32_t>> SelectTrueRows(const Expr& predicate, const Batch& batch,
                                            EvalContext& ctx);

// The rows of `batch` where `predicate` is TRUE, labelled with `schema`: the batch itself (columns
// shared) when every row qualifies, nullptr when none does, else a compacted copy. `read` (per
// column, may be null): false for a column no consumer reads, copied then as a NULL placeholder.
Result<BatchPtr> FilterBatch(const Expr& predicate, const Batch& batch, const Schema& schema,
                             EvalContext& ctx, const std::vector<bool>* read = nullptr);

// Slices of batches and columns (column/slice.h).
using tandem::SliceBatch;
using tandem::SliceBatchView;
using tandem::SliceColumnView;

// Default batch size operators aim for: big enough to amortize per-batch work, small enough that
// a batch's columns and the intermediate results of expressions stay in cache.
constexpr int64_t kTargetBatchRows = int64_t{1} << 17;

// The table with batches over `max_rows` rows cut (zero-copy) into pieces of max_rows.
Table SplitLargeBatches(Table table, int64_t max_rows = kTargetBatchRows);

// The columns `columns` of every batch of `table`, in that order, under `schema` (zero-copy).
Table SelectColumns(const Table& table, const std::vector<int>& columns, const Schema& schema);

// The rows of `table` in `count` consecutive pieces of about equal rows (views of its batches;
// at least one piece, empty for an empty table).
std::vector<Table> RowChunks(const Table& table, int count);

// The batches of `table`, with batches much larger than `morsel_rows` cut into pieces when that
// gives the threads more to share (keeps row order).
std::vector<BatchPtr> Morsels(const Table& table, int workers, int64_t morsel_rows = 1 << 17);

// Threads an operator should use: ctx.num_threads, or the default pool's size.
int OperatorThreads(const ExecContext& ctx);

// Runs fn(i, eval) for every i in [0, n) on at most `threads` workers of the default pool, each
// taking the next index in turn (work stealing over morsels) with its own copy of `eval`. After
// a failure no worker starts another index; the failure is returned.
Status ForEachMorsel(int64_t n, int threads, const EvalContext& eval,
                     const std::function<Status(int64_t, EvalContext&)>& fn);

// op(), with a std::bad_alloc it throws (a budget refusing memory, or the allocator) as an
// OutOfMemory status carrying the budget's message.
Result<Table> CatchOutOfMemory(const std::function<Result<Table>()>& op);

// Bytes held by a column's, a batch's or a table's buffers (for metrics; a view counts its whole
// buffers).
int64_t ColumnBytes(const Column& column);
int64_t BatchBytes(const Batch& batch);
int64_t TableBytes(const Table& table);

}  // namespace tandem::cpu::opx
