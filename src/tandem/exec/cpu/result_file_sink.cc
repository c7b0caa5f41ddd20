// A query's rows straight into a Parquet or CSV file (see result_file_sink.h).
#include "tandem/exec/cpu/result_file_sink.h"

#include <algorithm>

#include "tandem/common/text.h"
#include "tandem/exec/cpu/spilling_pipeline.h"

namespace tandem::cpu {
Result<std::unique_ptr<ResultFileSink>> ResultFileSink::Open(const std::string& path,
                                                             const Schema& schema,
                                                             std::string context) {
  std::unique_ptr<ResultFileSink> sink(new ResultFileSink(path, schema, std::move(context)));
  // A Parquet writer holds a row group's rows until it writes them: a quarter of what a spilling
  // operator may hold, within 8K and 1M rows (the writer's default).
  int64_t width = 0;
  for (const Field& f : schema.fields) width += f.type.is_string_like() ? 24 : 8;
  sink->parquet_options_.row_group_rows = std::clamp<int64_t>(
      SpillBudget() / 4 / std::max<int64_t>(width, 8), 8192, sink->parquet_options_.row_group_rows);
  TANDEM_RETURN_NOT_OK(sink->OpenWriter());
  return sink;
}

Status ResultFileSink::OpenWriter() {
  if (EndsWithIgnoringCase(path_, ".csv")) {
    auto writer = csv::CsvFileWriter::Open(path_, schema_);
    if (!writer.ok()) return Named(writer.status());
    csv_ = std::move(writer).value();
  } else {
    auto writer = parquet::ParquetFileWriter::Open(path_, schema_, parquet_options_);
    if (!writer.ok()) return Named(writer.status());
    parquet_ = std::move(writer).value();
  }
  return Status::OK();
}

Status ResultFileSink::Consume(const Batch& batch, EvalContext&) {
  if (batch.num_rows == 0) return Status::OK();
  std::lock_guard<std::mutex> lock(mu_);
  if (finished_ || (!parquet_ && !csv_)) {
    return Status::Internal("rows written to a closed result file");
  }
  Batch named = batch;
  named.schema = schema_;
  TANDEM_RETURN_NOT_OK(Named(parquet_ ? parquet_->WriteBatch(named) : csv_->WriteBatch(named)));
  rows_ += batch.num_rows;
  return Status::OK();
}

Result<Table> ResultFileSink::Finish() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!finished_) {
    finished_ = true;
    if (!parquet_ && !csv_) return Status::Internal("a result file without its writer");
    TANDEM_RETURN_NOT_OK(Named(parquet_ ? parquet_->Close() : csv_->Close()));
  }
  return Table{schema_, {}};
}

Status ResultFileSink::Restart() {
  std::lock_guard<std::mutex> lock(mu_);
  if (finished_) return Status::Internal("a finished result file restarted");
  parquet_.reset();  // removes its temporary file
  csv_.reset();
  rows_ = 0;
  return OpenWriter();
}

}  // namespace tandem::cpu
