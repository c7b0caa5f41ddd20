// CSV reading and writing. The reader infers column types from a sample (or takes an explicit
// schema) and reports errors as "file F, line L, column C: ...". The writer is atomic like the
// Parquet writer: a temporary file renamed into place on Close().
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tandem/column/table.h"

namespace tandem::csv {

struct CsvReadOptions {
  char delimiter = ',';
  char quote = '"';
  char escape = '"';  // '"' means quotes are doubled inside quoted fields; '\\' means backslash
  bool header = true;
  std::vector<std::string> null_markers = {""};  // fields equal to one of these are NULL
  std::optional<Schema> schema;                  // explicit schema: no inference
  int64_t inference_rows = 10000;
  int64_t batch_rows = 1 << 16;
};

Result<Table> ReadCsv(const std::string& path, const CsvReadOptions& options = {});

struct CsvWriteOptions {
  char delimiter = ',';
  bool header = true;
  std::string null_marker;  // written for NULL values
};

class CsvFileWriter {
 public:
  static Result<std::unique_ptr<CsvFileWriter>> Open(const std::string& path, const Schema& schema,
                                                     const CsvWriteOptions& options = {});
  virtual ~CsvFileWriter() = default;
  virtual Status WriteBatch(const Batch& batch) = 0;
  virtual Status Close() = 0;
};

Status WriteCsv(const std::string& path, const Table& table, const CsvWriteOptions& options = {});

}  // namespace tandem::csv
