// Encodes one column chunk (a column's rows in one row group) into Parquet pages: an optional
// dictionary page, then data pages (v1) of about WriteOptions::data_page_bytes each, holding RLE
// definition levels for nullable columns and RLE_DICTIONARY indexes or PLAIN values; every page
// compressed with the chosen codec. Dictionary encoding stops, and the rest of the chunk is
// written PLAIN, once the dictionary passes kDictionaryPageLimit bytes (as parquet-mr and Arrow).
#pragma once

#include <string>
#include <vector>

#include "tandem/io/parquet/encode/chunk_data.h"
#include "tandem/io/parquet/writer.h"

namespace tandem::parquet {

constexpr int64_t kDictionaryPageLimit = 1 << 20;
constexpr int64_t kMaxRowsPerPage = 1 << 20;

// The chunk's bytes are kept as pieces (each page header, each page body) written in order,
// so page bodies are never copied once encoded and compressed.
struct EncodedChunk {
  std::vector<std::string> pieces;
  int64_t size = 0;     // total bytes of the pieces
  ColumnMetaData meta;  // offsets relative to the start of the chunk
};

// Errors name the column.
Status EncodeColumnChunk(const ChunkData& data, const ColumnWriteSpec& spec,
                         const WriteOptions& options, EncodedChunk* out);

}  // namespace tandem::parquet
