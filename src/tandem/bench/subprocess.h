// Running a child process for the benchmarks: argv as given (no shell), stdout and stderr
// captured through temporary files (so neither pipe can fill and stall the child), an optional
// wall-clock limit after which the child is killed. The benchmark spawns `tandem` itself
// (/proc/self/exe) so that every measured cell starts in a fresh process.
#pragma once

#include <string>
#include <vector>

#include "tandem/common/status.h"

namespace tandem::bench {

struct ProcessResult {
  int exit_code = -1;      // the child's exit status; 128 + signal when killed by one
  bool timed_out = false;  // killed after the time limit
  std::string out;         // stdout
  std::string err;         // stderr
  double wall_ms = 0;
};

// Runs argv[0] (a path) with the arguments; timeout_s <= 0: no limit. Errors only when the
// child cannot be started at all.
Result<ProcessResult> RunProcess(const std::vector<std::string>& argv, double timeout_s = 0);

// The running executable's path (/proc/self/exe resolved), or "" if unknown.
std::string SelfExecutable();

// The last non-empty line of `text` (an error message from a child's stderr), at most
// `max_chars` long.
std::string LastLine(const std::string& text, size_t max_chars = 300);

}  // namespace tandem::bench
