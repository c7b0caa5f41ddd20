// The TPC-H benchmark: see tpch_bench.h.
#include "tandem/bench/tpch_bench.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "tandem/bench/environment.h"
#include "tandem/bench/measure.h"
#include "tandem/bench/subprocess.h"
#include "tandem/common/text.h"

namespace tandem::bench {
namespace {

namespace fs = std::filesystem;

const char* const kTables[] = {"part",   "partsupp", "supplier", "customer",
                               "orders", "lineitem", "nation",   "region"};

std::string QueryName(int n) {
  char buf[8];
  std::snprintf(buf, sizeof(buf), "Q%02d", n);
  return buf;
}

// Times and answers of DuckDB from the Python harness, or why there are none.
constexpr const char* kDuckdbDriver = R"PY(
import json, os, sys
root, data, reps, threads, queries, sources = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], sys.argv[6].split(",")
sys.path.insert(0, os.path.join(root, "bench"))
sys.path.insert(0, os.path.join(root, "tests", "python"))
import duckdb
from random_queries import run_duckdb
from tpch_bench import TABLES
from tpch_gpu_bench import duck_times, query_text
def connect(in_memory):
    con = duckdb.connect()
    con.execute(f"SET threads = {threads}")
    con.execute("SET enable_progress_bar = false")  # its bar would go to stdout, into the JSON
    if in_memory:  # DuckDB's compressed in-memory tables: faster, and SF100 fits
        con.execute("ATTACH ':memory:' AS compressed (COMPRESS)")
        con.execute("USE compressed")
    for t in TABLES:
        what = "TABLE" if in_memory else "VIEW"
        con.execute(f"CREATE {what} {t} AS SELECT * FROM read_parquet('{data}/{t}/*.parquet')")
    return con
def plain(v):
    return v if v is None or isinstance(v, (bool, int, float, str)) else str(v)
out = {"version": duckdb.__version__, "queries": {}, "hot": {}}
for key, in_memory in [(k, m) for k, m, s in [("queries", False, "files"), ("hot", True, "hot")] if s in sources]:
    con = connect(in_memory)
    for n in [int(q) for q in queries.split(",")]:
        try:
            names, _, rows = run_duckdb(con, query_text(n))
            times = duck_times(con, n, reps)
            lines = "\n".join(json.dumps(dict(zip(names, [plain(v) for v in r]))) for r in rows)
            out[key][str(n)] = {"times": times, "rows": lines}
        except Exception as e:  # one query's failure is that cell's error
            out[key][str(n)] = {"error": str(e).splitlines()[0][:200]}
    con.close()
print(json.dumps(out))
)PY";

std::string Joined(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ",") + item;
  return out;
}

// The Python that runs DuckDB: TANDEM_BENCH_PYTHON (a path: it is not looked up in PATH),
// else the repository's .venv, else the system's.
std::string PythonOf(const std::string& root) {
  if (const char* chosen = std::getenv("TANDEM_BENCH_PYTHON"); chosen && *chosen) return chosen;
  std::error_code ec;
  const fs::path venv = fs::path(root) / ".venv" / "bin" / "python";
  if (fs::exists(venv, ec)) return venv.string();
  for (const char* dir : {"/usr/bin/python3", "/usr/local/bin/python3"}) {
    if (fs::exists(dir, ec)) return dir;
  }
  return "";
}

}  // namespace

Result<Report> RunTpchBench(const TpchBenchOptions& options) {
  const std::string root = FindRepositoryRoot(options.tandem);
  if (root.empty()) {
    return Status::Invalid(
        "cannot find the TPC-H queries (tests/tpch/queries) above the binary or the current "
        "folder: run from the repository");
  }
  std::vector<int> queries = options.queries;
  if (queries.empty()) {
    for (int n = 1; n <= 22; ++n) queries.push_back(n);
  }
  const std::string data = options.data_dir.empty()
                               ? (fs::path(root) / "data" / ("tpch-sf" + options.sf)).string()
                               : options.data_dir;
  std::error_code ec;
  if (!fs::is_directory(fs::path(data) / "lineitem", ec)) {
    if (options.log) options.log("generating TPC-H sf " + options.sf + " into " + data);
    TANDEM_ASSIGN_OR_RAISE(ProcessResult gen, RunProcess({options.tandem, "datagen", "tpch", "--sf",
                                                          options.sf, "--out", data}));
    if (gen.exit_code != 0) return Status::IOError("datagen tpch failed: " + LastLine(gen.err));
  }

  const Environment env = DescribeEnvironment(options.tandem);
  Report report;
  report.info.benchmark = "tpch";
  report.info.title = "Tandem TPC-H sf " + options.sf + ": cpu / gpu / auto";
  report.info.date = env.date;
  report.info.machine = env.machine;
  report.info.gpu = env.gpu;
  report.info.version = env.version;
  report.info.command = options.command_line;
  const int threads =
      options.threads > 0 ? options.threads : static_cast<int>(std::thread::hardware_concurrency());
  if (!env.gpu_usable) {
    report.info.notes.push_back(
        "This machine has no usable GPU: gpu cells are n/a and auto runs "
        "on the CPU.");
  }
  report.info.notes.push_back("Placement figures for auto: " + env.placement_figures + ".");
  report.info.notes.push_back(
      "Tandem cells from files: " +
      (options.reps == 1 ? std::string("one fresh `tandem sql` process")
                         : std::to_string(options.reps) + " fresh `tandem sql` processes") +
      " per query and mode, each " +
      (options.warmups == 1 ? std::string("one warm-up")
                            : std::to_string(options.warmups) + " warm-ups") +
      " and " + Runs(options.runs_per_process) +
      ", interleaved across modes (tables read from Parquet by every run). Hot cells: one process "
      "per mode caches every table once (CACHE TABLE: GPU memory for gpu/auto, host memory for "
      "cpu) and then runs each query: one warm-up, then " +
      (options.reps == 1 ? std::string("one run") : std::to_string(options.reps) + " runs") +
      ". Time = median of the measured runs' `--timing` statement times. Ratio = cpu time / "
      "mode time (same source); for DuckDB, Tandem's cpu time / DuckDB's time from the same "
      "source (duckdb files: views over the Parquet files; duckdb hot: the tables loaded into "
      "DuckDB's memory first, in an in-memory database with its compression, ATTACH ':memory:' "
      "(COMPRESS), with one warm-up and the same runs per query). In the summary, "
      "\"vs DuckDB\" is DuckDB's time / the series' time (above 1: faster than DuckDB).");
  report.info.notes.push_back("Data: " + data + " (tandem datagen tpch --sf " + options.sf + "); " +
                              std::to_string(threads) + " threads for every engine.");

  std::vector<std::string> args = {"--threads", std::to_string(threads)};
  for (const std::string& s : options.settings) {
    args.push_back("--conf");
    args.push_back(s);
  }
  if (!options.settings.empty()) {
    std::string joined;
    for (const std::string& s : options.settings) joined += (joined.empty() ? "" : ", ") + s;
    report.info.notes.push_back("Tandem settings: " + joined + ".");
  }
  for (const char* t : kTables) {
    args.push_back("--table");
    args.push_back(std::string(t) + "=" + (fs::path(data) / t).string());
  }
  std::vector<std::string> texts;
  for (int n : queries) {
    TANDEM_ASSIGN_OR_RAISE(
        std::string sql,
        ReadTextFile((fs::path(root) / "tests" / "tpch" / "queries" /
                      (std::string("q") + (n < 10 ? "0" : "") + std::to_string(n) + ".sql"))
                         .string()));
    texts.push_back(std::move(sql));
  }
  // The cell of one mode: its spec; gpu cells without a usable GPU are not run.
  auto spec_of = [&](const std::string& mode, const std::string& sql) {
    CellSpec spec;
    spec.tandem = options.tandem;
    spec.mode = mode;
    spec.args = args;
    spec.query = sql;
    spec.reps = options.reps;
    spec.timeout_s = options.timeout_s;
    return spec;
  };
  auto not_available = [&](const std::string& mode) { return mode == "gpu" && !env.gpu_usable; };
  // Hot: one process per mode caches the tables once, then runs every query (one warm-up and
  // the measured runs each), as a `tandem sql -f` script over cached tables does.
  std::vector<std::vector<CellResult>> hot(options.modes.size());
  const bool want_hot =
      std::find(options.sources.begin(), options.sources.end(), "hot") != options.sources.end();
  for (size_t m = 0; want_hot && m < options.modes.size(); ++m) {
    if (not_available(options.modes[m])) continue;
    CellSpec spec = spec_of(options.modes[m], "");
    for (const char* t : kTables) spec.setup.push_back(std::string("CACHE TABLE ") + t);
    if (options.log) options.log("hot " + options.modes[m] + ": one process for every query");
    TANDEM_ASSIGN_OR_RAISE(hot[m], MeasureSession(spec, texts));
    // A table CACHE TABLE left in its files makes "hot" partly a figure from files: say so.
    if (!hot[m].empty()) {
      for (const std::string& w : hot[m][0].warnings) {
        report.info.notes.push_back("hot " + options.modes[m] + ": " + w + ".");
        if (options.log) options.log("hot " + options.modes[m] + ": " + w);
      }
    }
  }
  // The cpu answers DuckDB's are checked against: from files, else (hot only) from memory.
  std::map<int, ResultRows> cpu_files_answer, cpu_hot_answer;
  for (size_t qi = 0; qi < queries.size(); ++qi) {
    const int n = queries[qi];
    const std::string& sql = texts[qi];
    for (const std::string& source : options.sources) {
      const size_t first = report.cells.size();
      std::vector<ResultRows> answers;
      std::vector<CellSpec> specs;
      std::vector<bool> skip(options.modes.size(), false);
      std::vector<CellResult> results(options.modes.size());
      for (size_t m = 0; m < options.modes.size(); ++m) {
        skip[m] = not_available(options.modes[m]);
        if (skip[m]) results[m].state = CellResult::State::kNotAvailable;
        if (skip[m]) results[m].note = "no usable GPU";
        specs.push_back(spec_of(options.modes[m], sql));
        specs.back().warmups = options.warmups;
      }
      if (source == "hot") {
        for (size_t m = 0; m < options.modes.size(); ++m) {
          if (!skip[m]) results[m] = std::move(hot[m][qi]);
        }
      } else {
        // From files: interleaved fresh processes (each --warmups warm-ups, then --runs measured
        // runs), as in the fallback bench.
        TANDEM_ASSIGN_OR_RAISE(
            results, MeasureInterleaved(specs, skip, options.reps, options.runs_per_process,
                                        std::move(results)));
      }
      for (size_t m = 0; m < options.modes.size(); ++m) {
        CellResult& result = results[m];
        ReportCell cell;
        cell.group = QueryName(n);
        cell.scale = "sf" + options.sf;
        cell.engine = source == "hot" ? "tandem-hot" : "tandem";
        cell.mode = options.modes[m];
        cell.check = "not checked";
        cell.status = CellStatus(result);
        cell.times_ms = result.times_ms;
        cell.median_ms = result.median_ms;
        cell.devices = result.devices;
        cell.peak_memory = result.peak_memory;
        if (options.log) {
          options.log(cell.group + " " + source + " " + cell.mode + ": " +
                      (cell.ok() ? std::to_string(cell.median_ms) + " ms" : cell.status));
        }
        answers.push_back(std::move(result.rows));
        report.cells.push_back(cell);
      }
      int reference = -1;
      for (size_t m = 0; m < options.modes.size(); ++m) {
        if (report.cells[first + m].ok() && (reference < 0 || options.modes[m] == "cpu")) {
          reference = static_cast<int>(m);
          if (options.modes[m] == "cpu") break;
        }
      }
      if (reference < 0) continue;
      if (source == "files" && options.modes[reference] == "cpu") {
        cpu_files_answer[n] = answers[reference];
      } else if (options.modes[reference] == "cpu") {
        cpu_hot_answer[n] = answers[reference];
      }
      for (size_t m = 0; m < options.modes.size(); ++m) {
        ReportCell& cell = report.cells[first + m];
        if (!cell.ok()) continue;
        if (static_cast<int>(m) == reference) {
          cell.check = "reference";
          // The hot reference is itself checked against the cpu answer from files.
          auto files = cpu_files_answer.find(n);
          if (source == "hot" && files != cpu_files_answer.end()) {
            const std::string diff = CompareResults(files->second, answers[m]);
            cell.check = diff.empty() ? "reference (equals files)" : "DIFF vs files: " + diff;
          }
          continue;
        }
        const std::string diff = CompareResults(answers[reference], answers[m]);
        cell.check = diff.empty() ? "ok" : "DIFF: " + diff;
      }
    }
  }

  // DuckDB through the Python harness.
  std::string duck_note;
  const std::string python = PythonOf(root);
  if (options.duckdb != "off") {
    std::string joined;
    for (int n : queries) joined += (joined.empty() ? "" : ",") + std::to_string(n);
    // One DuckDB process runs every query of every source: the per-cell limit applies to each.
    const double duck_timeout_s =
        options.timeout_s * static_cast<double>(queries.size() * options.sources.size());
    Result<ProcessResult> proc =
        python.empty()
            ? Result<ProcessResult>(Status::Invalid("no python found"))
            : RunProcess({python, "-c", kDuckdbDriver, root, data, std::to_string(options.reps),
                          std::to_string(threads), joined, Joined(options.sources)},
                         duck_timeout_s);
    nlohmann::json out;
    if (!proc.ok()) {
      duck_note = proc.status().message();
    } else if (proc->timed_out) {
      duck_note = "timed out after " + std::to_string(static_cast<int64_t>(duck_timeout_s)) + " s";
    } else if (proc->exit_code != 0) {
      duck_note = LastLine(proc->err);
      if (duck_note.empty()) duck_note = "exit code " + std::to_string(proc->exit_code);
    } else {
      out = nlohmann::json::parse(proc->out, nullptr, false);
      if (out.is_discarded() || !out.contains("queries")) duck_note = "unreadable DuckDB output";
    }
    if (!duck_note.empty()) {
      if (options.duckdb == "on") return Status::Invalid("DuckDB reference failed: " + duck_note);
      report.info.notes.push_back("DuckDB: not measured (" + duck_note + ").");
    } else {
      report.info.version += "; DuckDB " + out.value("version", std::string("?"));
      // From files (views over the Parquet files), and with the tables in DuckDB's memory when
      // Tandem's hot series runs.
      for (const char* mode : {"files", "hot"}) {
        const nlohmann::json& series = out[mode == std::string("files") ? "queries" : "hot"];
        for (int n : queries) {
          if (!series.contains(std::to_string(n))) continue;
          ReportCell cell;
          cell.group = QueryName(n);
          cell.scale = "sf" + options.sf;
          cell.engine = "duckdb";
          cell.mode = mode;
          cell.check = "not checked";
          const nlohmann::json& q = series[std::to_string(n)];
          if (q.contains("error")) {
            cell.status = "error: " + q["error"].get<std::string>();
          } else {
            cell.status = "ok";
            for (const auto& t : q["times"]) cell.times_ms.push_back(t.get<double>());
            cell.median_ms = Median(cell.times_ms);
            Result<ResultRows> rows = ParseJsonLines(q["rows"].get<std::string>());
            const ResultRows* cpu_answer = nullptr;
            if (auto it = cpu_files_answer.find(n); it != cpu_files_answer.end()) {
              cpu_answer = &it->second;
            } else if (auto hot_it = cpu_hot_answer.find(n); hot_it != cpu_hot_answer.end()) {
              cpu_answer = &hot_it->second;
            }
            if (rows.ok() && cpu_answer != nullptr) {
              const std::string diff = CompareResults(*rows, *cpu_answer);
              cell.check = diff.empty() ? "ok" : "DIFF: " + diff;
            }
          }
          report.cells.push_back(cell);
        }
      }
    }
  }
  FillRatios(&report);
  return report;
}

}  // namespace tandem::bench
