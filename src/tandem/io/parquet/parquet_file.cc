// ParquetFile: opens one Parquet file or in-memory buffer (magic bytes, footer, schema mapping)
// and reads the column chunks of a row group, only those asked for, decoding each into a Tandem
// column. Files are read with pread; buffers are decoded in place. Instances are immutable after
// Open, so ReadRowGroup may run on several threads at once.
#include <algorithm>
#include <cstring>
#include <functional>
#include <new>
#include <string>

#include "tandem/common/out_of_memory.h"
#include "tandem/io/parquet/byte_source.h"
#include "tandem/io/parquet/column_chunk_reader.h"
#include "tandem/io/parquet/decode/raw_buffer.h"
#include "tandem/io/parquet/reader.h"
#include "tandem/io/parquet/type_mapping.h"

namespace tandem::parquet {
namespace {

// The calling thread's buffer for column chunks read from a file (one for every kind of read).
decode::RawBuffer& ChunkScratch() {
  thread_local decode::RawBuffer reused(decode::RawBuffer::Use::kScratch);
  return reused;
}

class ParquetFileImpl final : public ParquetFile {
 public:
  ParquetFileImpl(std::string path, std::unique_ptr<ByteSource> source)
      : path_(std::move(path)), source_(std::move(source)) {}

  Status Init();

  const std::string& path() const override { return path_; }
  const FileMetaData& metadata() const override { return meta_; }
  const Schema& schema() const override { return schema_; }
  int num_row_groups() const override { return static_cast<int>(meta_.row_groups.size()); }
  Result<BatchPtr> ReadRowGroup(int row_group, const std::vector<int>& columns) const override;
  Status ReadRowGroupPieces(int row_group, const std::vector<int>& columns, int64_t piece_rows,
                            const std::function<Status(BatchPtr)>& each,
                            bool hold_pages = false) const override;
  Result<std::optional<DictionaryCodes>> ReadColumnCodes(int row_group, int column) const override;

 private:
  // Where one column chunk's bytes lie, checked against the footer and the file.
  struct ChunkPlace {
    const ColumnMetaData* meta = nullptr;
    const LeafColumn* leaf = nullptr;
    std::string context;  // "file f, row group r, column c"
    int64_t start = 0;
    int64_t length = 0;  // 0 for an empty row group
  };
  Result<ChunkPlace> PlaceChunk(int row_group, int column) const;
  // Calls decode(chunk bytes, size, place, row count) with the chunk in place (a buffer, a
  // mapping) or read into a buffer of the thread's.
  template <typename R, typename Decode>
  Result<R> WithChunk(int row_group, int column, const Decode& decode) const;
  Result<ColumnPtr> ReadColumn(int row_group, int column) const;

  std::string path_;
  std::unique_ptr<ByteSource> source_;
  int64_t file_size_ = 0;
  int64_t footer_start_ = 0;
  FileMetaData meta_;
  std::vector<LeafColumn> leaves_;
  Schema schema_;
};

Status ParquetFileImpl::Init() {
  const std::string where = "file " + path_;
  file_size_ = source_->size();
  if (file_size_ < 12) return Status::Invalid(where + ": too small to be a Parquet file");
  uint8_t head[4], tail[8];
  TANDEM_RETURN_NOT_OK(source_->ReadAt(0, 4, head));
  TANDEM_RETURN_NOT_OK(source_->ReadAt(file_size_ - 8, 8, tail));
  if (std::memcmp(tail + 4, "PARE", 4) == 0) {
    return Status::Unsupported("encrypted Parquet footer (" + where + ")");
  }
  if (std::memcmp(head, "PAR1", 4) != 0 || std::memcmp(tail + 4, "PAR1", 4) != 0) {
    return Status::Invalid(where + ": not a Parquet file (missing PAR1 magic bytes)");
  }
  uint32_t footer_len;
  std::memcpy(&footer_len, tail, 4);
  if (int64_t{footer_len} > file_size_ - 12) {
    return Status::Invalid(where + ": footer length " + std::to_string(footer_len) +
                           " exceeds the file size " + std::to_string(file_size_));
  }
  footer_start_ = file_size_ - 8 - footer_len;
  decode::RawBuffer footer;
  const uint8_t* footer_bytes = source_->View(footer_start_, footer_len);
  if (footer_bytes == nullptr) {
    footer.Resize(footer_len);
    TANDEM_RETURN_NOT_OK(source_->ReadAt(footer_start_, footer_len, footer.data()));
    footer_bytes = footer.data();
  }
  auto meta = ParseFileMetaData(footer_bytes, footer_len);
  if (!meta.ok()) return meta.status().WithContext(where);
  meta_ = std::move(meta).value();
  auto leaves = MapParquetSchema(meta_.schema);
  if (!leaves.ok()) return leaves.status().WithContext(where);
  leaves_ = std::move(leaves).value();
  for (const LeafColumn& leaf : leaves_) {
    schema_.fields.push_back(Field{leaf.name, leaf.type, leaf.nullable});
  }
  for (size_t g = 0; g < meta_.row_groups.size(); ++g) {
    const RowGroup& rg = meta_.row_groups[g];
    if (rg.columns.size() != leaves_.size()) {
      return Status::Invalid(where + ", row group " + std::to_string(g) + ": " +
                             std::to_string(rg.columns.size()) + " column chunks for " +
                             std::to_string(leaves_.size()) + " schema columns");
    }
    if (rg.num_rows < 0) {
      return Status::Invalid(where + ", row group " + std::to_string(g) + ": negative row count");
    }
  }
  return Status::OK();
}

Result<ParquetFileImpl::ChunkPlace> ParquetFileImpl::PlaceChunk(int row_group, int column) const {
  const LeafColumn& leaf = leaves_[column];
  const std::string column_context = "file " + path_ + ", column " + leaf.name;
  if (!leaf.unsupported.empty()) {
    return Status::Unsupported(leaf.unsupported).WithContext(column_context);
  }
  const RowGroup& rg = meta_.row_groups[row_group];
  const ColumnChunk& chunk = rg.columns[column];
  if (chunk.has_crypto_metadata || meta_.has_encryption_algorithm) {
    return Status::Unsupported("encrypted column").WithContext(column_context);
  }
  const std::string context =
      "file " + path_ + ", row group " + std::to_string(row_group) + ", column " + leaf.name;
  if (chunk.file_path) {
    return Status::Unsupported("column chunk stored in another file").WithContext(context);
  }
  if (!chunk.meta_data) return Status::Invalid(context + ": column chunk without metadata");
  const ColumnMetaData& md = *chunk.meta_data;
  if (md.type != leaf.physical) {
    return Status::Invalid(context + ": column chunk type " + PhysicalTypeName(md.type) +
                           " differs from the schema's " + PhysicalTypeName(leaf.physical));
  }
  if (md.num_values != rg.num_rows) {
    return Status::Invalid(context + ": column chunk has " + std::to_string(md.num_values) +
                           " values, row group has " + std::to_string(rg.num_rows) + " rows");
  }
  ChunkPlace place{&md, &leaf, context, 0, 0};
  if (rg.num_rows == 0) return place;    // nothing to read
  const int64_t start = ChunkStart(md);  // the dictionary page when there is one
  int64_t length = md.total_compressed_size;
  if (start < 4 || length < 0 || start > footer_start_ || length > footer_start_ - start) {
    return Status::Invalid(context + ": column chunk range [" + std::to_string(start) + ", +" +
                           std::to_string(length) + ") lies outside the data of the file");
  }
  // Old parquet-mr versions left the dictionary page header out of total_compressed_size
  // (PARQUET-816); reading up to kChunkPadding more bytes lets such chunks decode. Decoding stops
  // once the row group's rows are complete, so the padding is never taken for pages.
  constexpr int64_t kChunkPadding = 100;
  length += std::min(kChunkPadding, footer_start_ - start - length);
  place.start = start;
  place.length = length;
  return place;
}

template <typename R, typename Decode>
Result<R> ParquetFileImpl::WithChunk(int row_group, int column, const Decode& decode) const {
  TANDEM_ASSIGN_OR_RAISE(ChunkPlace place, PlaceChunk(row_group, column));
  const int64_t start = place.start, length = place.length;
  const int64_t num_rows = meta_.row_groups[row_group].num_rows;
  if (num_rows == 0) return decode(nullptr, 0, place, 0);
  if (const uint8_t* in_place = source_->View(start, length)) {
    return decode(in_place, length, place, num_rows);
  }
  // Chunks up to kReusedBytes reuse one per-thread buffer: no fresh pages to fault in per chunk.
  constexpr int64_t kReusedBytes = int64_t{64} << 20;
  decode::RawBuffer large;
  decode::RawBuffer& bytes = length <= kReusedBytes ? ChunkScratch() : large;
  bytes.Clear();
  try {
    bytes.Resize(length);
  } catch (const std::bad_alloc& e) {
    return Status::OutOfMemory(place.context + ": cannot allocate " + std::to_string(length) +
                               " bytes: " + OutOfMemoryText(e));
  }
  TANDEM_RETURN_NOT_OK(source_->ReadAt(start, length, bytes.data()));
  return decode(bytes.data(), length, place, num_rows);
}

Result<ColumnPtr> ParquetFileImpl::ReadColumn(int row_group, int column) const {
  return WithChunk<ColumnPtr>(row_group, column,
                              [](const uint8_t* chunk, int64_t size, const ChunkPlace& place,
                                 int64_t num_rows) -> Result<ColumnPtr> {
                                return DecodeColumnChunk(chunk, size, *place.meta, *place.leaf,
                                                         num_rows, place.context);
                              });
}

Result<std::optional<DictionaryCodes>> ParquetFileImpl::ReadColumnCodes(int row_group,
                                                                        int column) const {
  if (row_group < 0 || row_group >= num_row_groups() || column < 0 ||
      column >= schema_.num_fields()) {
    return Status::Invalid("file " + path_ + ": row group " + std::to_string(row_group) +
                           ", column index " + std::to_string(column) + " out of range");
  }
  return WithChunk<std::optional<DictionaryCodes>>(
      row_group, column,
      [](const uint8_t* chunk, int64_t size, const ChunkPlace& place,
         int64_t num_rows) -> Result<std::optional<DictionaryCodes>> {
        return DecodeDictionaryCodes(chunk, size, *place.meta, *place.leaf, num_rows,
                                     place.context);
      });
}

Result<BatchPtr> ParquetFileImpl::ReadRowGroup(int row_group,
                                               const std::vector<int>& columns) const {
  if (row_group < 0 || row_group >= num_row_groups()) {
    return Status::Invalid("file " + path_ + ": row group " + std::to_string(row_group) +
                           " does not exist (the file has " + std::to_string(num_row_groups()) +
                           ")");
  }
  auto batch = std::make_shared<Batch>();
  batch->num_rows = meta_.row_groups[row_group].num_rows;
  for (int c : columns) {
    if (c < 0 || c >= schema_.num_fields()) {
      return Status::Invalid("file " + path_ + ": column index " + std::to_string(c) +
                             " out of range");
    }
    TANDEM_ASSIGN_OR_RAISE(ColumnPtr column, ReadColumn(row_group, c));
    batch->schema.fields.push_back(schema_.fields[c]);
    batch->columns.push_back(std::move(column));
  }
  return batch;
}

Status ParquetFileImpl::ReadRowGroupPieces(int row_group, const std::vector<int>& columns,
                                           int64_t piece_rows,
                                           const std::function<Status(BatchPtr)>& each,
                                           bool hold_pages) const {
  if (row_group < 0 || row_group >= num_row_groups()) {
    return Status::Invalid("file " + path_ + ": row group " + std::to_string(row_group) +
                           " does not exist (the file has " + std::to_string(num_row_groups()) +
                           ")");
  }
  const int64_t num_rows = meta_.row_groups[row_group].num_rows;
  // Pieces of a multiple of 8 rows, so that bitmaps split on byte boundaries.
  piece_rows = std::max<int64_t>(8, (piece_rows + 7) / 8 * 8);
  // Every column's chunk is held (compressed) while its pieces are decoded in turn, by its
  // ColumnChunkPieces, which frees it once its last page is read.
  std::vector<decode::RawBuffer> held(columns.size());
  std::vector<std::unique_ptr<ColumnChunkPieces>> pieces;
  Schema schema;
  for (size_t i = 0; i < columns.size(); ++i) {
    const int c = columns[i];
    if (c < 0 || c >= schema_.num_fields()) {
      return Status::Invalid("file " + path_ + ": column index " + std::to_string(c) +
                             " out of range");
    }
    TANDEM_ASSIGN_OR_RAISE(ChunkPlace place, PlaceChunk(row_group, c));
    const uint8_t* bytes = place.length > 0 ? source_->View(place.start, place.length) : nullptr;
    if (bytes == nullptr && place.length > 0) {
      try {
        held[i].Resize(place.length);
      } catch (const std::bad_alloc& e) {
        return Status::OutOfMemory(place.context + ": cannot allocate " +
                                   std::to_string(place.length) + " bytes: " + OutOfMemoryText(e));
      }
      TANDEM_RETURN_NOT_OK(source_->ReadAt(place.start, place.length, held[i].data()));
      bytes = held[i].data();
    }
    pieces.push_back(std::make_unique<ColumnChunkPieces>(bytes, place.length, *place.meta,
                                                         *place.leaf, num_rows, place.context,
                                                         &held[i], hold_pages));
    schema.fields.push_back(schema_.fields[c]);
  }
  for (int64_t done = 0; done < num_rows;) {
    const int64_t rows = std::min(piece_rows, num_rows - done);
    auto batch = std::make_shared<Batch>();
    batch->schema = schema;
    batch->num_rows = rows;
    for (auto& column : pieces) {
      TANDEM_ASSIGN_OR_RAISE(ColumnPtr piece, column->Next(rows));
      batch->columns.push_back(std::move(piece));
    }
    done += rows;
    TANDEM_RETURN_NOT_OK(each(std::move(batch)));
  }
  return Status::OK();
}

}  // namespace

namespace {

Result<std::unique_ptr<ParquetFile>> OpenSource(std::string name,
                                                std::unique_ptr<ByteSource> source) {
  auto file = std::make_unique<ParquetFileImpl>(std::move(name), std::move(source));
  TANDEM_RETURN_NOT_OK(file->Init());
  return std::unique_ptr<ParquetFile>(std::move(file));
}

}  // namespace

Result<std::unique_ptr<ParquetFile>> ParquetFile::Open(const std::string& path) {
  TANDEM_ASSIGN_OR_RAISE(auto source, OpenFileSource(path));
  return OpenSource(path, std::move(source));
}

Result<std::unique_ptr<ParquetFile>> ParquetFile::OpenBuffer(std::shared_ptr<Buffer> buffer,
                                                             std::string display_name) {
  if (!buffer) return Status::Invalid("file " + display_name + ": no buffer");
  return OpenSource(std::move(display_name), MemorySource(std::move(buffer)));
}

Result<std::unique_ptr<ParquetFile>> ParquetFile::OpenBuffer(const uint8_t* data, int64_t size,
                                                             std::string display_name) {
  if (size < 0 || (data == nullptr && size > 0)) {
    return Status::Invalid("file " + display_name + ": invalid buffer");
  }
  static const uint8_t kEmpty[1] = {0};
  return OpenBuffer(Buffer::Wrap(data ? data : kEmpty, size, nullptr), std::move(display_name));
}

}  // namespace tandem::parquet
