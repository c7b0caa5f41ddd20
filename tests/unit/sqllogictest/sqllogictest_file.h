// The sqllogictest file format as Tandem's SQL tests use it (tests/sql/*.test), hash-free:
//
//   # a comment                             (lines starting with '#' between records)
//   statement ok                            the SQL must succeed
//   CREATE TABLE t AS SELECT ...
//
//   statement error column x not found      the SQL must fail with this text in its message
//   SELECT x FROM t                         (the text may instead follow a "----" line)
//
//   query ITR rowsort                       one type letter per column; nosort (the default),
//   SELECT a, b, c FROM t                   rowsort (rows sorted as text) or valuesort (all
//   ----                                    values sorted); one row a line, columns separated by
//   1	x	0.5                                 tabs
//
// A record ends at a blank line. Values: NULL for null, (empty) for an empty string, tabs,
// newlines and backslashes in strings escaped as \t, \n and \\. Type letters: I integer,
// D decimal, T text, dates, timestamps and booleans (all compared exactly), R floating point
// (compared to 1e-9 relative). "__TEST_DIR__" in SQL stands for the directory of the .test
// files (tests/sql), so tests can read tests/sql/data/*.csv.
#pragma once

#include <string>
#include <vector>

#include "tandem/common/status.h"

namespace tandem::sqllogictest {

struct Record {
  enum class Kind { kStatementOk, kStatementError, kQuery };
  Kind kind = Kind::kStatementOk;
  int line = 0;  // 1-based line of the record's header
  std::string sql;
  std::string error_substring;  // kStatementError; empty: any error
  std::string types;            // kQuery
  std::string sort_mode = "nosort";
  std::vector<std::string> expected;  // kQuery: one line per row (or per value for valuesort)
};

namespace detail {

inline std::vector<std::string> SplitLines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start <= text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string::npos) nl = text.size();
    std::string line = text.substr(start, nl - start);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(std::move(line));
    start = nl + 1;
  }
  return lines;
}

inline bool IsBlank(const std::string& line) {
  return line.find_first_not_of(" \t") == std::string::npos;
}

// Splits a header line into words.
inline std::vector<std::string> Words(const std::string& line) {
  std::vector<std::string> words;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    const size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
    if (i > start) words.push_back(line.substr(start, i - start));
  }
  return words;
}

}  // namespace detail

// Parses a whole .test file; `name` is used in error messages.
inline Result<std::vector<Record>> ParseTestFile(const std::string& text, const std::string& name) {
  const std::vector<std::string> lines = detail::SplitLines(text);
  std::vector<Record> records;
  size_t i = 0;
  auto where = [&](size_t line) { return name + ":" + std::to_string(line + 1) + ": "; };
  while (i < lines.size()) {
    const std::string& header = lines[i];
    if (detail::IsBlank(header) || header[0] == '#') {
      ++i;
      continue;
    }
    const std::vector<std::string> words = detail::Words(header);
    Record record;
    record.line = static_cast<int>(i + 1);
    if (words[0] == "statement" && words.size() >= 2 && words[1] == "ok") {
      if (words.size() != 2) return Status::Invalid(where(i) + "statement ok takes nothing more");
      record.kind = Record::Kind::kStatementOk;
    } else if (words[0] == "statement" && words.size() >= 2 && words[1] == "error") {
      record.kind = Record::Kind::kStatementError;
      const size_t at = header.find("error") + 5;
      const size_t begin = header.find_first_not_of(" \t", at);
      if (begin != std::string::npos) record.error_substring = header.substr(begin);
    } else if (words[0] == "query") {
      record.kind = Record::Kind::kQuery;
      if (words.size() < 2 || words.size() > 3) {
        return Status::Invalid(where(i) + "expected: query <types> [nosort|rowsort|valuesort]");
      }
      record.types = words[1];
      if (record.types.find_first_not_of("IRTD") != std::string::npos) {
        return Status::Invalid(where(i) + "type letters are I, R, T and D, got " + words[1]);
      }
      if (words.size() == 3) record.sort_mode = words[2];
      if (record.sort_mode != "nosort" && record.sort_mode != "rowsort" &&
          record.sort_mode != "valuesort") {
        return Status::Invalid(where(i) + "unknown sort mode " + record.sort_mode);
      }
    } else {
      return Status::Invalid(where(i) +
                             "expected statement ok, statement error or query, got: " + header);
    }
    ++i;
    while (i < lines.size() && !detail::IsBlank(lines[i]) && lines[i] != "----") {
      record.sql += (record.sql.empty() ? "" : "\n") + lines[i];
      ++i;
    }
    if (record.sql.empty()) return Status::Invalid(where(record.line - 1) + "record without SQL");
    if (i < lines.size() && lines[i] == "----") {
      ++i;
      if (record.kind == Record::Kind::kStatementOk) {
        return Status::Invalid(where(i - 1) + "statement ok has no result block");
      }
      std::vector<std::string> block;
      while (i < lines.size() && !lines[i].empty()) block.push_back(lines[i++]);
      if (record.kind == Record::Kind::kQuery) {
        record.expected = std::move(block);
      } else {
        for (const std::string& l : block) {
          record.error_substring += (record.error_substring.empty() ? "" : "\n") + l;
        }
      }
    } else if (record.kind == Record::Kind::kQuery) {
      return Status::Invalid(where(record.line - 1) + "query without a ---- result block");
    }
    records.push_back(std::move(record));
  }
  return records;
}

}  // namespace tandem::sqllogictest
