// `tandem datagen tpch --sf N --out DIR [--format parquet|csv] [--threads N]`: generates the eight
// TPC-H tables into DIR/<table>/part-NNNNN.<ext>, in parallel, identical for any thread count.
// Each file is written atomically by its writer (temporary file renamed on Close); after a
// successful run, part files of an earlier run that this run did not write are removed, so every
// table folder holds exactly one consistent table.
// `tandem datagen fallback --rows N --out DIR [--threads N] [--seed N]`: the fallback-matrix
// benchmark's fact table and customer dimension (benchdata/fallback_data.h), Zstandard Parquet.
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <set>
#include <string>
#include <system_error>
#include <vector>

#include "tandem/benchdata/fallback_data.h"
#include "tandem/cli/arg_reader.h"
#include "tandem/cli/command.h"
#include "tandem/common/progress_bar.h"
#include "tandem/io/csv/csv.h"
#include "tandem/io/parquet/writer.h"
#include "tandem/tpch/datagen.h"

namespace tandem::cli {
namespace {

namespace fs = std::filesystem;
using tpch::TpchTable;

constexpr const char* kUsage =
    "datagen tpch --sf N --out DIR [--format parquet|csv] [--threads N] | "
    "datagen fallback --rows N --out DIR [--threads N] [--seed N]";

struct DatagenArgs {
  double scale_factor = 0;
  std::string out;
  std::string format = "parquet";
  int threads = 0;
};

bool ParseDouble(const std::string& text, double* out) {
  if (text.empty()) return false;
  char* end = nullptr;
  errno = 0;
  *out = std::strtod(text.c_str(), &end);
  return errno == 0 && end == text.c_str() + text.size();
}

bool ParseInt(const std::string& text, int64_t* out) {
  if (text.empty()) return false;
  char* end = nullptr;
  errno = 0;
  *out = std::strtoll(text.c_str(), &end, 10);
  return errno == 0 && end == text.c_str() + text.size();
}

// Parses the arguments after "datagen"; on error returns the one-line message.
std::string ParseArgs(const std::vector<std::string>& args, DatagenArgs* out) {
  if (args.empty() || args[0] != "tpch") {
    return args.empty()
               ? "datagen needs a benchmark name (tpch or fallback); usage: tandem " +
                     std::string(kUsage)
               : "datagen: unknown benchmark '" + args[0] + "' (supported: tpch, fallback)";
  }
  bool have_sf = false;
  for (size_t i = 1; i < args.size(); ++i) {
    std::string name = args[i], value;
    const size_t eq = name.find('=');
    if (name.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    } else if (name == "--sf" || name == "--out" || name == "--format" || name == "--threads") {
      if (i + 1 >= args.size()) return "datagen: " + name + " needs a value";
      value = args[++i];
    } else {
      return "datagen: unknown argument '" + name + "'; usage: tandem " + kUsage;
    }
    if (name == "--sf") {
      if (!ParseDouble(value, &out->scale_factor) || !(out->scale_factor >= 0.01) ||
          out->scale_factor > 1000) {
        return "datagen: --sf must be a number from 0.01 to 1000, got '" + value + "'";
      }
      have_sf = true;
    } else if (name == "--out") {
      if (value.empty()) return "datagen: --out needs a directory";
      out->out = value;
    } else if (name == "--format") {
      if (value != "parquet" && value != "csv") {
        return "datagen: unknown --format '" + value + "' (use parquet or csv)";
      }
      out->format = value;
    } else if (name == "--threads") {
      int64_t n = 0;
      if (!ParseInt(value, &n) || n < 1 || n > 4096) {
        return "datagen: --threads must be an integer from 1 to 4096, got '" + value + "'";
      }
      out->threads = static_cast<int>(n);
    } else {
      return "datagen: unknown argument '" + name + "'; usage: tandem " + kUsage;
    }
  }
  if (!have_sf) return "datagen: --sf is required; usage: tandem " + std::string(kUsage);
  if (out->out.empty()) return "datagen: --out is required; usage: tandem " + std::string(kUsage);
  return "";
}

std::string PartFileName(int64_t index, const std::string& ext) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "part-%05lld.", static_cast<long long>(index));
  return buf + ext;
}

class ParquetSink : public tpch::TpchFileSink {
 public:
  explicit ParquetSink(std::unique_ptr<parquet::ParquetFileWriter> w) : writer_(std::move(w)) {}
  Status Write(const Batch& batch) override { return writer_->WriteBatch(batch); }
  Status Close() override { return writer_->Close(); }

 private:
  std::unique_ptr<parquet::ParquetFileWriter> writer_;
};

class CsvSink : public tpch::TpchFileSink {
 public:
  explicit CsvSink(std::unique_ptr<csv::CsvFileWriter> w) : writer_(std::move(w)) {}
  Status Write(const Batch& batch) override { return writer_->WriteBatch(batch); }
  Status Close() override { return writer_->Close(); }

 private:
  std::unique_ptr<csv::CsvFileWriter> writer_;
};

Result<std::unique_ptr<tpch::TpchFileSink>> OpenSink(const DatagenArgs& args, TpchTable table,
                                                     int64_t file_index) {
  const std::string path =
      args.out + "/" + tpch::TpchTableName(table) + "/" + PartFileName(file_index, args.format);
  if (args.format == "csv") {
    TANDEM_ASSIGN_OR_RAISE(auto writer, csv::CsvFileWriter::Open(path, tpch::TpchSchema(table)));
    return std::unique_ptr<tpch::TpchFileSink>(new CsvSink(std::move(writer)));
  }
  TANDEM_ASSIGN_OR_RAISE(auto writer,
                         parquet::ParquetFileWriter::Open(path, tpch::TpchSchema(table)));
  return std::unique_ptr<tpch::TpchFileSink>(new ParquetSink(std::move(writer)));
}

// Removes part-NNNNN.parquet / .csv files this run did not write (left by an earlier run).
void RemoveStaleParts(const fs::path& dir, const std::set<std::string>& written) {
  static const std::regex kPartName(R"(part-[0-9]{5,}\.(parquet|csv))");
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (entry.is_regular_file(ec) && std::regex_match(name, kPartName) && !written.count(name)) {
      fs::remove(entry.path(), ec);
    }
  }
}

// `datagen fallback ...`: the fallback benchmark's tables.
int RunDatagenFallback(const std::vector<std::string>& argv) {
  benchdata::FallbackDataOptions options;
  std::string out;
  bool have_rows = false;
  ArgReader reader(argv);
  reader.Next();  // "fallback"
  while (reader.Next()) {
    const std::string arg = reader.arg();
    std::string value;
    int64_t n = 0;
    if (arg != "--rows" && arg != "--out" && arg != "--threads" && arg != "--seed") {
      return Fail("datagen: unknown argument '" + arg + "'; usage: tandem " + kUsage);
    }
    if (!reader.TakeValue(&value)) return Fail("datagen: " + arg + " needs a value");
    if (arg == "--out") {
      if (value.empty()) return Fail("datagen: --out needs a directory");
      out = value;
    } else if (!ParseInt(value, &n) || n < (arg == "--threads" ? 1 : 0) ||
               (arg == "--threads" && n > 4096) || (arg == "--rows" && n > (int64_t{1} << 40))) {
      return Fail("datagen: " + arg + " needs a non-negative integer" +
                  (arg == "--threads" ? " from 1 to 4096" : "") + ", got '" + value + "'");
    } else if (arg == "--rows") {
      options.rows = n;
      have_rows = true;
    } else if (arg == "--threads") {
      options.threads = static_cast<int>(n);
    } else {
      options.seed = static_cast<uint64_t>(n);
    }
  }
  if (!have_rows) return Fail("datagen: --rows is required; usage: tandem " + std::string(kUsage));
  if (out.empty()) return Fail("datagen: --out is required; usage: tandem " + std::string(kUsage));
  ProgressBar progress("fallback", options.rows + benchdata::kFallbackCustomers);
  options.progress = &progress;
  const auto start = std::chrono::steady_clock::now();
  Result<benchdata::FallbackDataResult> result = benchdata::WriteFallbackData(out, options);
  progress.Finish();
  if (!result.ok()) return Fail(result.status().ToString());
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("fact      %12lld rows  %4lld file(s)\ncustomers %12lld rows     1 file(s)\n",
              static_cast<long long>(result->fact_rows), static_cast<long long>(result->fact_files),
              static_cast<long long>(result->customer_rows));
  std::printf("fallback: %lld fact rows as zstd parquet in %s/ in %.1f s\n",
              static_cast<long long>(result->fact_rows), out.c_str(), seconds);
  return 0;
}

int RunDatagen(const std::vector<std::string>& argv) {
  if (!argv.empty() && argv[0] == "fallback") return RunDatagenFallback(argv);
  DatagenArgs args;
  if (std::string error = ParseArgs(argv, &args); !error.empty()) return Fail(error);

  for (TpchTable table : tpch::kAllTpchTables) {
    const fs::path dir = fs::path(args.out) / tpch::TpchTableName(table);
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec || !fs::is_directory(dir)) {
      return Fail("cannot create output directory '" + dir.string() +
                  "': " + (ec ? ec.message() : std::string("not a directory")));
    }
  }

  auto sizes = tpch::TpchSizes::ForScaleFactor(args.scale_factor);
  if (!sizes.ok()) return Fail(sizes.status().ToString());
  int64_t expected_rows = 0;
  for (TpchTable table : tpch::kAllTpchTables) expected_rows += sizes->ExpectedRows(table);

  char label[48];
  std::snprintf(label, sizeof(label), "tpch sf=%g", args.scale_factor);
  ProgressBar progress(label, expected_rows);
  tpch::TpchDatagenOptions options;
  options.scale_factor = args.scale_factor;
  options.threads = args.threads;
  options.progress = &progress;
  const auto start = std::chrono::steady_clock::now();
  auto result = tpch::GenerateTpch(options, [&args](TpchTable table, int64_t file_index) {
    return OpenSink(args, table, file_index);
  });
  progress.Finish();
  if (!result.ok()) return Fail(result.status().ToString());
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  for (TpchTable table : tpch::kAllTpchTables) {
    std::set<std::string> written;
    const int64_t files = result->files[static_cast<int>(table)];
    for (int64_t f = 0; f < files; ++f) written.insert(PartFileName(f, args.format));
    RemoveStaleParts(fs::path(args.out) / tpch::TpchTableName(table), written);
  }
  int64_t total = 0;
  for (TpchTable table : tpch::kAllTpchTables) {
    const int t = static_cast<int>(table);
    total += result->rows[t];
    std::printf("%-9s %12lld rows  %4lld file(s)\n", tpch::TpchTableName(table),
                static_cast<long long>(result->rows[t]), static_cast<long long>(result->files[t]));
  }
  std::printf("tpch sf=%g: %lld rows as %s in %s/ in %.1f s\n", args.scale_factor,
              static_cast<long long>(total), args.format.c_str(), args.out.c_str(), seconds);
  return 0;
}

}  // namespace

TANDEM_REGISTER_COMMAND(datagen, "datagen", kUsage, RunDatagen);

}  // namespace tandem::cli
