// `tandem version`: the build's version and whether a usable GPU is present.
#include <cstdio>

#include "tandem/cli/command.h"
#include "tandem/gpu/device.h"

namespace tandem::cli {
namespace {

int RunVersion(const std::vector<std::string>& args) {
  std::printf("tandem 0.1.0 (CUDA sources %s)\n", gpu::CompiledWithCuda() ? "compiled" : "absent");
  auto dev = gpu::QueryDevice();
  if (dev.ok()) {
    std::printf("GPU: %s, sm_%d%d, %d SMs, %.1f GiB\n", dev->name.c_str(),
                dev->compute_capability_major, dev->compute_capability_minor, dev->multiprocessors,
                dev->total_memory_bytes / double(1 << 30));
  } else {
    std::printf("GPU: none usable (%s)\n", dev.status().message().c_str());
  }
  return 0;
}

}  // namespace

TANDEM_REGISTER_COMMAND(version, "version", "version                 build and GPU information",
                        RunVersion);

}  // namespace tandem::cli
