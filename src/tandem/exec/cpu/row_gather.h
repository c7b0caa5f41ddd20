// Helpers shared by the join, sort, set-operation and window operators: morsels (row ranges of a
// table's batches handed to threads), gathering rows from several batches by packed references
// (batch << 32 | row, -1 = NULL) without first concatenating the batches, evaluating key
// expressions (plain column references are used as they are), and empty/all-NULL columns.
#pragma once

#include <cstdint>
#include <vector>

#include "tandem/column/table.h"
#include "tandem/exec/exec_context.h"
#include "tandem/expr/expr.h"

namespace tandem::cpu {

// A row range [begin, end) of one batch.
struct Morsel {
  int batch = 0;
  int64_t begin = 0;
  int64_t end = 0;
};

constexpr int64_t kDefaultMorselRows = 1 << 16;

// Splits every batch of the table into ranges of at most max_rows rows (empty batches skipped).
std::vector<Morsel> MakeMorsels(const std::vector<BatchPtr>& batches,
                                int64_t max_rows = kDefaultMorselRows);

inline int64_t PackRowRef(int64_t batch, int64_t row) { return (batch << 32) | row; }
inline int64_t RefBatch(int64_t ref) { return ref >> 32; }
inline int64_t RefRow(int64_t ref) { return ref & 0xFFFFFFFF; }

// One column of a list of batches, set up once for many gathers from it (a join's build side is
// gathered from for every probe slice: with thousands of small build batches, setting up per
// gather cost more than the gather). The batches must outlive it.
class GatherSource {
 public:
  GatherSource(const std::vector<BatchPtr>& batches, int column, DataType type);
  explicit GatherSource(DataType type) : type_(std::move(type)) {}  // nothing to gather from
  const DataType& type() const { return type_; }
  bool empty() const { return columns_.empty(); }
  const std::vector<const Column*>& columns() const { return columns_; }
  const std::vector<const uint8_t*>& values() const { return values_; }  // fixed-width values
  bool any_null() const { return any_null_; }

 private:
  DataType type_;
  std::vector<const Column*> columns_;
  std::vector<const uint8_t*> values_;
  bool any_null_ = false;
};

// Every column of a table's batches as gather sources.
std::vector<GatherSource> GatherSources(const Table& table);

// Gathers column `column` of the batches at the packed references (-1 gives NULL). `type` is the
// column's type (needed when there are no batches, in which case every reference must be -1).
ColumnPtr GatherRows(const std::vector<BatchPtr>& batches, int column, const DataType& type,
                     const int64_t* refs, int64_t count);
// The same from a source set up before.
ColumnPtr GatherRows(const GatherSource& source, const int64_t* refs, int64_t count);

// A batch of the given schema with every column gathered at refs (in parallel over columns).
Result<BatchPtr> GatherBatch(const std::vector<BatchPtr>& batches, const Schema& schema,
                             const int64_t* refs, int64_t count);

// A column of `count` NULLs of a type.
ColumnPtr NullColumn(const DataType& type, int64_t count);

// Evaluates expressions over one batch; a plain column reference returns the batch's column.
Result<std::vector<ColumnPtr>> EvaluateColumns(const std::vector<ExprPtr>& exprs,
                                               const Batch& batch, EvalContext& ctx);

// EvaluateColumns for every batch of a table, in parallel: result[batch][expr].
Result<std::vector<std::vector<ColumnPtr>>> EvaluateColumnsPerBatch(
    const std::vector<ExprPtr>& exprs, const std::vector<BatchPtr>& batches, EvalContext& ctx);

// A batch with the columns of `batch` but a different schema (same types; new names), used when
// a set operation's right input takes the left input's column names.
BatchPtr RelabelBatch(const BatchPtr& batch, const Schema& schema);

}  // namespace tandem::cpu
