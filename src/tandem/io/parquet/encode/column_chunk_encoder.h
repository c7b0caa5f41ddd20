// Encodes one column chunk (a column's rows in one row group) into Parquet pages: an optional
// dictionary page, then data pages (v1) of about WriteOptions::data_page_bytes each, holding RLE
// definition levels for nullable columns and RLE_DICTIONARY indexes or PLAIN values; every page
// compressed with the chosen codec. Dictionary encoding stops, and the rest of the chunk is
// written PLAIN, once the dictionary passes kDictionaryPageLimit bytes (as parquet-mr and Arrow).
#pragma once

#include <string>

#include "tandem/io/parquet/encode/chunk_data.h"
#include "tandem/io/parquet/writer.h"

namespace tandem::parquet {

constexpr int64_t kDictionaryPageLimit = 1 << 20;
constexpr int64_t kMaxRowsPerPage = 1 << 20;

struct EncodedChunk {
  std::string bytes;    // page headers and page bodies
  ColumnMetaData meta;  // offsets relative to the start of `bytes`
};

// Errors name the column.
Status EncodeColumnChunk(const ChunkData& data, const ColumnWriteSpec& spec,
                         const WriteOptions& options, EncodedChunk* out);

}  // namespace tandem::parquet
