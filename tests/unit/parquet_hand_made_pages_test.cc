// Column chunks built by hand, byte by byte, for cases no common writer produces: definition
// levels in the deprecated BIT_PACKED encoding (expected values from the format spec's MSB-first
// packing rule), and damaged footers whose row counts no chunk could hold (fuzzing regressions:
// they must fail with a clear Invalid status, without sizing an allocation by the claim).
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "tandem/io/parquet/column_chunk_reader.h"
#include "tandem/io/parquet/decode/msb_bit_unpack.h"

namespace tandem::parquet {
namespace {

// One uncompressed data page v1 with `levels` (already encoded, as stored) and PLAIN int32s.
std::string DataPageV1(int32_t num_values, Encoding level_encoding, const std::string& levels,
                       const std::vector<int32_t>& values) {
  std::string body = levels;
  body.append(reinterpret_cast<const char*>(values.data()), values.size() * 4);
  PageHeader h;
  h.type = PageType::DATA_PAGE;
  h.uncompressed_page_size = h.compressed_page_size = static_cast<int32_t>(body.size());
  DataPageHeader d;
  d.num_values = num_values;
  d.encoding = Encoding::PLAIN;
  d.definition_level_encoding = level_encoding;
  h.data_page_header = d;
  std::string page;
  SerializePageHeader(h, &page);
  return page + body;
}

LeafColumn OptionalInt32(int16_t max_definition_level) {
  LeafColumn leaf;
  leaf.name = "x";
  leaf.physical = PhysicalType::INT32;
  leaf.type = DataType::Int32();
  leaf.max_definition_level = max_definition_level;
  return leaf;
}

Result<ColumnPtr> Decode(const std::string& chunk, const LeafColumn& leaf, int64_t num_rows) {
  ColumnMetaData meta;
  meta.type = PhysicalType::INT32;
  meta.codec = CompressionCodec::UNCOMPRESSED;
  meta.num_values = num_rows;
  meta.total_uncompressed_size = meta.total_compressed_size = static_cast<int64_t>(chunk.size());
  return DecodeColumnChunk(reinterpret_cast<const uint8_t*>(chunk.data()),
                           static_cast<int64_t>(chunk.size()), meta, leaf, num_rows, "test chunk");
}

TEST(ParquetHandMadePages, MsbFirstUnpackMatchesTheSpecExample) {
  // parquet-format Encodings.md, BIT_PACKED: 0..7 with bit width 3 is 00000101 00111001 01110111.
  const uint8_t packed[] = {0x05, 0x39, 0x77};
  uint8_t out[8];
  ASSERT_TRUE(decode::UnpackMsbFirst(packed, 3, 3, 8, out).ok());
  for (int i = 0; i < 8; ++i) EXPECT_EQ(out[i], i);
  EXPECT_FALSE(decode::UnpackMsbFirst(packed, 3, 3, 9, out).ok());  // 27 bits > 24
}

TEST(ParquetHandMadePages, BitPackedDefinitionLevelsWidth1) {
  // Levels 1 0 1 1 0 0 1 1 | 1 0, MSB first: 10110011 10000000.
  const std::string levels = {static_cast<char>(0xB3), static_cast<char>(0x80)};
  const std::string chunk = DataPageV1(10, Encoding::BIT_PACKED, levels, {7, 8, 9, 10, 11, 12});
  auto column = Decode(chunk, OptionalInt32(1), 10);
  ASSERT_TRUE(column.ok()) << column.status().ToString();
  const Column& c = **column;
  ASSERT_TRUE(c.Validate().ok());
  const int expected_valid[] = {1, 0, 1, 1, 0, 0, 1, 1, 1, 0};
  const int32_t expected_values[] = {7, 0, 8, 9, 0, 0, 10, 11, 12, 0};
  EXPECT_EQ(c.null_count(), 4);
  for (int i = 0; i < 10; ++i) {
    ASSERT_EQ(c.IsValid(i), expected_valid[i] == 1) << i;
    if (c.IsValid(i)) EXPECT_EQ(c.Value<int32_t>(i), expected_values[i]) << i;
  }
}

TEST(ParquetHandMadePages, BitPackedDefinitionLevelsWidth2TwoPages) {
  // Max level 2 (an optional leaf inside an optional group): only level 2 is a value.
  // Page 1, levels 2 1 0 2 2 as 2-bit MSB-first fields: 10 01 00 10 | 10 000000.
  // Page 2, levels 0 2: 00 10 0000.
  const std::string page1 = DataPageV1(
      5, Encoding::BIT_PACKED, {static_cast<char>(0x92), static_cast<char>(0x80)}, {1, 2, 3});
  const std::string page2 = DataPageV1(2, Encoding::BIT_PACKED, {static_cast<char>(0x20)}, {4});
  auto column = Decode(page1 + page2, OptionalInt32(2), 7);
  ASSERT_TRUE(column.ok()) << column.status().ToString();
  const Column& c = **column;
  const int expected_valid[] = {1, 0, 0, 1, 1, 0, 1};
  const int32_t expected_values[] = {1, 0, 0, 2, 3, 0, 4};
  for (int i = 0; i < 7; ++i) {
    ASSERT_EQ(c.IsValid(i), expected_valid[i] == 1) << i;
    if (c.IsValid(i)) EXPECT_EQ(c.Value<int32_t>(i), expected_values[i]) << i;
  }
}

TEST(ParquetHandMadePages, BitPackedLevelsDamaged) {
  // Level 3 above the maximum 2: 11 000000.
  auto too_big = Decode(DataPageV1(1, Encoding::BIT_PACKED, {static_cast<char>(0xC0)}, {}),
                        OptionalInt32(2), 1);
  ASSERT_FALSE(too_big.ok());
  EXPECT_NE(too_big.status().message().find("definition level"), std::string::npos);
  // 20 one-bit levels need 3 bytes; the page has 2.
  auto short_page =
      Decode(DataPageV1(20, Encoding::BIT_PACKED, {'\xff', '\xff'}, {}), OptionalInt32(1), 20);
  ASSERT_FALSE(short_page.ok());
  EXPECT_NE(short_page.status().message().find("BIT_PACKED"), std::string::npos)
      << short_page.status().ToString();
  EXPECT_NE(short_page.status().message().find("test chunk, page 0"), std::string::npos);
}

TEST(ParquetHandMadePages, RowCountNoChunkCouldHoldFailsWithoutAllocatingIt) {
  // Footer claims 2^40 rows for a chunk of one 3-value page: the column must not be sized by the
  // claim (8 TiB of int32s + a 128 GiB validity bitmap) but fail as Invalid once pages run out.
  const std::string chunk =
      DataPageV1(3, Encoding::RLE, std::string("\x02\x00\x00\x00\x06\x01", 6), {1, 2, 3});
  auto ok = Decode(chunk, OptionalInt32(1), 3);
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  auto lie = Decode(chunk, OptionalInt32(1), int64_t{1} << 40);
  ASSERT_FALSE(lie.ok());
  EXPECT_EQ(lie.status().code(), StatusCode::kInvalid) << lie.status().ToString();
  EXPECT_NE(lie.status().message().find("holds 3 values"), std::string::npos)
      << lie.status().ToString();
}

}  // namespace
}  // namespace tandem::parquet
