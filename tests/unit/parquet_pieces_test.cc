// ParquetFile::ReadRowGroupPieces against the whole read: every file of the parquet-testing
// corpus the reader can read whole (writers of every kind: parquet-mr, Arrow, Impala, ...; data
// pages v1 and v2; PLAIN, dictionary, DELTA and BYTE_STREAM_SPLIT pages; nulls) gives the same
// values in pieces smaller and larger than its pages, read from the file (chunks copied in) and
// from a buffer (chunks decoded in place), with compressed pages decompressed for each piece or
// held across the pieces they serve.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "tandem/io/parquet/reader.h"
#include "tandem/memory/buffer.h"

namespace tandem::parquet {
namespace {

const std::string kData = std::string(TANDEM_TESTDATA_DIR) + "/parquet-testing/data/";

// "" when row `i` of a equals row `j` of b, else what differs.
std::string Differs(const Column& a, int64_t i, const Column& b, int64_t j) {
  if (a.IsNull(i) != b.IsNull(j)) return "null flag";
  if (a.IsNull(i)) return "";
  if (a.type().is_string_like()) return a.GetString(i) == b.GetString(j) ? "" : "bytes";
  if (a.type().id == TypeId::kBool) return a.GetBool(i) == b.GetBool(j) ? "" : "bool";
  const int w = a.type().byte_width();
  return std::memcmp(a.values()->data() + i * w, b.values()->data() + j * w, w) == 0 ? "" : "value";
}

// Whether every row group of `file` reads in pieces of `piece_rows` as it reads whole; false
// (nothing compared) when the file does not read whole.
bool ExpectPiecesMatch(const ParquetFile& file, int64_t piece_rows, bool hold_pages,
                       const std::string& what) {
  std::vector<int> all;
  for (int c = 0; c < file.schema().num_fields(); ++c) all.push_back(c);
  for (int g = 0; g < file.num_row_groups(); ++g) {
    auto whole = file.ReadRowGroup(g, all);
    if (!whole.ok()) return false;
    int64_t at = 0;
    const Status st = file.ReadRowGroupPieces(
        g, all, piece_rows,
        [&](BatchPtr piece) {
          for (int c = 0; c < piece->num_columns(); ++c) {
            const Column& got = *piece->column(c);
            if (got.length() != piece->num_rows) return Status::Invalid("piece column length");
            for (int64_t r = 0; r < piece->num_rows; ++r) {
              const std::string d = Differs(*(*whole)->column(c), at + r, got, r);
              if (!d.empty()) {
                return Status::Invalid(d + " differs: column " + file.schema().field(c).name +
                                       ", row " + std::to_string(at + r));
              }
            }
          }
          at += piece->num_rows;
          return Status::OK();
        },
        hold_pages);
    EXPECT_TRUE(st.ok()) << what << ", row group " << g << ", pieces of " << piece_rows
                         << (hold_pages ? ", pages held" : "") << ": " << st.ToString();
    EXPECT_EQ(at, (*whole)->num_rows) << what << ", row group " << g;
  }
  return true;
}

TEST(ParquetPieces, CorpusFilesReadInPiecesAsWhole) {
  int compared = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kData)) {
    const std::string path = entry.path().string();
    if (entry.path().extension() != ".parquet") continue;
    auto file = ParquetFile::Open(path);
    if (!file.ok()) continue;
    std::ifstream in(path, std::ios::binary);
    const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), {});
    auto buffer = ParquetFile::OpenBuffer(Buffer::CopyOf(bytes.data(), bytes.size()), path);
    ASSERT_TRUE(buffer.ok()) << path;
    bool read = false;
    for (int64_t piece_rows : {8, 1000}) {
      for (bool hold : {false, true}) {
        read |= ExpectPiecesMatch(**file, piece_rows, hold, path);
        ExpectPiecesMatch(**buffer, piece_rows, hold, path + " (buffer)");
      }
    }
    compared += read;
  }
  // The corpus has dozens of files the reader reads: a test that compared none would pass.
  EXPECT_GE(compared, 20);
}

}  // namespace
}  // namespace tandem::parquet
