// The SQL parser: libpg_query (PostgreSQL's own grammar) turns text into a JSON parse tree per
// statement. Syntax errors come back as "syntax error at or near \"FROM\" (line 2:7)".
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tandem/common/status.h"
#include "tandem/expr/expr.h"

namespace tandem::sql {

struct ParsedStatement {
  nlohmann::json tree;  // the statement node, e.g. {"SelectStmt": {...}}
  int location = 0;     // byte offset of the statement in the script
  int length = 0;       // bytes; 0 = to the end
};

Result<std::vector<ParsedStatement>> ParseSql(const std::string& sql);

// 1-based line and column of a byte offset into `sql` (libpg_query "location" fields).
// O(offset): for many positions in one text use a SourceIndex.
SourcePos PositionOf(const std::string& sql, int byte_offset);

// Positions in one text in constant time each: the binder asks for one per bound expression,
// and a statement of a million bytes has hundreds of thousands. The text must outlive the index.
class SourceIndex {
 public:
  explicit SourceIndex(const std::string& sql);
  SourcePos PositionOf(int byte_offset) const;

 private:
  static constexpr size_t kStep = 64;  // bytes between checkpoints
  const std::string& sql_;
  std::vector<SourcePos> checkpoints_;  // position of byte k * kStep
};

}  // namespace tandem::sql
