// Reading a written report back: see report_reader.h.
#include "tandem/bench/report_reader.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

namespace tandem::bench {
namespace {

Result<std::string> ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::IOError("cannot read " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

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

std::vector<double> ParseTimes(const std::string& text) {
  std::vector<double> out;
  std::istringstream in(text);
  std::string item;
  while (std::getline(in, item, ';')) {
    if (!item.empty()) out.push_back(std::atof(item.c_str()));
  }
  return out;
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
  TANDEM_ASSIGN_OR_RAISE(const std::string csv, ReadText(csv_path));
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
    c.rows = std::atoll(f[col["rows"]].c_str());
    c.engine = f[col["engine"]];
    c.mode = f[col["mode"]];
    c.status = f[col["status"]];
    c.times_ms = ParseTimes(f[col["times_ms"]]);
    c.median_ms = std::atof(f[col["median_ms"]].c_str());
    c.ratio = std::atof(f[col["ratio_vs_cpu"]].c_str());
    c.check = f[col["check"]];
    c.devices = f[col["devices"]];
    report.cells.push_back(std::move(c));
  }
  // Title, command and notes: the Markdown header's lines before the first table.
  if (Result<std::string> md = ReadText(dir + "/results.md"); md.ok()) {
    std::istringstream in(*md);
    std::string line;
    while (std::getline(in, line) && line.rfind("## ", 0) != 0) {
      if (line.rfind("# ", 0) == 0) {
        report.info.title = line.substr(2);
      } else if (line.rfind("- command: `", 0) == 0 && line.size() > 13) {
        report.info.command = line.substr(12, line.size() - 13);
      } else if (line.rfind("- ", 0) == 0 && line.rfind("- date: ", 0) != 0 &&
                 line.rfind("- machine: ", 0) != 0 && line.rfind("- GPU: ", 0) != 0 &&
                 line.rfind("- version: ", 0) != 0) {
        report.info.notes.push_back(line.substr(2));
      }
    }
  }
  if (report.info.title.empty()) report.info.title = "Tandem " + report.info.benchmark;
  return report;
}

}  // namespace tandem::bench
