// `tandem spark support [--json]`: what the Spark plugin runs in Tandem and what it leaves to
// Spark, from the one table the plugin and `tandem qualify` read (spark/support_table.h). The
// build writes `--json` into the plugin's jar.
#include <cstdio>

#include "tandem/cli/arg_reader.h"
#include "tandem/cli/command.h"
#include "tandem/spark/support_table.h"

namespace tandem::cli {
namespace {

const char* Label(spark::SparkSupport s) {
  switch (s) {
    case spark::SparkSupport::kTranslated:
      return "Tandem";
    case spark::SparkSupport::kBoundary:
      return "Spark (machinery)";
    case spark::SparkSupport::kSpark:
      return "Spark";
  }
  return "Spark";
}

int PrintSupport(bool json) {
  if (json) {
    std::printf("%s\n", spark::SupportTableJson().dump(1).c_str());
    return 0;
  }
  std::printf("Spark operators (as event logs name them):\n");
  for (const auto& e : spark::SparkOperators()) {
    std::printf("  %-28s %-44s %s%s%s\n", e.spark_class,
                (std::string(e.shown_as) + (e.prefix ? "..." : "")).c_str(), Label(e.support),
                *e.reason ? ": " : "", e.reason);
  }
  std::printf("Spark expressions:\n");
  for (const auto& e : spark::SparkExpressions()) {
    std::string shown;
    for (const char* s : e.shown_as) shown += (shown.empty() ? "" : ", ") + std::string(s);
    std::printf("  %-28s %-44s %s%s%s\n", e.spark_class, shown.c_str(), Label(e.support),
                *e.reason ? ": " : "", e.reason);
  }
  std::printf(
      "A translated operator runs in Tandem when the engine also accepts its types and "
      "expressions (docs/spark.md).\n");
  return 0;
}

int RunSpark(const std::vector<std::string>& args) {
  ArgReader r(args);
  if (!r.Next() || r.arg() != "support") {
    std::fprintf(stderr, "usage: tandem spark support [--json]\n");
    return 2;
  }
  bool json = false;
  while (r.Next()) {
    if (r.arg() == "--json") {
      json = true;
    } else {
      return Fail("spark support: unknown argument " + r.arg());
    }
  }
  return PrintSupport(json);
}

}  // namespace

TANDEM_REGISTER_COMMAND(spark, "spark",
                        "spark support [--json]  what the Spark plugin runs in Tandem", RunSpark);

}  // namespace tandem::cli
