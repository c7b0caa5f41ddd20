// SQL text -> libpg_query JSON parse trees, one per statement, and byte offset -> line:column.
//
// PostgreSQL's grammar lacks a few spellings that DuckDB and Spark users write. Before parsing, a
// small lexical pass rewrites them IN PLACE, keeping every byte offset the same, so that all
// "location" fields (and so every error position) still point into the user's own text:
//   TRY_CAST(x AS t)          -> "    CAST(x AS t)"; the TypeCast node then gets
//                                "tandem_try_cast": true (matched by its location)
//   FROM 'dir/*.parquet'      -> FROM "dir/*.parquet" (a quoted name the binder opens as a file;
//                                the RangeVar gets "tandem_path" with the whole path, which an
//                                identifier would cut at PostgreSQL's 63 bytes)
//   INTERVAL 3 DAY            -> INTERVAL'3'DAY
//   INTERVAL '90' DAY (3)     -> INTERVAL '90' DAY     (the TPC-H spec's precision is dropped)
//   CAST(x AS DOUBLE)         -> CAST(x AS float8)
//   CREATE OR REPLACE TABLE t -> "CREATE            TABLE t"; the CreateTableAsStmt then gets
//                                "tandem_or_replace": true (matched by the name's location)
//   SET tandem.memory.host.limit = '8g'  (a reserved word in a dotted setting name, which the
//                                grammar refuses) -> SET tandem.memory.host.zzzzz = '8g'; the
//                                VariableSetStmt's name is put back (matched by the name written)
#include "tandem/sql/parser.h"

#include <pg_query.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>

#include "tandem/common/text.h"
#include "tandem/sql/parse_tree_integers.h"

namespace tandem::sql {
namespace {

struct Token {
  enum Kind { kWord, kNumber, kString, kQuotedName, kPunct } kind;
  size_t begin;
  size_t end;
  std::string lower;  // words: lower-cased text; punctuation: the character(s)
};

bool IsWordStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool IsWordChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$';
}

// Splits the text into tokens, skipping whitespace and comments. Strings keep their quotes.
std::vector<Token> Tokenize(const std::string& s) {
  std::vector<Token> out;
  size_t i = 0;
  const size_t n = s.size();
  while (i < n) {
    const char c = s[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (c == '-' && i + 1 < n && s[i + 1] == '-') {
      while (i < n && s[i] != '\n') ++i;
    } else if (c == '/' && i + 1 < n && s[i + 1] == '*') {
      int depth = 0;
      while (i < n) {
        if (s[i] == '/' && i + 1 < n && s[i + 1] == '*') {
          ++depth;
          i += 2;
        } else if (s[i] == '*' && i + 1 < n && s[i + 1] == '/') {
          i += 2;
          if (--depth == 0) break;
        } else {
          ++i;
        }
      }
    } else if (c == '\'' || c == '"') {
      const size_t b = i++;
      while (i < n) {
        if (s[i] == c) {
          if (i + 1 < n && s[i + 1] == c) {
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        ++i;
      }
      out.push_back({c == '\'' ? Token::kString : Token::kQuotedName, b, i, ""});
    } else if (IsWordStart(c)) {
      const size_t b = i;
      while (i < n && IsWordChar(s[i])) ++i;
      std::string w = s.substr(b, i - b);
      for (char& ch : w) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      out.push_back({Token::kWord, b, i, std::move(w)});
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      const size_t b = i;
      while (i < n && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '.')) ++i;
      out.push_back({Token::kNumber, b, i, ""});
    } else if (c == ':' && i + 1 < n && s[i + 1] == ':') {
      out.push_back({Token::kPunct, i, i + 2, "::"});
      i += 2;
    } else {
      out.push_back({Token::kPunct, i, i + 1, std::string(1, c)});
      ++i;
    }
  }
  return out;
}

bool IsIntervalUnit(const std::string& w) {
  static const std::set<std::string> kUnits = {"year",    "month",   "day",    "hour",  "minute",
                                               "second",  "years",   "months", "days",  "hours",
                                               "minutes", "seconds", "week",   "weeks", "quarter"};
  return kUnits.count(w) > 0;
}

bool EndsFromList(const std::string& w) {
  static const std::set<std::string> kWords = {
      "where",     "group",  "having", "order",  "limit",   "offset", "union",
      "intersect", "except", "window", "select", "qualify", "fetch",  "returning"};
  return kWords.count(w) > 0;
}

// Locations the rewrite remembers, to mark the nodes they belong to after parsing.
struct RewriteMarks {
  std::set<int> try_casts;           // TypeCast locations
  std::set<int> or_replace_tables;   // CREATE OR REPLACE TABLE: the table name's location
  std::map<int, std::string> paths;  // FROM 'path': the path by its location
  // SET/RESET names with a reserved word replaced: the name as parsed -> the name as written.
  std::map<std::string, std::string> setting_names;
};

// Reserved words of PostgreSQL's grammar that a dotted setting name may hold (Tandem's own:
// tandem.memory.host.limit, tandem.memory.gpu.limit); others still get the parser's hint.
bool IsReservedInSettingName(const std::string& w) {
  static const std::set<std::string> kWords = {
      "all",   "and",    "as",     "case",   "check", "default", "end",   "false", "from",
      "group", "in",     "limit",  "not",    "null",  "offset",  "on",    "only",  "or",
      "order", "select", "table",  "to",     "true",  "union",   "user",  "where", "window",
      "with",  "fetch",  "having", "column", "grant", "into",    "using", "both",  "leading"};
  return kWords.count(w) > 0;
}

// In the dotted name after a statement's SET or RESET (past SESSION or LOCAL), replaces each
// reserved word by as many 'z's (another letter where that name was taken by another one), so
// that the grammar reads a plain dotted name of the same length; `marks` keeps the name as written.
void RewriteSettingName(const std::string& sql, const std::vector<Token>& t, size_t k,
                        std::string* out, RewriteMarks* marks) {
  size_t j = k + 1;
  if (j < t.size() && (t[j].lower == "session" || t[j].lower == "local") && j + 1 < t.size() &&
      t[j + 1].kind == Token::kWord) {
    ++j;
  }
  const size_t first = j;
  bool reserved = false;
  while (j < t.size() && t[j].kind == Token::kWord) {
    if (IsReservedInSettingName(t[j].lower)) reserved = true;
    if (j + 2 < t.size() && t[j + 1].lower == "." && t[j + 1].begin == t[j].end &&
        t[j + 2].begin == t[j + 1].end) {
      j += 2;
    } else {
      break;
    }
  }
  if (!reserved || j == first || j >= t.size()) return;  // one word: the grammar's own error
  const size_t begin = t[first].begin, end = t[j].end;
  std::string written = sql.substr(begin, end - begin);
  for (char& ch : written) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  for (char filler : {'z', 'y', 'x', 'w', 'v'}) {
    std::string parsed = written;
    for (size_t w = first; w <= j; w += 2) {
      if (!IsReservedInSettingName(t[w].lower)) continue;
      for (size_t b = t[w].begin; b < t[w].end; ++b) parsed[b - begin] = filler;
    }
    auto it = marks->setting_names.find(parsed);
    if (it != marks->setting_names.end() && it->second != written) continue;
    marks->setting_names[parsed] = written;
    out->replace(begin, end - begin, parsed);
    return;
  }
}

// Rewrites the DuckDB/Spark spellings described at the top of the file; same length out as in.
std::string Rewrite(const std::string& sql, RewriteMarks* marks) {
  std::string out = sql;
  const std::vector<Token> t = Tokenize(sql);
  struct Frame {
    bool is_query;
    bool in_from = false;
  };
  std::vector<Frame> frames = {{true}};
  for (size_t k = 0; k < t.size(); ++k) {
    const Token& tok = t[k];
    const Token* prev = k > 0 ? &t[k - 1] : nullptr;
    const Token* next = k + 1 < t.size() ? &t[k + 1] : nullptr;
    if (tok.kind == Token::kPunct && tok.lower == "(") {
      const bool query =
          next && next->kind == Token::kWord &&
          (next->lower == "select" || next->lower == "with" || next->lower == "values");
      frames.push_back({query});
      continue;
    }
    if (tok.kind == Token::kPunct && tok.lower == ")") {
      if (frames.size() > 1) frames.pop_back();
      continue;
    }
    Frame& f = frames.back();
    if (tok.kind == Token::kWord && (tok.lower == "set" || tok.lower == "reset") &&
        (!prev || prev->lower == ";")) {
      RewriteSettingName(sql, t, k, &out, marks);
    }
    if (tok.kind == Token::kWord) {
      if (tok.lower == "from" && f.is_query) f.in_from = true;
      if (EndsFromList(tok.lower)) f.in_from = false;
      if (tok.lower == "try_cast" && next && next->lower == "(") {
        out.replace(tok.begin, 4, "    ");
        marks->try_casts.insert(static_cast<int>(tok.begin + 4));
      }
      if (tok.lower == "create" && k + 4 < t.size() && t[k + 1].lower == "or" &&
          t[k + 2].lower == "replace" && t[k + 3].lower == "table") {
        for (size_t b = t[k + 1].begin; b < t[k + 2].end; ++b) out[b] = ' ';
        marks->or_replace_tables.insert(static_cast<int>(t[k + 4].begin));
      }
      if (tok.lower == "double" && prev && (prev->lower == "as" || prev->lower == "::") &&
          !(next && next->lower == "precision")) {
        out.replace(tok.begin, 6, "float8");
      }
      if (tok.lower == "interval" && next && k + 2 < t.size()) {
        const Token& unit = t[k + 2];
        if (next->kind == Token::kNumber && unit.kind == Token::kWord &&
            IsIntervalUnit(unit.lower) && next->begin > tok.end && unit.begin > next->end &&
            sql.find_first_of(".eE", next->begin) >= next->end) {
          out[next->begin - 1] = '\'';
          out[next->end] = '\'';
        }
        if (next->kind == Token::kString && unit.kind == Token::kWord &&
            IsIntervalUnit(unit.lower) && unit.lower != "second" && k + 5 < t.size() &&
            t[k + 3].lower == "(" && t[k + 4].kind == Token::kNumber && t[k + 5].lower == ")") {
          for (size_t b = t[k + 3].begin; b < t[k + 5].end; ++b) out[b] = ' ';
        }
      }
    }
    if (tok.kind == Token::kString && f.is_query && prev &&
        ((prev->kind == Token::kWord && (prev->lower == "from" || prev->lower == "join")) ||
         (prev->lower == "," && f.in_from))) {
      const std::string body = sql.substr(tok.begin + 1, tok.end - tok.begin - 2);
      if (tok.end - tok.begin >= 2 && sql[tok.end - 1] == '\'' &&
          body.find('"') == std::string::npos && body.find('\'') == std::string::npos) {
        out[tok.begin] = '"';
        out[tok.end - 1] = '"';
        marks->paths[static_cast<int>(tok.begin)] = body;
      }
    }
  }
  return out;
}

// Marks the TypeCast nodes written as TRY_CAST and the CREATE TABLE statements written as
// CREATE OR REPLACE TABLE (a walk without recursion: trees can be deep).
void ApplyMarks(nlohmann::json* tree, const RewriteMarks& marks) {
  auto location = [](const nlohmann::json& node) {
    auto loc = node.find("location");
    return loc != node.end() && loc->is_number_integer() ? loc->get<int>() : -1;
  };
  std::vector<nlohmann::json*> pending = {tree};
  while (!pending.empty()) {
    nlohmann::json* node = pending.back();
    pending.pop_back();
    if (node->is_array()) {
      for (auto& child : *node) pending.push_back(&child);
      continue;
    }
    if (!node->is_object()) continue;
    auto cast = node->find("TypeCast");
    if (cast != node->end() && cast->is_object() && marks.try_casts.count(location(*cast))) {
      (*cast)["tandem_try_cast"] = true;
    }
    auto range = node->find("RangeVar");
    if (range != node->end() && range->is_object()) {
      auto path = marks.paths.find(location(*range));
      if (path != marks.paths.end()) (*range)["tandem_path"] = path->second;
    }
    auto set = node->find("VariableSetStmt");
    if (set != node->end() && set->is_object() && set->contains("name") &&
        (*set)["name"].is_string()) {
      auto name = marks.setting_names.find((*set)["name"].get<std::string>());
      if (name != marks.setting_names.end()) (*set)["name"] = name->second;
    }
    auto create = node->find("CreateTableAsStmt");
    if (create != node->end() && create->is_object() && create->contains("into")) {
      const nlohmann::json& into = (*create)["into"];
      if (into.contains("rel") && marks.or_replace_tables.count(location(into["rel"]))) {
        (*create)["tandem_or_replace"] = true;
      }
    }
    for (auto& [key, child] : node->items()) {
      if (child.is_structured()) pending.push_back(&child);
    }
  }
}

// Byte offset of the 1-based character position `cursor` (PostgreSQL counts characters).
int ByteOffsetOfCharacter(const std::string& sql, int cursor) {
  int chars = 0;
  for (size_t i = 0; i < sql.size(); ++i) {
    if ((static_cast<unsigned char>(sql[i]) & 0xC0) != 0x80) {
      if (++chars == cursor) return static_cast<int>(i);
    }
  }
  return static_cast<int>(sql.size());
}

}  // namespace

namespace {

// Moves `pos` over sql[begin, end): a newline starts a line, every other character (not UTF-8
// continuation byte) is a column.
SourcePos Advance(const std::string& sql, size_t begin, size_t end, SourcePos pos) {
  for (size_t i = begin; i < end; ++i) {
    if (sql[i] == '\n') {
      ++pos.line;
      pos.column = 1;
    } else if ((static_cast<unsigned char>(sql[i]) & 0xC0) != 0x80) {
      ++pos.column;
    }
  }
  return pos;
}

size_t ClampOffset(const std::string& sql, int byte_offset) {
  return byte_offset < 0 ? 0 : std::min(sql.size(), static_cast<size_t>(byte_offset));
}

// The most levels of JSON one level of the binder's nesting takes ({"A_Expr": {"lexpr": ...}}
// is two; a subquery in a select list about eight), and so the deepest JSON that binding could
// accept at the largest tandem.sql.maxExpressionDepth.
constexpr int kJsonLevelsPerBindLevel = 8;
constexpr int kMaxBindDepth = 20000;  // common/config.cc: tandem.sql.maxExpressionDepth's maximum

// Where the JSON text first nests deeper than `limit` objects and arrays, or npos.
size_t FirstTooDeep(const char* json, int limit) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; json[i]; ++i) {
    const char c = json[i];
    if (in_string) {
      if (c == '\\' && json[i + 1]) {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (++depth > limit) return i;
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  return std::string::npos;
}

// Whether byte `at` is in the dotted name of a SET or RESET (`SET tandem.memory.host.limit`:
// LIMIT is a keyword there).
bool InSettingName(const std::string& sql, size_t at) {
  const std::vector<Token> t = Tokenize(sql);
  for (size_t k = 0; k < t.size(); ++k) {
    if (t[k].kind != Token::kWord || (t[k].lower != "set" && t[k].lower != "reset")) continue;
    size_t j = k + 1;
    while (j < t.size() && (t[j].kind == Token::kWord || t[j].lower == ".")) {
      if (t[j].begin <= at && at < t[j].end) return true;
      ++j;
    }
  }
  return false;
}

// The first "location" value at or after `from` in the JSON text, or -1.
int LocationAfter(const char* json, size_t from) {
  const char* at = std::strstr(json + from, "\"location\":");
  return at ? std::atoi(at + 11) : -1;
}

}  // namespace

SourcePos PositionOf(const std::string& sql, int byte_offset) {
  return Advance(sql, 0, ClampOffset(sql, byte_offset), SourcePos{1, 1});
}

SourceIndex::SourceIndex(const std::string& sql) : sql_(sql) {
  SourcePos pos{1, 1};
  for (size_t at = 0; at <= sql.size(); at += kStep) {
    checkpoints_.push_back(pos);
    pos = Advance(sql, at, std::min(sql.size(), at + kStep), pos);
  }
}

SourcePos SourceIndex::PositionOf(int byte_offset) const {
  const size_t end = ClampOffset(sql_, byte_offset);
  const size_t k = end / kStep;
  return Advance(sql_, k * kStep, end, checkpoints_[k]);
}

Result<std::vector<ParsedStatement>> ParseSql(const std::string& sql) {
  if (sql.find('\0') != std::string::npos) {
    return Status::Invalid("SQL text contains a NUL byte at offset " +
                           std::to_string(sql.find('\0')));
  }
  if (const size_t bad = FirstInvalidUtf8(sql); bad != std::string::npos) {
    char byte[8];
    std::snprintf(byte, sizeof(byte), "0x%02X", static_cast<unsigned char>(sql[bad]));
    return Status::Invalid(std::string("SQL text is not valid UTF-8: byte ") + byte + " at line " +
                           PositionOf(sql, static_cast<int>(bad)).ToString());
  }
  RewriteMarks marks;
  const std::string text = Rewrite(sql, &marks);
  PgQueryParseResult r = pg_query_parse(text.c_str());
  if (r.error) {
    std::string msg = r.error->message ? r.error->message : "syntax error";
    // PostgreSQL's grammar keeps a bounded stack (10,000 entries): deeper nesting of the
    // constructs that grow it (CASE, parentheses) ends there.
    if (msg.rfind("memory exhausted", 0) == 0) {
      msg =
          "the statement nests expressions more deeply than the SQL parser can follow "
          "(beyond any tandem.sql.maxExpressionDepth)";
    }
    const int cursor = r.error->cursorpos;
    pg_query_free_parse_result(r);
    if (cursor > 0) {
      const int at = ByteOffsetOfCharacter(sql, cursor);
      msg += " (line " + PositionOf(sql, at).ToString() + ")";
      if (InSettingName(text, static_cast<size_t>(at))) {
        msg +=
            "; a setting name with an SQL keyword in it is written in double quotes, as in "
            "SET \"tandem.memory.host.limit\" = '8g'";
      }
    }
    return Status::Invalid(msg);
  }
  // A statement nested past anything the binder accepts is refused before its parse tree is
  // built (a megabyte chain of `+` is a million levels of JSON).
  if (r.parse_tree) {
    const size_t deep = FirstTooDeep(r.parse_tree, kJsonLevelsPerBindLevel * kMaxBindDepth);
    if (deep != std::string::npos) {
      const int loc = LocationAfter(r.parse_tree, deep);
      pg_query_free_parse_result(r);
      return Status::Invalid("the statement nests expressions and subqueries more than " +
                             std::to_string(kMaxBindDepth) +
                             " levels deep (beyond any tandem.sql.maxExpressionDepth)" +
                             (loc >= 0 ? " (line " + PositionOf(sql, loc).ToString() + ")" : ""));
    }
  }
  nlohmann::json tree = nlohmann::json::parse(r.parse_tree ? r.parse_tree : "{}", nullptr, false);
  const Status restored =
      tree.is_discarded() ? Status::OK() : RestoreLostIntegers(text, r.parse_tree, &tree);
  pg_query_free_parse_result(r);
  if (tree.is_discarded()) return Status::Internal("libpg_query returned malformed JSON");
  TANDEM_RETURN_NOT_OK(restored);
  if (!marks.try_casts.empty() || !marks.or_replace_tables.empty() || !marks.paths.empty() ||
      !marks.setting_names.empty()) {
    ApplyMarks(&tree, marks);
  }
  std::vector<ParsedStatement> out;
  auto stmts = tree.find("stmts");
  if (stmts == tree.end() || !stmts->is_array()) return out;  // empty script
  for (auto& s : *stmts) {
    ParsedStatement p;
    if (s.contains("stmt")) p.tree = std::move(s["stmt"]);
    p.location = s.value("stmt_location", 0);
    p.length = s.value("stmt_len", 0);
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace tandem::sql
