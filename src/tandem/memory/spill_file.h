// Spilling to disk: batches that do not fit the host budget (tandem.memory.host.limit) are
// written to unnamed temporary files in tandem.spill.dir and read back when their turn comes.
// A SpillFile is unlinked from the start (O_TMPFILE, or created and removed at once), so a
// killed process leaves nothing behind. The format is private to one process: per batch its
// row count, then per column the null count and the raw bytes of its three buffers.
//
// SpillPartitions splits batches by a partition number per row into several SpillFiles: the
// partitioned sinks of a grace hash join and of a partitioned aggregation write through it.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "tandem/column/table.h"

namespace tandem {

// Process-wide spill counters, for --timing and EXPLAIN ANALYZE.
struct SpillTotals {
  int64_t bytes_written = 0;
  int64_t files = 0;
};
SpillTotals SpillTotalsNow();

class SpillFile {
 public:
  ~SpillFile();
  SpillFile(const SpillFile&) = delete;
  SpillFile& operator=(const SpillFile&) = delete;

  // An empty file in `dir` ("" = $TMPDIR, else /tmp); an IOError names the directory.
  static Result<std::unique_ptr<SpillFile>> Create(const std::string& dir);

  // Thread-safe; batches are read back in the order they were appended.
  Status Append(const Batch& batch);
  // Forgets every block from `blocks` on (their rows appended again, say, by a pipeline that
  // runs again after running out of memory); nothing when there are no more.
  Status TruncateBlocks(int64_t blocks);
  // After the last Append: writes what is buffered, so that blocks can be read (from any
  // number of threads at once).
  Status FinishWriting();
  // The batches appended, one block each, in append order.
  int64_t num_blocks() const { return static_cast<int64_t>(block_starts_.size()); }
  Result<BatchPtr> ReadBlock(int64_t i, const Schema& schema) const;
  // Every batch written, as a table of `schema` (FinishWriting first). The file keeps its
  // contents: it can be read again.
  Result<Table> ReadAll(const Schema& schema);

  int64_t rows() const { return rows_; }
  int64_t bytes() const { return offset_ + static_cast<int64_t>(pending_.size()); }

 private:
  SpillFile(int fd, std::string dir) : fd_(fd), dir_(std::move(dir)) {}
  Status Flush();  // mutex held
  Status Fail(const char* what, int err) const;
  Status ReadAt(int64_t at, void* out, int64_t size) const;

  std::mutex mu_;
  int fd_;
  std::string dir_;
  int64_t offset_ = 0;  // bytes on disk
  int64_t rows_ = 0;
  std::vector<int64_t> block_starts_;  // file offset of each block's length prefix
  std::vector<int64_t> rows_before_;   // rows in the blocks before each block
  std::string pending_;                // written at 64 KiB (kFlushBytes)
};

class SpillPartitions {
 public:
  static Result<std::unique_ptr<SpillPartitions>> Create(int count, const std::string& dir);
  int count() const { return static_cast<int>(files_.size()); }
  // Appends row r of `batch` to partition partition_of[r] (thread-safe).
  Status Append(const Batch& batch, const uint32_t* partition_of);
  SpillFile& file(int p) { return *files_[p]; }
  Status FinishWriting();  // of every file
  int64_t bytes() const;

 private:
  std::vector<std::unique_ptr<SpillFile>> files_;
};

}  // namespace tandem
