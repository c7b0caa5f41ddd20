// NVRTC, CUDA's run-time compiler, opened at first use (dlopen) so that the binary runs where it
// is absent and needs no CUDA headers to build: kernels generated for one query's shapes
// (gpu/jit/kernel_cache.h) compile to a CUBIN for the GPU's architecture here. Plain C++, in
// every build: compiling needs no GPU, only the library.
//
// Where the library is looked for, in order: $TANDEM_NVRTC_LIBRARY (a file), the loader's path
// (libnvrtc.so.13, as the CUDA toolkit installs it), the toolkit's own folders, and the folders
// where PyPI's nvidia-cuda-nvrtc wheel puts it (nvidia/cu13/lib or nvidia/cuda_nvrtc/lib under a
// Python's site- or dist-packages), which is how the GPU machines without a toolkit have it.
#pragma once

#include <string>
#include <vector>

#include "tandem/common/status.h"

namespace tandem::gpu::jit {

// One header the generated source includes by name, passed to NVRTC as text (the generated
// kernels include nothing from the file system).
struct SourceHeader {
  std::string name;  // as written in #include "..."
  std::string text;
};

class Nvrtc {
 public:
  // The process's NVRTC, loaded once; an error says where it was looked for. With
  // TANDEM_NVRTC_LIBRARY set, that file only: one that does not load is an error naming it and
  // why (the loader's message), not a quiet fall back to another NVRTC.
  static Result<const Nvrtc*> Get();

  // NVRTC from one file (an owned, never freed handle); the error names the file and why not.
  static Result<const Nvrtc*> Load(const std::string& path);

  // "13.0" and the file it was opened from.
  const std::string& version() const { return version_; }
  const std::string& path() const { return path_; }

  // Compiles `source` for sm_<arch> (90 for the H100 and H200) into a CUBIN. `options` are
  // NVRTC's (the architecture is added here). A compile error returns NVRTC's log, first lines.
  Result<std::string> CompileToCubin(const std::string& source, const std::string& name, int arch,
                                     const std::vector<SourceHeader>& headers,
                                     const std::vector<std::string>& options) const;

 private:
  struct Functions;  // NVRTC's entry points (nvrtc.cc)
  const Functions* fn_ = nullptr;
  std::string version_;
  std::string path_;
};

}  // namespace tandem::gpu::jit
