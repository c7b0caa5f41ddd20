// Runs every tests/sql/*.test file (sqllogictest format, see sqllogictest_file.h) through a
// Tandem SQL session, one gtest per file: SqlLogicTest/File.Run/<name>. Expected results in the
// files come from DuckDB (tests/sql/generate_expected.py), never from Tandem.
//   TANDEM_SQL_TEST_DIR  the directory of .test files (default: tests/sql of this checkout)
//   TANDEM_SQL_TEST_CONF settings for every session, "key=value;key=value"
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "sqllogictest_file.h"
#include "tandem/format/value_format.h"
#include "tandem/sql/session.h"

namespace tandem::sqllogictest {
namespace {

namespace fs = std::filesystem;

fs::path TestDir() {
  if (const char* dir = std::getenv("TANDEM_SQL_TEST_DIR")) return dir;
  return fs::path(__FILE__).parent_path().parent_path().parent_path() / "sql";
}

std::vector<std::string> TestFiles() {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(TestDir(), ec)) {
    if (entry.path().extension() == ".test") files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string ReplaceAll(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

// A value as the .test files write it.
std::string CellText(const Column& column, int64_t row) {
  if (column.IsNull(row)) return "NULL";
  std::string raw;
  format::AppendText(column, row, &raw);
  if (raw.empty()) return "(empty)";
  std::string out;
  for (char c : raw) {
    if (c == '\t') {
      out += "\\t";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\\') {
      out += "\\\\";
    } else {
      out.push_back(c);
    }
  }
  return out;
}

std::vector<std::string> SplitTabs(const std::string& line) {
  std::vector<std::string> cells;
  size_t start = 0;
  while (true) {
    const size_t tab = line.find('\t', start);
    cells.push_back(line.substr(start, tab == std::string::npos ? tab : tab - start));
    if (tab == std::string::npos) return cells;
    start = tab + 1;
  }
}

double ParseNumber(const std::string& text, bool* ok) {
  if (text == "NaN") return std::nan("");
  if (text == "Infinity" || text == "inf") return INFINITY;
  if (text == "-Infinity" || text == "-inf") return -INFINITY;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  *ok = !text.empty() && *end == '\0';
  return v;
}

// Whether two cells agree: exactly, or for R columns as numbers to 1e-9 relative.
bool CellsMatch(char type, const std::string& expected, const std::string& actual) {
  if (expected == actual) return true;
  if (type != 'R' || expected == "NULL" || actual == "NULL") return false;
  bool ok_e = true, ok_a = true;
  const double e = ParseNumber(expected, &ok_e);
  const double a = ParseNumber(actual, &ok_a);
  if (!ok_e || !ok_a) return false;
  if (std::isnan(e) || std::isnan(a)) return std::isnan(e) && std::isnan(a);
  if (std::isinf(e) || std::isinf(a)) return e == a;
  return std::fabs(e - a) <= 1e-9 * std::max({1.0, std::fabs(e), std::fabs(a)});
}

std::string Joined(const std::vector<std::string>& lines, size_t max_lines = 40) {
  std::string out;
  for (size_t i = 0; i < lines.size() && i < max_lines; ++i) out += "    " + lines[i] + "\n";
  if (lines.size() > max_lines) out += "    ... (" + std::to_string(lines.size()) + " lines)\n";
  return out;
}

// Compares a query's result with the record; returns an empty string or what differs.
std::string CompareQuery(const Record& record, const Table& table) {
  const int ncols = table.schema.num_fields();
  if (ncols != static_cast<int>(record.types.size())) {
    return "expected " + std::to_string(record.types.size()) + " columns, got " +
           std::to_string(ncols);
  }
  std::vector<std::vector<std::string>> rows;
  for (const BatchPtr& batch : table.batches) {
    for (int64_t r = 0; r < batch->num_rows; ++r) {
      std::vector<std::string> row;
      for (int c = 0; c < ncols; ++c) row.push_back(CellText(*batch->column(c), r));
      rows.push_back(std::move(row));
    }
  }
  std::vector<std::string> actual_lines;
  std::vector<std::vector<std::string>> expected_rows;
  if (record.sort_mode == "valuesort") {
    std::vector<std::string> values;
    for (const auto& row : rows) values.insert(values.end(), row.begin(), row.end());
    std::sort(values.begin(), values.end());
    actual_lines = values;
    std::vector<std::string> expected = record.expected;
    std::sort(expected.begin(), expected.end());
    if (expected.size() != values.size()) {
      return "expected " + std::to_string(expected.size()) + " values, got " +
             std::to_string(values.size()) + "\n  expected:\n" + Joined(expected) + "  actual:\n" +
             Joined(values);
    }
    for (size_t i = 0; i < values.size(); ++i) {
      // Value-sorted columns mix types; numbers compare loosely only if every column is R.
      const char type = record.types.find_first_not_of('R') == std::string::npos ? 'R' : 'T';
      if (!CellsMatch(type, expected[i], values[i])) {
        return "value " + std::to_string(i + 1) + ": expected " + expected[i] + ", got " +
               values[i] + "\n  expected:\n" + Joined(expected) + "  actual:\n" + Joined(values);
      }
    }
    return "";
  }
  if (record.sort_mode == "rowsort") std::sort(rows.begin(), rows.end());
  for (const auto& row : rows) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) line += (c ? "\t" : "") + row[c];
    actual_lines.push_back(line);
  }
  std::vector<std::string> expected_lines = record.expected;
  if (record.sort_mode == "rowsort") {
    std::vector<std::vector<std::string>> sorted;
    for (const std::string& l : expected_lines) sorted.push_back(SplitTabs(l));
    std::sort(sorted.begin(), sorted.end());
    expected_lines.clear();
    for (const auto& row : sorted) {
      std::string line;
      for (size_t c = 0; c < row.size(); ++c) line += (c ? "\t" : "") + row[c];
      expected_lines.push_back(line);
    }
  }
  const std::string dump =
      "\n  expected:\n" + Joined(expected_lines) + "  actual:\n" + Joined(actual_lines);
  if (expected_lines.size() != rows.size()) {
    return "expected " + std::to_string(expected_lines.size()) + " rows, got " +
           std::to_string(rows.size()) + dump;
  }
  for (size_t r = 0; r < rows.size(); ++r) {
    const std::vector<std::string> expected = SplitTabs(expected_lines[r]);
    if (expected.size() != rows[r].size()) {
      return "row " + std::to_string(r + 1) + ": expected " + std::to_string(expected.size()) +
             " values" + dump;
    }
    for (size_t c = 0; c < expected.size(); ++c) {
      if (!CellsMatch(record.types[c], expected[c], rows[r][c])) {
        return "row " + std::to_string(r + 1) + ", column " + std::to_string(c + 1) +
               ": expected " + expected[c] + ", got " + rows[r][c] + dump;
      }
    }
  }
  return "";
}

class SqlLogicTest : public ::testing::TestWithParam<std::string> {};

TEST_P(SqlLogicTest, Run) {
  const std::string path = GetParam();
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in) << "cannot open " << path;
  std::stringstream text;
  text << in.rdbuf();
  const std::string name = fs::path(path).filename().string();
  Result<std::vector<Record>> records = ParseTestFile(text.str(), name);
  ASSERT_TRUE(records.ok()) << records.status().ToString();

  const fs::path table_dir =
      fs::temp_directory_path() /
      ("tandem_slt_" + std::to_string(::getpid()) + "_" + fs::path(path).stem().string());
  fs::remove_all(table_dir);
  fs::create_directories(table_dir);
  sql::SessionOptions options;
  options.table_dir = table_dir.string();
  // TANDEM_SQL_TEST_CONF="key=value;key=value": settings for every file (the H200 runs them
  // with tandem.sql.device=gpu).
  if (const char* conf = std::getenv("TANDEM_SQL_TEST_CONF")) {
    std::stringstream list(conf);
    for (std::string item; std::getline(list, item, ';');) {
      if (item.empty()) continue;
      const Status st = options.config.SetAssignment(item);
      ASSERT_TRUE(st.ok()) << "TANDEM_SQL_TEST_CONF: " << st.ToString();
    }
  }
  sql::Session session(options);
  const std::string test_dir = fs::absolute(TestDir()).string();

  int failures = 0;
  for (const Record& record : *records) {
    const std::string sql = ReplaceAll(record.sql, "__TEST_DIR__", test_dir);
    const std::string where = name + ":" + std::to_string(record.line) + "\n  " + sql + "\n  ";
    Result<sql::StatementResult> result = session.Execute(sql);
    if (record.kind == Record::Kind::kStatementError) {
      if (result.ok()) {
        ADD_FAILURE() << where << "expected an error containing '" << record.error_substring
                      << "', but the statement succeeded";
        ++failures;
      } else if (result.status().message().find(record.error_substring) == std::string::npos) {
        ADD_FAILURE() << where << "expected an error containing '" << record.error_substring
                      << "', got: " << result.status().ToString();
        ++failures;
      }
      continue;
    }
    if (!result.ok()) {
      ADD_FAILURE() << where << "failed: " << result.status().ToString();
      ++failures;
      continue;
    }
    if (record.kind == Record::Kind::kQuery) {
      if (result->kind != sql::StatementResult::Kind::kRows) {
        ADD_FAILURE() << where << "returned no rows: " << result->message;
        ++failures;
        continue;
      }
      const std::string diff = CompareQuery(record, result->table);
      if (!diff.empty()) {
        ADD_FAILURE() << where << diff;
        ++failures;
      }
    }
  }
  std::error_code ec;
  fs::remove_all(table_dir, ec);
  std::printf("%s: %zu records, %d failed\n", name.c_str(), records->size(), failures);
}

std::string TestName(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = fs::path(info.param).stem().string();
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(File, SqlLogicTest, ::testing::ValuesIn(TestFiles()), TestName);

TEST(SqlLogicTestFiles, Found) {
  EXPECT_GE(TestFiles().size(), 10u) << "no .test files in " << TestDir();
}

TEST(SqlLogicTestFormat, ParsesRecords) {
  const std::string text =
      "# comment\n"
      "statement ok\nCREATE TABLE t AS SELECT 1 AS a\n\n"
      "statement error not found\nSELECT x\nFROM t\n\n"
      "statement error\nSELECT y\n----\ncolumn y\n\n"
      "query IT rowsort\nSELECT a, 'x' FROM t\n----\n1\tx\n2\t(empty)\n";
  Result<std::vector<Record>> records = ParseTestFile(text, "inline");
  ASSERT_TRUE(records.ok()) << records.status().ToString();
  ASSERT_EQ(records->size(), 4u);
  EXPECT_EQ((*records)[0].kind, Record::Kind::kStatementOk);
  EXPECT_EQ((*records)[0].line, 2);
  EXPECT_EQ((*records)[1].error_substring, "not found");
  EXPECT_EQ((*records)[1].sql, "SELECT x\nFROM t");
  EXPECT_EQ((*records)[2].error_substring, "column y");
  EXPECT_EQ((*records)[3].types, "IT");
  EXPECT_EQ((*records)[3].sort_mode, "rowsort");
  EXPECT_EQ((*records)[3].expected.size(), 2u);
}

TEST(SqlLogicTestFormat, RejectsMalformedRecords) {
  EXPECT_FALSE(ParseTestFile("query I\nSELECT 1\n", "x").ok());           // no result block
  EXPECT_FALSE(ParseTestFile("query Q\nSELECT 1\n----\n1\n", "x").ok());  // bad type letter
  EXPECT_FALSE(ParseTestFile("select 1\n", "x").ok());                    // no header
  EXPECT_FALSE(ParseTestFile("query I sideways\nSELECT 1\n----\n1\n", "x").ok());
}

TEST(SqlLogicTestFormat, ComparesFloatsLoosely) {
  EXPECT_TRUE(CellsMatch('R', "0.3", "0.30000000000000004"));
  EXPECT_TRUE(CellsMatch('R', "NaN", "NaN"));
  EXPECT_FALSE(CellsMatch('R', "0.3", "0.31"));
  EXPECT_FALSE(CellsMatch('T', "0.3", "0.30000000000000004"));
  EXPECT_FALSE(CellsMatch('R', "NULL", "0"));
}

}  // namespace
}  // namespace tandem::sqllogictest
