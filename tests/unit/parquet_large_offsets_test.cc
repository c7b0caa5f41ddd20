// String/binary columns switch from int32 to int64 offsets once their bytes pass 2 GiB. With the
// threshold lowered through the test hook, every string encoding path (PLAIN, dictionary,
// DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY PLAIN and BYTE_STREAM_SPLIT)
// must promote mid-chunk and still give exactly the values of the int32 read (which the pyarrow
// oracle tests in tests/python check).
#include <gtest/gtest.h>

#include <string>

#include "tandem/io/parquet/column_chunk_reader.h"
#include "tandem/io/parquet/reader.h"

namespace tandem::parquet {
namespace {

const std::string kData = std::string(TANDEM_TESTDATA_DIR) + "/parquet-testing/data/";

// Restores the default threshold when a test ends, even when it fails.
class ThresholdGuard {
 public:
  explicit ThresholdGuard(int64_t bytes) : previous_(SetLargeOffsetThresholdForTesting(bytes)) {}
  ~ThresholdGuard() { SetLargeOffsetThresholdForTesting(previous_); }

 private:
  int64_t previous_;
};

ColumnPtr ReadColumn(const std::string& file, const std::string& column, int row_group) {
  auto f = ParquetFile::Open(kData + file);
  EXPECT_TRUE(f.ok()) << f.status().ToString();
  if (!f.ok()) return nullptr;
  const int index = (*f)->schema().FieldIndex(column);
  EXPECT_GE(index, 0) << column;
  auto batch = (*f)->ReadRowGroup(row_group, {index});
  EXPECT_TRUE(batch.ok()) << batch.status().ToString();
  if (!batch.ok()) return nullptr;
  EXPECT_TRUE((*batch)->Validate().ok()) << (*batch)->Validate().ToString();
  return (*batch)->column(0);
}

void ExpectSameValues(const Column& narrow, const Column& wide) {
  ASSERT_EQ(narrow.length(), wide.length());
  EXPECT_EQ(narrow.null_count(), wide.null_count());
  for (int64_t i = 0; i < narrow.length(); ++i) {
    ASSERT_EQ(narrow.IsNull(i), wide.IsNull(i)) << "row " << i;
    if (narrow.IsValid(i)) ASSERT_EQ(narrow.GetString(i), wide.GetString(i)) << "row " << i;
  }
}

struct Case {
  const char* file;
  const char* column;
};

// Files whose chunks use each string encoding path; most have several pages per chunk.
const Case kCases[] = {
    {"alltypes_tiny_pages_plain.parquet", "string_col"},          // PLAIN, many pages
    {"lz4_raw_compressed_larger.parquet", "a"},                   // PLAIN, compressed
    {"alltypes_tiny_pages.parquet", "string_col"},                // dictionary, many pages
    {"data_index_bloom_encoding_with_length.parquet", "String"},  // RLE_DICTIONARY
    {"delta_length_byte_array.parquet", "FRUIT"},                 // DELTA_LENGTH_BYTE_ARRAY
    {"delta_byte_array.parquet", "c_customer_id"},                // DELTA_BYTE_ARRAY
    {"delta_encoding_optional_column.parquet", "c_salutation"},   // DELTA_BYTE_ARRAY + nulls
    {"fixed_length_byte_array.parquet", "flba_field"},            // FLBA PLAIN, nulls
    {"byte_stream_split_extended.gzip.parquet", "flba5_byte_stream_split"},  // FLBA BSS
};

TEST(ParquetLargeOffsets, EveryEncodingPromotesMidChunk) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(std::string(c.file) + " " + c.column);
    ColumnPtr narrow = ReadColumn(c.file, c.column, 0);
    ASSERT_TRUE(narrow);
    ASSERT_FALSE(narrow->large_offsets());
    const int64_t bytes = narrow->string_bytes();
    ASSERT_GT(bytes, 16);
    for (int64_t threshold : {int64_t{0}, bytes / 2, bytes - 1}) {
      SCOPED_TRACE("threshold " + std::to_string(threshold));
      ThresholdGuard guard(threshold);
      ColumnPtr wide = ReadColumn(c.file, c.column, 0);
      ASSERT_TRUE(wide);
      EXPECT_TRUE(wide->large_offsets());
      EXPECT_EQ(wide->string_bytes(), bytes);
      ExpectSameValues(*narrow, *wide);
    }
    // At exactly its size the column still fits: no promotion.
    ThresholdGuard guard(bytes + 64);
    ColumnPtr same = ReadColumn(c.file, c.column, 0);
    ASSERT_TRUE(same);
    EXPECT_FALSE(same->large_offsets());
  }
}

TEST(ParquetLargeOffsets, ReadParquetMixesNarrowAndWideBatches) {
  // Each file's chunk decides alone: ReadParquet keeps whatever each chunk chose.
  const std::string path = kData + "alltypes_tiny_pages.parquet";
  Table narrow_table;
  {
    auto t = ReadParquet(path, {{"string_col"}, {}, 1});
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    narrow_table = std::move(t).value();
  }
  ThresholdGuard guard(1000);
  auto wide_table = ReadParquet(path, {{"string_col"}, {}, 2});
  ASSERT_TRUE(wide_table.ok()) << wide_table.status().ToString();
  ASSERT_EQ(narrow_table.batches.size(), wide_table->batches.size());
  for (size_t b = 0; b < narrow_table.batches.size(); ++b) {
    EXPECT_TRUE(wide_table->batches[b]->column(0)->large_offsets());
    ExpectSameValues(*narrow_table.batches[b]->column(0), *wide_table->batches[b]->column(0));
  }
}

}  // namespace
}  // namespace tandem::parquet
