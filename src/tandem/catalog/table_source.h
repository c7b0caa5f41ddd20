// TableSource: something a query can scan: Parquet files (a file, directory, glob or hive tree),
// a CSV file, or a table held in memory (CREATE TABLE results, cached tables, test inputs).
// Carries the schema and the row-count estimate the optimizer uses.
#pragma once

#include <memory>
#include <string>

#include "tandem/column/table.h"
#include "tandem/io/csv/csv.h"

namespace tandem {

struct TableSource {
  enum class Kind { kParquet, kCsv, kMemory };
  Kind kind = Kind::kMemory;
  std::string name;  // as the query names it (for EXPLAIN and errors)
  std::string path;  // kParquet, kCsv
  csv::CsvReadOptions csv_options;
  std::shared_ptr<const Table> memory;  // kMemory
  Schema schema;
  int64_t estimated_rows = -1;  // from Parquet footers or the table; -1 unknown

  // Opens a source: reads Parquet footers (schema, row count) or infers a CSV schema.
  static Result<std::shared_ptr<TableSource>> Parquet(const std::string& name,
                                                      const std::string& path);
  static Result<std::shared_ptr<TableSource>> Csv(const std::string& name, const std::string& path,
                                                  const csv::CsvReadOptions& options = {});
  static std::shared_ptr<TableSource> Memory(const std::string& name,
                                             std::shared_ptr<const Table> table);
};

}  // namespace tandem
