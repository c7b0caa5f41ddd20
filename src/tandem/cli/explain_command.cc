// `tandem explain "QUERY"`: prints the optimized, placed plan of a query without running it: one
// operator a line with its device (cpu, gpu, or pcie for host<->device transitions), estimated
// rows and, for operators left on the CPU, why. --analyze runs it and adds each operator's rows,
// batches, bytes, time and device; --json prints one JSON document instead; --target h200 plans
// for that GPU even on a machine without one. The query is bound as written, so error positions
// (line:column) are those of the argument.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "tandem/cli/arg_reader.h"
#include "tandem/cli/command.h"
#include "tandem/sql/session.h"
#include "tandem/udf/registry.h"

namespace tandem::cli {
namespace {

constexpr const char* kUsage =
    "explain \"QUERY\" [--analyze] [--json] [--target auto|h200|cpu-only] [--table NAME=PATH]... "
    "[--catalog FILE] [--ansi] [--conf KEY=VALUE]... [--udf LIB.so]...";

int UsageError(const std::string& message) {
  std::fprintf(stderr, "tandem: %s\nusage: tandem %s\n", message.c_str(), kUsage);
  return 2;
}

struct ExplainArgs {
  std::string query;
  bool has_query = false;
  bool analyze = false;
  bool json = false;
  std::vector<std::pair<std::string, std::string>> tables;
  std::vector<std::string> catalogs;
  std::vector<std::string> udf_libraries;
  Config config;
};

int ParseArgs(const std::vector<std::string>& args, ExplainArgs* out) {
  ArgReader reader(args);
  while (reader.Next()) {
    const std::string& arg = reader.arg();
    const bool has_value = reader.has_inline_value();
    std::string value = reader.inline_value();
    auto take_value = [&]() -> bool { return reader.TakeValue(&value); };
    if (arg == "--analyze" || arg == "--json") {
      if (has_value) return UsageError(arg + " takes no value");
      (arg == "--analyze" ? out->analyze : out->json) = true;
    } else if (arg == "--ansi") {
      if (has_value) return UsageError(arg + " takes no value");
      (void)out->config.Set(config_keys::kAnsi, "true");
    } else if (arg == "--target") {
      if (!take_value()) return UsageError("--target needs auto, h200 or cpu-only");
      if (Status st = out->config.Set(config_keys::kPlacementTarget, value); !st.ok()) {
        return UsageError(st.message());
      }
    } else if (arg == "--conf") {
      if (!take_value()) return UsageError("--conf needs KEY=VALUE");
      if (Status st = out->config.SetAssignment(value); !st.ok()) return UsageError(st.message());
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
    } else if (arg == "--udf") {
      if (!take_value()) return UsageError("--udf needs a shared library path");
      out->udf_libraries.push_back(value);
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

int RunExplain(const std::vector<std::string>& argv) {
  ExplainArgs args;
  if (int code = ParseArgs(argv, &args); code != 0) return code;
  sql::SessionOptions options;
  options.config = args.config;
  options.notice = [](const std::string& text) { std::fprintf(stderr, "%s\n", text.c_str()); };
  sql::Session session(options);
  for (const std::string& catalog : args.catalogs) {
    if (Status st = session.catalog().LoadFile(catalog); !st.ok()) return Fail(st.ToString());
  }
  for (const auto& [name, path] : args.tables) {
    if (Status st = session.RegisterTable(name, path); !st.ok()) return Fail(st.ToString());
  }
  for (const std::string& library : args.udf_libraries) {
    if (Status st = udf::RegisterLibrary(library); !st.ok()) return Fail(st.ToString());
  }
  Result<sql::StatementResult> result = session.ExplainQuery(args.query, args.analyze, args.json);
  if (!result.ok()) return Fail(result.status().ToString());
  std::string text;
  for (const BatchPtr& batch : result->table.batches) {
    for (int64_t row = 0; row < batch->num_rows; ++row) {
      text.append(batch->column(0)->GetString(row));
      text.push_back('\n');
    }
  }
  std::fwrite(text.data(), 1, text.size(), stdout);
  if (std::fflush(stdout) != 0) return Fail(std::string("writing output: ") + std::strerror(errno));
  return 0;
}

}  // namespace

TANDEM_REGISTER_COMMAND(explain, "explain", kUsage, RunExplain);

}  // namespace tandem::cli
