// `tandem profile LOG... [--json] [--out FILE]`: what applications run with the Spark plugin
// did, per SQL execution (qualify/profile.h).
#include <cstdio>

#include "tandem/cli/arg_reader.h"
#include "tandem/cli/command.h"
#include "tandem/common/atomic_file.h"
#include "tandem/qualify/app_reader.h"
#include "tandem/qualify/profile.h"

namespace tandem::cli {
namespace {

constexpr const char* kUsage = "profile LOG... [--json] [--out FILE.json]";

int RunProfile(const std::vector<std::string>& args) {
  std::vector<std::string> logs;
  bool json = false;
  std::string out;
  ArgReader r(args);
  while (r.Next()) {
    if (!r.is_option()) {
      logs.push_back(r.arg());
    } else if (r.arg() == "--json") {
      json = true;
    } else if (r.arg() == "--out") {
      if (!r.TakeValue(&out)) return Fail("--out needs a file");
    } else {
      std::fprintf(stderr, "tandem: unknown option %s\nusage: tandem %s\n", r.arg().c_str(),
                   kUsage);
      return 2;
    }
  }
  if (logs.empty()) {
    std::fprintf(stderr, "tandem: no event log given\nusage: tandem %s\n", kUsage);
    return 2;
  }
  auto sources = qualify::FindEventLogs(logs);
  if (!sources.ok()) return Fail(sources.status().message());
  if (sources->empty()) return Fail("no event logs under " + logs[0]);
  std::vector<qualify::AppProfile> apps;
  for (const qualify::EventLogSource& source : *sources) {
    const qualify::Application app = qualify::ReadApplication(source);
    apps.push_back(qualify::ProfileApplication(app));
  }
  const std::string json_text = qualify::RenderProfileJson(apps).dump(1) + "\n";
  if (!out.empty()) {
    if (Status st = WriteFileAtomically(out, json_text); !st.ok()) return Fail(st.message());
  }
  std::fputs(json ? json_text.c_str() : qualify::RenderProfileText(apps).c_str(), stdout);
  return 0;
}

}  // namespace

TANDEM_REGISTER_COMMAND(profile, "profile", kUsage, RunProfile);

}  // namespace tandem::cli
