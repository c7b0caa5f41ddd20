// SpoolSink: a query's rows written to an unnamed spill file (memory/spill_file.h) in
// tandem.spill.dir as the pipeline that makes them runs, for a caller that reads them back a
// batch at a time (`tandem sql` printing a result larger than memory to standard output). Rows
// arrive from many threads in the order they come; a restart (the pipeline running again after
// running out of memory) starts a fresh file, so nothing is read twice.
#pragma once

#include <memory>
#include <string>

#include "tandem/exec/cpu/pipeline_sink.h"
#include "tandem/memory/spill_file.h"

namespace tandem::cpu {

class SpoolSink final : public PipelineSink {
 public:
  static Result<std::unique_ptr<SpoolSink>> Open(std::string dir);
  Status Consume(const Batch& batch, EvalContext& eval) override;
  // Finishes the file; returns no rows (they are in the file: TakeFile).
  Result<Table> Finish() override;
  Status Restart() override;
  // After Finish: the file, its batches in blocks (SpillFile::ReadBlock).
  std::unique_ptr<SpillFile> TakeFile() { return std::move(file_); }

 private:
  explicit SpoolSink(std::string dir) : dir_(std::move(dir)) {}
  std::string dir_;
  std::unique_ptr<SpillFile> file_;
};

// FileAppendSink: a pipeline's rows appended to a spill file that others share (the inputs of a
// UNION ALL, one after another); a restart forgets only the rows appended since this sink was
// made.
class FileAppendSink final : public PipelineSink {
 public:
  explicit FileAppendSink(SpillFile* file) : file_(file), start_(file->num_blocks()) {}
  Status Consume(const Batch& batch, EvalContext& eval) override;
  Result<Table> Finish() override { return Table(); }
  Status Restart() override { return file_->TruncateBlocks(start_); }

 private:
  SpillFile* file_;
  int64_t start_;
};

}  // namespace tandem::cpu
