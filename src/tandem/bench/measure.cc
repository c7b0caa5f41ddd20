// Measuring one benchmark cell in a fresh process: see measure.h.
#include "tandem/bench/measure.h"

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "tandem/bench/subprocess.h"
#include "tandem/sql/session.h"

namespace tandem::bench {
namespace {

constexpr const char* kMarkerColumn = "tandem_bench_run";

Result<int64_t> CountStatements(const std::string& sql) {
  TANDEM_ASSIGN_OR_RAISE(auto statements, sql::SplitScript(sql));
  return static_cast<int64_t>(statements.size());
}

// Splits JSON lines at the marker rows; returns the text after the last marker.
std::string AfterLastMarker(const std::string& out) {
  const std::string marker = std::string("{\"") + kMarkerColumn + "\":";
  size_t at = std::string::npos, pos = 0;
  while ((pos = out.find(marker, pos)) != std::string::npos) {
    if (pos == 0 || out[pos - 1] == '\n') at = pos;
    pos += marker.size();
  }
  if (at == std::string::npos) return "";
  const size_t line_end = out.find('\n', at);
  return line_end == std::string::npos ? "" : out.substr(line_end + 1);
}

}  // namespace

double Median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

std::vector<double> ParseTimingLines(const std::string& text) {
  std::vector<double> times;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("Time: ", 0) != 0 || line.size() < 10 || line.substr(line.size() - 3) != " ms") {
      continue;
    }
    const std::string number = line.substr(6, line.size() - 9);
    char* end = nullptr;
    const double ms = std::strtod(number.c_str(), &end);
    if (end && *end == '\0') times.push_back(ms);
  }
  return times;
}

std::string LastDevicesLine(const std::string& text) {
  std::istringstream in(text);
  std::string line, last;
  while (std::getline(in, line)) {
    if (line.rfind("Devices: ", 0) == 0) last = line.substr(9);
  }
  return last;
}

bool SaysNoUsableGpu(const std::string& text) {
  return text.find("no GPU is usable") != std::string::npos;
}

Result<CellResult> MeasureCell(const CellSpec& spec) {
  std::string query = spec.query;
  while (!query.empty() && (query.back() == '\n' || query.back() == ' ')) query.pop_back();
  TANDEM_ASSIGN_OR_RAISE(const int64_t query_statements, CountStatements(query));
  if (query_statements == 0) return Status::Invalid("benchmark query has no statement");
  std::string script;
  for (const std::string& s : spec.setup) script += s + ";\n";
  const int warmups = std::max(1, spec.warmups);
  const int runs = warmups + std::max(1, spec.reps);
  for (int run = 0; run < runs; ++run) {
    script += "SELECT " + std::to_string(run) + " AS " + kMarkerColumn + ";\n" + query + "\n;\n";
  }
  TANDEM_ASSIGN_OR_RAISE(const int64_t total_statements, CountStatements(script));
  const int64_t setup = static_cast<int64_t>(spec.setup.size());
  if (total_statements != setup + runs * (1 + query_statements)) {
    return Status::Invalid("benchmark script has " + std::to_string(total_statements) +
                           " statements, expected " +
                           std::to_string(setup + runs * (1 + query_statements)));
  }

  std::vector<std::string> argv = {spec.tandem,
                                   "sql",
                                   "--timing",
                                   "--format",
                                   "jsonl",
                                   "--conf",
                                   "tandem.sql.device=" + spec.mode};
  argv.insert(argv.end(), spec.args.begin(), spec.args.end());
  argv.push_back(script);
  TANDEM_ASSIGN_OR_RAISE(ProcessResult proc, RunProcess(argv, spec.timeout_s));

  CellResult cell;
  cell.wall_ms = proc.wall_ms;
  if (proc.timed_out) {
    cell.note = "timed out after " + std::to_string(static_cast<int64_t>(spec.timeout_s)) + " s";
    return cell;
  }
  if (proc.exit_code != 0) {
    if (SaysNoUsableGpu(proc.err)) {
      cell.state = CellResult::State::kNotAvailable;
      cell.note = "no usable GPU";
    } else {
      cell.note = LastLine(proc.err);
      if (cell.note.empty()) cell.note = "exit code " + std::to_string(proc.exit_code);
    }
    return cell;
  }
  const std::vector<double> times = ParseTimingLines(proc.err);
  if (static_cast<int64_t>(times.size()) != total_statements) {
    cell.note = "expected " + std::to_string(total_statements) + " timing lines, got " +
                std::to_string(times.size());
    return cell;
  }
  int64_t at = setup;
  for (int run = 0; run < runs; ++run) {
    double ms = 0;
    for (int64_t s = 0; s < query_statements; ++s) ms += times[at + 1 + s];
    at += 1 + query_statements;
    if (run >= warmups) cell.times_ms.push_back(ms);
  }
  Result<ResultRows> rows = ParseJsonLines(AfterLastMarker(proc.out));
  if (!rows.ok()) {
    cell.note = "unreadable result: " + rows.status().message();
    return cell;
  }
  cell.rows = std::move(*rows);
  cell.devices = LastDevicesLine(proc.err);
  cell.median_ms = Median(cell.times_ms);
  cell.state = CellResult::State::kOk;
  return cell;
}

Result<std::vector<CellResult>> MeasureInterleaved(const std::vector<CellSpec>& specs,
                                                   const std::vector<bool>& skip_in, int rounds,
                                                   std::vector<CellResult> results) {
  results.resize(specs.size());
  std::vector<bool> skip = skip_in;
  skip.resize(specs.size(), false);
  for (int round = 0; round < std::max(1, rounds); ++round) {
    for (size_t i = 0; i < specs.size(); ++i) {
      if (skip[i]) continue;
      CellSpec spec = specs[i];
      spec.reps = 1;
      TANDEM_ASSIGN_OR_RAISE(CellResult run, MeasureCell(spec));
      if (run.state != CellResult::State::kOk) {
        results[i] = std::move(run);  // the failure is the cell's result; no more rounds
        skip[i] = true;
        continue;
      }
      CellResult& r = results[i];
      r.state = CellResult::State::kOk;
      r.times_ms.insert(r.times_ms.end(), run.times_ms.begin(), run.times_ms.end());
      r.wall_ms += run.wall_ms;
      r.rows = std::move(run.rows);
      if (r.devices.empty()) {
        r.devices = run.devices;
      } else if (r.devices.find(run.devices) == std::string::npos) {
        r.devices += " | " + run.devices;
      }
    }
  }
  for (CellResult& r : results) {
    if (r.state == CellResult::State::kOk) r.median_ms = Median(r.times_ms);
  }
  return results;
}

std::string CellStatus(const CellResult& r) {
  switch (r.state) {
    case CellResult::State::kOk:
      return "ok";
    case CellResult::State::kNotAvailable:
      return "n/a: " + r.note;
    case CellResult::State::kError:
      return "error: " + r.note;
  }
  return "error";
}

}  // namespace tandem::bench
