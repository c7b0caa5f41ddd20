// One benchmark cell: a query under one device mode, measured in a fresh `tandem sql` process.
// The process runs a script: the setup statements (e.g. CACHE TABLE), then the query
// warmups + reps times (the warm-ups, then the measured runs), each run after a marker row. A
// session (MeasureSession) runs several queries that way in one process after one setup, as a
// `tandem sql -f` script of queries over cached tables would. Times are the
// per-statement `Time: X ms` lines of `tandem sql --timing` (parse, plan, execute; not process
// start, table registration or printing), summed over the query's statements per run; the cell's
// time is the median of the measured runs. The last run's rows are kept for the answer check.
// This is the one implementation of a Tandem measurement: `tandem bench fallback` and
// `tandem bench tpch` both use it.
#pragma once

#include <string>
#include <vector>

#include "tandem/bench/result_rows.h"
#include "tandem/common/status.h"

namespace tandem::bench {

struct CellSpec {
  std::string tandem;              // the tandem binary
  std::string mode;                // tandem.sql.device: cpu, gpu or auto
  std::vector<std::string> args;   // --table, --udf, --threads ... for `tandem sql`
  std::vector<std::string> setup;  // statements run once before the warm-up
  std::string query;               // the query: one or more statements
  int reps = 3;                    // measured runs after the warm-ups
  int warmups = 1;                 // unmeasured runs first
  double timeout_s = 0;            // per process; <= 0: none
};

struct CellResult {
  enum class State { kOk, kNotAvailable, kError } state = State::kError;
  std::string note;              // kNotAvailable: "no usable GPU"; kError: the error line
  std::vector<double> times_ms;  // measured runs
  double median_ms = 0;
  double wall_ms = 0;       // the whole process (a session: its share, wall time / queries)
  ResultRows rows;          // the last run's answer
  std::string devices;      // the last run's `Devices:` line ("cpu only", "gpu 7, cpu 2, ...")
  std::string peak_memory;  // the last run's `Peak memory:` line ("host 34.8 MiB, GPU 0 B")
  // The process's `tandem: warning:` lines, each without the prefix ("table lineitem not cached
  // (queries read it from its files): ..." from a session's CACHE TABLE); every query of a
  // session gets all of them.
  std::vector<std::string> warnings;
};

// A cell's state for the reports: "ok", "n/a: <why>" or "error: <line>".
std::string CellStatus(const CellResult& r);

// Runs the cell. Errors only for a script that cannot be built (the query does not parse);
// a failing process is a kError (or kNotAvailable: gpu mode without a usable GPU) result.
Result<CellResult> MeasureCell(const CellSpec& spec);

// Several queries in one process: spec.setup once, then for each query its warm-ups and measured
// runs. One result per query, in order. When the process fails, the queries that finished keep
// their results, the one running gets the error and the later ones "not run (...)". spec.query
// is ignored.
Result<std::vector<CellResult>> MeasureSession(const CellSpec& spec,
                                               const std::vector<std::string>& queries);

// Measures several cells (typically one query under each mode) in interleaved fresh processes:
// round r runs every spec once, each process `warmups` unmeasured runs and `runs_per_process`
// measured ones, so drift of the machine and process-to-process variance hit every spec alike.
// A cell's times are its rounds' process times (the median of each process's measured runs);
// its rows and devices come from its last round (devices that differ between
// rounds show as "a | b"). A spec whose process fails stops there: that failure is its result.
// Specs marked `skip` are not run (their results stay as given).
Result<std::vector<CellResult>> MeasureInterleaved(const std::vector<CellSpec>& specs,
                                                   const std::vector<bool>& skip, int rounds,
                                                   int runs_per_process,
                                                   std::vector<CellResult> results);

// How a report names a process's measured runs: "one measured run", "3 measured runs (their
// median is the process's time)".
std::string Runs(int runs_per_process);

// The median (mean of the middle two for an even count); 0 for none.
double Median(std::vector<double> values);

// For each `Time:` line of `tandem sql --timing` output, the text after `prefix` of the line
// with that prefix printed for the same statement ("" for a statement without one).
std::vector<std::string> ParseStatementLines(const std::string& stderr_text,
                                             const std::string& prefix);
// The `Devices: ...` lines.
std::vector<std::string> ParseDevicesLines(const std::string& stderr_text);

// The `Time: X ms` values of `tandem sql --timing` output, in order.
std::vector<double> ParseTimingLines(const std::string& stderr_text);

// Whether a failed run's error says that no GPU is usable (gpu mode on a machine without one).
bool SaysNoUsableGpu(const std::string& stderr_text);

}  // namespace tandem::bench
