// The kernel cache (kernel_cache.h): a map in memory in front of one file per kernel on disk.
#include "tandem/gpu/jit/kernel_cache.h"

#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>
#include <unordered_map>

#include "tandem/common/atomic_file.h"

namespace tandem::gpu::jit {
namespace {

constexpr char kMagic[8] = {'T', 'Q', 'K', 'E', 'R', 'N', '0', '1'};
constexpr size_t kHeaderBytes = 8 + 3 * sizeof(uint64_t);

uint64_t Fnv1a(const void* data, size_t size, uint64_t h = 1469598103934665603ULL) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < size; ++i) {
    h ^= p[i];
    h *= 1099511628211ULL;
  }
  return h;
}

uint64_t Mix(uint64_t h, const std::string& s) {
  const uint64_t size = s.size();
  h = Fnv1a(&size, sizeof(size), h);  // lengths keep "ab"+"c" apart from "a"+"bc"
  return Fnv1a(s.data(), s.size(), h);
}

struct Cache {
  std::mutex mu;
  std::unordered_map<uint64_t, std::string> cubins;
  KernelCacheCounts counts;
};

Cache& TheCache() {
  static Cache* cache = new Cache;  // never destroyed: kernels may be looked up at exit
  return *cache;
}

std::string Hex(uint64_t key) {
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(key));
  return buf;
}

bool IsDirectory(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// mkdir -p; false when the folder cannot be made.
bool MakeDirectories(const std::string& path) {
  if (path.empty() || IsDirectory(path)) return !path.empty();
  const size_t slash = path.find_last_of('/');
  if (slash != std::string::npos && slash > 0) MakeDirectories(path.substr(0, slash));
  return ::mkdir(path.c_str(), 0755) == 0 || IsDirectory(path);
}

enum class DiskRead { kMissing, kCorrupt, kFound };

DiskRead ReadCubin(const std::string& path, uint64_t key, std::string* cubin) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return DiskRead::kMissing;
  std::stringstream buf;
  buf << in.rdbuf();
  const std::string file = buf.str();
  if (file.size() < kHeaderBytes || std::memcmp(file.data(), kMagic, 8) != 0) {
    return DiskRead::kCorrupt;
  }
  uint64_t header[3];
  std::memcpy(header, file.data() + 8, sizeof(header));
  if (header[0] != key || header[1] != file.size() - kHeaderBytes) return DiskRead::kCorrupt;
  if (Fnv1a(file.data() + kHeaderBytes, header[1]) != header[2]) return DiskRead::kCorrupt;
  *cubin = file.substr(kHeaderBytes);
  return DiskRead::kFound;
}

Status WriteCubin(const std::string& path, uint64_t key, const std::string& cubin) {
  std::string file(kMagic, 8);
  const uint64_t header[3] = {key, cubin.size(), Fnv1a(cubin.data(), cubin.size())};
  file.append(reinterpret_cast<const char*>(header), sizeof(header));
  file += cubin;
  return WriteFileAtomically(path, file);
}

}  // namespace

std::string KernelCacheDir(const std::string& setting) {
  if (!setting.empty()) return setting;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg && IsDirectory(xdg)) {
    return std::string(xdg) + "/tandem/kernels";
  }
  if (const char* home = std::getenv("HOME"); home && *home && IsDirectory(home)) {
    return std::string(home) + "/.cache/tandem/kernels";
  }
  return "";
}

uint64_t KernelKey(const KernelSource& kernel, const std::string& nvrtc_version) {
  uint64_t h = Mix(1469598103934665603ULL, "tandem kernel cache 1");
  h = Mix(h, nvrtc_version);
  h = Mix(h, std::to_string(kernel.arch));
  h = Mix(h, kernel.name);
  h = Mix(h, kernel.source);
  for (const SourceHeader& header : kernel.headers) h = Mix(Mix(h, header.name), header.text);
  for (const std::string& option : kernel.options) h = Mix(h, option);
  return h;
}

Result<std::string> CubinFor(const KernelSource& kernel, const std::string& dir) {
  TANDEM_ASSIGN_OR_RAISE(const Nvrtc* nvrtc, Nvrtc::Get());
  const uint64_t key = KernelKey(kernel, nvrtc->version());
  Cache& cache = TheCache();
  {
    std::lock_guard<std::mutex> lock(cache.mu);
    if (auto it = cache.cubins.find(key); it != cache.cubins.end()) {
      ++cache.counts.memory_hits;
      return it->second;
    }
  }
  const std::string path = dir.empty() ? "" : dir + "/" + Hex(key) + ".cubin";
  std::string cubin;
  DiskRead read = DiskRead::kMissing;
  if (!path.empty()) read = ReadCubin(path, key, &cubin);
  if (read != DiskRead::kFound) {
    TANDEM_ASSIGN_OR_RAISE(cubin, nvrtc->CompileToCubin(kernel.source, kernel.name, kernel.arch,
                                                        kernel.headers, kernel.options));
  }
  bool stored = true;
  if (read != DiskRead::kFound && !path.empty()) {
    stored = MakeDirectories(dir) && WriteCubin(path, key, cubin).ok();
  }
  std::lock_guard<std::mutex> lock(cache.mu);
  if (read == DiskRead::kFound) {
    ++cache.counts.disk_hits;
  } else {
    ++cache.counts.compiled;
    if (read == DiskRead::kCorrupt) ++cache.counts.corrupt_files;
    if (!stored) ++cache.counts.write_failures;
  }
  cache.cubins.emplace(key, cubin);
  return cubin;
}

KernelCacheCounts KernelCacheCountsNow() {
  Cache& cache = TheCache();
  std::lock_guard<std::mutex> lock(cache.mu);
  return cache.counts;
}

void ForgetKernelsInMemory() {
  Cache& cache = TheCache();
  std::lock_guard<std::mutex> lock(cache.mu);
  cache.cubins.clear();
}

}  // namespace tandem::gpu::jit
