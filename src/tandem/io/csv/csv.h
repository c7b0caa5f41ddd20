// CSV reading and writing. The reader infers column types from a sample (or takes an explicit
// schema) and reports errors as "file F, line L, column C: ...". The writer is atomic like the
// Parquet writer: a temporary file renamed into place on Close().
//
// Reading rules:
//   - RFC 4180 quoting; LF, CRLF or CR line ends; newlines inside quoted fields; a UTF-8 byte
//     order mark at the start is skipped. Empty lines are skipped (except in one-column files,
//     where they are empty values). Every row must have as many fields as the first one.
//   - A field equal to a null marker is NULL unless it was quoted: "" is an empty string.
//   - Inference looks at the first inference_rows data rows of each column and picks the first
//     of bool (true/false), int64, float64, date32 (YYYY-MM-DD), timestamp (ISO-8601 date and
//     time; any value with a zone makes it timestamp[us, tz=UTC]), string that parses every
//     non-null sampled value. A column with no sampled value is string. Decimals are never
//     inferred; ask for them with an explicit schema, which takes any Tandem type and parses
//     decimals exactly.
//   - A later value that does not parse as its column's type is an error naming file, physical
//     line, column number and name; nothing is silently converted.
//   - Header names that are empty become column_N; without a header columns are column_1..N.
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
  std::vector<std::string> columns;  // projection by name (after renaming); empty means all
  int num_threads = 0;               // ReadCsv value conversion; 0 = all hardware threads
};

Result<Table> ReadCsv(const std::string& path, const CsvReadOptions& options = {});
// Reads CSV text held in memory; `name` stands for the file name in error messages.
Result<Table> ReadCsvBuffer(std::string data, const CsvReadOptions& options = {},
                            const std::string& name = "<buffer>");

// Streaming reader: the schema is known after Open (header and inference sample read), then
// batches of at most batch_rows rows come one at a time, so a caller can stop early.
class CsvReader {
 public:
  static Result<std::unique_ptr<CsvReader>> Open(const std::string& path,
                                                 const CsvReadOptions& options = {});
  static Result<std::unique_ptr<CsvReader>> OpenBuffer(std::string data,
                                                       const CsvReadOptions& options = {},
                                                       const std::string& name = "<buffer>");
  virtual ~CsvReader() = default;
  virtual const Schema& schema() const = 0;
  // The next batch, or nullptr after the last one.
  virtual Result<BatchPtr> Next() = 0;
};

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

// CSV text without a file (used by the writer and by `tandem cat --format csv`): the header line
// and rows [begin, end) of a batch, appended to `out`. Values use format::AppendText; a field is
// quoted when it contains the delimiter, a quote, CR or LF, or starts or ends with a space, or
// equals the null marker (so it does not read back as NULL); quotes inside are doubled.
void AppendCsvHeader(const Schema& schema, const CsvWriteOptions& options, std::string* out);
void AppendCsvRows(const Batch& batch, int64_t begin, int64_t end, const CsvWriteOptions& options,
                   std::string* out);

}  // namespace tandem::csv
