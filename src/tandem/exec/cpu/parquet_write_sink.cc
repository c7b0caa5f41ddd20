// A query's rows straight into a Parquet file (see parquet_write_sink.h).
#include "tandem/exec/cpu/parquet_write_sink.h"

#include <algorithm>

#include "tandem/exec/cpu/spilling_pipeline.h"

namespace tandem::cpu {

Result<std::unique_ptr<ParquetWriteSink>> ParquetWriteSink::Open(const std::string& path,
                                                                 const Schema& schema,
                                                                 std::string context) {
  // The writer holds a row group's rows until it writes them: a quarter of what a spilling
  // operator may hold, within 8K and 1M rows (the writer's default).
  int64_t width = 0;
  for (const Field& f : schema.fields) width += f.type.is_string_like() ? 24 : 8;
  parquet::WriteOptions options;
  options.row_group_rows = std::clamp<int64_t>(SpillBudget() / 4 / std::max<int64_t>(width, 8),
                                               8192, options.row_group_rows);
  std::unique_ptr<ParquetWriteSink> sink(
      new ParquetWriteSink(path, schema, options, std::move(context)));
  auto writer = parquet::ParquetFileWriter::Open(path, schema, options);
  if (!writer.ok()) return sink->Named(writer.status());
  sink->writer_ = std::move(writer).value();
  return sink;
}

bool ParquetWriteSink::Restart() {
  std::lock_guard<std::mutex> lock(mu_);
  if (finished_) return false;
  writer_.reset();  // removes its temporary file
  rows_ = 0;
  Result<std::unique_ptr<parquet::ParquetFileWriter>> fresh =
      parquet::ParquetFileWriter::Open(path_, schema_, options_);
  if (!fresh.ok()) return false;
  writer_ = std::move(fresh).value();
  return true;
}

Status ParquetWriteSink::Consume(const Batch& batch, EvalContext&) {
  if (batch.num_rows == 0) return Status::OK();
  std::lock_guard<std::mutex> lock(mu_);
  if (finished_ || !writer_) return Status::Internal("rows written to a closed Parquet output");
  Batch named = batch;
  named.schema = schema_;
  TANDEM_RETURN_NOT_OK(Named(writer_->WriteBatch(named)));
  rows_ += batch.num_rows;
  return Status::OK();
}

Result<Table> ParquetWriteSink::Finish() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!finished_) {
    finished_ = true;
    TANDEM_RETURN_NOT_OK(Named(writer_->Close()));
  }
  return Table{schema_, {}};
}

}  // namespace tandem::cpu
