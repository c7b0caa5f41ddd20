// Entry point of the `tandem` binary: dispatches to a registered subcommand and turns anything
// unexpected (out of memory, an escaped exception) into a one-line error and a non-zero exit.
#include <malloc.h>

#include <cstdio>
#include <cstring>
#include <exception>
#include <new>

#include "tandem/cli/command.h"
#include "tandem/gpu/runtime.h"

namespace tandem::cli {

std::vector<Command>& MutableCommands() {
  static std::vector<Command> commands;
  return commands;
}

bool RegisterCommand(const Command& command) {
  MutableCommands().push_back(command);
  return true;
}

const std::vector<Command>& Commands() { return MutableCommands(); }

int Fail(const std::string& message) {
  std::fprintf(stderr, "tandem: %s\n", message.c_str());
  return 1;
}

static void PrintUsage(FILE* out) {
  std::fprintf(out, "usage: tandem <command> [options]\n\ncommands:\n");
  for (const Command& c : Commands()) std::fprintf(out, "  %s\n", c.usage);
}

}  // namespace tandem::cli

int main(int argc, char** argv) {
  using namespace tandem::cli;
  // Keep freed column buffers in the heap instead of returning them to the kernel, so the next
  // operator's allocations do not page-fault and re-zero them (measured 5-9% of CPU time on
  // TPC-H). Set here, in the command-line binary only: programs embedding the library keep
  // their own allocator settings.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h") ||
      !std::strcmp(argv[1], "help")) {
    PrintUsage(argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  std::vector<std::string> args(argv + 2, argv + argc);
  for (const Command& c : Commands()) {
    if (std::strcmp(c.name, argv[1]) != 0) continue;
    // `tandem <command> --help`: that command's usage, on stdout, and success.
    if (!args.empty() && (args[0] == "--help" || args[0] == "-h")) {
      std::printf("usage: tandem %s\n", c.usage);
      return 0;
    }
    try {
      const int code = c.run(args);
      tandem::gpu::JoinBackgroundStart();
      return code;
    } catch (const std::bad_alloc&) {
      return Fail("out of memory");
    } catch (const std::exception& e) {
      return Fail(std::string("internal error: ") + e.what());
    }
  }
  std::fprintf(stderr, "tandem: unknown command '%s'\n", argv[1]);
  PrintUsage(stderr);
  return 2;
}
