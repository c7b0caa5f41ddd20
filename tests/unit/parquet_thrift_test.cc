// Thrift compact protocol decoding: hand-encoded bytes following the Thrift compact protocol
// specification (field header = delta << 4 | type, zigzag varints, list header = size << 4 | type).
#include <gtest/gtest.h>

#include <vector>

#include "tandem/io/parquet/metadata.h"
#include "tandem/io/parquet/thrift_compact_reader.h"

namespace tandem::parquet {
namespace {

TEST(ParquetThrift, VarintsZigZagAndFieldDeltas) {
  // field 1 i32 = -3 (zigzag 5); field 3 (delta 2) i64 = 300 (zigzag 600 = 0xd8 0x04);
  // field 20 (long form: type byte, then zigzag i16 40) binary "ab"; stop.
  const std::vector<uint8_t> bytes = {0x15, 0x05, 0x26, 0xd8, 0x04, 0x08,
                                      0x28, 0x02, 'a',  'b',  0x00};
  ThriftCompactReader r(bytes.data(), bytes.size());
  ASSERT_TRUE(r.BeginStruct().ok());
  int16_t id;
  ThriftType type;
  ASSERT_TRUE(r.ReadFieldHeader(&id, &type).ok());
  EXPECT_EQ(id, 1);
  EXPECT_EQ(type, ThriftType::kI32);
  int32_t i32;
  ASSERT_TRUE(r.ReadI32(&i32).ok());
  EXPECT_EQ(i32, -3);
  ASSERT_TRUE(r.ReadFieldHeader(&id, &type).ok());
  EXPECT_EQ(id, 3);
  int64_t i64;
  ASSERT_TRUE(r.ReadI64(&i64).ok());
  EXPECT_EQ(i64, 300);
  ASSERT_TRUE(r.ReadFieldHeader(&id, &type).ok());
  EXPECT_EQ(id, 20);
  std::string s;
  ASSERT_TRUE(r.ReadBinary(&s).ok());
  EXPECT_EQ(s, "ab");
  ASSERT_TRUE(r.ReadFieldHeader(&id, &type).ok());
  EXPECT_EQ(type, ThriftType::kStop);
  EXPECT_EQ(r.consumed(), static_cast<int64_t>(bytes.size()));
}

TEST(ParquetThrift, SkipsNestedStructsListsAndMaps) {
  // struct { 1: struct { 1: true, 2: list<i32>[1, 2] }, 2: map<i32,binary>{1: "x"}, 3: double }
  // then a trailing i32 field 4 = 7 that must still be found.
  const std::vector<uint8_t> bytes = {0x1c, 0x11, 0x19, 0x25, 0x02, 0x04, 0x00,  // field 1
                                      0x1b, 0x01, 0x58, 0x02, 0x01, 'x',         // field 2 map
                                      0x17, 0,    0,    0,    0,    0,    0,
                                      0xf0, 0x3f,         // field 3 double
                                      0x15, 0x0e, 0x00};  // field 4, stop
  ThriftCompactReader r(bytes.data(), bytes.size());
  ASSERT_TRUE(r.BeginStruct().ok());
  int16_t id;
  ThriftType type;
  for (int expected = 1; expected <= 3; ++expected) {
    ASSERT_TRUE(r.ReadFieldHeader(&id, &type).ok());
    EXPECT_EQ(id, expected);
    ASSERT_TRUE(r.Skip(type).ok()) << expected;
  }
  ASSERT_TRUE(r.ReadFieldHeader(&id, &type).ok());
  EXPECT_EQ(id, 4);
  int32_t v;
  ASSERT_TRUE(r.ReadI32(&v).ok());
  EXPECT_EQ(v, 7);
}

TEST(ParquetThrift, TruncatedAndHostileInputIsAnError) {
  const std::vector<uint8_t> truncated = {0x18, 0x05, 'a', 'b'};  // binary of 5 bytes, 2 present
  ThriftCompactReader r(truncated.data(), truncated.size());
  int16_t id;
  ThriftType type;
  ASSERT_TRUE(r.ReadFieldHeader(&id, &type).ok());
  EXPECT_FALSE(r.Skip(type).ok());

  const std::vector<uint8_t> endless_varint(20, 0xff);
  ThriftCompactReader v(endless_varint.data(), endless_varint.size());
  uint64_t x;
  EXPECT_FALSE(v.ReadVarint(&x).ok());

  // 1000 nested struct field headers: the depth limit stops the recursion.
  std::vector<uint8_t> deep(1000, 0x1c);
  ThriftCompactReader d(deep.data(), deep.size());
  EXPECT_FALSE(d.Skip(ThriftType::kStruct).ok());

  // A list claiming more elements than there are bytes.
  const std::vector<uint8_t> long_list = {0xf5, 0xff, 0xff, 0x03};
  ThriftCompactReader l(long_list.data(), long_list.size());
  ThriftType elem;
  int64_t n;
  EXPECT_FALSE(l.ReadListHeader(&elem, &n).ok());
}

TEST(ParquetThrift, ParsesPageHeaderAndRejectsGarbage) {
  // PageHeader{1: type=DATA_PAGE(0), 2: usize=10, 3: csize=12, 4: crc=-1,
  //            5: DataPageHeader{1: num_values=3, 2: PLAIN, 3: RLE, 4: RLE}}
  const std::vector<uint8_t> bytes = {0x15, 0x00, 0x15, 0x14, 0x15, 0x18, 0x15, 0x01, 0x1c, 0x15,
                                      0x06, 0x15, 0x00, 0x15, 0x06, 0x15, 0x06, 0x00, 0x00};
  int64_t consumed = 0;
  auto h = ParsePageHeader(bytes.data(), bytes.size(), &consumed);
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  EXPECT_EQ(consumed, static_cast<int64_t>(bytes.size()));
  EXPECT_EQ(h->type, PageType::DATA_PAGE);
  EXPECT_EQ(h->uncompressed_page_size, 10);
  EXPECT_EQ(h->compressed_page_size, 12);
  ASSERT_TRUE(h->crc.has_value());
  EXPECT_EQ(*h->crc, -1);
  ASSERT_TRUE(h->data_page_header.has_value());
  EXPECT_EQ(h->data_page_header->num_values, 3);
  EXPECT_EQ(h->data_page_header->definition_level_encoding, Encoding::RLE);
  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    EXPECT_FALSE(ParsePageHeader(bytes.data(), cut, nullptr).ok()) << cut;
  }
  const std::vector<uint8_t> garbage = {0xff, 0xee, 0xdd};
  EXPECT_FALSE(ParseFileMetaData(garbage.data(), garbage.size()).ok());
}

}  // namespace
}  // namespace tandem::parquet
