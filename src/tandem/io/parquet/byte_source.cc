// File (pread) and memory (in-place view) byte sources for the Parquet reader.
#include "tandem/io/parquet/byte_source.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "tandem/io/input_file.h"

namespace tandem::parquet {
namespace {

class FileSource final : public ByteSource {
 public:
  FileSource(std::string path, int fd, int64_t size)
      : path_(std::move(path)), fd_(fd), size_(size) {}
  ~FileSource() override { ::close(fd_); }

  int64_t size() const override { return size_; }
  const uint8_t* View(int64_t, int64_t) const override { return nullptr; }

  Status ReadAt(int64_t offset, int64_t length, uint8_t* out) const override {
    while (length > 0) {
      const ssize_t n = ::pread(fd_, out, static_cast<size_t>(length), static_cast<off_t>(offset));
      if (n < 0) {
        if (errno == EINTR) continue;
        return Status::IOError("cannot read file " + path_ + ": " + std::strerror(errno));
      }
      if (n == 0) return Status::Invalid("file " + path_ + " is shorter than its metadata says");
      out += n;
      offset += n;
      length -= n;
    }
    return Status::OK();
  }

 private:
  std::string path_;
  int fd_;
  int64_t size_;
};

class BufferSource final : public ByteSource {
 public:
  explicit BufferSource(std::shared_ptr<Buffer> buffer) : buffer_(std::move(buffer)) {}

  int64_t size() const override { return buffer_ ? buffer_->size() : 0; }
  const uint8_t* View(int64_t offset, int64_t) const override { return buffer_->data() + offset; }
  Status ReadAt(int64_t offset, int64_t length, uint8_t* out) const override {
    if (length > 0) std::memcpy(out, buffer_->data() + offset, static_cast<size_t>(length));
    return Status::OK();
  }

 private:
  std::shared_ptr<Buffer> buffer_;
};

}  // namespace

Result<std::unique_ptr<ByteSource>> OpenFileSource(const std::string& path) {
  TANDEM_ASSIGN_OR_RAISE(io::InputFile input, io::OpenInputFile(path));
  if (input.bytes) return MemorySource(std::move(input.bytes));  // a pipe, read once
  return std::unique_ptr<ByteSource>(std::make_unique<FileSource>(path, input.fd, input.size));
}

std::unique_ptr<ByteSource> MemorySource(std::shared_ptr<Buffer> buffer) {
  return std::make_unique<BufferSource>(std::move(buffer));
}

}  // namespace tandem::parquet
