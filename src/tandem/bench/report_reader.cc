// Reading a written report back: see report_reader.h.
#include "tandem/bench/report_reader.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "tandem/common/text.h"

namespace tandem::bench {
namespace {

// Splits CSV text into records, keeping quoted newlines inside their field.
std::vector<std::string> Records(const std::string& text) {
  std::vector<std::string> out;
  std::string current;
  bool quoted = false;
  for (char ch : text) {
    if (ch == '"') quoted = !quoted;
    if (ch == '\n' && !quoted) {
      out.push_back(current);
      current.clear();
      continue;
    }
    current += ch;
  }
  if (!current.empty()) out.push_back(current);
  return out;
}

// A number field: "" is 0 (not measured); anything else must be a whole number.
bool ParseNumber(const std::string& text, double* out) {
  *out = 0;
  if (text.empty()) return true;
  char* end = nullptr;
  *out = std::strtod(text.c_str(), &end);
  return end && *end == '\0';
}

// The ';'-separated times of a cell; false at the first item that is not a number.
bool ParseTimes(const std::string& text, std::vector<double>* out) {
  std::istringstream in(text);
  std::string item;
  while (std::getline(in, item, ';')) {
    double ms = 0;
    if (item.empty()) continue;
    if (!ParseNumber(item, &ms)) return false;
    out->push_back(ms);
  }
  return true;
}

}  // namespace

std::vector<std::string> SplitCsvRecord(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char ch = line[i];
    if (quoted) {
      if (ch == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        fields.back() += '"';
        ++i;
      } else if (ch == '"') {
        quoted = false;
      } else {
        fields.back() += ch;
      }
    } else if (ch == '"') {
      quoted = true;
    } else if (ch == ',') {
      fields.emplace_back();
    } else if (ch != '\r') {
      fields.back() += ch;
    }
  }
  return fields;
}

Result<Report> ReadReport(const std::string& dir) {
  const std::string csv_path = dir + "/results.csv";
  TANDEM_ASSIGN_OR_RAISE(const std::string csv, ReadTextFile(csv_path));
  const std::vector<std::string> records = Records(csv);
  // The header is CsvColumns(), or a prefix of it from before later columns (devices) existed.
  const std::vector<std::string> header =
      records.empty() ? std::vector<std::string>() : SplitCsvRecord(records[0]);
  if (header.size() < 12 || header.size() > CsvColumns().size() ||
      !std::equal(header.begin(), header.end(), CsvColumns().begin())) {
    return Status::Invalid(csv_path + ": not a Tandem benchmark results.csv (unexpected header)");
  }
  std::map<std::string, size_t> col;
  for (size_t i = 0; i < CsvColumns().size(); ++i) col[CsvColumns()[i]] = i;
  Report report;
  for (size_t r = 1; r < records.size(); ++r) {
    std::vector<std::string> f = SplitCsvRecord(records[r]);
    if (f.size() != header.size()) {
      return Status::Invalid(csv_path + ":" + std::to_string(r + 1) + ": " +
                             std::to_string(f.size()) + " fields, expected " +
                             std::to_string(header.size()));
    }
    f.resize(CsvColumns().size());  // columns the file predates are empty
    report.info.benchmark = f[col["benchmark"]];
    report.info.date = f[col["date"]];
    report.info.machine = f[col["machine"]];
    report.info.gpu = f[col["gpu"]];
    report.info.version = f[col["version"]];
    ReportCell c;
    c.group = f[col["group"]];
    c.scale = f[col["scale"]];
    c.engine = f[col["engine"]];
    c.mode = f[col["mode"]];
    c.status = f[col["status"]];
    double rows = 0;
    const char* bad = !ParseNumber(f[col["rows"]], &rows)               ? "rows"
                      : !ParseTimes(f[col["times_ms"]], &c.times_ms)    ? "times_ms"
                      : !ParseNumber(f[col["median_ms"]], &c.median_ms) ? "median_ms"
                      : !ParseNumber(f[col["ratio_vs_cpu"]], &c.ratio)  ? "ratio_vs_cpu"
                                                                        : nullptr;
    if (bad) {
      return Status::Invalid(csv_path + ":" + std::to_string(r + 1) + ": column " + bad + ": '" +
                             f[col[bad]] + "' is not a number");
    }
    c.rows = static_cast<int64_t>(rows);
    c.check = f[col["check"]];
    c.devices = f[col["devices"]];
    c.peak_memory = f[col["peak_memory"]];
    report.cells.push_back(std::move(c));
  }
  // Title, command and notes: the Markdown header's lines before the first table.
  if (Result<std::string> md = ReadTextFile(dir + "/results.md"); md.ok()) {
    std::istringstream in(*md);
    std::string line;
    while (std::getline(in, line) && line.rfind("## ", 0) != 0) {
      if (line.rfind("# ", 0) == 0) {
        report.info.title = line.substr(2);
      } else if (line.rfind("- command: `", 0) == 0 && line.size() >= 13) {
        report.info.command = line.substr(12, line.size() - 13);
      } else if (line.rfind("- ", 0) == 0 && line.rfind("- command: ", 0) != 0 &&
                 line.rfind("- date: ", 0) != 0 && line.rfind("- machine: ", 0) != 0 &&
                 line.rfind("- GPU: ", 0) != 0 && line.rfind("- version: ", 0) != 0) {
        report.info.notes.push_back(line.substr(2));
      }
    }
  }
  if (report.info.title.empty()) report.info.title = "Tandem " + report.info.benchmark;
  return report;
}

}  // namespace tandem::bench
