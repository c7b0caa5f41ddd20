// ReadParquetToDevice (device_reader.h). Planning is ReadParquet's (read_plan.h). The (row group,
// column) chunks are staged by the thread pool, running on a helper thread, at most a window of
// chunks ahead of the calling thread, which takes them in order and uploads and decodes each on
// the stream; staging memory is released at stream synchronizations. Staged-ahead and in-flight
// chunks each stay within half the pinned pool (tandem.memory.pinned.poolSize, and the blocks it
// has grown by): past the pool every staging buffer would be a fresh cudaHostAlloc, which pins
// pages at a fraction of the copy rate (a 50M-row scan took 13x a 10M-row one before this bound). A
// chunk reserves its footer-declared uncompressed size before it is staged, so that sixteen threads
// each staging an 8 MB chunk of a 1M-row group cannot overshoot the budget together; the read
// reports how many buffers still missed the pool, and where its time went (DeviceDecodeCounts).
// Chunks that cannot be staged are decoded by the host path exactly as ReadParquet does
// (ParquetFile::ReadRowGroup), which also produces its error messages. Finally each output column
// is one concatenation of its row groups' parts on the device.
#include "tandem/io/parquet/device_reader.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <thread>

#include "tandem/common/query_progress.h"
#include "tandem/common/thread_pool.h"
#include "tandem/io/parquet/byte_source.h"
#include "tandem/io/parquet/decode/raw_buffer.h"
#include "tandem/io/parquet/gpu/chunk_staging.h"
#include "tandem/io/parquet/gpu/decode_kernels.h"
#include "tandem/io/parquet/gpu/page_decompress.h"
#include "tandem/io/parquet/read_plan.h"

namespace tandem::parquet {
namespace {

using gpu_decode::StagedChunk;
using Clock = std::chrono::steady_clock;

double MillisSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// Raw access to one file's column chunks (the ParquetFile decodes; this only reads bytes).
struct FileAccess {
  std::unique_ptr<ByteSource> source;
  int64_t footer_start = 0;
  std::vector<LeafColumn> leaves;
  bool ok = false;
};

void OpenAccess(const ParquetFile& file, FileAccess* access) {
  auto source = OpenFileSource(file.path());
  if (!source.ok()) return;
  auto leaves = MapParquetSchema(file.metadata().schema);
  if (!leaves.ok()) return;
  const int64_t size = (*source)->size();
  uint8_t tail[8];
  if (size < 12 || !(*source)->ReadAt(size - 8, 8, tail).ok()) return;
  uint32_t footer_len;
  std::memcpy(&footer_len, tail, 4);
  if (int64_t{footer_len} > size - 12) return;
  access->footer_start = size - 8 - footer_len;
  access->source = std::move(source).value();
  access->leaves = std::move(leaves).value();
  access->ok = true;
}

// Stages one chunk when it looks like one the host would decode without complaint; otherwise
// leaves staged->on_gpu false. The checks are ParquetFile's, without their messages.
void TryStage(const FileAccess& access, const FileMetaData& meta, int row_group, int column,
              bool gpu_decompress, StagedChunk* staged) {
  staged->on_gpu = false;
  if (!access.ok || column >= static_cast<int>(access.leaves.size())) return;
  const LeafColumn& leaf = access.leaves[column];
  const RowGroup& rg = meta.row_groups[row_group];
  if (!leaf.unsupported.empty() || column >= static_cast<int>(rg.columns.size())) return;
  const ColumnChunk& chunk = rg.columns[column];
  if (chunk.has_crypto_metadata || meta.has_encryption_algorithm || chunk.file_path ||
      !chunk.meta_data) {
    return;
  }
  const ColumnMetaData& md = *chunk.meta_data;
  if (md.type != leaf.physical || md.num_values != rg.num_rows || rg.num_rows <= 0) return;
  const int64_t start = ChunkStart(md);
  int64_t length = md.total_compressed_size;
  const int64_t limit = access.footer_start;
  if (start < 4 || length < 0 || start > limit || length > limit - start) return;
  constexpr int64_t kChunkPadding = 100;  // as ParquetFile: PARQUET-816 dictionary headers
  length += std::min(kChunkPadding, limit - start - length);
  const uint8_t* bytes = access.source->View(start, length);
  thread_local decode::RawBuffer buffer(decode::RawBuffer::Use::kScratch);
  if (bytes == nullptr) {
    buffer.Clear();
    buffer.Resize(length);
    if (!access.source->ReadAt(start, length, buffer.data()).ok()) return;
    bytes = buffer.data();
  }
  const bool defer = gpu_decompress && md.codec != CompressionCodec::UNCOMPRESSED &&
                     gpu_decode::GpuDecompresses(md.codec);
  gpu_decode::StageColumnChunk(bytes, length, md, leaf, rg.num_rows, /*pinned=*/true, staged,
                               defer);
}

// Most deferred chunks decoded in one group (DecodeDeferredOnDevice): enough pages for nvCOMP
// to fill the GPU, few enough that the group's tables stay small.
constexpr size_t kMaxDeferredGroup = 256;

// One (row group, column) chunk on its way to the device.
struct Slot {
  StagedChunk staged;
  ColumnPtr host;  // decoded on the host instead
  Status status;
  bool ready = false;
};

class DeviceRead {
 public:
  DeviceRead(const ParquetReadPlan& plan, const ReadOptions& options, const gpu::Stream& stream)
      : plan_(plan), options_(options), stream_(stream), ncols_(plan.file_columns.size()) {}

  Result<gpu::DeviceBatchPtr> Run(ReadStats* st, DeviceDecodeCounts* counts);

 private:
  // The host path of ReadParquet for slot t (its decoded column or its error).
  Status HostDecode(size_t t, ColumnPtr* out) const;
  void Stage(size_t t);
  int64_t EstimatedPinnedBytes(const KeptRowGroup& rg, int column) const;
  Status Consume(DeviceDecodeCounts* counts, size_t* error_slot);
  // Takes slot t's device column, or for a deferred chunk the GPU refused, the host's.
  Status Place(size_t t, Result<gpu::DeviceColumnPtr> part, bool deferred,
               DeviceDecodeCounts* counts);
  Result<gpu::DeviceColumnPtr> PartitionColumn(size_t k) const;

  const ParquetReadPlan& plan_;
  const ReadOptions& options_;
  const gpu::Stream& stream_;
  const size_t ncols_;
  std::vector<FileAccess> access_;
  std::vector<Slot> slots_;
  std::vector<gpu::DeviceColumnPtr> parts_;  // per slot
  gpu::DeviceBuffer error_buffer_;           // one int32 flag per slot (see DecodeOnDevice)
  int32_t* error_flags_ = nullptr;
  std::mutex mutex_;
  std::condition_variable changed_;
  size_t consumed_ = 0;
  size_t window_ = 0;
  int64_t staged_ahead_bytes_ = 0;  // pinned bytes of staged chunks not yet consumed
  int64_t reserved_bytes_ = 0;      // estimated pinned bytes of chunks being staged now
  int64_t pinned_budget_ = 0;       // half the pinned pool: for staged-ahead, and for in-flight
  bool cancelled_ = false;
  std::atomic<int64_t> stage_us_{0};  // summed over the staging threads
};

// Pinned bytes a staged chunk holds.
int64_t PinnedBytes(const StagedChunk& c) {
  return c.on_gpu ? c.staging_bytes + c.aux_layout.total : 0;
}

// Before staging: the chunk's uncompressed size from the footer (its values sections and the
// aux data staged from them come to about that), or 0 when the footer does not say.
int64_t DeviceRead::EstimatedPinnedBytes(const KeptRowGroup& rg, int column) const {
  const FileMetaData& meta = plan_.files[rg.file]->metadata();
  if (rg.row_group < 0 || rg.row_group >= static_cast<int>(meta.row_groups.size())) return 0;
  const RowGroup& group = meta.row_groups[static_cast<size_t>(rg.row_group)];
  if (column < 0 || column >= static_cast<int>(group.columns.size())) return 0;
  const ColumnChunk& chunk = group.columns[static_cast<size_t>(column)];
  return chunk.meta_data ? std::max<int64_t>(0, chunk.meta_data->total_uncompressed_size) : 0;
}

Status DeviceRead::HostDecode(size_t t, ColumnPtr* out) const {
  const KeptRowGroup& rg = plan_.row_groups[t / ncols_];
  const int column = plan_.file_columns[t % ncols_];
  const ParquetFile& file = *plan_.files[rg.file];
  auto batch = file.ReadRowGroup(rg.row_group, {column});
  if (!batch.ok()) return batch.status();
  if (!*batch || (*batch)->num_columns() != 1 || (*batch)->column(0)->length() != rg.rows) {
    return Status::Invalid(file.path() + ": row group " + std::to_string(rg.row_group) +
                           ", column " + plan_.file_schema.field(column).name +
                           ": decoded length differs from the row group's row count " +
                           std::to_string(rg.rows));
  }
  *out = (*batch)->column(0);
  return Status::OK();
}

void DeviceRead::Stage(size_t t) {
  Slot& slot = slots_[t];
  const KeptRowGroup& rg = plan_.row_groups[t / ncols_];
  const int column = plan_.file_columns[t % ncols_];
  const int64_t estimate = EstimatedPinnedBytes(rg, column);
  {
    std::unique_lock<std::mutex> lock(mutex_);
    // The next chunk the consumer needs always goes ahead; others wait for the window and for
    // room in the pinned budget for what they will hold (reserved before staging, so that many
    // threads staging large chunks at once do not overshoot the pool).
    changed_.wait(lock, [&] {
      return cancelled_ || t == consumed_ ||
             (t < consumed_ + window_ &&
              staged_ahead_bytes_ + reserved_bytes_ + estimate <= pinned_budget_);
    });
    if (cancelled_) {
      slots_[t].ready = true;
      changed_.notify_all();
      return;
    }
    reserved_bytes_ += estimate;
  }
  const Clock::time_point start = Clock::now();
  Status st = CallCatchingExceptions([&] {
    TryStage(access_[rg.file], plan_.files[rg.file]->metadata(), rg.row_group, column,
             options_.gpu_decompress, &slot.staged);
    if (!slot.staged.on_gpu) return HostDecode(t, &slot.host);
    return Status::OK();
  });
  stage_us_ += static_cast<int64_t>(MillisSince(start) * 1e3);
  if (st.ok()) query_progress::AddDone(rg.rows);
  std::lock_guard<std::mutex> lock(mutex_);
  reserved_bytes_ -= estimate;
  staged_ahead_bytes_ += PinnedBytes(slot.staged);
  slot.status = std::move(st);
  slot.ready = true;
  changed_.notify_all();
}

Status DeviceRead::Consume(DeviceDecodeCounts* counts, size_t* error_slot) {
  // Staged chunks whose uploads may still be in flight: released at the next synchronization.
  std::vector<StagedChunk> in_flight;
  int64_t in_flight_bytes = 0;
  struct SyncBeforeRelease {  // on an early return, copies from in_flight may still be running
    const gpu::Stream& stream;
    std::vector<StagedChunk>& chunks;
    ~SyncBeforeRelease() {
      if (!chunks.empty()) (void)stream.Synchronize();
    }
  } guard{stream_, in_flight};
  const int64_t sync_bytes = pinned_budget_;
  for (size_t t = 0; t < slots_.size();) {
    {
      const Clock::time_point start = Clock::now();
      std::unique_lock<std::mutex> lock(mutex_);
      changed_.wait(lock, [&] { return slots_[t].ready; });
      counts->wait_stage_ms += MillisSince(start);
    }
    Slot& slot = slots_[t];
    if (!slot.status.ok()) {
      *error_slot = t;
      return slot.status;
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      staged_ahead_bytes_ -= PinnedBytes(slot.staged);
    }
    size_t end = t + 1;  // slots [t, end) go to the device together
    if (slot.staged.on_gpu && slot.staged.deferred) {
      // Deferred chunks decode in groups (one nvCOMP batch and one page parse for the group): t
      // and the deferred chunks after it that are staged already, within the in-flight budget.
      std::vector<const StagedChunk*> group{&slot.staged};
      std::vector<int32_t*> flags{error_flags_ + t};
      int64_t group_bytes = PinnedBytes(slot.staged);
      {
        std::lock_guard<std::mutex> lock(mutex_);
        while (end < slots_.size() && end - t < kMaxDeferredGroup && slots_[end].ready &&
               slots_[end].status.ok() && slots_[end].staged.on_gpu &&
               slots_[end].staged.deferred &&
               group_bytes + PinnedBytes(slots_[end].staged) <= sync_bytes / 2) {
          group_bytes += PinnedBytes(slots_[end].staged);
          staged_ahead_bytes_ -= PinnedBytes(slots_[end].staged);
          group.push_back(&slots_[end].staged);
          flags.push_back(error_flags_ + end);
          ++end;
        }
      }
      auto decoded = gpu_decode::DecodeDeferredOnDevice(group, flags, stream_);
      for (size_t u = t; u < end; ++u) {
        in_flight_bytes += PinnedBytes(slots_[u].staged);
        counts->uploaded_bytes += PinnedBytes(slots_[u].staged);
        in_flight.push_back(std::move(slots_[u].staged));
        Status placed = Place(u, std::move(decoded[u - t]), /*deferred=*/true, counts);
        if (!placed.ok()) {
          *error_slot = u;
          return placed;
        }
      }
    } else if (slot.staged.on_gpu) {
      auto part = gpu_decode::DecodeOnDevice(slot.staged, error_flags_ + t, stream_);
      in_flight_bytes += PinnedBytes(slot.staged);
      counts->uploaded_bytes += PinnedBytes(slot.staged);
      in_flight.push_back(std::move(slot.staged));
      Status placed = Place(t, std::move(part), /*deferred=*/false, counts);
      if (!placed.ok()) {
        *error_slot = t;
        return placed;
      }
    } else {
      auto part = gpu::ColumnToDevice(*slot.host, stream_);
      if (!part.ok()) {
        *error_slot = t;
        return part.status();
      }
      parts_[t] = std::move(part).value();
      slot.host.reset();
      ++counts->host_chunks;
    }
    if (in_flight_bytes > sync_bytes) {
      const Clock::time_point start = Clock::now();
      TANDEM_RETURN_NOT_OK(stream_.Synchronize());
      counts->wait_gpu_ms += MillisSince(start);
      in_flight.clear();
      in_flight_bytes = 0;
    }
    std::lock_guard<std::mutex> lock(mutex_);
    consumed_ = end;
    changed_.notify_all();
    t = end;
  }
  const Clock::time_point start = Clock::now();
  Status synced = stream_.Synchronize();
  counts->wait_gpu_ms += MillisSince(start);
  return synced;
}

Status DeviceRead::Place(size_t t, Result<gpu::DeviceColumnPtr> part, bool deferred,
                         DeviceDecodeCounts* counts) {
  if (!part.ok() && deferred) {
    // nvCOMP or the GPU page parse refused the pages: the host decodes the chunk, and reports
    // any damage in its own words.
    if (counts->gpu_decompress_fallbacks++ == 0) {
      counts->first_fallback_reason = part.status().message();
    }
    ColumnPtr column;
    TANDEM_RETURN_NOT_OK(HostDecode(t, &column));
    TANDEM_ASSIGN_OR_RAISE(parts_[t], gpu::ColumnToDevice(*column, stream_));
    ++counts->host_chunks;
    return Status::OK();
  }
  TANDEM_RETURN_NOT_OK(part.status());
  parts_[t] = std::move(part).value();
  ++counts->gpu_chunks;
  counts->gpu_decompressed_chunks += deferred;
  return Status::OK();
}

Result<gpu::DeviceColumnPtr> DeviceRead::PartitionColumn(size_t k) const {
  const DataType& type = plan_.partitions[k].type;
  std::vector<gpu::DeviceColumnPtr> parts;
  for (size_t r = 0; r < plan_.row_groups.size(); ++r) {
    ColumnPtr values =
        PartitionColumnValues(type, plan_.PartitionValue(r, k), plan_.row_groups[r].rows);
    TANDEM_ASSIGN_OR_RAISE(auto part, gpu::ColumnToDevice(*values, stream_));
    parts.push_back(std::move(part));
  }
  return gpu_decode::ConcatColumns(parts, type, stream_);
}

Result<gpu::DeviceBatchPtr> DeviceRead::Run(ReadStats* st, DeviceDecodeCounts* counts) {
  const size_t n = plan_.row_groups.size() * ncols_;
  slots_ = std::vector<Slot>(n);
  parts_.assign(n, nullptr);
  ThreadPool& pool = ThreadPool::Default();
  const int threads = options_.num_threads > 0 ? options_.num_threads : pool.num_threads() + 1;
  window_ = static_cast<size_t>(std::max(4, 2 * threads));
  const gpu::PoolStats pool_before = gpu::GetPoolStats();
  // The pool as it stands (it grows by blocks when a read runs short, up to its maximum).
  const int64_t pinned_pool = pool_before.pinned_bytes + pool_before.pinned_grown_bytes;
  pinned_budget_ = std::max<int64_t>(int64_t{16} << 20,
                                     (pinned_pool > 0 ? pinned_pool : int64_t{256} << 20) / 2);
  if (n > 0) {
    access_.resize(plan_.files.size());
    TANDEM_RETURN_NOT_OK(pool.ParallelFor(
        static_cast<int64_t>(access_.size()),
        [&](int64_t i) {
          OpenAccess(*plan_.files[i], &access_[i]);
          return Status::OK();
        },
        options_.num_threads));
    TANDEM_ASSIGN_OR_RAISE(error_buffer_,
                           gpu::DeviceBuffer::Allocate(static_cast<int64_t>(n) * 4, stream_));
    error_flags_ = error_buffer_.data_as<int32_t>();
    TANDEM_RETURN_NOT_OK(gpu::MemsetDevice(error_flags_, 0, static_cast<int64_t>(n) * 4, stream_));
  }

  // Staging runs on the pool from a helper thread; this thread uploads and decodes in order.
  std::thread producer([&] {
    Status staged = pool.ParallelFor(
        static_cast<int64_t>(n),
        [&](int64_t t) {
          Stage(static_cast<size_t>(t));
          return Status::OK();
        },
        options_.num_threads);
    // Slots the loop never reached (only after an unexpected failure) must not keep the
    // consumer waiting.
    std::lock_guard<std::mutex> lock(mutex_);
    for (Slot& slot : slots_) {
      if (slot.ready) continue;
      slot.status = staged.ok() ? Status::Internal("column chunk was never staged") : staged;
      slot.ready = true;
    }
    changed_.notify_all();
  });
  size_t first_slot = n;
  Status first = Consume(counts, &first_slot);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    cancelled_ = true;
    changed_.notify_all();
  }
  producer.join();
  counts->stage_ms = static_cast<double>(stage_us_.load()) / 1e3;
  const gpu::PoolStats pool_after = gpu::GetPoolStats();
  counts->pinned_misses = pool_after.pinned_misses - pool_before.pinned_misses;
  counts->pinned_miss_bytes = pool_after.pinned_miss_bytes - pool_before.pinned_miss_bytes;

  // Chunks whose values failed a device-side check go through the host decoder, which either
  // decodes them after all or names the error; the error of the lowest slot wins.
  if (n > 0) {
    std::vector<int32_t> flags(n, 0);
    Status copied =
        gpu::CopyToHost(flags.data(), error_flags_, static_cast<int64_t>(n) * 4, stream_);
    if (copied.ok()) copied = stream_.Synchronize();
    if (!copied.ok()) return first.ok() ? copied : first;
    for (size_t t = 0; t < std::min(first_slot, n); ++t) {
      if (!flags[t] || !parts_[t]) continue;
      ColumnPtr column;
      Status s = HostDecode(t, &column);
      if (!s.ok()) {
        first = s;
        first_slot = t;
        break;
      }
      TANDEM_ASSIGN_OR_RAISE(parts_[t], gpu::ColumnToDevice(*column, stream_));
      --counts->gpu_chunks;
      ++counts->host_chunks;
    }
  }
  TANDEM_RETURN_NOT_OK(first);

  auto batch = std::make_shared<gpu::DeviceBatch>();
  batch->schema = plan_.out_schema;
  for (size_t r = 0; r < plan_.row_groups.size(); ++r) {
    batch->num_rows += plan_.row_groups[r].rows;
    for (int column : plan_.file_columns) st->bytes_read += plan_.ChunkCompressedBytes(r, column);
  }
  st->rows = batch->num_rows;
  std::vector<gpu::DeviceColumnPtr> file_columns(ncols_);
  for (size_t c = 0; c < ncols_; ++c) {
    std::vector<gpu::DeviceColumnPtr> parts;
    for (size_t r = 0; r < plan_.row_groups.size(); ++r) {
      parts.push_back(std::move(parts_[r * ncols_ + c]));
    }
    const DataType& type = plan_.file_schema.field(plan_.file_columns[c]).type;
    TANDEM_ASSIGN_OR_RAISE(file_columns[c], gpu_decode::ConcatColumns(parts, type, stream_));
  }
  const int file_fields = plan_.file_schema.num_fields();
  for (int index : plan_.projection) {
    if (index < file_fields) {
      const size_t c = std::find(plan_.file_columns.begin(), plan_.file_columns.end(), index) -
                       plan_.file_columns.begin();
      batch->columns.push_back(file_columns[c]);
    } else {
      TANDEM_ASSIGN_OR_RAISE(auto column,
                             PartitionColumn(static_cast<size_t>(index - file_fields)));
      batch->columns.push_back(std::move(column));
    }
  }
  TANDEM_RETURN_NOT_OK(stream_.Synchronize());
  return batch;
}

}  // namespace

Result<gpu::DeviceBatchPtr> ReadParquetToDevice(const std::string& path, const ReadOptions& options,
                                                ReadStats* stats, const gpu::Stream& stream,
                                                DeviceDecodeCounts* counts) {
  ReadStats local_stats;
  ReadStats& st = stats ? *stats : local_stats;
  st = ReadStats{};
  DeviceDecodeCounts local_counts;
  DeviceDecodeCounts& where = counts ? *counts : local_counts;
  where = DeviceDecodeCounts{};
  if (options.per_row_group || options.per_numbered_batch) {
    return Status::Unsupported("ReadParquetToDevice does not take a per-row-group callback");
  }
  std::string why_not;
  if (!gpu::DeviceUsable(&why_not)) return Status::Unsupported("no CUDA device (" + why_not + ")");
  TANDEM_ASSIGN_OR_RAISE(ParquetReadPlan plan, PlanParquetRead(path, options, &st));
  DeviceRead read(plan, options, stream);
  return read.Run(&st, &where);
}

}  // namespace tandem::parquet
