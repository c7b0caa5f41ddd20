// ResultFileSink: a query's rows written to a Parquet or CSV file (by the name's extension) as the
// pipeline that makes them runs, instead of collected into one table: a result larger than the
// host budget (tandem.memory.host.limit) still reaches its file, holding a row group (Parquet) or
// a megabyte of text (CSV) at a time. Batches come from many threads and are written one at a
// time, in the order they arrive. The file appears (renamed into place by its writer) only when
// Finish succeeds; a sink destroyed before leaves nothing behind.
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "tandem/exec/cpu/pipeline_sink.h"
#include "tandem/io/csv/csv.h"
#include "tandem/io/parquet/writer.h"

namespace tandem::cpu {

class ResultFileSink final : public PipelineSink {
 public:
  // `context`, when given, leads the writer's errors ("CREATE TABLE t").
  static Result<std::unique_ptr<ResultFileSink>> Open(const std::string& path, const Schema& schema,
                                                      std::string context = "");
  Status Consume(const Batch& batch, EvalContext& eval) override;
  // Closes the file; returns no rows (they are in the file).
  Result<Table> Finish() override;
  // Drops what was written (the temporary file) and starts a fresh one.
  Status Restart() override;
  int64_t rows() const { return rows_; }

 private:
  ResultFileSink(std::string path, Schema schema, std::string context)
      : path_(std::move(path)), schema_(std::move(schema)), context_(std::move(context)) {}
  Status Named(const Status& st) const {
    return st.ok() || context_.empty() ? st : st.WithContext(context_);
  }
  Status OpenWriter();  // a fresh file: the Parquet or the CSV writer
  std::mutex mu_;
  std::string path_;
  Schema schema_;
  std::string context_;
  parquet::WriteOptions parquet_options_;
  std::unique_ptr<parquet::ParquetFileWriter> parquet_;
  std::unique_ptr<csv::CsvFileWriter> csv_;
  int64_t rows_ = 0;
  bool finished_ = false;
};

}  // namespace tandem::cpu
