// `tandem cat`: prints a Parquet or CSV file (or a directory / glob of Parquet files) as an aligned
// table, CSV or JSON lines. Output streams batch by batch; --limit stops reading early where the
// input allows it (CSV files and single Parquet files are read a batch / row group at a time).
#include <glob.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "tandem/cli/arg_reader.h"
#include "tandem/cli/command.h"
#include "tandem/format/table_printer.h"
#include "tandem/format/value_format.h"
#include "tandem/io/csv/csv.h"
#include "tandem/io/input_file.h"
#include "tandem/io/parquet/reader.h"

namespace tandem::cli {
namespace {

constexpr const char* kUsage =
    "cat FILE_OR_DIR [--format table|csv|jsonl] [--columns a,b] [--limit N]";

int UsageError(const std::string& message) {
  std::fprintf(stderr, "tandem: %s\nusage: tandem %s\n", message.c_str(), kUsage);
  return 2;
}

// Where rows go: one implementation per --format.
class RowSink {
 public:
  virtual ~RowSink() = default;
  virtual void Start(const Schema& schema) = 0;
  virtual void Write(const Batch& batch, int64_t begin, int64_t end) = 0;
  virtual void Finish() = 0;
};

class TableSink : public RowSink {
 public:
  void Start(const Schema& schema) override {
    printer_ = std::make_unique<format::TablePrinter>(stdout, schema);
  }
  void Write(const Batch& batch, int64_t begin, int64_t end) override {
    printer_->AddRows(batch, begin, end);
  }
  void Finish() override { printer_->Finish(); }

 private:
  std::unique_ptr<format::TablePrinter> printer_;
};

class CsvSink : public RowSink {
 public:
  void Start(const Schema& schema) override {
    out_.clear();
    csv::AppendCsvHeader(schema, options_, &out_);
    Flush();
  }
  void Write(const Batch& batch, int64_t begin, int64_t end) override {
    constexpr int64_t kStep = 4096;
    for (int64_t b = begin; b < end; b += kStep) {
      csv::AppendCsvRows(batch, b, std::min(end, b + kStep), options_, &out_);
      Flush();
    }
  }
  void Finish() override { Flush(); }

 private:
  void Flush() {
    std::fwrite(out_.data(), 1, out_.size(), stdout);
    out_.clear();
  }
  csv::CsvWriteOptions options_;
  std::string out_;
};

class JsonLinesSink : public RowSink {
 public:
  void Start(const Schema& schema) override {
    keys_.clear();
    for (int i = 0; i < schema.num_fields(); ++i) {
      std::string key = i == 0 ? "{" : ",";
      format::AppendJsonString(schema.field(i).name, &key);
      key.push_back(':');
      keys_.push_back(std::move(key));
    }
  }
  void Write(const Batch& batch, int64_t begin, int64_t end) override {
    for (int64_t row = begin; row < end; ++row) {
      if (keys_.empty()) out_.push_back('{');
      for (size_t c = 0; c < keys_.size(); ++c) {
        out_.append(keys_[c]);
        format::AppendJson(*batch.column(static_cast<int>(c)), row, &out_);
      }
      out_.append("}\n");
      if (out_.size() >= (1 << 16)) Flush();
    }
    Flush();
  }
  void Finish() override { Flush(); }

 private:
  void Flush() {
    std::fwrite(out_.data(), 1, out_.size(), stdout);
    out_.clear();
  }
  std::vector<std::string> keys_;
  std::string out_;
};

struct CatArgs {
  std::string path;
  std::string format = "table";
  std::vector<std::string> columns;
  int64_t limit = -1;  // -1: all rows
};

std::vector<std::string> SplitCommas(const std::string& text) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    parts.push_back(text.substr(start, comma == std::string::npos ? comma : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return parts;
}

// Returns 0 when parsed, else the exit code (2) after printing the usage error.
int ParseArgs(const std::vector<std::string>& args, CatArgs* out) {
  ArgReader reader(args);
  while (reader.Next()) {
    const std::string& arg = reader.arg();
    std::string value = reader.inline_value();
    auto take_value = [&]() -> bool { return reader.TakeValue(&value); };
    if (arg == "--format") {
      if (!take_value()) return UsageError("--format needs a value");
      if (value != "table" && value != "csv" && value != "jsonl") {
        return UsageError("unknown format '" + value + "' (table, csv or jsonl)");
      }
      out->format = value;
    } else if (arg == "--columns") {
      if (!take_value()) return UsageError("--columns needs a value");
      out->columns = SplitCommas(value);
      for (const std::string& c : out->columns) {
        if (c.empty()) return UsageError("--columns has an empty column name");
      }
    } else if (arg == "--limit") {
      if (!take_value()) return UsageError("--limit needs a value");
      char* end = nullptr;
      errno = 0;
      const long long n = std::strtoll(value.c_str(), &end, 10);
      if (value.empty() || *end != '\0' || errno != 0 || n < 0) {
        return UsageError("--limit needs a non-negative integer, got '" + value + "'");
      }
      out->limit = n;
    } else if (arg.rfind("-", 0) == 0 && arg != "-") {
      return UsageError("unknown option '" + arg + "'");
    } else if (out->path.empty()) {
      out->path = arg;
    } else {
      return UsageError("more than one input: '" + out->path + "' and '" + arg + "'");
    }
  }
  if (out->path.empty()) return UsageError("missing FILE_OR_DIR");
  return 0;
}

bool EndsWith(const std::string& s, const std::string& suffix) {
  if (s.size() < suffix.size()) return false;
  for (size_t i = 0; i < suffix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(s[s.size() - suffix.size() + i])) != suffix[i]) {
      return false;
    }
  }
  return true;
}

bool HasGlobChars(const std::string& s) { return s.find_first_of("*?[") != std::string::npos; }

// Whether a regular file starts with the Parquet magic "PAR1".
// Whether the file starts with Parquet's magic bytes (opened as every reader opens it, so a pipe
// is read once and a FIFO without a writer does not block).
bool LooksLikeParquet(const std::string& path) {
  Result<io::InputFile> input = io::OpenInputFile(path);
  if (!input.ok()) return false;
  char magic[4] = {0, 0, 0, 0};
  bool read = false;
  if (input->bytes) {
    read = input->bytes->size() >= 4;
    if (read) std::memcpy(magic, input->bytes->data(), 4);
  } else {
    read = ::pread(input->fd, magic, 4, 0) == 4;
    ::close(input->fd);
  }
  return read && std::memcmp(magic, "PAR1", 4) == 0;
}

std::string JoinNames(const Schema& schema) {
  std::string names;
  for (const Field& f : schema.fields) names += (names.empty() ? "" : ", ") + f.name;
  return names;
}

// Indexes of the requested columns in `schema`, or an error naming the unknown one.
Result<std::vector<int>> ResolveColumns(const std::string& path, const Schema& schema,
                                        const std::vector<std::string>& columns) {
  std::vector<int> indexes;
  if (columns.empty()) {
    for (int i = 0; i < schema.num_fields(); ++i) indexes.push_back(i);
    return indexes;
  }
  for (const std::string& name : columns) {
    const int index = schema.FieldIndex(name);
    if (index < 0) {
      return Status::Invalid("file " + path + ": no column '" + name +
                             "' (columns: " + JoinNames(schema) + ")");
    }
    indexes.push_back(index);
  }
  return indexes;
}

// Writes up to `remaining` rows of the batch; returns how many were written.
int64_t Emit(const Batch& batch, int64_t remaining, RowSink* sink) {
  const int64_t n = remaining < 0 ? batch.num_rows : std::min(remaining, batch.num_rows);
  if (n > 0) sink->Write(batch, 0, n);
  return n;
}

Status CatCsv(const CatArgs& args, RowSink* sink) {
  csv::CsvReadOptions options;
  options.columns = args.columns;
  TANDEM_ASSIGN_OR_RAISE(auto reader, csv::CsvReader::Open(args.path, options));
  sink->Start(reader->schema());
  int64_t remaining = args.limit;
  while (remaining != 0) {
    TANDEM_ASSIGN_OR_RAISE(BatchPtr batch, reader->Next());
    if (!batch) break;
    const int64_t n = Emit(*batch, remaining, sink);
    if (remaining > 0) remaining -= n;
  }
  sink->Finish();
  return Status::OK();
}

Status CatParquetFile(const CatArgs& args, RowSink* sink) {
  TANDEM_ASSIGN_OR_RAISE(auto file, parquet::ParquetFile::Open(args.path));
  TANDEM_ASSIGN_OR_RAISE(auto indexes, ResolveColumns(args.path, file->schema(), args.columns));
  Schema schema;
  for (int i : indexes) schema.fields.push_back(file->schema().field(i));
  sink->Start(schema);
  int64_t remaining = args.limit;
  for (int rg = 0; rg < file->num_row_groups() && remaining != 0; ++rg) {
    TANDEM_ASSIGN_OR_RAISE(BatchPtr batch, file->ReadRowGroup(rg, indexes));
    const int64_t n = Emit(*batch, remaining, sink);
    if (remaining > 0) remaining -= n;
  }
  sink->Finish();
  return Status::OK();
}

// The first Parquet file of a directory tree or glob (sorted), to check --columns against.
std::string FirstParquetFile(const std::string& path) {
  std::vector<std::string> files;
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    for (auto it = std::filesystem::recursive_directory_iterator(path, ec);
         !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
      if (it->is_regular_file(ec) && EndsWith(it->path().string(), ".parquet")) {
        files.push_back(it->path().string());
      }
    }
  } else {
    glob_t g;
    if (::glob(path.c_str(), 0, nullptr, &g) == 0) {
      for (size_t i = 0; i < g.gl_pathc; ++i) files.push_back(g.gl_pathv[i]);
    }
    ::globfree(&g);
  }
  std::sort(files.begin(), files.end());
  return files.empty() ? std::string() : files.front();
}

Status CatParquetMany(const CatArgs& args, RowSink* sink) {
  parquet::ReadOptions options;
  options.columns = args.columns;
  if (!args.columns.empty()) {
    const std::string first = FirstParquetFile(args.path);
    if (!first.empty()) {
      TANDEM_ASSIGN_OR_RAISE(auto file, parquet::ParquetFile::Open(first));
      TANDEM_RETURN_NOT_OK(ResolveColumns(first, file->schema(), args.columns).status());
    }
  }
  TANDEM_ASSIGN_OR_RAISE(Table table, parquet::ReadParquet(args.path, options));
  sink->Start(table.schema);
  int64_t remaining = args.limit;
  for (const BatchPtr& batch : table.batches) {
    if (remaining == 0) break;
    const int64_t n = Emit(*batch, remaining, sink);
    if (remaining > 0) remaining -= n;
  }
  sink->Finish();
  return Status::OK();
}

int RunCat(const std::vector<std::string>& argv) {
  CatArgs args;
  if (int code = ParseArgs(argv, &args); code != 0) return code;
  std::unique_ptr<RowSink> sink;
  if (args.format == "csv") {
    sink = std::make_unique<CsvSink>();
  } else if (args.format == "jsonl") {
    sink = std::make_unique<JsonLinesSink>();
  } else {
    sink = std::make_unique<TableSink>();
  }
  static char stdout_buffer[1 << 16];
  std::setvbuf(stdout, stdout_buffer, _IOFBF, sizeof(stdout_buffer));

  std::error_code ec;
  Status st;
  const bool is_dir = std::filesystem::is_directory(args.path, ec);
  if (is_dir || (HasGlobChars(args.path) && !std::filesystem::exists(args.path, ec))) {
    st = CatParquetMany(args, sink.get());
  } else if (EndsWith(args.path, ".parquet") || LooksLikeParquet(args.path)) {
    st = CatParquetFile(args, sink.get());
  } else {
    st = CatCsv(args, sink.get());
  }
  if (!st.ok()) {
    std::fflush(stdout);
    return Fail(st.ToString());
  }
  // main() checks that standard output was written.
  return 0;
}

}  // namespace

TANDEM_REGISTER_COMMAND(cat, "cat",
                        "cat FILE_OR_DIR [--format table|csv|jsonl] [--columns a,b] [--limit N]",
                        RunCat);

}  // namespace tandem::cli
