// AtomicFile: every file Tandem writes (Parquet, CSV, reports, datagen) is written to
// "<path>.tmp-<random>" in the same directory and renamed onto <path> only when complete, so a
// reader never sees half a file and a failure leaves the old file (or none) in place.
//
// Unfinished temporary files are also registered process-wide, so that a program's signal
// handler can remove them before the process dies (RemoveUnfinishedFiles is async-signal-safe):
// SIGINT during `CREATE TABLE AS` leaves nothing behind.
#pragma once

#include <sys/uio.h>

#include <cstddef>
#include <memory>
#include <string>

#include "tandem/common/status.h"

namespace tandem {

class AtomicFile {
 public:
  // Creates the temporary file (O_EXCL, a fresh random name); errors name `path`.
  static Result<std::unique_ptr<AtomicFile>> Create(const std::string& path);

  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  // Without a successful Commit() the temporary file is removed.
  ~AtomicFile();

  Status Write(const void* data, size_t size);
  // Writes every byte of iov[0..count) (retrying short writes).
  Status WriteV(const struct iovec* iov, int count);
  // fsync, close, rename onto the final path, fsync the directory.
  Status Commit();

  const std::string& path() const { return path_; }
  const std::string& temp_path() const { return temp_path_; }

 private:
  AtomicFile(std::string path, std::string temp_path, int fd, int slot);
  Status Failure(const char* what) const;

  std::string path_;
  std::string temp_path_;
  int fd_;
  int slot_;  // in the signal-cleanup registry, or -1 when it was full
  bool committed_ = false;
};

// The directory part of a path ("." when none).
std::string DirectoryOf(const std::string& path);

// For signal handlers: unlinks every unfinished temporary file and appends to line[*len..cap)
// "; removed the unfinished <temp> (<path> was not written)" for each (truncated to fit). Uses
// only async-signal-safe calls. Returns how many files it removed.
int RemoveUnfinishedFiles(char* line, size_t* len, size_t cap);

// Appends a C string to line[*len..cap), leaving room for a terminating byte (async-signal-safe).
void AppendSignalSafe(char* line, size_t* len, size_t cap, const char* text);

// Writes `text` to `path` through an AtomicFile.
Status WriteFileAtomically(const std::string& path, const std::string& text);

}  // namespace tandem
