// ParquetFileWriter: buffers batches until a row group is full, encodes the row group's column
// chunks in parallel on the thread pool and appends them to an AtomicFile (common/atomic_file.h);
// Close() writes the footer and commits the file onto its path. A writer destroyed without a
// successful Close() leaves nothing behind.
#include <fcntl.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <random>

#include "tandem/common/atomic_file.h"
#include "tandem/common/thread_pool.h"
#include "tandem/io/parquet/encode/chunk_data.h"
#include "tandem/io/parquet/encode/column_chunk_encoder.h"
#include "tandem/io/parquet/encode/writer_schema.h"
#include "tandem/io/parquet/writer.h"

namespace tandem::parquet {
namespace {

constexpr char kMagic[] = "PAR1";
constexpr char kCreatedBy[] = "tandem 0.1.0";

bool CodecAllowed(CompressionCodec c) {
  return c == CompressionCodec::UNCOMPRESSED || c == CompressionCodec::SNAPPY ||
         c == CompressionCodec::GZIP || c == CompressionCodec::BROTLI ||
         c == CompressionCodec::LZ4_RAW || c == CompressionCodec::ZSTD;
}

class FileWriterImpl final : public ParquetFileWriter {
 public:
  FileWriterImpl(std::string path, Schema schema, WriteOptions options,
                 std::vector<SchemaElement> elements)
      : path_(std::move(path)), schema_(std::move(schema)), options_(options) {
    meta_.version = 2;
    meta_.schema = std::move(elements);
    meta_.created_by = kCreatedBy;
    for (const Field& f : schema_.fields) specs_.push_back(MakeColumnWriteSpec(f));
  }

  Status CreateTempFile() {
    TANDEM_ASSIGN_OR_RAISE(file_, AtomicFile::Create(path_));
    return WriteBytes(kMagic, 4);
  }

  Status WriteBatch(const Batch& batch) override {
    TANDEM_RETURN_NOT_OK(error_);
    if (closed_) return Status::Invalid("cannot write to " + path_ + ": writer already closed");
    TANDEM_RETURN_NOT_OK(CheckBatch(batch));
    int64_t offset = 0;
    while (offset < batch.num_rows) {
      const int64_t take =
          std::min(batch.num_rows - offset, options_.row_group_rows - pending_rows_);
      std::vector<ColumnSlice> slices;
      for (const ColumnPtr& c : batch.columns) slices.push_back({c, offset, take});
      pending_.push_back(std::move(slices));
      pending_rows_ += take;
      offset += take;
      if (pending_rows_ >= options_.row_group_rows) TANDEM_RETURN_NOT_OK(Fail(FlushRowGroup()));
    }
    return Status::OK();
  }

  Status Close() override {
    TANDEM_RETURN_NOT_OK(error_);
    if (closed_) return Status::Invalid("cannot close " + path_ + ": writer already closed");
    if (pending_rows_ > 0) TANDEM_RETURN_NOT_OK(Fail(FlushRowGroup()));
    std::string footer;
    SerializeFileMetaData(meta_, &footer);
    const uint32_t footer_size = static_cast<uint32_t>(footer.size());
    footer.append(reinterpret_cast<const char*>(&footer_size), 4);
    footer.append(kMagic, 4);
    TANDEM_RETURN_NOT_OK(Fail(WriteBytes(footer.data(), static_cast<int64_t>(footer.size()))));
    TANDEM_RETURN_NOT_OK(Fail(file_->Commit()));
    closed_ = true;
    return Status::OK();
  }

 private:
  Status Fail(Status st) {
    if (!st.ok() && error_.ok()) error_ = st;
    return st;
  }

  Status CheckBatch(const Batch& batch) const {
    if (batch.num_columns() != schema_.num_fields()) {
      return Status::Invalid("cannot write to " + path_ + ": batch has " +
                             std::to_string(batch.num_columns()) + " columns, the file " +
                             std::to_string(schema_.num_fields()));
    }
    for (int i = 0; i < batch.num_columns(); ++i) {
      const Field& f = schema_.field(i);
      const ColumnPtr& c = batch.column(i);
      if (!c || c->type() != f.type) {
        return Status::Invalid("cannot write to " + path_ + ": column " + f.name + " is " +
                               (c ? c->type().ToString() : std::string("missing")) +
                               " in the batch but " + f.type.ToString() + " in the schema");
      }
      if (c->length() != batch.num_rows) {
        return Status::Invalid("cannot write to " + path_ + ": column " + f.name + " has " +
                               std::to_string(c->length()) + " rows, the batch " +
                               std::to_string(batch.num_rows));
      }
      if (!f.nullable && c->null_count() > 0) {
        return Status::Invalid("cannot write to " + path_ + ": column " + f.name +
                               " is declared not null but has nulls");
      }
      // Buffer sizes and offsets must agree with the length before the encoders read them.
      const Status valid = c->Validate();
      if (!valid.ok()) return valid.WithContext("cannot write to " + path_ + ", column " + f.name);
    }
    return Status::OK();
  }

  Status WriteBytes(const void* data, int64_t size) {
    TANDEM_RETURN_NOT_OK(file_->Write(data, static_cast<size_t>(size)));
    file_offset_ += size;
    return Status::OK();
  }

  // Writes the pieces in order with as few system calls as possible.
  Status WritePieces(const std::vector<std::string>& pieces) {
    std::vector<iovec> iov;
    iov.reserve(pieces.size());
    int64_t total = 0;
    for (const std::string& piece : pieces) {
      if (piece.empty()) continue;
      iov.push_back({const_cast<char*>(piece.data()), piece.size()});
      total += static_cast<int64_t>(piece.size());
    }
    TANDEM_RETURN_NOT_OK(file_->WriteV(iov.data(), static_cast<int>(iov.size())));
    file_offset_ += total;
    return Status::OK();
  }

  // Encodes the pending rows as one row group (columns in parallel) and appends it.
  Status FlushRowGroup() {
    const int num_columns = schema_.num_fields();
    std::vector<EncodedChunk> chunks(static_cast<size_t>(num_columns));
    auto encode = [&](int64_t c) -> Status {
      std::vector<ColumnSlice> slices;
      slices.reserve(pending_.size());
      for (const auto& batch_slices : pending_) slices.push_back(batch_slices[c]);
      ChunkData data;
      GatherChunk(slices, specs_[c], &data);
      return EncodeColumnChunk(data, specs_[c], options_, &chunks[c]);
    };
    // Small row groups are not worth waking the pool for.
    const bool parallel = num_columns > 1 && pending_rows_ * num_columns >= 65536;
    const Status encoded = ThreadPool::Default().ParallelFor(num_columns, encode, parallel ? 0 : 1);
    if (!encoded.ok()) {
      return encoded.WithContext("file " + path_ + ", row group " +
                                 std::to_string(meta_.row_groups.size()));
    }

    const int16_t ordinal = static_cast<int16_t>(meta_.row_groups.size());
    RowGroup rg;
    rg.num_rows = pending_rows_;
    rg.file_offset = file_offset_;
    if (meta_.row_groups.size() <= INT16_MAX) rg.ordinal = ordinal;
    int64_t compressed = 0;
    for (int c = 0; c < num_columns; ++c) {
      EncodedChunk& chunk = chunks[c];
      const int64_t base = file_offset_;
      ColumnMetaData m = std::move(chunk.meta);
      m.data_page_offset += base;
      if (m.dictionary_page_offset) *m.dictionary_page_offset += base;
      TANDEM_RETURN_NOT_OK(WritePieces(chunk.pieces));
      chunk.pieces = std::vector<std::string>();
      ColumnChunk cc;
      cc.file_offset = base;
      rg.total_byte_size += m.total_uncompressed_size;
      compressed += m.total_compressed_size;
      cc.meta_data = std::move(m);
      rg.columns.push_back(std::move(cc));
    }
    rg.total_compressed_size = compressed;
    meta_.num_rows += pending_rows_;
    meta_.row_groups.push_back(std::move(rg));
    pending_.clear();
    pending_rows_ = 0;
    return Status::OK();
  }

  std::string path_;
  std::unique_ptr<AtomicFile> file_;
  Schema schema_;
  WriteOptions options_;
  std::vector<ColumnWriteSpec> specs_;
  FileMetaData meta_;
  int64_t file_offset_ = 0;
  bool closed_ = false;
  Status error_;
  std::vector<std::vector<ColumnSlice>> pending_;  // per buffered batch, one slice per column
  int64_t pending_rows_ = 0;
};

}  // namespace

Result<std::unique_ptr<ParquetFileWriter>> ParquetFileWriter::Open(const std::string& path,
                                                                   const Schema& schema,
                                                                   const WriteOptions& options) {
  if (!CodecAllowed(options.codec)) {
    return Status::Unsupported("writing Parquet with codec number " +
                               std::to_string(static_cast<int>(options.codec)) +
                               " (use none, snappy, gzip, brotli, lz4_raw or zstd): " + path);
  }
  if (options.row_group_rows <= 0) {
    return Status::Invalid("cannot write " + path + ": row_group_rows must be positive");
  }
  if (options.data_page_bytes <= 0) {
    return Status::Invalid("cannot write " + path + ": data_page_bytes must be positive");
  }
  auto elements = BuildParquetSchema(schema);
  if (!elements.ok()) return elements.status().WithContext("cannot write " + path);
  auto writer = std::make_unique<FileWriterImpl>(path, schema, options, std::move(*elements));
  TANDEM_RETURN_NOT_OK(writer->CreateTempFile());
  return std::unique_ptr<ParquetFileWriter>(std::move(writer));
}

Status WriteParquet(const std::string& path, const Table& table, const WriteOptions& options) {
  TANDEM_ASSIGN_OR_RAISE(auto writer, ParquetFileWriter::Open(path, table.schema, options));
  for (const BatchPtr& batch : table.batches) TANDEM_RETURN_NOT_OK(writer->WriteBatch(*batch));
  return writer->Close();
}

}  // namespace tandem::parquet
