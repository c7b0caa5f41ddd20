// File (pread) and memory (in-place view) byte sources for the Parquet reader.
#include "tandem/io/parquet/byte_source.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

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
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::IOError("cannot open file " + path + ": " + std::strerror(errno));
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    return Status::IOError("cannot stat file " + path + ": " + std::strerror(err));
  }
  return std::unique_ptr<ByteSource>(std::make_unique<FileSource>(path, fd, st.st_size));
}

std::unique_ptr<ByteSource> MemorySource(std::shared_ptr<Buffer> buffer) {
  return std::make_unique<BufferSource>(std::move(buffer));
}

}  // namespace tandem::parquet
