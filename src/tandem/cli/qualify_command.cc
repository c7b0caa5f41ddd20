// `tandem qualify LOG...`: predicts, from Spark event logs of runs without the plugin, what each
// SQL execution and application would take with Tandem on a target, with a range, the reasons
// that limit it and a category; writes the reports (qualify/qualify_report.h).
#include <cstdio>
#include <filesystem>

#include "tandem/cli/arg_reader.h"
#include "tandem/cli/command.h"
#include "tandem/common/atomic_file.h"
#include "tandem/qualify/app_reader.h"
#include "tandem/qualify/qualify_report.h"

namespace tandem::cli {
namespace {

constexpr const char* kUsage =
    "qualify LOG... [--target cpu|h200|FILE] [--slots N] [--cpu-node-price P] "
    "[--gpu-node-price P] [--nodes N] [--out DIR] [--json] [--explain EXECUTION_ID]";

int Usage(const std::string& message) {
  std::fprintf(stderr, "tandem: %s\nusage: tandem %s\n", message.c_str(), kUsage);
  return 2;
}

bool ParseNumber(const std::string& text, double* out) {
  try {
    size_t used = 0;
    *out = std::stod(text, &used);
    return used == text.size() && *out >= 0;
  } catch (...) {
    return false;
  }
}

int RunQualify(const std::vector<std::string>& args) {
  std::vector<std::string> logs;
  std::string target_name = "cpu", out_dir;
  qualify::Prices prices;
  bool json = false;
  int64_t explain = -1;
  double slots = 0;
  ArgReader r(args);
  while (r.Next()) {
    if (!r.is_option()) {
      logs.push_back(r.arg());
      continue;
    }
    const std::string flag = r.arg();
    if (flag == "--json") {
      json = true;
      continue;
    }
    std::string value;
    if (!r.TakeValue(&value)) return Usage(flag + " needs a value");
    double number = 0;
    const bool numeric = ParseNumber(value, &number);
    if (flag == "--target") {
      target_name = value;
    } else if (flag == "--out") {
      out_dir = value;
    } else if (flag == "--explain" && numeric) {
      explain = static_cast<int64_t>(number);
    } else if (flag == "--slots" && numeric && number >= 1) {
      slots = number;
    } else if (flag == "--cpu-node-price" && numeric) {
      prices.cpu_node_per_hour = number;
    } else if (flag == "--gpu-node-price" && numeric) {
      prices.gpu_node_per_hour = number;
    } else if (flag == "--nodes" && numeric && number >= 1) {
      prices.nodes = static_cast<int>(number);
    } else if (flag == "--explain" || flag == "--slots" ||
               flag.find("price") != std::string::npos || flag == "--nodes") {
      return Usage(flag + " takes a non-negative number, got '" + value + "'");
    } else {
      return Usage("unknown option " + flag);
    }
  }
  if (logs.empty()) return Usage("no event log given");
  auto target = qualify::LoadTarget(target_name);
  if (!target.ok()) return Fail(target.status().message());
  target->target_slots = static_cast<int>(slots);
  auto sources = qualify::FindEventLogs(logs);
  if (!sources.ok()) return Fail(sources.status().message());
  if (sources->empty()) return Fail("no event logs under " + logs[0]);
  std::vector<qualify::AppQualification> apps;
  for (const qualify::EventLogSource& source : *sources) {
    auto app = std::make_unique<qualify::Application>(qualify::ReadApplication(source));
    if (app->tandem_plugin()) {
      app->problems.push_back(
          "this application ran with the Tandem plugin: `tandem profile` "
          "reads its log; qualification assumes Spark ran everything");
    }
    apps.push_back(qualify::Qualify(std::move(app), *target, prices));
  }
  qualify::ReportContext ctx{&*target, &prices};
  if (explain >= 0) {
    for (const auto& a : apps) {
      const std::string text = qualify::RenderExplain(a, explain, ctx);
      if (!text.empty()) {
        std::fputs(text.c_str(), stdout);
        return 0;
      }
    }
    return Fail("no SQL execution " + std::to_string(explain) + " in the logs given");
  }
  if (!out_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(out_dir, ec);
    if (ec) return Fail("cannot create " + out_dir + ": " + ec.message());
    for (const auto& [file, text] : std::vector<std::pair<std::string, std::string>>{
             {"qualification.json", qualify::RenderJson(apps, ctx).dump(1) + "\n"},
             {"qualification.csv", qualify::RenderCsv(apps)},
             {"report.html", qualify::RenderHtml(apps, ctx)}}) {
      if (Status st = WriteFileAtomically(out_dir + "/" + file, text); !st.ok()) {
        return Fail(st.message());
      }
    }
  }
  if (json) {
    std::printf("%s\n", qualify::RenderJson(apps, ctx).dump(1).c_str());
  } else {
    std::fputs(qualify::RenderSummary(apps, ctx).c_str(), stdout);
    if (!out_dir.empty()) std::printf("\nreports: %s/report.html, .json, .csv\n", out_dir.c_str());
  }
  return 0;
}

}  // namespace

TANDEM_REGISTER_COMMAND(qualify, "qualify", kUsage, RunQualify);

}  // namespace tandem::cli
