// `tandem config --list`: every setting of the configuration registry (common/config.h) with its
// type, default, allowed values and what it does; `--json` for tools. Settings are changed with
// --conf KEY=VALUE on `tandem sql` and `tandem explain`, or SET KEY = VALUE in SQL.
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tandem/cli/arg_reader.h"
#include "tandem/cli/command.h"
#include "tandem/common/config.h"

namespace tandem::cli {
namespace {

constexpr const char* kUsage = "config --list [--json]";

int UsageError(const std::string& message) {
  std::fprintf(stderr, "tandem: %s\nusage: tandem %s\n", message.c_str(), kUsage);
  return 2;
}

std::string AllowedText(const ConfigKey& key) {
  std::string s;
  if (key.type == ConfigType::kEnum) {
    for (size_t i = 0; i < key.allowed.size(); ++i) s += (i ? "|" : "") + key.allowed[i];
  } else if (key.type == ConfigType::kBool) {
    s = "true|false";
  }
  return s;
}

void PrintText() {
  std::string out;
  for (const ConfigKey& key : ConfigKeys()) {
    out += key.name + "\n";
    out += "  type: " + std::string(ConfigTypeName(key.type));
    const std::string allowed = AllowedText(key);
    if (!allowed.empty()) out += " (" + allowed + ")";
    out +=
        "\n  default: " + (key.default_value.empty() ? std::string("(empty)") : key.default_value);
    out += "\n  " + key.doc + "\n";
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
}

void PrintJson() {
  nlohmann::json list = nlohmann::json::array();
  for (const ConfigKey& key : ConfigKeys()) {
    nlohmann::json k{{"name", key.name},
                     {"type", ConfigTypeName(key.type)},
                     {"default", key.default_value},
                     {"doc", key.doc}};
    if (!key.allowed.empty()) k["allowed"] = key.allowed;
    list.push_back(std::move(k));
  }
  const std::string text = list.dump(2) + "\n";
  std::fwrite(text.data(), 1, text.size(), stdout);
}

int RunConfig(const std::vector<std::string>& argv) {
  bool list = false;
  bool json = false;
  ArgReader reader(argv);
  while (reader.Next()) {
    const std::string& arg = reader.arg();
    if (reader.has_inline_value()) return UsageError(arg + " takes no value");
    if (arg == "--list") {
      list = true;
    } else if (arg == "--json") {
      json = true;
    } else {
      return UsageError("unknown argument '" + arg + "'");
    }
  }
  if (!list) return UsageError("missing --list");
  json ? PrintJson() : PrintText();
  return 0;  // main() checks that standard output was written
}

}  // namespace

TANDEM_REGISTER_COMMAND(config, "config", kUsage, RunConfig);

}  // namespace tandem::cli
