// TableSource: something a query can scan: Parquet files (a file, directory, glob or hive tree),
// a CSV file, or a table held in memory (CREATE TABLE results, cached tables, test inputs).
// Carries the schema, the row-count estimate and per-column statistics the optimizer uses.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tandem/column/table.h"
#include "tandem/io/csv/csv.h"

namespace tandem {

// Statistics of one column over the whole source, for estimates only (never for correctness).
// Bounds are in the column's storage domain (integers, days, microseconds, unscaled decimals,
// floats) as doubles; strings have none.
struct SourceColumnStats {
  int64_t null_count = -1;     // -1 unknown
  double distinct_count = -1;  // estimated distinct non-null values; -1 unknown
  bool has_bounds = false;
  double min = 0;
  double max = 0;
};

struct TableSource {
  enum class Kind { kParquet, kCsv, kMemory };
  Kind kind = Kind::kMemory;
  std::string name;  // as the query names it (for EXPLAIN and errors)
  std::string path;  // kParquet, kCsv
  // kParquet: a byte range of the one file at `path` (a Spark file split; see
  // parquet::ReadOptions::split_start); split_length < 0: the whole of every file.
  int64_t split_start = 0;
  int64_t split_length = -1;
  csv::CsvReadOptions csv_options;
  std::shared_ptr<const Table> memory;  // kMemory
  Schema schema;
  int64_t estimated_rows = -1;  // from Parquet footers or the table; -1 unknown
  // One per schema field: for Parquet aggregated from the footers' column-chunk statistics, for
  // memory tables bounds of integer-like columns from one pass over them; empty for CSV.
  std::vector<SourceColumnStats> column_stats;

  // Opens a source: reads Parquet footers (schema, row count) or infers a CSV schema.
  static Result<std::shared_ptr<TableSource>> Parquet(const std::string& name,
                                                      const std::string& path);
  static Result<std::shared_ptr<TableSource>> Csv(const std::string& name, const std::string& path,
                                                  const csv::CsvReadOptions& options = {});
  static std::shared_ptr<TableSource> Memory(const std::string& name,
                                             std::shared_ptr<const Table> table);
};

}  // namespace tandem
