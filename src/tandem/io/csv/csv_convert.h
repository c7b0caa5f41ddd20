// CSV value conversion (internal): tokenized rows -> typed Tandem columns, and type inference
// over a sample of rows. Errors name the file, physical line, column number and column name.
#pragma once

#include <deque>
#include <string>
#include <vector>

#include "tandem/column/batch.h"
#include "tandem/io/csv/csv_chunk_source.h"

namespace tandem::csv::internal {

struct OutputColumn {
  int source_index;  // field position in the CSV row
  Field field;       // name and type in the result
};

struct ConvertContext {
  std::string file_name;
  Dialect dialect;
  std::vector<std::string> null_markers;
  std::vector<OutputColumn> columns;
  Schema schema;  // the output schema: columns[i].field in order
};

// Converts every row of the chunk into one batch of ctx.schema.
Result<BatchPtr> ConvertChunk(const RowChunk& chunk, const ConvertContext& ctx);

// The type of CSV column `source_index` inferred from up to max_rows rows of the sample chunks
// (rules in csv.h).
DataType InferColumnType(const std::deque<RowChunk>& sample, int source_index, int64_t max_rows,
                         const ConvertContext& ctx);

}  // namespace tandem::csv::internal
