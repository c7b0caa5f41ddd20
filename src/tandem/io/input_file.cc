// OpenInputFile (see input_file.h).
#include "tandem/io/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>

namespace tandem::io {
namespace {

// The contents of the pipes read so far, by path.
std::mutex g_mutex;
std::map<std::string, std::shared_ptr<Buffer>>& Streams() {
  static std::map<std::string, std::shared_ptr<Buffer>> streams;
  return streams;
}

const char* KindOf(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

Result<std::shared_ptr<Buffer>> ReadAll(const std::string& path, int fd) {
  std::shared_ptr<Buffer> out = Buffer::Allocate(0);
  int64_t filled = 0;
  while (true) {
    if (out->size() - filled < (1 << 16)) out->Resize(std::max<int64_t>(1 << 20, 2 * out->size()));
    const ssize_t n =
        ::read(fd, out->mutable_data() + filled, static_cast<size_t>(out->size() - filled));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status::IOError("cannot read " + path + ": " + std::strerror(errno));
    if (n == 0) break;
    filled += n;
  }
  out->Resize(filled);
  return out;
}

}  // namespace

Result<InputFile> OpenInputFile(const std::string& path) {
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    auto it = Streams().find(path);
    if (it != Streams().end()) return InputFile{-1, it->second->size(), it->second};
  }
  // O_NONBLOCK: opening a FIFO must not wait for a writer (cleared right after).
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return Status::IOError("cannot open file " + path + ": " + std::strerror(errno));
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    return Status::IOError("cannot stat file " + path + ": " + std::strerror(err));
  }
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) (void)::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  if (S_ISREG(st.st_mode)) return InputFile{fd, static_cast<int64_t>(st.st_size), nullptr};
  if (!S_ISFIFO(st.st_mode)) {
    ::close(fd);
    return Status::Invalid("cannot read " + path + ": it is " + KindOf(st.st_mode) +
                           ", not a file or a pipe");
  }
  // A pipe: everything now, once. A FIFO nobody writes to reads as empty at once.
  Result<std::shared_ptr<Buffer>> bytes = ReadAll(path, fd);
  ::close(fd);
  TANDEM_RETURN_NOT_OK(bytes.status());
  if ((*bytes)->size() == 0) {
    return Status::Invalid("cannot read " + path +
                           ": the pipe gave no bytes (a FIFO needs its writer running first)");
  }
  std::lock_guard<std::mutex> lock(g_mutex);
  auto [it, inserted] = Streams().emplace(path, *bytes);
  return InputFile{-1, it->second->size(), it->second};
}

}  // namespace tandem::io
