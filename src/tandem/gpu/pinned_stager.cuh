// Host<->device transfers through pinned memory: two pinned chunks used in turn, so the host
// fills (or drains) one chunk while the copy engine moves the other. Every host<->device copy of
// column data goes through here, at pinned speed, whatever memory the host column lives in.
//
// Upload(dst, total, fill): fill(offset, bytes, out) writes bytes [offset, offset + bytes) of the
// device range into pinned memory; Download(src, total, drain): drain(offset, bytes, in) consumes
// them. Chunk boundaries are multiples of 64 bytes, so element and bit boundaries line up. A
// chunk is filled (drained) by several host threads at once, each on its own 64-byte-aligned
// part: one thread's memcpy (~8 GB/s) cannot keep up with the link (~55 GB/s pinned), so fill
// and drain must be safe to call concurrently on disjoint ranges.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "tandem/common/thread_pool.h"
#include "tandem/gpu/cuda_util.cuh"
#include "tandem/gpu/runtime.h"

namespace tandem::gpu {

class PinnedStager {
 public:
  static constexpr int64_t kMaxChunkBytes = int64_t{32} << 20;

  explicit PinnedStager(const Stream& stream) : stream_(CudaStream(stream)) {}
  PinnedStager(const PinnedStager&) = delete;
  PinnedStager& operator=(const PinnedStager&) = delete;
  ~PinnedStager() {
    for (int k = 0; k < 2; ++k) {
      if (event_[k] == nullptr) continue;
      if (pending_[k]) cudaEventSynchronize(event_[k]);  // chunks must outlive their copies
      cudaEventDestroy(event_[k]);
    }
  }

  // Sizes the chunks for transfers of at most `largest_bytes` each.
  Status Init(int64_t largest_bytes) {
    chunk_bytes_ = std::min(kMaxChunkBytes, std::max<int64_t>(64, (largest_bytes + 63) / 64 * 64));
    for (int k = 0; k < 2; ++k) {
      TANDEM_ASSIGN_OR_RAISE(chunk_[k], PinnedBuffer::Allocate(chunk_bytes_));
      TANDEM_RETURN_NOT_OK(
          CudaStatus(cudaEventCreateWithFlags(&event_[k], cudaEventDisableTiming), "event create"));
    }
    return Status::OK();
  }

  template <typename Fill>
  Status Upload(void* device_dst, int64_t total, Fill&& fill) {
    uint8_t* dst = static_cast<uint8_t*>(device_dst);
    for (int64_t offset = 0; offset < total; offset += chunk_bytes_) {
      const int64_t bytes = std::min(chunk_bytes_, total - offset);
      const int k = next_;
      next_ ^= 1;
      TANDEM_RETURN_NOT_OK(WaitChunk(k));
      TANDEM_RETURN_NOT_OK(InParallel(offset, bytes, chunk_[k].data(), fill));
      TANDEM_RETURN_NOT_OK(
          CudaStatus(cudaMemcpyAsync(dst + offset, chunk_[k].data(), static_cast<size_t>(bytes),
                                     cudaMemcpyHostToDevice, stream_),
                     "copy to device"));
      TANDEM_RETURN_NOT_OK(Record(k));
    }
    return Status::OK();
  }

  template <typename Drain>
  Status Download(const void* device_src, int64_t total, Drain&& drain) {
    const uint8_t* src = static_cast<const uint8_t*>(device_src);
    int64_t prev_offset = -1, prev_bytes = 0;
    int prev_chunk = 0;
    for (int64_t offset = 0; offset < total; offset += chunk_bytes_) {
      const int64_t bytes = std::min(chunk_bytes_, total - offset);
      const int k = next_;
      next_ ^= 1;
      TANDEM_RETURN_NOT_OK(WaitChunk(k));
      TANDEM_RETURN_NOT_OK(
          CudaStatus(cudaMemcpyAsync(chunk_[k].data(), src + offset, static_cast<size_t>(bytes),
                                     cudaMemcpyDeviceToHost, stream_),
                     "copy to host"));
      TANDEM_RETURN_NOT_OK(Record(k));
      if (prev_offset >= 0) {
        TANDEM_RETURN_NOT_OK(WaitChunk(prev_chunk));
        TANDEM_RETURN_NOT_OK(InParallel(prev_offset, prev_bytes, chunk_[prev_chunk].data(), drain));
      }
      prev_offset = offset;
      prev_bytes = bytes;
      prev_chunk = k;
    }
    if (prev_offset >= 0) {
      TANDEM_RETURN_NOT_OK(WaitChunk(prev_chunk));
      TANDEM_RETURN_NOT_OK(InParallel(prev_offset, prev_bytes, chunk_[prev_chunk].data(), drain));
    }
    return Status::OK();
  }

  // Waits for the copies still in flight.
  Status Finish() {
    for (int k = 0; k < 2; ++k) TANDEM_RETURN_NOT_OK(WaitChunk(k));
    return Status::OK();
  }

 private:
  // fn(offset + at, len, chunk + at) over parts of [offset, offset + bytes) of at least
  // kMinPartBytes each (64-byte aligned), on the default thread pool and the calling thread.
  template <typename Chunk, typename Fn>
  static Status InParallel(int64_t offset, int64_t bytes, Chunk* chunk, Fn& fn) {
    constexpr int64_t kMinPartBytes = int64_t{1} << 20;
    const int64_t parts = std::max<int64_t>(
        1, std::min<int64_t>(ThreadPool::Default().num_threads() + 1, bytes / kMinPartBytes));
    if (parts == 1) {
      fn(offset, bytes, chunk);
      return Status::OK();
    }
    // Ceiling division first, then up to a 64-byte multiple: the parts must cover every byte.
    const int64_t part = ((bytes + parts - 1) / parts + 63) / 64 * 64;
    return ThreadPool::Default().ParallelFor(parts, [&](int64_t i) -> Status {
      const int64_t at = i * part;
      const int64_t len = std::min(part, bytes - at);
      if (len > 0) fn(offset + at, len, chunk + at);
      return Status::OK();
    });
  }

  Status WaitChunk(int k) {
    if (!pending_[k]) return Status::OK();
    pending_[k] = false;
    return CudaStatus(cudaEventSynchronize(event_[k]), "staging copy");
  }
  Status Record(int k) {
    pending_[k] = true;
    return CudaStatus(cudaEventRecord(event_[k], stream_), "event record");
  }

  cudaStream_t stream_;
  int64_t chunk_bytes_ = 0;
  PinnedBuffer chunk_[2];
  cudaEvent_t event_[2] = {nullptr, nullptr};
  bool pending_[2] = {false, false};
  int next_ = 0;
};

}  // namespace tandem::gpu
