// Stand-in for runtime.cu in builds without nvcc: no device, so every call says so.
#include "tandem/gpu/runtime.h"

namespace tandem::gpu {
namespace {

Status NoDevice() { return Status::Unsupported("no CUDA device (compiled without CUDA)"); }

}  // namespace

Status InitRuntime(const DeviceMemoryConfig&) { return NoDevice(); }

bool DeviceUsable(std::string* why_not) {
  if (why_not != nullptr) *why_not = "compiled without CUDA";
  return false;
}

PoolStats GetPoolStats() { return PoolStats{}; }

void StartRuntimeInBackground(const DeviceMemoryConfig&) {}
void JoinBackgroundStart() {}
double RuntimeStartupRemaining(double expected_s) { return expected_s; }

Result<Stream> Stream::Create() { return NoDevice(); }
Stream::Stream(Stream&& other) noexcept : handle_(other.handle_) { other.handle_ = nullptr; }
Stream& Stream::operator=(Stream&& other) noexcept {
  handle_ = other.handle_;
  other.handle_ = nullptr;
  return *this;
}
Stream::~Stream() = default;
Status Stream::Synchronize() const { return NoDevice(); }

Result<DeviceBuffer> DeviceBuffer::Allocate(int64_t, const Stream&) { return NoDevice(); }
DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : data_(other.data_), size_(other.size_), stream_(other.stream_) {
  other.data_ = nullptr;
  other.size_ = 0;
}
DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  data_ = other.data_;
  size_ = other.size_;
  stream_ = other.stream_;
  other.data_ = nullptr;
  other.size_ = 0;
  return *this;
}
DeviceBuffer::~DeviceBuffer() = default;

Result<PinnedBuffer> PinnedBuffer::Allocate(int64_t) { return NoDevice(); }
PinnedBuffer::PinnedBuffer(PinnedBuffer&& other) noexcept
    : data_(other.data_), size_(other.size_), from_pool_(other.from_pool_) {
  other.data_ = nullptr;
  other.size_ = 0;
}
PinnedBuffer& PinnedBuffer::operator=(PinnedBuffer&& other) noexcept {
  data_ = other.data_;
  size_ = other.size_;
  from_pool_ = other.from_pool_;
  other.data_ = nullptr;
  other.size_ = 0;
  return *this;
}
PinnedBuffer::~PinnedBuffer() = default;

Status CopyToDevice(void*, const void*, int64_t, const Stream&) { return NoDevice(); }
Status CopyToHost(void*, const void*, int64_t, const Stream&) { return NoDevice(); }
Status CopyDeviceToDevice(void*, const void*, int64_t, const Stream&) { return NoDevice(); }
Status MemsetDevice(void*, int, int64_t, const Stream&) { return NoDevice(); }

}  // namespace tandem::gpu
