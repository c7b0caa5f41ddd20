// Batch: a set of equal-length columns with a schema; the unit that flows between operators,
// files and the Arrow C Data Interface.
#pragma once

#include <memory>
#include <vector>

#include "tandem/column/column.h"

namespace tandem {

struct Batch {
  Schema schema;
  std::vector<ColumnPtr> columns;
  int64_t num_rows = 0;

  int num_columns() const { return static_cast<int>(columns.size()); }
  const ColumnPtr& column(int i) const { return columns[i]; }
  // Checks that column types and lengths agree with the schema and each column is consistent.
  Status Validate() const;
};

using BatchPtr = std::shared_ptr<Batch>;

// Concatenates batches of one schema into a single batch (copies values).
Result<BatchPtr> ConcatenateBatches(const std::vector<BatchPtr>& batches, const Schema& schema);

}  // namespace tandem
