// The benchmark report: one model of the measured cells, written three ways under the output
// folder: report.html (self-contained: inline CSS and SVG charts, no scripts, nothing fetched),
// results.csv (one row per cell) and results.md. Each carries the machine, versions and date.
// Files are written atomically (temporary file, then rename).
//
// Charts: for `tpch`, per-query bars of every engine and mode; for `fallback`, the matrix of
// ratios (cpu time / mode time) as a coloured grid per size, and the crossover curves (time vs
// fact rows per mode, per condition).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tandem/common/atomic_file.h"
#include "tandem/common/status.h"

namespace tandem::bench {

struct ReportInfo {
  std::string benchmark;  // "fallback" or "tpch"
  std::string title;
  std::string date;                // ISO 8601, local time
  std::string machine;             // CPU model, cores, memory, OS
  std::string gpu;                 // "NVIDIA H200, sm_90, ..." or "none usable (...)"
  std::string version;             // tandem version line (and engines' versions)
  std::string command;             // the command line that produced it
  std::vector<std::string> notes;  // method and caveats, one paragraph each
};

struct ReportCell {
  std::string group;   // fallback: the condition; tpch: the query ("Q01")
  std::string scale;   // fallback: fact rows ("1000000"); tpch: "sf1"
  int64_t rows = 0;    // fallback: fact rows (the crossover's x); tpch: 0
  std::string engine;  // "tandem", "duckdb"
  std::string mode;    // tandem: cpu, gpu, auto; duckdb: files
  std::string status;  // "ok", "n/a: no usable GPU", "error: ..."
  std::vector<double> times_ms;
  double median_ms = 0;     // meaningful when status is "ok"
  double ratio = 0;         // cpu median / this median; 0 when not known
  std::string check;        // "reference", "ok", "DIFF: ...", "not checked"
  std::string devices;      // where the measured plan ran: "cpu only", "gpu 7, cpu 2, ..."
  std::string peak_memory;  // the last run's peak: "host 34.8 MiB, GPU 0 B" ("" unknown)

  bool ok() const { return status == "ok"; }
  std::string series() const { return engine == "tandem" ? mode : engine + " " + mode; }
};

struct Report {
  ReportInfo info;
  std::vector<ReportCell> cells;
};

// Which plan an auto cell ran: "cpu plan" (the all-CPU plan, the same as cpu's), "gpu plan"
// (one using the GPU), or "" when the cell is not auto or its devices are not known.
std::string PlanMark(const ReportCell& cell);

// Whether two cells' measured times share a range (the slower one's fastest process beat the
// faster one's slowest): then their order is within the spread between processes.
bool TimesOverlap(const ReportCell& a, const ReportCell& b);

std::string RenderHtml(const Report& report);
std::string RenderCsv(const Report& report);
std::string RenderMarkdown(const Report& report);

// The CSV header (the columns of results.csv).
const std::vector<std::string>& CsvColumns();

// Writes report.html, results.csv and results.md into `dir` (created if missing).
Status WriteReport(const std::string& dir, const Report& report);

// Sets every cell's ratio to (cpu median of the same engine, group and scale) / (its median).
void FillRatios(Report* report);

}  // namespace tandem::bench
