// `tandem sql`: runs SQL text (an argument or a file of several statements, all in one session so
// views and tables persist between them) and prints each result as an aligned table, CSV or JSON
// lines, or writes the last one to a Parquet or CSV file (atomically). A query that runs longer
// than a second shows a running indicator on stderr when stderr is a terminal. Settings come
// from --conf key=value (common/config.h) and SET; placement notices go to stderr.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <iterator>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "tandem/cli/arg_reader.h"
#include "tandem/cli/command.h"
#include "tandem/cli/session_args.h"
#include "tandem/common/out_of_memory.h"
#include "tandem/common/progress_bar.h"
#include "tandem/common/query_progress.h"
#include "tandem/common/text.h"
#include "tandem/format/table_printer.h"
#include "tandem/format/value_format.h"
#include "tandem/gpu/memory_config.h"
#include "tandem/gpu/runtime.h"
#include "tandem/io/csv/csv.h"
#include "tandem/io/parquet/writer.h"
#include "tandem/memory/host_memory.h"
#include "tandem/sql/parser.h"
#include "tandem/sql/session.h"

namespace tandem::cli {
namespace {

constexpr const char* kUsage =
    "sql \"QUERY\" | -f FILE.sql [--table NAME=PATH]... [--catalog FILE] "
    "[--format table|csv|jsonl] [--output FILE.parquet|FILE.csv] [--ansi] [--threads N] "
    "[--table-dir DIR] [--timing] [--conf KEY=VALUE]... [--udf LIB.so]...";

int UsageError(const std::string& message) {
  std::fprintf(stderr, "tandem: %s\nusage: tandem %s\n", message.c_str(), kUsage);
  return 2;
}

struct SqlArgs {
  std::optional<std::string> query;
  std::optional<std::string> file;  // "-" is stdin
  SessionArgs session;              // --table, --catalog, --udf, --conf
  std::string format = "table";
  std::string output;
  bool ansi = false;
  int threads = 0;
  std::string table_dir = ".";
  bool timing = false;
};

// Returns 0 when parsed, else the exit code (2) after printing the usage error.
int ParseArgs(const std::vector<std::string>& args, SqlArgs* out) {
  ArgReader reader(args);
  while (reader.Next()) {
    const std::string& arg = reader.arg();
    const bool has_value = reader.has_inline_value();
    std::string value = reader.inline_value();
    auto take_value = [&]() -> bool { return reader.TakeValue(&value); };
    if (arg == "-f" || arg == "--file") {
      if (!take_value()) return UsageError(arg + " needs a file name");
      if (out->file) return UsageError("more than one -f");
      out->file = value;
    } else if (std::string error; TakeSessionOption(arg, reader, &out->session, &error)) {
      if (!error.empty()) return UsageError(error);
    } else if (arg == "--format") {
      if (!take_value()) return UsageError("--format needs a value");
      if (value != "table" && value != "csv" && value != "jsonl") {
        return UsageError("unknown format '" + value + "' (table, csv or jsonl)");
      }
      out->format = value;
    } else if (arg == "--output" || arg == "-o") {
      if (!take_value()) return UsageError(arg + " needs a file name");
      if (!EndsWithIgnoringCase(value, ".parquet") && !EndsWithIgnoringCase(value, ".csv")) {
        return UsageError("--output must name a .parquet or .csv file, got '" + value + "'");
      }
      out->output = value;
    } else if (arg == "--ansi") {
      if (has_value) return UsageError("--ansi takes no value");
      out->ansi = true;
    } else if (arg == "--timing") {
      if (has_value) return UsageError("--timing takes no value");
      out->timing = true;
    } else if (arg == "--threads") {
      if (!take_value()) return UsageError("--threads needs a value");
      char* end = nullptr;
      errno = 0;
      const long n = std::strtol(value.c_str(), &end, 10);
      if (value.empty() || *end != '\0' || errno != 0 || n < 0 || n > 4096) {
        return UsageError("--threads needs an integer from 0 (all cores) to 4096, got '" + value +
                          "'");
      }
      out->threads = static_cast<int>(n);
    } else if (arg == "--table-dir") {
      if (!take_value()) return UsageError("--table-dir needs a directory");
      out->table_dir = value;
    } else if (reader.is_option()) {
      return UsageError("unknown option '" + arg + "'");
    } else if (!out->query) {
      out->query = arg;
    } else {
      return UsageError("more than one query argument (quote the query, or use -f FILE)");
    }
  }
  if (out->query && out->file) return UsageError("give either a query or -f FILE, not both");
  if (!out->query && !out->file) return UsageError("missing query (or -f FILE)");
  return 0;
}

Result<std::string> ReadScript(const std::string& path) {
  std::ostringstream text;
  if (path == "-") {
    text << std::cin.rdbuf();
    return WithoutByteOrderMark(text.str());
  }
  return ReadTextFile(path);
}

// The script with everything but one statement neutralized: text before it becomes one block
// comment of the same bytes (newlines and multi-byte characters kept, so line:column positions
// stay those of the script) and text after it is cut.
std::string StatementOnly(const std::string& script, const sql::ParsedStatement& stmt) {
  const size_t begin =
      std::min<size_t>(static_cast<size_t>(std::max(stmt.location, 0)), script.size());
  const size_t end =
      stmt.length > 0 ? std::min<size_t>(begin + stmt.length, script.size()) : script.size();
  std::string text = script.substr(0, end);
  auto plain = [&](size_t i) {
    return static_cast<unsigned char>(text[i]) < 0x80 && text[i] != '\n';
  };
  // The comment opens at the first two plain bytes and closes at the last two before `begin`;
  // only newlines may lie outside it.
  size_t open = 0;
  while (open + 1 < begin && !(plain(open) && plain(open + 1))) {
    if (text[open] != '\n') break;
    ++open;
  }
  size_t close = begin;  // one past the closing "*/"
  while (close >= 2 && close > open + 3 && !(plain(close - 1) && plain(close - 2))) {
    if (text[close - 1] != '\n') break;
    --close;
  }
  if (begin >= 4 && close > open + 3 && close >= 2 && plain(open) && plain(open + 1) &&
      plain(close - 1) && plain(close - 2)) {
    for (size_t i = open + 2; i + 2 < close; ++i) {
      if (text[i] == '*' || text[i] == '/') text[i] = ' ';
    }
    text[open] = '/';
    text[open + 1] = '*';
    text[close - 2] = '*';
    text[close - 1] = '/';
  } else {
    for (size_t i = 0; i < begin; ++i) {
      if (text[i] != '\n') text[i] = ' ';
    }
  }
  return text;
}

// Runs one statement on a worker thread; after a second, if stderr is a terminal, shows a
// progress bar (values scanned of those the plan will scan, common/query_progress.h) and the
// elapsed time until it finishes.
Result<sql::StatementResult> RunWithIndicator(sql::Session& session, const std::string& text,
                                              const std::string& label) {
  std::mutex mu;
  std::condition_variable cv;
  std::optional<Result<sql::StatementResult>> result;
  std::thread worker([&] {
    Result<sql::StatementResult> r = Status::Internal("statement did not run");
    try {
      r = session.Execute(text);
    } catch (const std::bad_alloc& e) {
      r = Status::OutOfMemory(OutOfMemoryText(e));
    } catch (const std::exception& e) {
      r = Status::Internal(e.what());
    }
    std::lock_guard<std::mutex> lock(mu);
    result.emplace(std::move(r));
    cv.notify_all();
  });
  const auto start = std::chrono::steady_clock::now();
  {
    std::unique_lock<std::mutex> lock(mu);
    const bool finished =
        cv.wait_for(lock, std::chrono::seconds(1), [&] { return result.has_value(); });
    if (!finished && ProgressBar::StderrIsTerminal()) {
      while (
          !cv.wait_for(lock, std::chrono::milliseconds(200), [&] { return result.has_value(); })) {
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        const query_progress::Snapshot p = query_progress::Get();
        if (p.planned > 0) {
          // Scanned values against the plan's estimate; below 100% until the statement ends,
          // since operators above the scans still run after the last value is decoded.
          const int64_t shown = std::min(p.done, p.planned - p.planned / 100);
          const std::string bar = ProgressBar::Render(
              label, shown, p.planned, static_cast<double>(p.done) / seconds, "values");
          std::fprintf(stderr, "\r%s  %.1f s\x1b[K", bar.c_str(), seconds);
        } else {
          std::fprintf(stderr, "\r%s  running  %.1f s\x1b[K", label.c_str(), seconds);
        }
        std::fflush(stderr);
      }
      std::fprintf(stderr, "\r\x1b[K");
      std::fflush(stderr);
    }
  }
  worker.join();
  return std::move(*result);
}

// The first words of a statement, for the running indicator.
std::string StatementLabel(const std::string& text) {
  std::string label;
  for (char c : text) {
    if (label.size() >= 40) {
      label += "...";
      break;
    }
    const bool space = std::isspace(static_cast<unsigned char>(c));
    if (space && (label.empty() || label.back() == ' ')) continue;
    label.push_back(space ? ' ' : c);
  }
  return label;
}

// Calls `each` with every batch of a result's rows: the table's, or, for a result larger than
// memory, the batches read back one at a time from the spill file its rows went to.
Status ForEachBatch(const sql::StatementResult& result,
                    const std::function<void(const Batch&)>& each) {
  if (!result.spooled) {
    for (const BatchPtr& batch : result.table.batches) each(*batch);
    return Status::OK();
  }
  for (int64_t i = 0; i < result.spooled->num_blocks(); ++i) {
    TANDEM_ASSIGN_OR_RAISE(BatchPtr batch, result.spooled->ReadBlock(i, result.table.schema));
    each(*batch);
  }
  return Status::OK();
}

Status PrintTable(const sql::StatementResult& result) {
  format::TablePrinter printer(stdout, result.table.schema);
  TANDEM_RETURN_NOT_OK(
      ForEachBatch(result, [&](const Batch& batch) { printer.AddRows(batch, 0, batch.num_rows); }));
  printer.Finish();
  return Status::OK();
}

Status PrintCsv(const sql::StatementResult& result) {
  csv::CsvWriteOptions options;
  std::string out;
  csv::AppendCsvHeader(result.table.schema, options, &out);
  constexpr int64_t kStep = 4096;
  TANDEM_RETURN_NOT_OK(ForEachBatch(result, [&](const Batch& batch) {
    for (int64_t b = 0; b < batch.num_rows; b += kStep) {
      csv::AppendCsvRows(batch, b, std::min(batch.num_rows, b + kStep), options, &out);
      std::fwrite(out.data(), 1, out.size(), stdout);
      out.clear();
    }
  }));
  std::fwrite(out.data(), 1, out.size(), stdout);
  return Status::OK();
}

Status PrintJsonLines(const sql::StatementResult& result) {
  const Schema& schema = result.table.schema;
  std::vector<std::string> keys;
  for (int i = 0; i < schema.num_fields(); ++i) {
    std::string key = i == 0 ? "{" : ",";
    format::AppendJsonString(schema.field(i).name, &key);
    key.push_back(':');
    keys.push_back(std::move(key));
  }
  std::string out;
  TANDEM_RETURN_NOT_OK(ForEachBatch(result, [&](const Batch& batch) {
    for (int64_t row = 0; row < batch.num_rows; ++row) {
      if (keys.empty()) out.push_back('{');
      for (size_t c = 0; c < keys.size(); ++c) {
        out.append(keys[c]);
        format::AppendJson(*batch.column(static_cast<int>(c)), row, &out);
      }
      out.append("}\n");
      if (out.size() >= (1 << 16)) {
        std::fwrite(out.data(), 1, out.size(), stdout);
        out.clear();
      }
    }
  }));
  std::fwrite(out.data(), 1, out.size(), stdout);
  return Status::OK();
}

// EXPLAIN output: the plan lines as they are (a table would truncate long lines).
void PrintPlan(const Table& table) {
  for (const BatchPtr& batch : table.batches) {
    for (int64_t row = 0; row < batch->num_rows; ++row) {
      std::string line;
      if (!batch->column(0)->IsNull(row)) format::AppendText(*batch->column(0), row, &line);
      line.push_back('\n');
      std::fwrite(line.data(), 1, line.size(), stdout);
    }
  }
}

Status WriteOutput(const std::string& path, const Table& table) {
  if (EndsWithIgnoringCase(path, ".csv")) return csv::WriteCsv(path, table);
  return parquet::WriteParquet(path, table);
}

int RunSql(const std::vector<std::string>& argv) {
  SqlArgs args;
  if (int code = ParseArgs(argv, &args); code != 0) return code;

  sql::SessionOptions options;
  options.config = args.session.config;
  if (args.ansi) (void)options.config.Set(config_keys::kAnsi, "true");
  if (args.threads > 0) {
    (void)options.config.Set(config_keys::kThreads, std::to_string(args.threads));
  }
  options.table_dir = args.table_dir;
  options.notice = [](const std::string& text) {
    std::fflush(stdout);
    std::fprintf(stderr, "%s\n", text.c_str());
  };
  options.notify_cpu_fallback = ::isatty(STDERR_FILENO) != 0;
  sql::Session session(options);
  // A run that may use the GPU starts CUDA now, in the background, while statements are parsed,
  // planned and (on the CPU) run; the planner prices only the start-up still left.
  if (options.config.Get(config_keys::kDevice) != "cpu") {
    gpu::StartRuntimeInBackground(gpu::DeviceMemoryConfigFrom(options.config));
  }
  if (Status st = ApplySessionArgs(args.session, session); !st.ok()) return Fail(st.ToString());
  // Rows are printed a batch at a time: a result larger than memory is read back from disk.
  session.SpoolLargeResults(true);

  std::string script;
  if (args.file) {
    Result<std::string> text = ReadScript(*args.file);
    if (!text.ok()) return Fail(text.status().ToString());
    script = std::move(*text);
  } else {
    script = *args.query;
  }
  Result<std::vector<sql::ParsedStatement>> statements = sql::SplitScript(script);
  if (!statements.ok()) return Fail(statements.status().ToString());
  if (statements->empty()) return Fail("no SQL statement to run");

  static char stdout_buffer[1 << 16];
  std::setvbuf(stdout, stdout_buffer, _IOFBF, sizeof(stdout_buffer));
  bool printed_any = false;
  for (size_t i = 0; i < statements->size(); ++i) {
    const sql::ParsedStatement& stmt = (*statements)[i];
    const std::string text = StatementOnly(script, stmt);
    // --timing reports what the process held at most during each statement.
    if (args.timing) host_memory::ResetResidentPeak();
    const bool last_statement = i + 1 == statements->size();
    // A query's rows go to the --output file as they are made (a result larger than memory
    // reaches its file); other statements' rows are written below.
    if (last_statement && !args.output.empty()) session.WriteNextQueryTo(args.output);
    Result<sql::StatementResult> result = RunWithIndicator(
        session, text,
        StatementLabel(script.substr(std::min<size_t>(std::max(stmt.location, 0), script.size()))));
    if (!result.ok()) {
      std::fflush(stdout);
      return Fail(result.status().ToString());
    }
    const bool last = i + 1 == statements->size();
    const bool is_explain = stmt.tree.is_object() && stmt.tree.contains("ExplainStmt");
    // Timing goes to stderr after the statement's output, so the two interleave in order.
    struct TimingLine {
      bool on;
      double millis;
      std::string devices;  // queries: where the plan ran
      int64_t peak_host, peak_device, spilled;
      int64_t gpu_admitted;  // the estimated peak the query reserved on the GPU; -1: none
      int64_t resident;      // the process's resident set at most (all its memory, counted or not)
      ~TimingLine() {
        std::fflush(stdout);
        if (on && !devices.empty()) std::fprintf(stderr, "Devices: %s\n", devices.c_str());
        if (on && peak_host >= 0) {
          std::string admitted;
          if (gpu_admitted >= 0) admitted = " (est. " + FormatByteSize(gpu_admitted) + ")";
          std::string process;
          if (resident > 0) process = ", process resident " + FormatByteSize(resident);
          std::fprintf(stderr, "Peak memory: host %s, GPU %s%s%s\n",
                       FormatByteSize(peak_host).c_str(),
                       FormatByteSize(std::max<int64_t>(0, peak_device)).c_str(), admitted.c_str(),
                       process.c_str());
        }
        if (on && spilled > 0) {
          std::fprintf(stderr, "Spilled: %s to tandem.spill.dir\n",
                       FormatByteSize(spilled).c_str());
        }
        if (on) std::fprintf(stderr, "Time: %.3f ms\n", millis);
      }
    } timing_line{args.timing,
                  result->millis,
                  result->devices,
                  result->peak_host_bytes,
                  result->peak_device_bytes,
                  result->spilled_bytes,
                  result->gpu_admitted_bytes,
                  args.timing ? host_memory::ResidentPeak() : 0};
    if (last && !args.output.empty()) {
      if (result->kind != sql::StatementResult::Kind::kRows) {
        std::fflush(stdout);
        return Fail("--output needs the last statement to return rows");
      }
      if (result->rows_written >= 0) continue;  // the query wrote its rows there itself
      if (Status st = WriteOutput(args.output, result->table); !st.ok()) {
        std::fflush(stdout);
        return Fail(st.ToString());
      }
      continue;
    }
    if (result->kind == sql::StatementResult::Kind::kMessage) {
      if (args.format == "table") {
        std::fprintf(stdout, "%s%s\n", printed_any ? "\n" : "", result->message.c_str());
        printed_any = true;
      } else if (result->warning) {  // csv and jsonl keep stdout for rows
        std::fprintf(stderr, "tandem: warning: %s\n", result->message.c_str());
      }
      continue;
    }
    Status printed;
    if (args.format == "csv") {
      printed = PrintCsv(*result);
    } else if (args.format == "jsonl") {
      printed = PrintJsonLines(*result);
    } else {
      if (printed_any) std::fputc('\n', stdout);
      if (is_explain) {
        PrintPlan(result->table);
      } else {
        printed = PrintTable(*result);
      }
      printed_any = true;
    }
    if (!printed.ok()) {
      std::fflush(stdout);
      return Fail(printed.ToString());
    }
    if (std::fflush(stdout) != 0) {
      return Fail(std::string("writing standard output failed: ") + std::strerror(errno));
    }
  }
  return 0;
}

}  // namespace

TANDEM_REGISTER_COMMAND(sql, "sql", kUsage, RunSql);

}  // namespace tandem::cli
