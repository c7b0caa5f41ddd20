// CSV chunk source: block reads with carry-over of the partial last row.
#include "tandem/io/csv/csv_chunk_source.h"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include "tandem/io/input_file.h"

namespace tandem::csv::internal {
namespace {

std::atomic<int64_t> g_block_size{8 << 20};

}  // namespace

void SetBlockSizeForTesting(int64_t bytes) { g_block_size = bytes < 1 ? 1 : bytes; }

Result<std::unique_ptr<ChunkSource>> ChunkSource::OpenFile(const std::string& path,
                                                           const Dialect& dialect) {
  TANDEM_ASSIGN_OR_RAISE(io::InputFile input, io::OpenInputFile(path));
  if (input.bytes) {  // a pipe, read once
    return FromBuffer(std::string(reinterpret_cast<const char*>(input.bytes->data()),
                                  static_cast<size_t>(input.bytes->size())),
                      path, dialect);
  }
  std::unique_ptr<ChunkSource> source(new ChunkSource(path, dialect));
  source->fd_ = input.fd;
  return source;
}

std::unique_ptr<ChunkSource> ChunkSource::FromBuffer(std::string data, const std::string& name,
                                                     const Dialect& dialect) {
  std::unique_ptr<ChunkSource> source(new ChunkSource(name, dialect));
  source->block_ = std::make_shared<std::string>(std::move(data));
  source->eof_ = true;
  source->started_ = true;
  const std::string& b = *source->block_;
  if (b.size() >= 3 && b.compare(0, 3, "\xEF\xBB\xBF") == 0) source->pos_ = 3;
  return source;
}

ChunkSource::~ChunkSource() {
  if (fd_ >= 0) ::close(fd_);
}

Status ChunkSource::Refill() {
  const int64_t leftover = block_ ? static_cast<int64_t>(block_->size()) - pos_ : 0;
  const int64_t block_size = g_block_size.load();
  // Geometric growth: a row longer than a block is re-scanned O(log) times, not O(n).
  const int64_t to_read = leftover > block_size ? leftover : block_size;
  auto next = std::make_shared<std::string>();
  next->resize(static_cast<size_t>(leftover + to_read));
  if (leftover > 0) std::memcpy(next->data(), block_->data() + pos_, static_cast<size_t>(leftover));
  int64_t filled = leftover;
  while (filled < leftover + to_read) {
    const ssize_t n =
        ::read(fd_, next->data() + filled, static_cast<size_t>(leftover + to_read - filled));
    if (n < 0) {
      if (errno == EINTR) continue;
      return Status::IOError("file " + name_ + ": read failed: " + std::strerror(errno));
    }
    if (n == 0) {
      eof_ = true;
      break;
    }
    filled += n;
  }
  next->resize(static_cast<size_t>(filled));
  pos_ = 0;
  if (!started_) {
    started_ = true;
    if (next->size() >= 3 && next->compare(0, 3, "\xEF\xBB\xBF") == 0) pos_ = 3;
  }
  block_ = std::move(next);
  return Status::OK();
}

Result<std::optional<RowChunk>> ChunkSource::Next(int64_t max_rows) {
  while (true) {
    if (block_ && pos_ < static_cast<int64_t>(block_->size())) {
      RowChunk chunk;
      chunk.block = block_;
      chunk.rows.num_fields = num_fields_;
      int64_t next_pos = pos_;
      Status st = tokenizer_.Tokenize(block_->data(), static_cast<int64_t>(block_->size()), pos_,
                                      eof_, max_rows, &chunk.rows, &next_pos, &line_);
      if (!st.ok()) return Status(st.code(), "file " + name_ + ", " + st.message());
      const bool progressed = next_pos != pos_;
      pos_ = next_pos;
      num_fields_ = chunk.rows.num_fields;
      if (chunk.rows.num_rows() > 0) return std::optional<RowChunk>(std::move(chunk));
      if (progressed) continue;  // only empty lines so far
    }
    if (eof_) {
      if (block_ && pos_ < static_cast<int64_t>(block_->size())) {
        return Status::Internal("file " + name_ + ": CSV tokenizer stopped before the end");
      }
      return std::optional<RowChunk>();
    }
    TANDEM_RETURN_NOT_OK(Refill());
  }
}

}  // namespace tandem::csv::internal
