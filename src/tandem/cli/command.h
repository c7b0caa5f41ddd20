// Subcommand registry of the `tandem` binary: each cli/<name>.cc registers itself with
// TANDEM_REGISTER_COMMAND, so adding a subcommand touches no other file.
#pragma once

#include <string>
#include <vector>

namespace tandem::cli {

// Returns the process exit code: 0 success, 1 user error (message already printed), 2 usage.
using CommandFn = int (*)(const std::vector<std::string>& args);

struct Command {
  const char* name;
  const char* usage;  // one line: "cat FILE_OR_DIR [--format table|csv|jsonl] ..."
  CommandFn run;
};

bool RegisterCommand(const Command& command);
const std::vector<Command>& Commands();

// Prints "tandem: <message>" on stderr and returns 1: the one-line user-error convention.
int Fail(const std::string& message);

}  // namespace tandem::cli

#define TANDEM_REGISTER_COMMAND(ident, name, usage, fn) \
  static const bool ident##_registered = ::tandem::cli::RegisterCommand({name, usage, fn})
