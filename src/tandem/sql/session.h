// Session: one run of `tandem sql` (or one embedding): a catalog, settings, and the pipeline
// from SQL text to results: parse -> bind -> optimize -> execute. Statements: SELECT / WITH /
// VALUES, EXPLAIN [ANALYZE], CREATE [OR REPLACE] VIEW, CREATE TABLE ... AS (written as Parquet),
// DROP VIEW/TABLE, SET key = value.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tandem/catalog/catalog.h"
#include "tandem/column/table.h"

namespace tandem::sql {

struct SessionOptions {
  bool ansi = false;
  int num_threads = 0;
  std::string table_dir = ".";  // where CREATE TABLE ... AS writes name.parquet
};

struct StatementResult {
  enum class Kind { kRows, kMessage };
  Kind kind = Kind::kRows;
  Table table;          // kRows (EXPLAIN returns one string column "plan")
  std::string message;  // kMessage: "created view v"
  double millis = 0;
};

class Session {
 public:
  explicit Session(SessionOptions options = {});
  Catalog& catalog() { return catalog_; }
  SessionOptions& options() { return options_; }

  // Registers `name` for a Parquet path (file, directory, glob) or a .csv file.
  Status RegisterTable(const std::string& name, const std::string& path);

  // Runs every statement of a script in order; stops at the first error, which names the
  // statement's position.
  Result<std::vector<StatementResult>> ExecuteScript(const std::string& sql);
  // Runs a single-statement text.
  Result<StatementResult> Execute(const std::string& sql);

 private:
  SessionOptions options_;
  Catalog catalog_;
};

}  // namespace tandem::sql
