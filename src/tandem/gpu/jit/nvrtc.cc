// NVRTC through dlopen (see nvrtc.h). The entry points are declared here with NVRTC's C
// signatures (nvrtcProgram is an opaque pointer, nvrtcResult an int, 0 for success), so the
// build needs neither nvrtc.h nor the library.
#include "tandem/gpu/jit/nvrtc.h"

#include <dlfcn.h>
#include <glob.h>

#include <cstdlib>
#include <mutex>

namespace tandem::gpu::jit {

struct Nvrtc::Functions {
  using Program = void*;
  const char* (*error_string)(int) = nullptr;
  int (*version)(int*, int*) = nullptr;
  int (*create)(Program*, const char*, const char*, int, const char* const*,
                const char* const*) = nullptr;
  int (*compile)(Program, int, const char* const*) = nullptr;
  int (*cubin_size)(Program, size_t*) = nullptr;
  int (*cubin)(Program, char*) = nullptr;
  int (*log_size)(Program, size_t*) = nullptr;
  int (*log)(Program, char*) = nullptr;
  int (*destroy)(Program*) = nullptr;
};

namespace {

// Candidate files without TANDEM_NVRTC_LIBRARY, most specific first.
std::vector<std::string> Candidates() {
  std::vector<std::string> out;
  out.push_back("libnvrtc.so.13");
  const char* patterns[] = {
      "/usr/local/cuda/lib64/libnvrtc.so.13",
      "/usr/local/cuda/lib/libnvrtc.so.13",
      "/usr/local/cuda-13*/lib*/libnvrtc.so.13",
      "/usr/local/lib/python3*/dist-packages/nvidia/cu13/lib/libnvrtc.so.13",
      "/usr/local/lib/python3*/site-packages/nvidia/cu13/lib/libnvrtc.so.13",
      "/usr/lib/python3/dist-packages/nvidia/cu13/lib/libnvrtc.so.13",
      "/usr/local/lib/python3*/dist-packages/nvidia/cuda_nvrtc/lib/libnvrtc.so.13",
      "/usr/local/lib/python3*/site-packages/nvidia/cuda_nvrtc/lib/libnvrtc.so.13",
      "/opt/*/lib/python3*/site-packages/nvidia/cu13/lib/libnvrtc.so.13",
  };
  for (const char* pattern : patterns) {
    glob_t g{};
    if (::glob(pattern, 0, nullptr, &g) == 0) {
      for (size_t i = 0; i < g.gl_pathc; ++i) out.push_back(g.gl_pathv[i]);
    }
    ::globfree(&g);
  }
  if (const char* home = std::getenv("HOME"); home && *home) {
    glob_t g{};
    const std::string pattern =
        std::string(home) + "/.local/lib/python3*/site-packages/nvidia/cu13/lib/libnvrtc.so.13";
    if (::glob(pattern.c_str(), 0, nullptr, &g) == 0) {
      for (size_t i = 0; i < g.gl_pathc; ++i) out.push_back(g.gl_pathv[i]);
    }
    ::globfree(&g);
  }
  return out;
}

template <typename F>
bool Bind(void* lib, const char* name, F* out) {
  *out = reinterpret_cast<F>(::dlsym(lib, name));
  return *out != nullptr;
}

// The first lines of a compile log (the generator's errors are its own bugs: enough to find it).
std::string Head(const std::string& log, int max_lines) {
  size_t pos = 0;
  for (int line = 0; line < max_lines; ++line) {
    pos = log.find('\n', pos);
    if (pos == std::string::npos) return log;
    ++pos;
  }
  return log.substr(0, pos) + "...";
}

}  // namespace

Result<const Nvrtc*> Nvrtc::Load(const std::string& path) {
  void* lib = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* why = ::dlerror();
    return Status::IOError("NVRTC " + path + " does not load: " + (why ? why : "unknown error"));
  }
  auto* fn = new Functions;
  const bool ok =
      Bind(lib, "nvrtcGetErrorString", &fn->error_string) &&
      Bind(lib, "nvrtcVersion", &fn->version) && Bind(lib, "nvrtcCreateProgram", &fn->create) &&
      Bind(lib, "nvrtcCompileProgram", &fn->compile) &&
      Bind(lib, "nvrtcGetCUBINSize", &fn->cubin_size) && Bind(lib, "nvrtcGetCUBIN", &fn->cubin) &&
      Bind(lib, "nvrtcGetProgramLogSize", &fn->log_size) &&
      Bind(lib, "nvrtcGetProgramLog", &fn->log) && Bind(lib, "nvrtcDestroyProgram", &fn->destroy);
  int major = 0, minor = 0;
  if (!ok || fn->version(&major, &minor) != 0) {
    delete fn;
    ::dlclose(lib);
    return Status::IOError("NVRTC " + path + " lacks NVRTC's functions (not libnvrtc?)");
  }
  auto* loaded = new Nvrtc;
  loaded->fn_ = fn;
  loaded->version_ = std::to_string(major) + "." + std::to_string(minor);
  loaded->path_ = path;
  return loaded;
}

Result<const Nvrtc*> Nvrtc::Get() {
  static std::once_flag once;
  static const Nvrtc* loaded = nullptr;
  static std::string why_not;
  std::call_once(once, [] {
    if (const char* env = std::getenv("TANDEM_NVRTC_LIBRARY"); env && *env) {
      Result<const Nvrtc*> chosen = Load(env);
      if (chosen.ok()) {
        loaded = *chosen;
      } else {
        why_not = "TANDEM_NVRTC_LIBRARY: " + chosen.status().message();
      }
      return;
    }
    const std::vector<std::string> candidates = Candidates();
    for (const std::string& path : candidates) {
      Result<const Nvrtc*> one = Load(path);
      if (one.ok()) {
        loaded = *one;
        return;
      }
    }
    why_not =
        "NVRTC (libnvrtc.so.13) not found: set TANDEM_NVRTC_LIBRARY, install the CUDA "
        "toolkit or PyPI's nvidia-cuda-nvrtc (looked in " +
        std::to_string(candidates.size()) + " places)";
  });
  if (!loaded) return Status::Unsupported(why_not);
  return loaded;
}

Result<std::string> Nvrtc::CompileToCubin(const std::string& source, const std::string& name,
                                          int arch, const std::vector<SourceHeader>& headers,
                                          const std::vector<std::string>& options) const {
  std::vector<const char*> header_texts, header_names;
  for (const SourceHeader& h : headers) {
    header_texts.push_back(h.text.c_str());
    header_names.push_back(h.name.c_str());
  }
  Functions::Program prog = nullptr;
  int rc = fn_->create(&prog, source.c_str(), name.c_str(), static_cast<int>(headers.size()),
                       header_texts.data(), header_names.data());
  if (rc != 0) {
    return Status::Internal(std::string("NVRTC could not take ") + name + ": " +
                            fn_->error_string(rc));
  }
  std::vector<std::string> all = options;
  all.push_back("--gpu-architecture=sm_" + std::to_string(arch));
  std::vector<const char*> opts;
  for (const std::string& o : all) opts.push_back(o.c_str());
  rc = fn_->compile(prog, static_cast<int>(opts.size()), opts.data());
  std::string log;
  size_t log_size = 0;
  if (fn_->log_size(prog, &log_size) == 0 && log_size > 1) {
    log.resize(log_size);
    fn_->log(prog, log.data());
    log.resize(log_size - 1);
  }
  std::string cubin;
  size_t cubin_size = 0;
  if (rc == 0 && fn_->cubin_size(prog, &cubin_size) == 0 && cubin_size > 0) {
    cubin.resize(cubin_size);
    if (fn_->cubin(prog, cubin.data()) != 0) cubin.clear();
  }
  fn_->destroy(&prog);
  if (rc != 0) {
    return Status::Internal("NVRTC could not compile the generated kernel " + name + ": " +
                            fn_->error_string(rc) + "\n" + Head(log, 12));
  }
  if (cubin.empty()) return Status::Internal("NVRTC gave no CUBIN for " + name);
  return cubin;
}

}  // namespace tandem::gpu::jit
