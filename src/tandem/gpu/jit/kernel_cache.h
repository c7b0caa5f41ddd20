// Compiled kernels, kept: a generated kernel's CUBIN is looked up by a key over its source, the
// compile options, the architecture and the NVRTC version, first in this process, then on disk
// (so a second process, or the next query of the same shape, does not compile again), and
// compiled with NVRTC only when neither has it.
//
// On disk each kernel is one file, <dir>/<key as 16 hex digits>.cubin: an 8-byte magic, the key,
// the CUBIN's size and an FNV-1a checksum of it, then the CUBIN. A file that is short, of another
// key or whose checksum fails (a crash mid-write on a file system without atomic rename, a disk
// error, someone's edit) is counted as corrupt, compiled again and replaced; it never reaches the
// GPU. Files are written atomically (common/atomic_file.h), so processes sharing the folder see a
// whole file or none.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tandem/common/status.h"
#include "tandem/gpu/jit/nvrtc.h"

namespace tandem::gpu::jit {

struct KernelSource {
  std::string name;    // the kernel's function name (extern "C"), for messages
  std::string source;  // the whole translation unit
  std::vector<SourceHeader> headers;
  std::vector<std::string> options;  // NVRTC options (the architecture is added)
  int arch = 90;                     // sm_<arch>
};

// What the cache did, process-wide (EXPLAIN ANALYZE and the tests read it).
struct KernelCacheCounts {
  int64_t memory_hits = 0;
  int64_t disk_hits = 0;
  int64_t compiled = 0;
  int64_t corrupt_files = 0;   // found on disk and not used
  int64_t write_failures = 0;  // compiled but not stored (the folder is not writable ...)
};

// The folder kernels are kept in: `setting` (tandem.exec.gpu.kernelCacheDir) when not empty,
// else $XDG_CACHE_HOME/tandem/kernels, else $HOME/.cache/tandem/kernels; "" when none of these
// exists (kernels are then kept in memory only).
std::string KernelCacheDir(const std::string& setting);

// The key of a kernel (FNV-1a 64 over everything that decides its CUBIN, NVRTC's version
// included).
uint64_t KernelKey(const KernelSource& kernel, const std::string& nvrtc_version);

// The CUBIN of `kernel`: from memory, from `dir` (when not empty) or compiled by NVRTC and then
// stored in both. Thread-safe. Errors: NVRTC missing or failing to compile.
Result<std::string> CubinFor(const KernelSource& kernel, const std::string& dir);

KernelCacheCounts KernelCacheCountsNow();
// Forgets the kernels kept in memory (tests: the next lookup goes to disk).
void ForgetKernelsInMemory();

}  // namespace tandem::gpu::jit
