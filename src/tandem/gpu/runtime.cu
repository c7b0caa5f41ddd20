// The GPU runtime (see runtime.h): one stream-ordered device pool with a byte limit enforced
// here (so an oversized request fails cleanly before CUDA is asked), pinned host memory from one
// page-locked arena carved by a first-fit free list, streams, and asynchronous copies.
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "tandem/common/oom_injection.h"
#include "tandem/common/peak_window.h"
#include "tandem/gpu/cuda_util.cuh"
#include "tandem/gpu/device.h"
#include "tandem/gpu/device_limit.h"
#include "tandem/gpu/runtime.h"

namespace tandem::gpu {
namespace {

constexpr int64_t kPinnedAlignment = 256;

int64_t RoundUp(int64_t n, int64_t to) { return (n + to - 1) / to * to; }

// One page-locked block of the pinned pool: free ranges by offset, coalesced on release.
struct PinnedSegment {
  uint8_t* base = nullptr;
  int64_t size = 0;
  std::map<int64_t, int64_t> free_ranges;  // offset -> bytes

  uint8_t* Take(int64_t bytes) {
    for (auto it = free_ranges.begin(); it != free_ranges.end(); ++it) {
      if (it->second < bytes) continue;
      const int64_t offset = it->first;
      const int64_t rest = it->second - bytes;
      free_ranges.erase(it);
      if (rest > 0) free_ranges.emplace(offset + bytes, rest);
      return base + offset;
    }
    return nullptr;
  }

  bool Holds(const uint8_t* ptr) const { return ptr >= base && ptr < base + size; }

  void Give(uint8_t* ptr, int64_t bytes) {
    int64_t offset = ptr - base;
    auto next = free_ranges.lower_bound(offset);
    if (next != free_ranges.end() && next->first == offset + bytes) {
      bytes += next->second;
      next = free_ranges.erase(next);
    }
    if (next != free_ranges.begin()) {
      auto prev = std::prev(next);
      if (prev->first + prev->second == offset) {
        offset = prev->first;
        bytes += prev->second;
        free_ranges.erase(prev);
      }
    }
    free_ranges.emplace(offset, bytes);
  }
};

// The pinned pool: the configured block, allocated at start, plus blocks added when a request
// finds no room (fragmentation, or more in flight than the pool), up to the configured maximum.
// Blocks are kept until exit: pinning pages costs far more than copying through them (a fresh
// cudaHostAlloc per buffer made a 60M-row scan 35% slower on the H200), so a process pays for a
// block once, in its first query that needs it.
struct PinnedArena {
  static constexpr int64_t kMinGrowth = int64_t{64} << 20;
  std::mutex mu;
  std::vector<PinnedSegment> segments;
  int64_t base_size = 0;  // the configured block
  int64_t size = 0;       // all blocks
  int64_t max_size = 0;
  int64_t growing = 0;  // bytes being allocated now (outside the lock)

  uint8_t* Take(int64_t bytes) {
    std::lock_guard<std::mutex> lock(mu);
    for (PinnedSegment& segment : segments) {
      if (uint8_t* p = segment.Take(bytes)) return p;
    }
    return nullptr;
  }

  // Takes `bytes` from a new block when the maximum allows one; nullptr otherwise.
  uint8_t* Grow(int64_t bytes) {
    int64_t block = 0;
    {
      std::lock_guard<std::mutex> lock(mu);
      block = std::max(bytes, kMinGrowth);
      if (size + growing + block > max_size) return nullptr;
      growing += block;
    }
    void* base = nullptr;
    const bool ok =
        cudaHostAlloc(&base, static_cast<size_t>(block), cudaHostAllocDefault) == cudaSuccess;
    if (!ok) cudaGetLastError();
    std::lock_guard<std::mutex> lock(mu);
    growing -= block;
    if (!ok) return nullptr;
    Add(static_cast<uint8_t*>(base), block);
    return segments.back().Take(bytes);
  }

  void Add(uint8_t* base, int64_t bytes) {  // with mu held (or before any use)
    PinnedSegment segment;
    segment.base = base;
    segment.size = bytes;
    segment.free_ranges.emplace(0, bytes);
    segments.push_back(std::move(segment));
    size += bytes;
  }

  // Returns a buffer; false when it is not from the pool.
  bool Give(uint8_t* ptr, int64_t bytes) {
    std::lock_guard<std::mutex> lock(mu);
    for (PinnedSegment& segment : segments) {
      if (!segment.Holds(ptr)) continue;
      segment.Give(ptr, bytes);
      return true;
    }
    return false;
  }
};

struct RuntimeState {
  std::mutex init_mu;
  std::atomic<bool> initialized{false};
  cudaMemPool_t pool = nullptr;
  int64_t pool_limit = 0;
  std::atomic<int64_t> used{0};
  std::atomic<int64_t> peak{0};
  PinnedArena pinned;
  std::atomic<int64_t> pinned_misses{0};  // fresh cudaHostAllocs: new blocks, one-off buffers
  std::atomic<int64_t> pinned_miss_bytes{0};
};

RuntimeState& State() {
  static RuntimeState* state = new RuntimeState();  // never destroyed: buffers may outlive main
  return *state;
}

Status EnsureInitialized() {
  if (State().initialized.load(std::memory_order_acquire)) return Status::OK();
  return InitRuntime(DeviceMemoryConfig{});
}

std::string PoolDescription() {
  const PoolStats s = GetPoolStats();
  return "device pool limit " + std::to_string(s.pool_limit_bytes) + " bytes, in use " +
         std::to_string(s.used_bytes) + ", peak " + std::to_string(s.peak_bytes);
}

Status CreatePool(int64_t limit, cudaMemPool_t* pool) {
  cudaMemPoolProps props = {};
  props.allocType = cudaMemAllocationTypePinned;
  props.handleTypes = cudaMemHandleTypeNone;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = 0;
  props.maxSize = static_cast<size_t>(limit);
  if (cudaMemPoolCreate(pool, &props) != cudaSuccess) {
    // Drivers without pool size limits: the device's default pool, limited by our own count.
    cudaGetLastError();
    TANDEM_RETURN_NOT_OK(CudaStatus(cudaDeviceGetDefaultMemPool(pool, 0), "default memory pool"));
  }
  // Keep freed memory in the pool instead of returning it to the driver at each synchronize.
  unsigned long long threshold = static_cast<unsigned long long>(limit);
  return CudaStatus(cudaMemPoolSetAttribute(*pool, cudaMemPoolAttrReleaseThreshold, &threshold),
                    "memory pool release threshold");
}

void ReleasePinned(uint8_t* data, int64_t size, bool from_pool) {
  if (data == nullptr) return;
  if (!from_pool || !State().pinned.Give(data, RoundUp(size, kPinnedAlignment))) {
    cudaFreeHost(data);
  }
}

}  // namespace

Status InitRuntime(const DeviceMemoryConfig& config) {
  RuntimeState& state = State();
  std::lock_guard<std::mutex> lock(state.init_mu);
  if (state.initialized.load()) return Status::OK();
  std::string why;
  if (!DeviceUsable(&why)) return Status::Unsupported("no CUDA device (" + why + ")");
  if (config.alloc_fraction <= 0 || config.alloc_fraction > 1) {
    return Status::Invalid("tandem.memory.gpu.allocFraction must be in (0, 1], got " +
                           std::to_string(config.alloc_fraction));
  }
  TANDEM_RETURN_NOT_OK(CudaStatus(cudaSetDevice(0), "set device"));
  size_t free_bytes = 0, total_bytes = 0;
  TANDEM_RETURN_NOT_OK(CudaStatus(cudaMemGetInfo(&free_bytes, &total_bytes), "memory info"));
  const int64_t limit =
      static_cast<int64_t>(config.alloc_fraction * static_cast<double>(free_bytes)) -
      config.reserve_bytes;
  if (limit <= 0) {
    return Status::Invalid("tandem.memory.gpu.reserve (" + std::to_string(config.reserve_bytes) +
                           " bytes) leaves no device memory of " + std::to_string(free_bytes) +
                           " free bytes");
  }
  TANDEM_RETURN_NOT_OK(CreatePool(limit, &state.pool));
  state.pool_limit = limit;
  if (config.pinned_pool_bytes > 0) {
    const int64_t bytes = RoundUp(config.pinned_pool_bytes, kPinnedAlignment);
    void* base = nullptr;
    if (cudaHostAlloc(&base, static_cast<size_t>(bytes), cudaHostAllocDefault) == cudaSuccess) {
      state.pinned.Add(static_cast<uint8_t*>(base), bytes);
      state.pinned.base_size = bytes;
    } else {
      cudaGetLastError();  // no arena: every PinnedBuffer falls back to its own cudaHostAlloc
    }
  }
  state.pinned.max_size = std::max(state.pinned.size, config.pinned_pool_max_bytes);
  state.initialized.store(true, std::memory_order_release);
  return Status::OK();
}

namespace {

std::atomic<int64_t> background_start_ns{0};  // steady-clock time the background start began

std::thread& background_thread() {
  static std::thread* thread = new std::thread();  // never destroyed: joined by its owner
  return *thread;
}

int64_t SteadyNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

void StartRuntimeInBackground(const DeviceMemoryConfig& config) {
  static std::once_flag once;
  std::call_once(once, [config] {
    if (!DeviceUsable() || State().initialized.load()) return;
    background_start_ns.store(SteadyNanos());
    // InitRuntime's lock makes later callers wait for it; JoinBackgroundStart ends it before exit.
    background_thread() = std::thread([config] { (void)InitRuntime(config); });
  });
}

void JoinBackgroundStart() {
  if (background_thread().joinable()) background_thread().join();
}

double RuntimeStartupRemaining(double expected_s) {
  if (State().initialized.load(std::memory_order_acquire)) return 0;
  const int64_t began = background_start_ns.load();
  if (began == 0) return expected_s;
  const double elapsed = static_cast<double>(SteadyNanos() - began) * 1e-9;
  return std::max(0.0, expected_s - elapsed);
}

bool DeviceUsable(std::string* why_not) {
  static const std::string* reason = [] {
    auto info = QueryDevice();
    return new std::string(info.ok() ? "" : info.status().message());
  }();
  if (why_not != nullptr) *why_not = *reason;
  return reason->empty();
}

PoolStats GetPoolStats() {
  RuntimeState& state = State();
  PoolStats s;
  if (!state.initialized.load(std::memory_order_acquire)) return s;
  s.pool_limit_bytes = state.pool_limit;
  s.used_bytes = state.used.load();
  s.peak_bytes = state.peak.load();
  {
    std::lock_guard<std::mutex> lock(state.pinned.mu);
    s.pinned_bytes = state.pinned.base_size;
    s.pinned_grown_bytes = state.pinned.size - state.pinned.base_size;
  }
  s.pinned_misses = state.pinned_misses.load();
  s.pinned_miss_bytes = state.pinned_miss_bytes.load();
  return s;
}

Result<void*> PoolAllocate(int64_t bytes, cudaStream_t stream) {
  TANDEM_RETURN_NOT_OK(EnsureInitialized());
  RuntimeState& state = State();
  if (bytes < 0) return Status::Invalid("negative device allocation size");
  if (ShouldInjectOom()) {
    return Status::OutOfMemory("GPU out of memory: cannot allocate " + std::to_string(bytes) +
                               " bytes (injected by tandem.test.injectOom)");
  }
  const int64_t used = state.used.fetch_add(bytes) + bytes;
  const int64_t setting = DeviceLimit();
  if (used > state.pool_limit || (setting > 0 && used > setting)) {
    state.used.fetch_sub(bytes);
    return Status::OutOfMemory(
        "GPU out of memory: cannot allocate " + std::to_string(bytes) + " bytes (" +
        (setting > 0 && setting < state.pool_limit
             ? "tandem.memory.gpu.limit " + std::to_string(setting) + " bytes; "
             : std::string()) +
        PoolDescription() + ")");
  }
  void* ptr = nullptr;
  const cudaError_t err = cudaMallocFromPoolAsync(
      &ptr, static_cast<size_t>(std::max<int64_t>(bytes, 1)), state.pool, stream);
  if (err != cudaSuccess) {
    cudaGetLastError();
    state.used.fetch_sub(bytes);
    return Status::OutOfMemory("GPU out of memory: cannot allocate " + std::to_string(bytes) +
                               " bytes (" + cudaGetErrorString(err) + "; " + PoolDescription() +
                               ")");
  }
  int64_t peak = state.peak.load();
  while (used > peak && !state.peak.compare_exchange_weak(peak, used)) {
  }
  peak_window::NoteDevice(used);
  return ptr;
}

void PoolFree(void* ptr, int64_t bytes, cudaStream_t stream) {
  if (ptr == nullptr) return;
  cudaFreeAsync(ptr, stream);
  State().used.fetch_sub(bytes);
}

// ---- Stream ------------------------------------------------------------------------------------

Result<Stream> Stream::Create() {
  std::string why;
  if (!DeviceUsable(&why)) return Status::Unsupported("no CUDA device (" + why + ")");
  cudaStream_t s = nullptr;
  TANDEM_RETURN_NOT_OK(
      CudaStatus(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "stream create"));
  Stream stream;
  stream.handle_ = s;
  return std::move(stream);
}

Stream::Stream(Stream&& other) noexcept : handle_(other.handle_) { other.handle_ = nullptr; }

Stream& Stream::operator=(Stream&& other) noexcept {
  if (this != &other) {
    if (handle_ != nullptr) cudaStreamDestroy(static_cast<cudaStream_t>(handle_));
    handle_ = other.handle_;
    other.handle_ = nullptr;
  }
  return *this;
}

Stream::~Stream() {
  if (handle_ != nullptr) cudaStreamDestroy(static_cast<cudaStream_t>(handle_));
}

Status Stream::Synchronize() const {
  return CudaStatus(cudaStreamSynchronize(static_cast<cudaStream_t>(handle_)), "stream");
}

// ---- DeviceBuffer ------------------------------------------------------------------------------

Result<DeviceBuffer> DeviceBuffer::Allocate(int64_t bytes, const Stream& stream) {
  DeviceBuffer buffer;
  if (bytes == 0) return std::move(buffer);
  TANDEM_ASSIGN_OR_RAISE(buffer.data_, PoolAllocate(bytes, CudaStream(stream)));
  buffer.size_ = bytes;
  buffer.stream_ = stream.handle();
  return std::move(buffer);
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : data_(other.data_), size_(other.size_), stream_(other.stream_) {
  other.data_ = nullptr;
  other.size_ = 0;
}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    PoolFree(data_, size_, static_cast<cudaStream_t>(stream_));
    data_ = other.data_;
    size_ = other.size_;
    stream_ = other.stream_;
    other.data_ = nullptr;
    other.size_ = 0;
  }
  return *this;
}

DeviceBuffer::~DeviceBuffer() { PoolFree(data_, size_, static_cast<cudaStream_t>(stream_)); }

// ---- PinnedBuffer ------------------------------------------------------------------------------

Result<PinnedBuffer> PinnedBuffer::Allocate(int64_t bytes) {
  PinnedBuffer buffer;
  if (bytes <= 0) return std::move(buffer);
  TANDEM_RETURN_NOT_OK(EnsureInitialized());
  PinnedArena& arena = State().pinned;
  const int64_t rounded = RoundUp(bytes, kPinnedAlignment);
  buffer.data_ = arena.Take(rounded);
  if (buffer.data_ == nullptr) {
    buffer.data_ = arena.Grow(rounded);
    if (buffer.data_ != nullptr) {
      State().pinned_misses.fetch_add(1);
      State().pinned_miss_bytes.fetch_add(std::max(rounded, PinnedArena::kMinGrowth));
    }
  }
  buffer.from_pool_ = buffer.data_ != nullptr;
  if (buffer.data_ == nullptr) {
    void* ptr = nullptr;
    const cudaError_t err = cudaHostAlloc(&ptr, static_cast<size_t>(bytes), cudaHostAllocDefault);
    if (err != cudaSuccess) {
      cudaGetLastError();
      return Status::OutOfMemory("cannot allocate " + std::to_string(bytes) +
                                 " bytes of pinned host memory (" + cudaGetErrorString(err) + ")");
    }
    buffer.data_ = static_cast<uint8_t*>(ptr);
    State().pinned_misses.fetch_add(1);
    State().pinned_miss_bytes.fetch_add(bytes);
  }
  buffer.size_ = bytes;
  return std::move(buffer);
}

PinnedBuffer::PinnedBuffer(PinnedBuffer&& other) noexcept
    : data_(other.data_), size_(other.size_), from_pool_(other.from_pool_) {
  other.data_ = nullptr;
  other.size_ = 0;
}

PinnedBuffer& PinnedBuffer::operator=(PinnedBuffer&& other) noexcept {
  if (this != &other) {
    ReleasePinned(data_, size_, from_pool_);
    data_ = other.data_;
    size_ = other.size_;
    from_pool_ = other.from_pool_;
    other.data_ = nullptr;
    other.size_ = 0;
  }
  return *this;
}

PinnedBuffer::~PinnedBuffer() { ReleasePinned(data_, size_, from_pool_); }

// ---- copies ------------------------------------------------------------------------------------

Status CopyToDevice(void* device_dst, const void* host_src, int64_t bytes, const Stream& stream) {
  if (bytes == 0) return Status::OK();
  return CudaStatus(cudaMemcpyAsync(device_dst, host_src, static_cast<size_t>(bytes),
                                    cudaMemcpyHostToDevice, CudaStream(stream)),
                    "copy to device");
}

Status CopyToHost(void* host_dst, const void* device_src, int64_t bytes, const Stream& stream) {
  if (bytes == 0) return Status::OK();
  return CudaStatus(cudaMemcpyAsync(host_dst, device_src, static_cast<size_t>(bytes),
                                    cudaMemcpyDeviceToHost, CudaStream(stream)),
                    "copy to host");
}

Status CopyDeviceToDevice(void* dst, const void* src, int64_t bytes, const Stream& stream) {
  if (bytes == 0) return Status::OK();
  return CudaStatus(cudaMemcpyAsync(dst, src, static_cast<size_t>(bytes), cudaMemcpyDeviceToDevice,
                                    CudaStream(stream)),
                    "device copy");
}

Status MemsetDevice(void* dst, int value, int64_t bytes, const Stream& stream) {
  if (bytes == 0) return Status::OK();
  return CudaStatus(cudaMemsetAsync(dst, value, static_cast<size_t>(bytes), CudaStream(stream)),
                    "memset");
}

}  // namespace tandem::gpu
