// Decodes one column chunk (all its pages, already read into memory) into a Tandem column:
// dictionary pages, data pages v1 and v2, definition levels -> validity bitmap, every encoding
// of the format, and the physical -> Tandem type conversion of the leaf.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "tandem/column/column.h"
#include "tandem/io/parquet/decode/raw_buffer.h"
#include "tandem/io/parquet/metadata.h"
#include "tandem/io/parquet/type_mapping.h"

namespace tandem::parquet {

// `chunk` holds the chunk's bytes (first page header first); `num_rows` is the row group's row
// count. Errors get `context` ("file f, row group r, column c") plus the page number.
Result<ColumnPtr> DecodeColumnChunk(const uint8_t* chunk, int64_t size, const ColumnMetaData& meta,
                                    const LeafColumn& leaf, int64_t num_rows,
                                    const std::string& context);

// A column chunk whose data pages are all dictionary-encoded, as its dictionary (converted to the
// column's type) and one code per row, without the rows' values: a scan tests a condition on the
// dictionary's values once, keeps rows by their codes, and builds the values of the rows kept
// only.
struct DictionaryCodes {
  ColumnPtr dictionary;              // the dictionary's values (no NULLs)
  std::shared_ptr<Buffer> codes;     // uint32 per row, an index into `dictionary`; 0 if NULL
  std::shared_ptr<Buffer> validity;  // the rows' validity bitmap; null when none is NULL
  int64_t num_rows = 0;
  int64_t null_count = 0;
};

// The chunk as DictionaryCodes; nullopt when it is a BOOLEAN chunk or a data page is not
// dictionary-encoded (the caller decodes it with DecodeColumnChunk).
Result<std::optional<DictionaryCodes>> DecodeDictionaryCodes(const uint8_t* chunk, int64_t size,
                                                             const ColumnMetaData& meta,
                                                             const LeafColumn& leaf,
                                                             int64_t num_rows,
                                                             const std::string& context);

// Decodes one column chunk a piece at a time, for row groups larger than memory allows at once:
// Next(rows) decodes pages until it holds `rows` rows and hands out exactly those (the rows of the
// last page past them wait for the next piece). Pieces of every column of a row group then line
// up, so that each set of pieces forms a batch. The chunk's bytes must outlive the object, or be
// handed to it (`owned`, which then holds them): it frees them once every page has been read.
// `hold_pages`: each compressed data page is decompressed into a buffer of the column's own and
// read there until its last row is handed out, its dictionary indices decoded a piece at a time
// (faster; one page more per column); else a page's PLAIN values are decompressed again for each
// piece and its indices decoded whole.
class ColumnChunkPieces {
 public:
  ColumnChunkPieces(const uint8_t* chunk, int64_t size, const ColumnMetaData& meta,
                    const LeafColumn& leaf, int64_t num_rows, std::string context,
                    decode::RawBuffer* owned = nullptr, bool hold_pages = false);
  ~ColumnChunkPieces();
  ColumnChunkPieces(const ColumnChunkPieces&) = delete;
  ColumnChunkPieces& operator=(const ColumnChunkPieces&) = delete;

  // The next `rows` rows (a multiple of 8, or all that are left); the last piece also checks
  // that the chunk holds exactly the row group's rows.
  Result<ColumnPtr> Next(int64_t rows);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// Test hook: string/binary columns switch from int32 to int64 offsets once their bytes could pass
// `bytes` (default INT32_MAX, the most int32 offsets can address). Returns the previous value.
int64_t SetLargeOffsetThresholdForTesting(int64_t bytes);

}  // namespace tandem::parquet
