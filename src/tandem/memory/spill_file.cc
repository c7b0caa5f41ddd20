// Spill files (see spill_file.h).
#include "tandem/memory/spill_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "tandem/column/take.h"

namespace tandem {
namespace {

// A file buffers at most this much before writing (a block this large is written at once), and
// gives the buffer back when it had grown larger: a partitioned sink holds up to 128 files.
constexpr size_t kFlushBytes = size_t{64} << 10;

std::atomic<int64_t> g_bytes_written{0};
std::atomic<int64_t> g_files{0};

std::string SpillDirectory(const std::string& dir) {
  if (!dir.empty()) return dir;
  const char* tmp = std::getenv("TMPDIR");
  return tmp && *tmp ? tmp : "/tmp";
}

void Put(std::string* out, const void* data, size_t n) {
  out->append(static_cast<const char*>(data), n);
}

void PutInt(std::string* out, int64_t v) { Put(out, &v, sizeof v); }

void PutBuffer(std::string* out, const std::shared_ptr<Buffer>& b) {
  const int64_t size = b ? b->size() : -1;
  PutInt(out, size);
  if (size > 0) Put(out, b->data(), static_cast<size_t>(size));
}

// Reads what PutBuffer wrote from [*at, end).
class Reader {
 public:
  Reader(const uint8_t* at, const uint8_t* end) : at_(at), end_(end) {}
  bool Int(int64_t* v) {
    if (end_ - at_ < static_cast<ptrdiff_t>(sizeof *v)) return false;
    std::memcpy(v, at_, sizeof *v);
    at_ += sizeof *v;
    return true;
  }
  bool Buf(std::shared_ptr<Buffer>* out) {
    int64_t size = 0;
    if (!Int(&size) || size > end_ - at_) return false;
    if (size < 0) {
      out->reset();
      return true;
    }
    *out = Buffer::CopyOf(at_, size);
    at_ += size;
    return true;
  }
  bool done() const { return at_ == end_; }

 private:
  const uint8_t* at_;
  const uint8_t* end_;
};

}  // namespace

SpillTotals SpillTotalsNow() { return SpillTotals{g_bytes_written.load(), g_files.load()}; }

SpillFile::~SpillFile() {
  if (fd_ >= 0) ::close(fd_);
}

Result<std::unique_ptr<SpillFile>> SpillFile::Create(const std::string& dir_setting) {
  const std::string dir = SpillDirectory(dir_setting);
  int fd = -1;
#ifdef O_TMPFILE
  fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
#endif
  if (fd < 0) {
    std::string path = dir + "/tandem-spill-XXXXXX";
    fd = ::mkstemp(path.data());
    if (fd >= 0) ::unlink(path.c_str());
  }
  if (fd < 0) {
    return Status::IOError("cannot create a spill file in " + dir +
                           " (tandem.spill.dir): " + std::strerror(errno));
  }
  g_files.fetch_add(1);
  return std::unique_ptr<SpillFile>(new SpillFile(fd, dir));
}

Status SpillFile::Fail(const char* what, int err) const {
  return Status::IOError(std::string("spill file in ") + dir_ + " (tandem.spill.dir): " + what +
                         " failed: " + std::strerror(err));
}

Status SpillFile::Flush() {
  size_t done = 0;
  while (done < pending_.size()) {
    const ssize_t n = ::pwrite(fd_, pending_.data() + done, pending_.size() - done,
                               static_cast<off_t>(offset_ + static_cast<int64_t>(done)));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Fail("write", n < 0 ? errno : ENOSPC);
    done += static_cast<size_t>(n);
  }
  offset_ += static_cast<int64_t>(done);
  g_bytes_written.fetch_add(static_cast<int64_t>(done));
  if (pending_.capacity() > 4 * kFlushBytes) {
    std::string().swap(pending_);
  } else {
    pending_.clear();
  }
  return Status::OK();
}

Status SpillFile::Append(const Batch& batch) {
  std::string block;
  PutInt(&block, batch.num_rows);
  PutInt(&block, batch.num_columns());
  for (const ColumnPtr& c : batch.columns) {
    PutInt(&block, c->null_count());
    PutInt(&block, c->large_offsets() ? 1 : 0);
    PutBuffer(&block, c->validity());
    PutBuffer(&block, c->values());
    PutBuffer(&block, c->data());
  }
  std::lock_guard<std::mutex> lock(mu_);
  block_starts_.push_back(offset_ + static_cast<int64_t>(pending_.size()));
  rows_before_.push_back(rows_);
  PutInt(&pending_, static_cast<int64_t>(block.size()));
  pending_ += block;
  rows_ += batch.num_rows;
  return pending_.size() >= kFlushBytes ? Flush() : Status::OK();
}

Status SpillFile::TruncateBlocks(int64_t blocks) {
  std::lock_guard<std::mutex> lock(mu_);
  if (blocks < 0 || blocks >= num_blocks()) return Status::OK();
  TANDEM_RETURN_NOT_OK(Flush());
  offset_ = block_starts_[blocks];
  rows_ = rows_before_[blocks];
  block_starts_.resize(static_cast<size_t>(blocks));
  rows_before_.resize(static_cast<size_t>(blocks));
  // Give the disk space back; what follows is written over it anyway.
  if (::ftruncate(fd_, static_cast<off_t>(offset_)) != 0) return Fail("truncate", errno);
  return Status::OK();
}

Status SpillFile::FinishWriting() {
  std::lock_guard<std::mutex> lock(mu_);
  return Flush();
}

Status SpillFile::ReadAt(int64_t at, void* out, int64_t size) const {
  int64_t got = 0;
  while (got < size) {
    const ssize_t n = ::pread(fd_, static_cast<char*>(out) + got, static_cast<size_t>(size - got),
                              static_cast<off_t>(at + got));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Fail("read", n < 0 ? errno : EIO);
    got += n;
  }
  return Status::OK();
}

Result<BatchPtr> SpillFile::ReadBlock(int64_t i, const Schema& schema) const {
  if (i < 0 || i >= num_blocks())
    return Status::Internal("spill file: no block " + std::to_string(i));
  const int64_t at = block_starts_[i];
  int64_t size = 0;
  if (at + 8 > offset_) return Status::Internal("spill file: a block was not written out");
  TANDEM_RETURN_NOT_OK(ReadAt(at, &size, 8));
  if (size < 0 || at + 8 + size > offset_) {
    return Status::Internal("spill file: a block's length is out of range");
  }
  std::string block(static_cast<size_t>(size), '\0');
  TANDEM_RETURN_NOT_OK(ReadAt(at + 8, block.data(), size));
  Reader r(reinterpret_cast<const uint8_t*>(block.data()),
           reinterpret_cast<const uint8_t*>(block.data()) + block.size());
  auto batch = std::make_shared<Batch>();
  batch->schema = schema;
  int64_t columns = 0;
  if (!r.Int(&batch->num_rows) || !r.Int(&columns) || columns != schema.num_fields()) {
    return Status::Internal("spill file: a block does not match its schema");
  }
  for (int64_t c = 0; c < columns; ++c) {
    int64_t nulls = 0, large = 0;
    std::shared_ptr<Buffer> validity, values, data;
    if (!r.Int(&nulls) || !r.Int(&large) || !r.Buf(&validity) || !r.Buf(&values) || !r.Buf(&data)) {
      return Status::Internal("spill file: a block is cut short");
    }
    batch->columns.push_back(std::make_shared<Column>(schema.field(static_cast<int>(c)).type,
                                                      batch->num_rows, nulls, validity, values,
                                                      data, large != 0));
  }
  if (!r.done()) return Status::Internal("spill file: a block has bytes left over");
  return batch;
}

Result<Table> SpillFile::ReadAll(const Schema& schema) {
  TANDEM_RETURN_NOT_OK(FinishWriting());
  Table out;
  out.schema = schema;
  for (int64_t i = 0; i < num_blocks(); ++i) {
    TANDEM_ASSIGN_OR_RAISE(BatchPtr batch, ReadBlock(i, schema));
    out.batches.push_back(std::move(batch));
  }
  return out;
}

Result<std::unique_ptr<SpillPartitions>> SpillPartitions::Create(int count,
                                                                 const std::string& dir) {
  auto parts = std::make_unique<SpillPartitions>();
  for (int p = 0; p < count; ++p) {
    TANDEM_ASSIGN_OR_RAISE(auto file, SpillFile::Create(dir));
    parts->files_.push_back(std::move(file));
  }
  return parts;
}

Status SpillPartitions::Append(const Batch& batch, const uint32_t* partition_of) {
  const int count = this->count();
  std::vector<std::vector<int32_t>> rows(static_cast<size_t>(count));
  for (int64_t r = 0; r < batch.num_rows; ++r) {
    if (partition_of[r] >= static_cast<uint32_t>(count)) {
      return Status::Internal("spill: row " + std::to_string(r) + " has partition " +
                              std::to_string(partition_of[r]) + " of " + std::to_string(count));
    }
    rows[partition_of[r]].push_back(static_cast<int32_t>(r));
  }
  for (int p = 0; p < count; ++p) {
    if (rows[p].empty()) continue;
    if (static_cast<int64_t>(rows[p].size()) == batch.num_rows) {
      TANDEM_RETURN_NOT_OK(files_[p]->Append(batch));
      continue;
    }
    BatchPtr part = TakeBatch(batch, rows[p].data(), static_cast<int64_t>(rows[p].size()));
    TANDEM_RETURN_NOT_OK(files_[p]->Append(*part));
  }
  return Status::OK();
}

Status SpillPartitions::FinishWriting() {
  for (auto& f : files_) TANDEM_RETURN_NOT_OK(f->FinishWriting());
  return Status::OK();
}

int64_t SpillPartitions::bytes() const {
  int64_t total = 0;
  for (const auto& f : files_) total += f->bytes();
  return total;
}

}  // namespace tandem
