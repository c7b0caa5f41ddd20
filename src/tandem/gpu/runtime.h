// The GPU runtime every GPU operator uses: streams, device memory from one stream-ordered pool
// (a cudaMemPool sized from tandem.memory.gpu.allocFraction of free memory minus
// tandem.memory.gpu.reserve), and pinned host memory for every host<->device copy. Handles are
// RAII: a DeviceBuffer frees itself, stream-ordered, on the stream it was allocated on.
//
// No CUDA types appear here (streams are opaque pointers), so plain C++ files and builds without
// nvcc include this header; without CUDA every call returns Unsupported("no CUDA device").
//
// Out-of-memory and later spilling: allocation failures return Status::OutOfMemory (never abort),
// and operators take their inputs as whole DeviceBatches they do not own exclusively, so a later
// memory manager can (1) spill a batch to pinned host memory and bring it back, and (2) retry an
// operator on halves of its input after an OutOfMemory, concatenating the outputs.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tandem/common/status.h"

namespace tandem::gpu {

struct DeviceMemoryConfig {
  double alloc_fraction = 0.9;               // tandem.memory.gpu.allocFraction: of free memory
  int64_t reserve_bytes = int64_t{1} << 30;  // tandem.memory.gpu.reserve: left for CUDA itself
  int64_t pinned_pool_bytes = int64_t{256} << 20;  // tandem.memory.pinned.poolSize
  // tandem.memory.pinned.maxPoolSize: the pool grows by blocks up to this when requests find no
  // room, and keeps them (pinning is slow; see runtime.cu)
  int64_t pinned_pool_max_bytes = int64_t{1} << 30;
};

// Sets up the device pool and the pinned pool once per process (later calls with another config
// are ignored and return OK). Called implicitly with defaults by the first allocation.
Status InitRuntime(const DeviceMemoryConfig& config);

// Starts InitRuntime(config) on a background thread, once per process, so that CUDA's start-up
// (context, pools: ~0.5 s on the H200 host) overlaps parsing, planning and CPU work; the next
// InitRuntime waits for it to finish. Returns at once; does nothing without a usable device.
void StartRuntimeInBackground(const DeviceMemoryConfig& config);
// Waits for a background start to end (the command line calls it before exiting, so that no
// thread is inside CUDA while the process tears down).
void JoinBackgroundStart();

// Seconds of start-up a query that uses the GPU still has to wait for: 0 once the runtime is up,
// `expected_s` minus the time since a background start began while one runs, else expected_s.
double RuntimeStartupRemaining(double expected_s);

// Whether a CUDA device is usable (cached after the first call); the reason when not.
bool DeviceUsable(std::string* why_not = nullptr);

struct PoolStats {
  int64_t pool_limit_bytes = 0;    // release threshold / size limit of the device pool
  int64_t used_bytes = 0;          // allocated now
  int64_t peak_bytes = 0;          // highest allocated since start
  int64_t pinned_bytes = 0;        // pinned host pool size as configured (allocated at start)
  int64_t pinned_grown_bytes = 0;  // blocks added since, up to tandem.memory.pinned.maxPoolSize
  // Requests the pool could not serve from what it held, since start: each a fresh cudaHostAlloc
  // (a new block of the pool, or past its maximum a buffer of its own), which pins pages at a
  // fraction of the copy rate.
  int64_t pinned_misses = 0;
  int64_t pinned_miss_bytes = 0;  // bytes those allocations pinned (a new block: its whole size)
};
PoolStats GetPoolStats();

// A CUDA stream (non-blocking w.r.t. the legacy default stream). Move-only.
class Stream {
 public:
  static Result<Stream> Create();
  Stream() = default;
  Stream(Stream&& other) noexcept;
  Stream& operator=(Stream&& other) noexcept;
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  ~Stream();

  void* handle() const { return handle_; }  // a cudaStream_t
  // Waits for all work queued on the stream; returns the first asynchronous error, if any.
  Status Synchronize() const;

 private:
  void* handle_ = nullptr;
};

// Device memory from the pool, freed stream-ordered on the stream it was allocated on (which
// must outlive it). Move-only; empty (data() == nullptr, size() == 0) by default.
class DeviceBuffer {
 public:
  static Result<DeviceBuffer> Allocate(int64_t bytes, const Stream& stream);
  DeviceBuffer() = default;
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer();

  void* data() const { return data_; }
  template <typename T>
  T* data_as() const {
    return static_cast<T*>(data_);
  }
  int64_t size() const { return size_; }
  bool empty() const { return data_ == nullptr; }
  // Frees go on `stream` from now on: for a buffer made on another stream that has since been
  // synchronized (its work is done) and that `stream`'s kernels read next, so that the free is
  // ordered after them. `stream` must outlive the buffer.
  void FreeOn(const Stream& stream) { stream_ = stream.handle(); }

 private:
  void* data_ = nullptr;
  int64_t size_ = 0;
  void* stream_ = nullptr;
};

// Page-locked host memory from the pinned pool (falls back to a fresh cudaHostAlloc when the pool
// is exhausted). Move-only.
class PinnedBuffer {
 public:
  static Result<PinnedBuffer> Allocate(int64_t bytes);
  PinnedBuffer() = default;
  PinnedBuffer(PinnedBuffer&& other) noexcept;
  PinnedBuffer& operator=(PinnedBuffer&& other) noexcept;
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  ~PinnedBuffer();

  uint8_t* data() const { return data_; }
  int64_t size() const { return size_; }

 private:
  uint8_t* data_ = nullptr;
  int64_t size_ = 0;
  bool from_pool_ = false;
};

// Asynchronous copies on `stream` (host memory should be pinned for full speed; pageable host
// memory works but the copy is then synchronous with respect to the host).
Status CopyToDevice(void* device_dst, const void* host_src, int64_t bytes, const Stream& stream);
Status CopyToHost(void* host_dst, const void* device_src, int64_t bytes, const Stream& stream);
Status CopyDeviceToDevice(void* dst, const void* src, int64_t bytes, const Stream& stream);
Status MemsetDevice(void* dst, int value, int64_t bytes, const Stream& stream);

// A fresh device buffer holding `host` (16 bytes when it is empty, so that it has an address).
template <typename T>
Result<DeviceBuffer> UploadVector(const std::vector<T>& host, const Stream& stream) {
  const auto bytes = static_cast<int64_t>(host.size() * sizeof(T));
  TANDEM_ASSIGN_OR_RAISE(DeviceBuffer buffer,
                         DeviceBuffer::Allocate(bytes > 0 ? bytes : 16, stream));
  if (bytes > 0) TANDEM_RETURN_NOT_OK(CopyToDevice(buffer.data(), host.data(), bytes, stream));
  return std::move(buffer);
}

}  // namespace tandem::gpu
