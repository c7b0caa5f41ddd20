// Session: one run of `tandem sql` (or one embedding): a catalog, settings (the configuration
// registry, common/config.h), cached tables, and the pipeline from SQL text to results: parse ->
// bind -> optimize -> place (CPU/GPU, placement/placement.h) -> execute. Statements: SELECT /
// WITH / VALUES, EXPLAIN [ANALYZE] [(FORMAT JSON)], CREATE [OR REPLACE] VIEW, CREATE TABLE ...
// AS (written as Parquet), DROP VIEW/TABLE, SET key = value, RESET key, CACHE TABLE name,
// UNCACHE TABLE [IF EXISTS] name.
//
// CACHE TABLE is not PostgreSQL grammar: before parsing, the session rewrites it (and UNCACHE)
// into LISTEN / UNLISTEN of the same length, so libpg_query splits scripts and reports positions
// as written; the rewritten statements are remembered by offset and run as cache statements.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tandem/catalog/catalog.h"
#include "tandem/column/table.h"
#include "tandem/common/config.h"
#include "tandem/exec/exec_context.h"
#include "tandem/gpu/runtime.h"
#include "tandem/memory/spill_file.h"
#include "tandem/sql/parser.h"

namespace tandem::sql {

struct SessionOptions {
  // Initial values of tandem.sql.ansi and tandem.sql.threads (when `config` leaves them unset);
  // kept equal to the settings afterwards.
  bool ansi = false;
  int num_threads = 0;
  std::string table_dir = ".";  // where CREATE TABLE ... AS writes name.parquet
  Config config;                // every other setting (--conf, SET)
  // Receives notices as they happen (the planning-time placement report of
  // tandem.sql.explain, the CPU fallback notice); null: notices are dropped.
  std::function<void(const std::string&)> notice;
  // Say "no usable GPU; running on the CPU" even when tandem.sql.device was left at its default
  // (the command line sets this when stderr is a terminal). It is always said when the device
  // was set explicitly or tandem.sql.explain is on.
  bool notify_cpu_fallback = false;
};

struct StatementResult {
  enum class Kind { kRows, kMessage };
  Kind kind = Kind::kRows;
  Table table;          // kRows (EXPLAIN returns one string column "plan")
  std::string message;  // kMessage: "created view v"
  // kMessage: the statement did not do all it was asked and the script went on (CACHE TABLE of a
  // table host memory cannot hold: queries read it from its files).
  bool warning = false;
  double millis = 0;
  // Queries: where the plan ran, one line ("cpu only", or "gpu 7, cpu 2, transitions 2" counting
  // operators per device), for `tandem sql --timing` and the benchmarks' reports.
  std::string devices;
  // Queries: the most tracked host memory and GPU pool memory in use while it ran (the
  // process's: other queries at the same time included); -1 for other statements.
  int64_t peak_host_bytes = -1;
  int64_t spilled_bytes = 0;  // written to tandem.spill.dir by the query's operators
  int64_t peak_device_bytes = -1;
  // Queries that used the GPU: their estimated peak of GPU memory, against which they were
  // admitted (memory/admission.h; the reservation is capped at what the GPU holds); -1
  // otherwise.
  int64_t gpu_admitted_bytes = -1;
  // A query whose rows went to Session::WriteNextQueryTo's file (`table` is then empty): how many;
  // -1 otherwise.
  int64_t rows_written = -1;
  // A query whose rows did not fit in host memory, with Session::SpoolLargeResults on: its rows
  // in a spill file, one block per batch (`table` is then empty but for its schema); else null.
  std::shared_ptr<SpillFile> spooled;
};

// Splits a script into statements as the session runs them (CACHE/UNCACHE TABLE included).
Result<std::vector<ParsedStatement>> SplitScript(const std::string& sql);

class Session {
 public:
  explicit Session(SessionOptions options = {});
  ~Session();
  Catalog& catalog() { return catalog_; }
  SessionOptions& options() { return options_; }
  Config& config() { return options_.config; }
  const TableCache& table_cache() const { return cache_; }

  // Registers `name` for a Parquet path (file, directory, glob) or a .csv file.
  Status RegisterTable(const std::string& name, const std::string& path);

  // Runs every statement of a script in order; stops at the first error, which names the
  // statement's position.
  Result<std::vector<StatementResult>> ExecuteScript(const std::string& sql);
  // Runs a single-statement text.
  Result<StatementResult> Execute(const std::string& sql);

  // The next statement, when it is a query (SELECT, WITH, VALUES), writes its rows to this
  // Parquet or CSV file (by its extension) as they are made (exec/cpu/result_file_sink.h)
  // instead of returning them: a result larger than memory still reaches its file, which
  // appears only when the query succeeds. Any other statement leaves its rows to the caller.
  // Taken by the next statement.
  void WriteNextQueryTo(std::string path) { next_output_ = std::move(path); }

  // Queries whose rows run out of host memory (tandem.memory.host.limit) run again with their
  // rows going to a spill file (StatementResult::spooled) instead of failing: for callers that
  // read results a batch at a time (`tandem sql` printing to standard output).
  void SpoolLargeResults(bool on) { spool_large_results_ = on; }

  // `tandem explain`: the plan of one query (SELECT, WITH, VALUES), with devices; `analyze`
  // runs it and adds each operator's metrics; `json` gives one JSON document instead of lines.
  Result<StatementResult> ExplainQuery(const std::string& query, bool analyze, bool json);

 private:
  friend class StatementRunner;
  // The three above, on the calling thread (they run these on a deep enough stack).
  Result<std::vector<StatementResult>> ExecuteScriptHere(const std::string& sql);
  Result<StatementResult> ExecuteHere(const std::string& sql);
  Result<StatementResult> ExplainQueryHere(const std::string& query, bool analyze, bool json);
  SessionOptions options_;
  Catalog catalog_;
  std::optional<gpu::Stream> cache_stream_;  // allocates the cached device batches: outlives them
  TableCache cache_;
  bool fallback_noticed_ = false;
  std::string next_output_;           // WriteNextQueryTo
  bool spool_large_results_ = false;  // SpoolLargeResults
};

}  // namespace tandem::sql
