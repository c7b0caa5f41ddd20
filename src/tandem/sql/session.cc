// Session: runs SQL statements against a catalog. Each statement goes parse -> bind -> optimize ->
// execute; the session itself handles the statements that change state (views, tables written
// as Parquet, settings) and EXPLAIN. Statements are bound against the whole script text, so
// every error position (line:column) is relative to the script, not to the statement.
#include "tandem/sql/session.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <set>

#include "tandem/column/column_builder.h"
#include "tandem/exec/executor.h"
#include "tandem/io/parquet/writer.h"
#include "tandem/plan/optimizer.h"
#include "tandem/sql/binder.h"
#include "tandem/sql/parser.h"

namespace tandem::sql {
namespace {

using Json = nlohmann::json;

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

bool EndsWithCsv(const std::string& path) {
  return path.size() >= 4 && Lower(path.substr(path.size() - 4)) == ".csv";
}

// Skips whitespace and SQL comments (-- to end of line, nested /* */) from `i`.
size_t SkipSpaceAndComments(const std::string& s, size_t i, size_t end) {
  while (i < end) {
    if (std::isspace(static_cast<unsigned char>(s[i]))) {
      ++i;
    } else if (s.compare(i, 2, "--") == 0) {
      while (i < end && s[i] != '\n') ++i;
    } else if (s.compare(i, 2, "/*") == 0) {
      int depth = 0;
      while (i < end) {
        if (s.compare(i, 2, "/*") == 0) {
          ++depth;
          i += 2;
        } else if (s.compare(i, 2, "*/") == 0) {
          i += 2;
          if (--depth == 0) break;
        } else {
          ++i;
        }
      }
    } else {
      break;
    }
  }
  return i;
}

// Byte offset where the text of a CREATE VIEW's query starts: just after the first AS keyword
// outside parentheses, quotes and comments (the view name and column list cannot hold one).
// npos when there is none.
size_t FindViewQueryStart(const std::string& s, size_t begin, size_t end) {
  int depth = 0;
  size_t i = begin;
  while (true) {
    i = SkipSpaceAndComments(s, i, end);
    if (i >= end) return std::string::npos;
    const char c = s[i];
    if (c == '"' || c == '\'') {
      for (++i; i < end; ++i) {
        if (s[i] == c) {
          if (i + 1 < end && s[i + 1] == c) {
            ++i;
          } else {
            break;
          }
        }
      }
      ++i;
    } else if (c == '(') {
      ++depth;
      ++i;
    } else if (c == ')') {
      --depth;
      ++i;
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      const size_t start = i;
      while (i < end && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_' ||
                         s[i] == '$' || static_cast<unsigned char>(s[i]) >= 0x80)) {
        ++i;
      }
      if (depth == 0 && i - start == 2 && Lower(s.substr(start, 2)) == "as") return i;
    } else {
      ++i;
    }
  }
}

// "name" quoted as a SQL identifier.
std::string QuoteIdentifier(const std::string& name) {
  std::string out = "\"";
  for (char c : name) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  out.push_back('"');
  return out;
}

std::string StringField(const Json& node, const char* key) {
  auto it = node.find(key);
  return it != node.end() && it->is_string() ? it->get<std::string>() : std::string();
}

bool BoolField(const Json& node, const char* key) {
  auto it = node.find(key);
  return it != node.end() && it->is_boolean() && it->get<bool>();
}

// Names in a list of {"String": {"sval": ...}} nodes.
std::vector<std::string> StringList(const Json& list) {
  std::vector<std::string> names;
  if (!list.is_array()) return names;
  for (const Json& item : list) {
    if (item.contains("String")) names.push_back(StringField(item["String"], "sval"));
  }
  return names;
}

// The text of a SET value: an A_Const (string, integer, float, boolean) or a bare word.
Result<std::string> SettingValueText(const Json& args) {
  if (!args.is_array() || args.size() != 1) {
    return Status::Invalid("SET takes exactly one value");
  }
  const Json& arg = args[0];
  if (arg.contains("A_Const")) {
    const Json& c = arg["A_Const"];
    if (c.contains("sval")) return StringField(c["sval"], "sval");
    if (c.contains("ival")) {
      const Json& v = c["ival"];
      return std::to_string(v.contains("ival") ? v["ival"].get<int64_t>() : 0);
    }
    if (c.contains("fval")) return StringField(c["fval"], "fval");
    if (c.contains("boolval")) {
      return std::string(BoolField(c["boolval"], "boolval") ? "true" : "false");
    }
  }
  return Status::Invalid("SET value must be a constant");
}

Result<bool> ParseBoolSetting(const std::string& name, const std::string& text) {
  const std::string v = Lower(text);
  if (v == "true" || v == "on" || v == "1" || v == "yes") return true;
  if (v == "false" || v == "off" || v == "0" || v == "no") return false;
  return Status::Invalid("setting " + name + " takes true or false, got '" + text + "'");
}

Result<int> ParseThreadsSetting(const std::string& text) {
  char* end = nullptr;
  errno = 0;
  const long n = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno != 0 || n < 0 || n > 4096) {
    return Status::Invalid("setting threads takes an integer from 0 (all cores) to 4096, got '" +
                           text + "'");
  }
  return static_cast<int>(n);
}

// A table of one string column named `column`, one row per line of `text`.
Table LinesTable(const std::string& column, const std::string& text) {
  ColumnBuilder builder(DataType::String());
  int64_t rows = 0;
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string::npos) nl = text.size();
    builder.AppendString(std::string_view(text).substr(start, nl - start));
    ++rows;
    start = nl + 1;
  }
  Table table;
  table.schema.fields.push_back({column, DataType::String(), false});
  auto batch = std::make_shared<Batch>();
  batch->schema = table.schema;
  batch->columns.push_back(builder.Finish());
  batch->num_rows = rows;
  table.batches.push_back(std::move(batch));
  return table;
}

void AppendPlanWithEstimates(const PlanNode& node, int depth, std::string* out) {
  out->append(static_cast<size_t>(depth) * 2, ' ');
  out->append(node.Describe());
  out->push_back('\n');
  for (const PlanPtr& child : node.children) AppendPlanWithEstimates(*child, depth + 1, out);
}

// Table names become file names: keep them to a safe alphabet.
bool IsFileSafeName(const std::string& name) {
  if (name.empty() || name.size() > 200 || name[0] == '.') return false;
  for (unsigned char c : name) {
    if (!std::isalnum(c) && c != '_' && c != '-' && c != '.') return false;
  }
  return true;
}

double MillisSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

// The per-statement work: one instance per statement.
class StatementRunner {
 public:
  StatementRunner(Session& session, const std::string& script, const ParsedStatement& stmt)
      : session_(session), script_(script), stmt_(stmt) {
    begin_ = static_cast<size_t>(std::clamp<int64_t>(stmt.location, 0, script.size()));
    end_ = stmt.length > 0 ? std::min<size_t>(begin_ + stmt.length, script.size()) : script.size();
    begin_ = SkipSpaceAndComments(script, begin_, end_);
  }

  Result<StatementResult> Run() {
    const Json& tree = stmt_.tree;
    if (!tree.is_object() || tree.size() != 1) return Status::Internal("malformed parse tree");
    const std::string kind = tree.begin().key();
    const Json& node = tree.begin().value();
    if (kind == "SelectStmt") return Query(node);
    if (kind == "ExplainStmt") return Explain(node);
    if (kind == "ViewStmt") return CreateView(node);
    if (kind == "CreateTableAsStmt") return CreateTableAs(node);
    if (kind == "DropStmt") return Drop(node);
    if (kind == "VariableSetStmt") return Set(node);
    std::string what = kind;
    if (what.size() > 4 && what.compare(what.size() - 4, 4, "Stmt") == 0) {
      what.resize(what.size() - 4);
    }
    return At(Status::Unsupported(what + " statements"), begin_);
  }

 private:
  // Adds " (line L:C)" for a byte offset of the script.
  Status At(const Status& st, size_t offset) const {
    return Status(st.code(), st.message() + " (line " +
                                 PositionOf(script_, static_cast<int>(offset)).ToString() + ")");
  }
  size_t LocationOf(const Json& node) const {
    auto it = node.find("location");
    if (it != node.end() && it->is_number_integer()) {
      const int64_t loc = it->get<int64_t>();
      if (loc >= 0 && static_cast<size_t>(loc) < script_.size()) return static_cast<size_t>(loc);
    }
    return begin_;
  }

  Result<PlanPtr> Plan(const Json& select) {
    BindOptions bind_options;
    bind_options.ansi = session_.options().ansi;
    TANDEM_ASSIGN_OR_RAISE(PlanPtr plan,
                           BindSelect(select, script_, session_.catalog(), bind_options));
    return Optimize(std::move(plan));
  }

  void Configure(ExecContext& ctx) const {
    ctx.eval.ansi = session_.options().ansi;
    ctx.num_threads = session_.options().num_threads;
  }

  Result<const Json*> SelectOf(const Json& query, const char* statement) const {
    if (!query.is_object() || !query.contains("SelectStmt")) {
      return At(Status::Unsupported(std::string(statement) + " of anything but a query"), begin_);
    }
    return &query["SelectStmt"];
  }

  Result<StatementResult> Query(const Json& select) {
    TANDEM_ASSIGN_OR_RAISE(PlanPtr plan, Plan(select));
    ExecContext ctx;
    Configure(ctx);
    StatementResult result;
    TANDEM_ASSIGN_OR_RAISE(result.table, ::tandem::Execute(*plan, ctx));
    return result;
  }

  Result<StatementResult> Explain(const Json& node) {
    bool analyze = false;
    if (node.contains("options")) {
      for (const Json& option : node["options"]) {
        if (!option.contains("DefElem")) continue;
        const Json& def = option["DefElem"];
        const std::string name = Lower(StringField(def, "defname"));
        bool on = true;
        if (def.contains("arg")) {
          Result<std::string> text = SettingValueText(Json::array({def["arg"]}));
          if (text.ok()) {
            Result<bool> b = ParseBoolSetting(name, *text);
            if (!b.ok()) return At(b.status(), LocationOf(def));
            on = *b;
          }
        }
        if (name == "analyze") {
          analyze = on;
        } else if (name != "verbose" && name != "costs") {
          return At(Status::Unsupported("EXPLAIN option " + name), LocationOf(def));
        }
      }
    }
    TANDEM_ASSIGN_OR_RAISE(const Json* select, SelectOf(node["query"], "EXPLAIN"));
    TANDEM_ASSIGN_OR_RAISE(PlanPtr plan, Plan(*select));
    StatementResult result;
    if (!analyze) {
      std::string text;
      AppendPlanWithEstimates(*plan, 0, &text);
      result.table = LinesTable("plan", text);
      return result;
    }
    ExecContext ctx;
    Configure(ctx);
    const auto start = std::chrono::steady_clock::now();
    TANDEM_ASSIGN_OR_RAISE(Table rows, ::tandem::Execute(*plan, ctx));
    char total[96];
    std::snprintf(total, sizeof(total), "Total: %lld rows, %.3f ms",
                  static_cast<long long>(rows.num_rows()), MillisSince(start));
    result.table = LinesTable("plan", PlanToStringWithMetrics(*plan, ctx) + total);
    return result;
  }

  Result<StatementResult> CreateView(const Json& node) {
    const Json& view = node["view"];
    const std::string name = StringField(view, "relname");
    if (!StringField(view, "schemaname").empty()) {
      return At(Status::Unsupported("schema-qualified view names"), LocationOf(view));
    }
    TANDEM_ASSIGN_OR_RAISE(const Json* select, SelectOf(node["query"], "CREATE VIEW"));
    const bool replace = BoolField(node, "replace");
    if (!replace && (session_.catalog().FindTable(name) || session_.catalog().FindView(name))) {
      return At(Status::Invalid("table or view " + name + " already exists"), LocationOf(view));
    }
    const size_t query_start = FindViewQueryStart(script_, begin_, end_);
    if (query_start == std::string::npos) {
      return At(Status::Invalid("CREATE VIEW without AS"), begin_);
    }
    std::string text = script_.substr(query_start, end_ - query_start);
    const std::vector<std::string> aliases = StringList(node.value("aliases", Json::array()));
    if (!aliases.empty()) {
      std::string wrapped = "SELECT * FROM (" + text + "\n) AS " + QuoteIdentifier(name) + "(";
      for (size_t i = 0; i < aliases.size(); ++i) {
        wrapped += (i ? ", " : "") + QuoteIdentifier(aliases[i]);
      }
      text = wrapped + ")";
    }
    // Bind now, so a broken view is reported where it is written (positions in the script).
    TANDEM_ASSIGN_OR_RAISE(PlanPtr plan, Plan(*select));
    if (!aliases.empty() && aliases.size() > static_cast<size_t>(plan->schema.num_fields())) {
      return At(Status::Invalid("view " + name + " names " + std::to_string(aliases.size()) +
                                " columns but its query has " +
                                std::to_string(plan->schema.num_fields())),
                LocationOf(view));
    }
    TANDEM_RETURN_NOT_OK(session_.catalog().AddView(name, text, replace));
    return Message("created view " + name);
  }

  Result<StatementResult> CreateTableAs(const Json& node) {
    if (StringField(node, "objtype") != "OBJECT_TABLE") {
      return At(Status::Unsupported("CREATE MATERIALIZED VIEW"), begin_);
    }
    const Json& into = node["into"];
    const Json& rel = into["rel"];
    const std::string name = StringField(rel, "relname");
    if (!StringField(rel, "schemaname").empty()) {
      return At(Status::Unsupported("schema-qualified table names"), LocationOf(rel));
    }
    if (!IsFileSafeName(name)) {
      return At(Status::Invalid("table name '" + name +
                                "' cannot be a file name (use letters, digits, _ - .)"),
                LocationOf(rel));
    }
    Catalog& catalog = session_.catalog();
    if (catalog.FindTable(name) || catalog.FindView(name)) {
      if (BoolField(node, "if_not_exists")) return Message("table " + name + " already exists");
      return At(Status::Invalid("table or view " + name + " already exists"), LocationOf(rel));
    }
    if (BoolField(into, "skipData")) {
      return At(Status::Unsupported("CREATE TABLE ... WITH NO DATA"), begin_);
    }
    TANDEM_ASSIGN_OR_RAISE(const Json* select, SelectOf(node["query"], "CREATE TABLE AS"));
    TANDEM_ASSIGN_OR_RAISE(StatementResult rows, Query(*select));
    Table& table = rows.table;
    const std::vector<std::string> names = StringList(into.value("colNames", Json::array()));
    if (names.size() > static_cast<size_t>(table.schema.num_fields())) {
      return At(Status::Invalid("table " + name + " names " + std::to_string(names.size()) +
                                " columns but its query has " +
                                std::to_string(table.schema.num_fields())),
                LocationOf(rel));
    }
    for (size_t i = 0; i < names.size(); ++i) table.schema.fields[i].name = names[i];
    std::set<std::string> seen;
    for (const Field& f : table.schema.fields) {
      if (!seen.insert(Lower(f.name)).second) {
        return At(Status::Invalid("table " + name + " would have two columns named " + f.name +
                                  "; give them different aliases"),
                  LocationOf(rel));
      }
    }
    for (BatchPtr& batch : table.batches) {
      if (batch->schema.fields.size() != table.schema.fields.size()) continue;
      auto renamed = std::make_shared<Batch>(*batch);
      renamed->schema = table.schema;
      batch = std::move(renamed);
    }
    const std::string path =
        (std::filesystem::path(session_.options().table_dir) / (name + ".parquet")).string();
    TANDEM_RETURN_NOT_OK(parquet::WriteParquet(path, table).WithContext("CREATE TABLE " + name));
    TANDEM_ASSIGN_OR_RAISE(auto source, TableSource::Parquet(name, path));
    TANDEM_RETURN_NOT_OK(catalog.AddTable(name, std::move(source), false));
    return Message("created table " + name + " (" + std::to_string(table.num_rows()) + " rows, " +
                   path + ")");
  }

  Result<StatementResult> Drop(const Json& node) {
    const std::string type = StringField(node, "removeType");
    const bool is_view = type == "OBJECT_VIEW";
    if (!is_view && type != "OBJECT_TABLE") {
      return At(Status::Unsupported("DROP of anything but tables and views"), begin_);
    }
    const bool if_exists = BoolField(node, "missing_ok");
    Catalog& catalog = session_.catalog();
    std::string dropped;
    for (const Json& object : node.value("objects", Json::array())) {
      const std::vector<std::string> parts = StringList(
          object.contains("List") ? object["List"].value("items", Json::array()) : Json::array());
      if (parts.size() != 1) {
        return At(Status::Unsupported("schema-qualified names in DROP"), begin_);
      }
      const std::string& name = parts[0];
      const bool has_table = catalog.FindTable(name) != nullptr;
      const bool has_view = catalog.FindView(name) != nullptr;
      if (!has_table && !has_view) {
        if (if_exists) continue;
        return At(
            Status::Invalid(std::string("no ") + (is_view ? "view" : "table") + " named " + name),
            begin_);
      }
      if (is_view ? has_table : has_view) {
        return At(Status::Invalid(name + " is a " + (has_view ? "view" : "table") + "; use DROP " +
                                  (has_view ? "VIEW" : "TABLE")),
                  begin_);
      }
      TANDEM_RETURN_NOT_OK(catalog.Drop(name, false));
      dropped += (dropped.empty() ? "" : ", ") + name;
    }
    return Message(dropped.empty()
                       ? "nothing dropped"
                       : std::string("dropped ") + (is_view ? "view " : "table ") + dropped);
  }

  Result<StatementResult> Set(const Json& node) {
    const std::string kind = StringField(node, "kind");
    const std::string name = Lower(StringField(node, "name"));
    const bool reset = kind == "VAR_RESET";
    if (!reset && kind != "VAR_SET_VALUE") {
      return At(Status::Unsupported("SET " + kind), begin_);
    }
    SessionOptions& options = session_.options();
    std::string value;
    if (!reset) {
      Result<std::string> text = SettingValueText(node.value("args", Json::array()));
      if (!text.ok()) return At(text.status(), begin_);
      value = *text;
    }
    if (name == "tandem.sql.ansi" || name == "ansi") {
      bool on = false;
      if (!reset) {
        Result<bool> parsed = ParseBoolSetting(name, value);
        if (!parsed.ok()) return At(parsed.status(), begin_);
        on = *parsed;
      }
      options.ansi = on;
      return Message(std::string("set tandem.sql.ansi = ") + (on ? "true" : "false"));
    }
    if (name == "threads" || name == "tandem.sql.threads") {
      int threads = 0;
      if (!reset) {
        Result<int> parsed = ParseThreadsSetting(value);
        if (!parsed.ok()) return At(parsed.status(), begin_);
        threads = *parsed;
      }
      options.num_threads = threads;
      return Message("set threads = " + std::to_string(threads));
    }
    return At(Status::Invalid("unknown setting " + name + " (settings: tandem.sql.ansi, threads)"),
              begin_);
  }

  static StatementResult Message(std::string text) {
    StatementResult result;
    result.kind = StatementResult::Kind::kMessage;
    result.message = std::move(text);
    return result;
  }

  Session& session_;
  const std::string& script_;
  const ParsedStatement& stmt_;
  size_t begin_ = 0;  // first byte of the statement's text (after leading comments)
  size_t end_ = 0;
};

}  // namespace

Session::Session(SessionOptions options) : options_(std::move(options)) {}

Status Session::RegisterTable(const std::string& name, const std::string& path) {
  Result<std::shared_ptr<TableSource>> source =
      EndsWithCsv(path) ? TableSource::Csv(name, path) : TableSource::Parquet(name, path);
  if (!source.ok()) return source.status().WithContext("table " + name);
  return catalog_.AddTable(name, *source, true);
}

Result<std::vector<StatementResult>> Session::ExecuteScript(const std::string& sql) {
  TANDEM_ASSIGN_OR_RAISE(std::vector<ParsedStatement> statements, ParseSql(sql));
  std::vector<StatementResult> results;
  for (const ParsedStatement& stmt : statements) {
    const auto start = std::chrono::steady_clock::now();
    TANDEM_ASSIGN_OR_RAISE(StatementResult result, StatementRunner(*this, sql, stmt).Run());
    result.millis = MillisSince(start);
    results.push_back(std::move(result));
  }
  return results;
}

Result<StatementResult> Session::Execute(const std::string& sql) {
  TANDEM_ASSIGN_OR_RAISE(std::vector<ParsedStatement> statements, ParseSql(sql));
  if (statements.size() != 1) {
    return Status::Invalid("expected one SQL statement, got " + std::to_string(statements.size()));
  }
  const auto start = std::chrono::steady_clock::now();
  TANDEM_ASSIGN_OR_RAISE(StatementResult result, StatementRunner(*this, sql, statements[0]).Run());
  result.millis = MillisSince(start);
  return result;
}

}  // namespace tandem::sql
