// CSV writing: RFC 4180 text through the shared value formatter, written atomically (a temporary
// file in the same directory, renamed over the target on Close; removed if never closed: an
// AtomicFile, common/atomic_file.h).
#include <algorithm>
#include <cstring>

#include "tandem/common/atomic_file.h"
#include "tandem/format/value_format.h"
#include "tandem/io/csv/csv.h"

namespace tandem::csv {
namespace {

constexpr size_t kFlushBytes = 1 << 20;

class FieldQuoter {
 public:
  explicit FieldQuoter(const CsvWriteOptions& options) : options_(options) {
    std::memset(special_, 0, sizeof(special_));
    special_[static_cast<unsigned char>(options.delimiter)] = true;
    special_[static_cast<unsigned char>('"')] = true;
    special_[static_cast<unsigned char>('\n')] = true;
    special_[static_cast<unsigned char>('\r')] = true;
  }

  void Append(std::string_view text, std::string* out) const {
    bool quote = text == options_.null_marker ||
                 (!text.empty() && (text.front() == ' ' || text.back() == ' '));
    for (size_t i = 0; i < text.size() && !quote; ++i) {
      quote = special_[static_cast<unsigned char>(text[i])];
    }
    if (!quote) {
      out->append(text);
      return;
    }
    out->push_back('"');
    for (char c : text) {
      if (c == '"') out->push_back('"');
      out->push_back(c);
    }
    out->push_back('"');
  }

 private:
  const CsvWriteOptions& options_;
  bool special_[256];
};

class CsvFileWriterImpl : public CsvFileWriter {
 public:
  CsvFileWriterImpl(std::unique_ptr<AtomicFile> file, const Schema& schema,
                    const CsvWriteOptions& options)
      : path_(file->path()), file_(std::move(file)), schema_(schema), options_(options) {}

  Status Start() {
    if (options_.header) AppendCsvHeader(schema_, options_, &buffer_);
    return Status::OK();
  }

  Status WriteBatch(const Batch& batch) override {
    if (closed_) return Status::Invalid("file " + path_ + ": CSV writer already closed");
    if (batch.num_columns() != schema_.num_fields()) {
      return Status::Invalid("file " + path_ + ": batch has " +
                             std::to_string(batch.num_columns()) + " columns, schema has " +
                             std::to_string(schema_.num_fields()));
    }
    for (int i = 0; i < batch.num_columns(); ++i) {
      if (batch.column(i)->type() != schema_.field(i).type ||
          batch.column(i)->length() != batch.num_rows) {
        return Status::Invalid("file " + path_ + ", column " + schema_.field(i).name +
                               ": batch column does not match the schema (" +
                               batch.column(i)->type().ToString() + ", expected " +
                               schema_.field(i).type.ToString() + ")");
      }
    }
    constexpr int64_t kRowsPerStep = 4096;
    for (int64_t begin = 0; begin < batch.num_rows; begin += kRowsPerStep) {
      const int64_t end = std::min(batch.num_rows, begin + kRowsPerStep);
      AppendCsvRows(batch, begin, end, options_, &buffer_);
      if (buffer_.size() >= kFlushBytes) TANDEM_RETURN_NOT_OK(Flush());
    }
    return Status::OK();
  }

  Status Close() override {
    if (closed_) return Status::Invalid("file " + path_ + ": CSV writer already closed");
    TANDEM_RETURN_NOT_OK(Flush());
    TANDEM_RETURN_NOT_OK(file_->Commit());
    closed_ = true;
    return Status::OK();
  }

 private:
  Status Flush() {
    TANDEM_RETURN_NOT_OK(file_->Write(buffer_.data(), buffer_.size()));
    buffer_.clear();
    return Status::OK();
  }

  std::string path_;
  std::unique_ptr<AtomicFile> file_;
  Schema schema_;
  CsvWriteOptions options_;
  std::string buffer_;
  bool closed_ = false;
};

}  // namespace

void AppendCsvHeader(const Schema& schema, const CsvWriteOptions& options, std::string* out) {
  FieldQuoter quoter(options);
  for (int i = 0; i < schema.num_fields(); ++i) {
    if (i > 0) out->push_back(options.delimiter);
    quoter.Append(schema.field(i).name, out);
  }
  out->push_back('\n');
}

void AppendCsvRows(const Batch& batch, int64_t begin, int64_t end, const CsvWriteOptions& options,
                   std::string* out) {
  FieldQuoter quoter(options);
  std::string text;
  const int num_columns = batch.num_columns();
  for (int64_t row = begin; row < end; ++row) {
    for (int c = 0; c < num_columns; ++c) {
      if (c > 0) out->push_back(options.delimiter);
      const Column& column = *batch.column(c);
      if (column.IsNull(row)) {
        out->append(options.null_marker);
        continue;
      }
      text.clear();
      format::AppendText(column, row, &text);
      quoter.Append(text, out);
    }
    // In a one-column file a NULL with an empty marker is an empty line; Tandem reads those as
    // NULL in one-column files (csv.h).
    out->push_back('\n');
  }
}

Result<std::unique_ptr<CsvFileWriter>> CsvFileWriter::Open(const std::string& path,
                                                           const Schema& schema,
                                                           const CsvWriteOptions& options) {
  if (options.delimiter == '"' || options.delimiter == '\n' || options.delimiter == '\r') {
    return Status::Invalid("file " + path + ": the CSV delimiter cannot be a quote or line end");
  }
  TANDEM_ASSIGN_OR_RAISE(std::unique_ptr<AtomicFile> file, AtomicFile::Create(path));
  auto writer = std::make_unique<CsvFileWriterImpl>(std::move(file), schema, options);
  TANDEM_RETURN_NOT_OK(writer->Start());
  return std::unique_ptr<CsvFileWriter>(std::move(writer));
}

Status WriteCsv(const std::string& path, const Table& table, const CsvWriteOptions& options) {
  TANDEM_ASSIGN_OR_RAISE(auto writer, CsvFileWriter::Open(path, table.schema, options));
  for (const BatchPtr& batch : table.batches) TANDEM_RETURN_NOT_OK(writer->WriteBatch(*batch));
  return writer->Close();
}

}  // namespace tandem::csv
