// `tandem explain "QUERY"`: prints the optimized plan of a query, one operator a line with its
// estimated row count, without running it; --analyze runs it and prints each operator's rows,
// batches, bytes and time instead. The query is bound as written, so error positions
// (line:column) are those of the argument.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "tandem/cli/arg_reader.h"
#include "tandem/cli/command.h"
#include "tandem/exec/executor.h"
#include "tandem/plan/optimizer.h"
#include "tandem/sql/binder.h"
#include "tandem/sql/parser.h"
#include "tandem/sql/session.h"

namespace tandem::cli {
namespace {

constexpr const char* kUsage =
    "explain \"QUERY\" [--analyze] [--table NAME=PATH]... [--catalog FILE] [--ansi]";

int UsageError(const std::string& message) {
  std::fprintf(stderr, "tandem: %s\nusage: tandem %s\n", message.c_str(), kUsage);
  return 2;
}

struct ExplainArgs {
  std::string query;
  bool has_query = false;
  bool analyze = false;
  bool ansi = false;
  std::vector<std::pair<std::string, std::string>> tables;
  std::vector<std::string> catalogs;
};

int ParseArgs(const std::vector<std::string>& args, ExplainArgs* out) {
  ArgReader reader(args);
  while (reader.Next()) {
    const std::string& arg = reader.arg();
    const bool has_value = reader.has_inline_value();
    std::string value = reader.inline_value();
    auto take_value = [&]() -> bool { return reader.TakeValue(&value); };
    if (arg == "--analyze" || arg == "--ansi") {
      if (has_value) return UsageError(arg + " takes no value");
      (arg == "--analyze" ? out->analyze : out->ansi) = true;
    } else if (arg == "--table") {
      if (!take_value()) return UsageError("--table needs NAME=PATH");
      std::pair<std::string, std::string> table;
      if (!ParseTableOption(value, &table)) {
        return UsageError("--table needs NAME=PATH, got '" + value + "'");
      }
      out->tables.push_back(std::move(table));
    } else if (arg == "--catalog") {
      if (!take_value()) return UsageError("--catalog needs a file name");
      out->catalogs.push_back(value);
    } else if (arg.rfind("-", 0) == 0 && arg.size() > 1) {
      return UsageError("unknown option '" + arg + "'");
    } else if (!out->has_query) {
      out->query = arg;
      out->has_query = true;
    } else {
      return UsageError("more than one query argument (quote the query)");
    }
  }
  if (!out->has_query) return UsageError("missing query");
  return 0;
}

void AppendPlan(const PlanNode& node, int depth, std::string* out) {
  out->append(static_cast<size_t>(depth) * 2, ' ');
  out->append(node.Describe());
  out->push_back('\n');
  for (const PlanPtr& child : node.children) AppendPlan(*child, depth + 1, out);
}

Result<std::string> ExplainText(const ExplainArgs& args, sql::Session& session) {
  TANDEM_ASSIGN_OR_RAISE(std::vector<sql::ParsedStatement> statements, sql::ParseSql(args.query));
  if (statements.size() != 1) {
    return Status::Invalid("explain takes one SQL statement, got " +
                           std::to_string(statements.size()));
  }
  const nlohmann::json& tree = statements[0].tree;
  if (!tree.is_object() || !tree.contains("SelectStmt")) {
    return Status::Invalid("explain takes a query (SELECT, WITH, VALUES or a set operation)");
  }
  sql::BindOptions bind_options;
  bind_options.ansi = args.ansi;
  TANDEM_ASSIGN_OR_RAISE(PlanPtr plan, sql::BindSelect(tree["SelectStmt"], args.query,
                                                       session.catalog(), bind_options));
  TANDEM_ASSIGN_OR_RAISE(plan, Optimize(std::move(plan)));
  if (!args.analyze) {
    std::string text;
    AppendPlan(*plan, 0, &text);
    return text;
  }
  ExecContext ctx;
  ctx.eval.ansi = args.ansi;
  TANDEM_RETURN_NOT_OK(Execute(*plan, ctx).status());
  std::string text = PlanToStringWithMetrics(*plan, ctx);
  if (!text.empty() && text.back() != '\n') text.push_back('\n');
  return text;
}

int RunExplain(const std::vector<std::string>& argv) {
  ExplainArgs args;
  if (int code = ParseArgs(argv, &args); code != 0) return code;
  sql::Session session;
  for (const std::string& catalog : args.catalogs) {
    if (Status st = session.catalog().LoadFile(catalog); !st.ok()) return Fail(st.ToString());
  }
  for (const auto& [name, path] : args.tables) {
    if (Status st = session.RegisterTable(name, path); !st.ok()) return Fail(st.ToString());
  }
  Result<std::string> text = ExplainText(args, session);
  if (!text.ok()) return Fail(text.status().ToString());
  std::fwrite(text->data(), 1, text->size(), stdout);
  if (std::fflush(stdout) != 0) return Fail(std::string("writing output: ") + std::strerror(errno));
  return 0;
}

}  // namespace

TANDEM_REGISTER_COMMAND(explain, "explain", kUsage, RunExplain);

}  // namespace tandem::cli
