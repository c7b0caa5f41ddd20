// Entry point of the `tandem` binary: dispatches to a registered subcommand and turns anything
// unexpected (out of memory, an escaped exception) into a one-line error and a non-zero exit.
#include <malloc.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>

#include "tandem/cli/command.h"
#include "tandem/common/atomic_file.h"
#include "tandem/common/out_of_memory.h"
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

// Output that never reached standard output (a full disk, a closed pipe, /dev/full) fails the
// command: a command that succeeded gets exit code 1 and one line naming the failure.
static int FinishStandardOutput(int code) {
  errno = 0;
  const bool flush_failed = std::fflush(stdout) != 0;
  const int err = errno;
  if (!flush_failed && !std::ferror(stdout)) return code;
  if (code != 0) return code;  // the command failed already and said why
  return Fail(std::string("writing standard output failed: ") +
              (flush_failed && err != 0 ? std::strerror(err) : "an earlier write was lost"));
}

// SIGINT, SIGTERM and SIGHUP end the command: its unfinished output files are removed and one
// line on stderr says what was cancelled; then the signal takes its default course, so the
// parent sees the process killed by it (exit status 130, 143, 129 in a shell).
static const char* g_command_name = "command";
static bool g_stderr_is_terminal = false;

extern "C" void OnTerminatingSignal(int sig) {
  char line[8192];
  size_t len = 0;
  const size_t cap = sizeof(line) - 1;
  // A running indicator may occupy the terminal line: clear it first.
  if (g_stderr_is_terminal) AppendSignalSafe(line, &len, cap, "\r\x1b[K");
  AppendSignalSafe(line, &len, cap, "tandem: ");
  AppendSignalSafe(line, &len, cap, g_command_name);
  AppendSignalSafe(line, &len, cap, " cancelled by ");
  AppendSignalSafe(line, &len, cap,
                   sig == SIGINT    ? "SIGINT"
                   : sig == SIGTERM ? "SIGTERM"
                                    : "SIGHUP");
  RemoveUnfinishedFiles(line, &len, cap);
  line[len++] = '\n';
  (void)!::write(STDERR_FILENO, line, len);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

static void InstallSignalHandlers(const char* command) {
  g_command_name = command;
  g_stderr_is_terminal = ::isatty(STDERR_FILENO) != 0;
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction action = {};
    action.sa_handler = OnTerminatingSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESETHAND;
    // A signal the parent ignores (nohup, a background job) stays ignored.
    struct sigaction old = {};
    if (sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    sigaction(sig, &action, nullptr);
  }
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
    return FinishStandardOutput(argc < 2 ? 2 : 0);
  }
  std::vector<std::string> args(argv + 2, argv + argc);
  for (const Command& c : Commands()) {
    if (std::strcmp(c.name, argv[1]) != 0) continue;
    // `tandem <command> --help`: that command's usage, on stdout, and success.
    if (!args.empty() && (args[0] == "--help" || args[0] == "-h")) {
      std::printf("usage: tandem %s\n", c.usage);
      return FinishStandardOutput(0);
    }
    InstallSignalHandlers(c.name);
    try {
      const int code = c.run(args);
      tandem::gpu::JoinBackgroundStart();
      return FinishStandardOutput(code);
    } catch (const std::bad_alloc& e) {
      return Fail(tandem::OutOfMemoryText(e));
    } catch (const std::exception& e) {
      return Fail(std::string("internal error: ") + e.what());
    }
  }
  std::fprintf(stderr, "tandem: unknown command '%s'\n", argv[1]);
  PrintUsage(stderr);
  return 2;
}
