// ParquetWriteSink: a query's rows written to a Parquet file as the pipeline that makes them runs,
// instead of collected into one table: a result larger than the host budget
// (tandem.memory.host.limit) still reaches its file, holding one row group at a time. Batches
// come from many threads and are written one at a time, in the order they arrive. The file
// appears (renamed into place, parquet/writer.h) only when Finish succeeds; a sink destroyed
// before leaves nothing behind.
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "tandem/exec/cpu/pipeline_sink.h"
#include "tandem/io/parquet/writer.h"

namespace tandem::cpu {

class ParquetWriteSink final : public PipelineSink {
 public:
  // `context`, when given, leads the writer's errors ("CREATE TABLE t").
  static Result<std::unique_ptr<ParquetWriteSink>> Open(const std::string& path,
                                                        const Schema& schema,
                                                        std::string context = "");
  Status Consume(const Batch& batch, EvalContext& eval) override;
  // Closes the file; returns no rows (they are in the file).
  Result<Table> Finish() override;
  // Drops what was written (the temporary file) and starts a fresh one.
  bool Restart() override;
  int64_t rows() const { return rows_; }

 private:
  ParquetWriteSink(std::string path, Schema schema, parquet::WriteOptions options,
                   std::string context)
      : path_(std::move(path)),
        schema_(std::move(schema)),
        options_(options),
        context_(std::move(context)) {}
  Status Named(const Status& st) const {
    return st.ok() || context_.empty() ? st : st.WithContext(context_);
  }
  std::mutex mu_;
  std::string path_;
  Schema schema_;
  parquet::WriteOptions options_;
  std::string context_;
  std::unique_ptr<parquet::ParquetFileWriter> writer_;
  int64_t rows_ = 0;
  bool finished_ = false;
};

}  // namespace tandem::cpu
