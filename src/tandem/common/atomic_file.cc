// AtomicFile and the registry of unfinished temporary files (see atomic_file.h).
//
// The registry is a fixed array of slots holding copies of the two paths, so a signal handler
// can read it without locks or allocation: a slot's paths are written before its state says so
// (release) and read only after the state is seen (acquire). A file is registered before it is
// created, so whenever the handler runs, every temporary file that exists or is about to is in
// the registry: the handler waits for a file another thread is creating at that moment, and a
// thread that creates one after the handler started removes it itself.
//
// The handler's process dies right after it: a thread still between deciding to create a file
// and registering it could otherwise create the file after the handler's pass and die before
// removing it (a cancelled datagen once left a part file so). So a thread counts itself in
// (g_creators) before it looks at g_terminating, and creates nothing once that is set; the
// handler sets it, then waits for the threads counted in to finish creating, then removes.
#include "tandem/common/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <random>

namespace tandem {
namespace {

constexpr int kSlots = 128;
constexpr size_t kPathBytes = 4096;

enum SlotState : int {
  kFree = 0,
  kClaimed = 1,   // an AtomicFile is writing the paths
  kCreating = 2,  // paths complete; the file is being created (it may not exist yet)
  kOpen = 3,      // the file exists and is unfinished
};

struct Slot {
  std::atomic<int> state{kFree};
  char temp[kPathBytes];
  char final_path[kPathBytes];
};

Slot g_slots[kSlots];
std::atomic<bool> g_terminating{false};  // a signal handler is removing the files
thread_local int t_creating_slot = -1;   // the slot this thread is creating a file for
std::atomic<int> g_creators{0};          // threads inside AtomicFile::Create's critical part
thread_local bool t_creator = false;     // this thread is one of them

void CopyPath(char* to, const std::string& from) {
  const size_t n = std::min(from.size(), kPathBytes - 1);
  std::memcpy(to, from.data(), n);
  to[n] = '\0';
}

// A slot in state kCreating for the file, or -1 when all are taken (the file is then not
// removed on a signal).
int Register(const std::string& temp, const std::string& path) {
  if (temp.size() >= kPathBytes || path.size() >= kPathBytes) return -1;
  for (int i = 0; i < kSlots; ++i) {
    int expected = kFree;
    if (!g_slots[i].state.compare_exchange_strong(expected, kClaimed)) continue;
    CopyPath(g_slots[i].temp, temp);
    CopyPath(g_slots[i].final_path, path);
    t_creating_slot = i;
    g_slots[i].state.store(kCreating, std::memory_order_release);
    return i;
  }
  return -1;
}

// After the create attempt: the slot is kOpen (created) or free again (not).
void Created(int slot, bool created) {
  t_creating_slot = -1;
  if (slot < 0) return;
  g_slots[slot].state.store(created ? kOpen : kFree, std::memory_order_release);
}

void Unregister(int slot) {
  if (slot >= 0) g_slots[slot].state.store(kFree, std::memory_order_release);
}

std::string RandomSuffix() {
  std::random_device rd;
  std::mt19937_64 gen((static_cast<uint64_t>(rd()) << 32) ^ rd());
  char buf[24];
  std::snprintf(buf, sizeof(buf), ".tmp-%016llx", static_cast<unsigned long long>(gen()));
  return buf;
}

}  // namespace

std::string DirectoryOf(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

Result<std::unique_ptr<AtomicFile>> AtomicFile::Create(const std::string& path) {
  for (int attempt = 0; attempt < 16; ++attempt) {
    std::string temp = path + RandomSuffix();
    // Counted in before looking: a handler that has not begun yet will wait for this file.
    g_creators.fetch_add(1);
    t_creator = true;
    if (g_terminating.load()) {
      t_creator = false;
      g_creators.fetch_sub(1);
      return Status::IOError("cannot write " + path + ": the command is being cancelled");
    }
    const int slot = Register(temp, path);
    const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    const int err = errno;
    Created(slot, fd >= 0);
    if (fd >= 0 && g_terminating.load()) ::unlink(temp.c_str());  // the handler has begun
    t_creator = false;
    g_creators.fetch_sub(1);
    if (fd < 0) {
      if (err == EEXIST) continue;
      std::string msg = "cannot write " + path + ": " + std::strerror(err);
      if (err == ENOENT) msg += " (directory " + DirectoryOf(path) + " does not exist)";
      return Status::IOError(msg);
    }
    return std::unique_ptr<AtomicFile>(new AtomicFile(path, std::move(temp), fd, slot));
  }
  return Status::IOError("cannot write " + path + ": no unused temporary file name");
}

AtomicFile::AtomicFile(std::string path, std::string temp_path, int fd, int slot)
    : path_(std::move(path)), temp_path_(std::move(temp_path)), fd_(fd), slot_(slot) {}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_) ::unlink(temp_path_.c_str());
  Unregister(slot_);
}

Status AtomicFile::Failure(const char* what) const {
  return Status::IOError("cannot write " + path_ + ": " + what +
                         " failed: " + std::strerror(errno));
}

Status AtomicFile::Write(const void* data, size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = ::write(fd_, p, std::min<size_t>(size, size_t{1} << 30));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = EIO;
      return Failure("write");
    }
    p += n;
    size -= static_cast<size_t>(n);
  }
  return Status::OK();
}

Status AtomicFile::WriteV(const struct iovec* iov, int count) {
  int first = 0;
  size_t skip = 0;  // bytes of iov[first] already written
  while (first < count) {
    struct iovec part[64];
    int n_part = 0;
    for (int k = first; k < count && n_part < 64; ++k, ++n_part) {
      part[n_part] = iov[k];
      if (k == first) {
        part[n_part].iov_base = static_cast<char*>(iov[k].iov_base) + skip;
        part[n_part].iov_len -= skip;
      }
    }
    const ssize_t n = ::writev(fd_, part, n_part);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = EIO;
      return Failure("write");
    }
    size_t done = static_cast<size_t>(n);
    while (first < count && done >= iov[first].iov_len - skip) {
      done -= iov[first].iov_len - skip;
      skip = 0;
      ++first;
    }
    skip += done;
  }
  return Status::OK();
}

Status AtomicFile::Commit() {
  if (committed_ || fd_ < 0) return Status::Invalid("cannot write " + path_ + ": already closed");
  if (::fsync(fd_) != 0) return Failure("fsync");
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) return Failure("close");
  if (::rename(temp_path_.c_str(), path_.c_str()) != 0) return Failure("rename");
  committed_ = true;
  Unregister(slot_);
  slot_ = -1;
  // Make the rename durable; a failure here leaves a complete file, so it is not an error.
  const int dir = ::open(DirectoryOf(path_).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    (void)::fsync(dir);
    ::close(dir);
  }
  return Status::OK();
}

void AppendSignalSafe(char* line, size_t* len, size_t cap, const char* text) {
  while (*text && *len + 1 < cap) line[(*len)++] = *text++;
}

int RemoveUnfinishedFiles(char* line, size_t* len, size_t cap) {
  g_terminating.store(true);
  // Threads counted in before that are creating their files now (a few microseconds; at most
  // 200 ms): once they are out, every file that will ever exist is in the registry. This thread
  // may be one of them (the signal arrived inside Create): it does not wait for itself.
  const int own = t_creator ? 1 : 0;
  for (int wait = 0; wait < 2000 && g_creators.load() > own; ++wait) {
    const struct timespec pause = {0, 100000};
    ::nanosleep(&pause, nullptr);
  }
  int removed = 0;
  for (int i = 0; i < kSlots; ++i) {
    Slot& slot = g_slots[i];
    // Another thread creating its file right now: let it finish (a few microseconds; at most
    // 200 ms), so the file exists before it is removed. This thread's own slot cannot finish.
    for (int wait = 0; wait < 2000 && i != t_creating_slot &&
                       slot.state.load(std::memory_order_acquire) == kCreating;
         ++wait) {
      const struct timespec pause = {0, 100000};
      ::nanosleep(&pause, nullptr);
    }
    const int state = slot.state.load(std::memory_order_acquire);
    if (state != kOpen && state != kCreating) continue;
    if (::unlink(slot.temp) != 0) continue;
    ++removed;
    AppendSignalSafe(line, len, cap, "; removed the unfinished ");
    AppendSignalSafe(line, len, cap, slot.temp);
    AppendSignalSafe(line, len, cap, " (");
    AppendSignalSafe(line, len, cap, slot.final_path);
    AppendSignalSafe(line, len, cap, " was not written)");
  }
  return removed;
}

Status WriteFileAtomically(const std::string& path, const std::string& text) {
  TANDEM_ASSIGN_OR_RAISE(std::unique_ptr<AtomicFile> file, AtomicFile::Create(path));
  TANDEM_RETURN_NOT_OK(file->Write(text.data(), text.size()));
  return file->Commit();
}

}  // namespace tandem
