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
#include "tandem/cli/session_args.h"
#include "tandem/sql/session.h"

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
  SessionArgs session;  // --table, --catalog, --udf, --conf
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
      (void)out->session.config.Set(config_keys::kAnsi, "true");
    } else if (arg == "--target") {
      if (!take_value()) return UsageError("--target needs auto, h200 or cpu-only");
      if (Status st = out->session.config.Set(config_keys::kPlacementTarget, value); !st.ok()) {
        return UsageError(st.message());
      }
    } else if (std::string error; TakeSessionOption(arg, reader, &out->session, &error)) {
      if (!error.empty()) return UsageError(error);
    } else if (reader.is_option()) {
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
  options.config = args.session.config;
  options.notice = [](const std::string& text) { std::fprintf(stderr, "%s\n", text.c_str()); };
  sql::Session session(options);
  if (Status st = ApplySessionArgs(args.session, session); !st.ok()) return Fail(st.ToString());
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
  // main() checks that standard output was written.
  return 0;
}

}  // namespace

TANDEM_REGISTER_COMMAND(explain, "explain", kUsage, RunExplain);

}  // namespace tandem::cli
