// Measuring one benchmark cell in a fresh process: see measure.h.
#include "tandem/bench/measure.h"

#include <algorithm>
#include <cstdlib>
#include <optional>
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

// The JSON-lines text after each marker row, up to the next one: element i follows marker i.
std::vector<std::string> SplitAtMarkers(const std::string& out) {
  const std::string marker = std::string("{\"") + kMarkerColumn + "\":";
  std::vector<size_t> starts;  // where each marker line begins
  size_t pos = 0;
  while ((pos = out.find(marker, pos)) != std::string::npos) {
    if (pos == 0 || out[pos - 1] == '\n') starts.push_back(pos);
    pos += marker.size();
  }
  std::vector<std::string> segments;
  for (size_t i = 0; i < starts.size(); ++i) {
    const size_t line_end = out.find('\n', starts[i]);
    const size_t begin = line_end == std::string::npos ? out.size() : line_end + 1;
    const size_t end = i + 1 < starts.size() ? starts[i + 1] : out.size();
    segments.push_back(begin < end ? out.substr(begin, end - begin) : "");
  }
  return segments;
}

// The milliseconds of a `Time: X ms` line; nothing for any other line.
std::optional<double> TimingValue(const std::string& line) {
  if (line.rfind("Time: ", 0) != 0 || line.size() < 10 || line.substr(line.size() - 3) != " ms") {
    return std::nullopt;
  }
  const std::string number = line.substr(6, line.size() - 9);
  char* end = nullptr;
  const double ms = std::strtod(number.c_str(), &end);
  if (!end || *end != '\0') return std::nullopt;
  return ms;
}

std::string TrimmedQuery(std::string query) {
  while (!query.empty() && (query.back() == '\n' || query.back() == ' ')) query.pop_back();
  return query;
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
    if (std::optional<double> ms = TimingValue(line)) times.push_back(*ms);
  }
  return times;
}

std::vector<std::string> ParseStatementLines(const std::string& text, const std::string& prefix) {
  std::vector<std::string> values;
  std::istringstream in(text);
  std::string line, pending;
  while (std::getline(in, line)) {
    if (line.rfind(prefix, 0) == 0) {
      pending = line.substr(prefix.size());
    } else if (TimingValue(line)) {
      values.push_back(pending);
      pending.clear();
    }
  }
  return values;
}

std::vector<std::string> ParseDevicesLines(const std::string& text) {
  return ParseStatementLines(text, "Devices: ");
}

// The text after "tandem: warning: " of each such line.
std::vector<std::string> WarningLines(const std::string& text) {
  static const std::string kPrefix = "tandem: warning: ";
  std::vector<std::string> warnings;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(kPrefix, 0) == 0) warnings.push_back(line.substr(kPrefix.size()));
  }
  return warnings;
}

bool SaysNoUsableGpu(const std::string& text) {
  return text.find("no GPU is usable") != std::string::npos;
}

Result<CellResult> MeasureCell(const CellSpec& spec) {
  TANDEM_ASSIGN_OR_RAISE(std::vector<CellResult> results, MeasureSession(spec, {spec.query}));
  return std::move(results[0]);
}

Result<std::vector<CellResult>> MeasureSession(const CellSpec& spec,
                                               const std::vector<std::string>& queries_in) {
  if (queries_in.empty()) return Status::Invalid("benchmark session has no query");
  const int warmups = std::max(1, spec.warmups);
  const int runs = warmups + std::max(1, spec.reps);
  std::string script;
  for (const std::string& s : spec.setup) script += s + ";\n";
  const int64_t setup = static_cast<int64_t>(spec.setup.size());
  std::vector<int64_t> query_statements;
  int64_t expected = setup, marker = 0;
  for (const std::string& q : queries_in) {
    const std::string query = TrimmedQuery(q);
    TANDEM_ASSIGN_OR_RAISE(const int64_t statements, CountStatements(query));
    if (statements == 0) return Status::Invalid("benchmark query has no statement");
    query_statements.push_back(statements);
    for (int run = 0; run < runs; ++run, ++marker) {
      script +=
          "SELECT " + std::to_string(marker) + " AS " + kMarkerColumn + ";\n" + query + "\n;\n";
    }
    expected += runs * (1 + statements);
  }
  TANDEM_ASSIGN_OR_RAISE(const int64_t total_statements, CountStatements(script));
  if (total_statements != expected) {
    return Status::Invalid("benchmark script has " + std::to_string(total_statements) +
                           " statements, expected " + std::to_string(expected));
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

  const size_t n = queries_in.size();
  std::vector<CellResult> cells(n);
  const std::vector<std::string> warnings = WarningLines(proc.err);
  for (CellResult& cell : cells) {
    cell.wall_ms = proc.wall_ms / static_cast<double>(n);
    cell.warnings = warnings;
  }
  std::string failure;  // why the process did not finish every query
  if (proc.timed_out) {
    failure = "timed out after " + std::to_string(static_cast<int64_t>(spec.timeout_s)) + " s";
  } else if (proc.exit_code != 0) {
    if (SaysNoUsableGpu(proc.err)) {
      for (CellResult& cell : cells) {
        cell.state = CellResult::State::kNotAvailable;
        cell.note = "no usable GPU";
      }
      return cells;
    }
    failure = LastLine(proc.err);
    if (failure.empty()) failure = "exit code " + std::to_string(proc.exit_code);
  }
  const std::vector<double> times = ParseTimingLines(proc.err);
  const std::vector<std::string> devices = ParseDevicesLines(proc.err);
  const std::vector<std::string> peaks = ParseStatementLines(proc.err, "Peak memory: ");
  if (failure.empty() && static_cast<int64_t>(times.size()) != total_statements) {
    failure = "expected " + std::to_string(total_statements) + " timing lines, got " +
              std::to_string(times.size());
  }
  const std::vector<std::string> segments = SplitAtMarkers(proc.out);
  const int64_t timed = static_cast<int64_t>(times.size());
  int64_t at = setup;
  bool stopped = false;
  for (size_t q = 0; q < n; ++q) {
    CellResult& cell = cells[q];
    const int64_t need = runs * (1 + query_statements[q]);
    if (stopped || (!failure.empty() && at + need > timed)) {
      cell.note =
          stopped ? "not run (the session stopped at an earlier query: " + failure + ")" : failure;
      stopped = true;
      continue;
    }
    for (int run = 0; run < runs; ++run) {
      double ms = 0;
      for (int64_t s = 0; s < query_statements[q]; ++s) ms += times[at + 1 + s];
      at += 1 + query_statements[q];
      if (run >= warmups) cell.times_ms.push_back(ms);
    }
    // Where the last run ran: its last statement that reported devices (Q15's view is created
    // and dropped around its query).
    for (int64_t s = at - 1; s >= at - query_statements[q] && cell.devices.empty(); --s) {
      if (s < static_cast<int64_t>(devices.size())) cell.devices = devices[s];
      if (s < static_cast<int64_t>(peaks.size())) cell.peak_memory = peaks[s];
    }
    const size_t last_marker = (q + 1) * static_cast<size_t>(runs) - 1;
    Result<ResultRows> rows =
        ParseJsonLines(last_marker < segments.size() ? segments[last_marker] : std::string());
    if (last_marker >= segments.size() || !rows.ok()) {
      cell.times_ms.clear();
      cell.note = "unreadable result: " +
                  (rows.ok() ? std::string("no marker row") : rows.status().message());
      continue;
    }
    cell.rows = std::move(*rows);
    cell.median_ms = Median(cell.times_ms);
    cell.state = CellResult::State::kOk;
  }
  return cells;
}

Result<std::vector<CellResult>> MeasureInterleaved(const std::vector<CellSpec>& specs,
                                                   const std::vector<bool>& skip_in, int rounds,
                                                   int runs_per_process,
                                                   std::vector<CellResult> results) {
  results.resize(specs.size());
  std::vector<bool> skip = skip_in;
  skip.resize(specs.size(), false);
  for (int round = 0; round < std::max(1, rounds); ++round) {
    for (size_t i = 0; i < specs.size(); ++i) {
      if (skip[i]) continue;
      CellSpec spec = specs[i];
      spec.reps = std::max(1, runs_per_process);
      TANDEM_ASSIGN_OR_RAISE(CellResult run, MeasureCell(spec));
      if (run.state != CellResult::State::kOk) {
        results[i] = std::move(run);  // the failure is the cell's result; no more rounds
        skip[i] = true;
        continue;
      }
      CellResult& r = results[i];
      r.state = CellResult::State::kOk;
      r.times_ms.push_back(run.median_ms);  // the process's time: its runs' median
      r.wall_ms += run.wall_ms;
      r.rows = std::move(run.rows);
      r.peak_memory = run.peak_memory;
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

std::string Runs(int runs_per_process) {
  if (runs_per_process <= 1) return "one measured run";
  return std::to_string(runs_per_process) + " measured runs (their median is the process's time)";
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
