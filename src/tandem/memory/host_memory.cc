// The host memory budget (see host_memory.h).
#include "tandem/memory/host_memory.h"

#include <malloc.h>
#include <unistd.h>

#include <atomic>
#include <fstream>

#include "tandem/common/oom_injection.h"
#include "tandem/common/peak_window.h"
#include "tandem/common/text.h"
#include "tandem/memory/host_block.h"

namespace tandem::host_memory {
namespace {

std::atomic<int64_t> g_in_use{0};
std::atomic<int64_t> g_peak{0};
std::atomic<int64_t> g_limit{0};  // 0: not yet computed

// A cgroup v2 (memory.max) or v1 (memory.limit_in_bytes) limit, or 0.
int64_t CgroupLimit() {
  for (const char* path :
       {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}) {
    std::ifstream in(path);
    std::string text;
    if (in >> text && text != "max") {
      const long long v = std::atoll(text.c_str());
      if (v > 0 && v < (int64_t{1} << 60)) return v;
    }
  }
  return 0;
}

int64_t DefaultLimit() { return MachineBytes() / 10 * 8; }

// Reservations since the resident set was last read.
std::atomic<int64_t> g_since_resident_check{0};
constexpr int64_t kResidentCheckEvery = int64_t{256} << 20;

// A value in kB from /proc/self/status ("VmHWM:   123 kB"), in bytes; 0 if absent.
int64_t StatusKiloBytes(const char* field) {
  std::ifstream in("/proc/self/status");
  std::string key;
  const std::string wanted = std::string(field) + ":";
  while (in >> key) {
    if (key == wanted) {
      long long kb = 0;
      in >> kb;
      return kb * 1024;
    }
    in.ignore(1 << 12, '\n');
  }
  return 0;
}

// Throws when `bytes` more would take the resident set past 90 % of the machine, after the
// allocator returned its free memory to the kernel. Checked every kResidentCheckEvery bytes of
// reservations (reading /proc costs microseconds; most reservations are small).
void CheckResident(int64_t bytes) {
  if (g_since_resident_check.fetch_add(bytes) + bytes < kResidentCheckEvery) return;
  g_since_resident_check = 0;
  const int64_t ceiling = MachineBytes() / 10 * 9;
  int64_t resident = ResidentBytes();
  if (resident == 0 || resident + bytes <= ceiling) return;
  host_block::ReleaseKept();
  ::malloc_trim(0);
  resident = ResidentBytes();
  if (resident + bytes <= ceiling) return;
  throw MemoryLimitExceeded("host memory nearly exhausted: the process holds " +
                            FormatByteSize(resident) + " (" + FormatByteSize(g_in_use.load()) +
                            " of it counted by tandem.memory.host.limit), and " +
                            FormatByteSize(bytes) + " more would pass 90 % of the machine's " +
                            FormatByteSize(MachineBytes()));
}

}  // namespace

void GuardResident(int64_t bytes) {
  if (bytes > 0) CheckResident(bytes);
}

int64_t MachineBytes() {
  static const int64_t machine = [] {
    const long pages = ::sysconf(_SC_PHYS_PAGES);
    const long page = ::sysconf(_SC_PAGE_SIZE);
    int64_t bytes = pages > 0 && page > 0 ? int64_t{pages} * page : int64_t{8} << 30;
    const int64_t cgroup = CgroupLimit();
    if (cgroup > 0 && cgroup < bytes) bytes = cgroup;
    return bytes;
  }();
  return machine;
}

int64_t ResidentBytes() {
  std::ifstream in("/proc/self/statm");
  long long size = 0, resident = 0;
  if (!(in >> size >> resident)) return 0;
  return resident * ::sysconf(_SC_PAGE_SIZE);
}

int64_t ResidentPeak() { return StatusKiloBytes("VmHWM"); }

void ResetResidentPeak() {
  std::ofstream out("/proc/self/clear_refs");
  out << "5";
}

void SetLimit(int64_t bytes) { g_limit = bytes > 0 ? bytes : DefaultLimit(); }

int64_t Limit() {
  int64_t limit = g_limit.load();
  if (limit == 0) {
    SetLimit(0);
    limit = g_limit.load();
  }
  return limit;
}

int64_t InUse() { return g_in_use.load(); }

int64_t Peak() { return g_peak.load(); }

void Reserve(int64_t bytes) {
  if (bytes <= 0) return;
  if (ShouldInjectOom(OomTarget::kHost)) {
    throw MemoryLimitExceeded("host out of memory: cannot allocate " + FormatByteSize(bytes) +
                              " (injected by tandem.test.injectHostOom)");
  }
  const int64_t limit = Limit();
  CheckResident(bytes);
  const int64_t before = g_in_use.fetch_add(bytes);
  if (before + bytes > limit) {
    g_in_use.fetch_sub(bytes);
    throw MemoryLimitExceeded("host memory limit reached: " + FormatByteSize(bytes) +
                              " more would make " + FormatByteSize(before + bytes) + " of the " +
                              FormatByteSize(limit) +
                              " tandem.memory.host.limit allows (raise it, or make the query "
                              "produce fewer rows)");
  }
  int64_t peak = g_peak.load();
  while (before + bytes > peak && !g_peak.compare_exchange_weak(peak, before + bytes)) {
  }
  peak_window::NoteHost(before + bytes);
}

void Release(int64_t bytes) {
  if (bytes > 0) g_in_use.fetch_sub(bytes);
}

}  // namespace tandem::host_memory
