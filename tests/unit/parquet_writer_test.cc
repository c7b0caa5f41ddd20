// Parquet writer: Thrift compact encoding and RLE/bit-packed encoding checked against the format
// specifications (worked examples and a spec-following reference decoder), file structure checked
// by parsing the footer, round trips through ParquetFile, atomic replacement of the target file.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "tandem/column/column_builder.h"
#include "tandem/io/parquet/encode/rle_encoder.h"
#include "tandem/io/parquet/encode/writer_schema.h"
#include "tandem/io/parquet/metadata.h"
#include "tandem/io/parquet/thrift_compact_writer.h"
#include "tandem/io/parquet/writer.h"

namespace tandem::parquet {
namespace {

namespace fs = std::filesystem;

std::vector<uint8_t> Bytes(const std::string& s) {
  return std::vector<uint8_t>(s.begin(), s.end());
}

// --- Reference RLE/bit-packed hybrid decoder, written from the Parquet encodings spec. -------
uint64_t ReadVarint(const std::string& s, size_t* pos) {
  uint64_t v = 0;
  int shift = 0;
  while (true) {
    const uint8_t b = static_cast<uint8_t>(s.at((*pos)++));
    v |= static_cast<uint64_t>(b & 0x7F) << shift;
    if ((b & 0x80) == 0) return v;
    shift += 7;
  }
}

std::vector<uint32_t> ReferenceDecode(const std::string& s, int bit_width, size_t count) {
  std::vector<uint32_t> out;
  size_t pos = 0;
  while (out.size() < count) {
    const uint64_t header = ReadVarint(s, &pos);
    if (header & 1) {
      const size_t values = (header >> 1) * 8;
      for (size_t i = 0; i < values; ++i) {
        uint32_t v = 0;
        for (int b = 0; b < bit_width; ++b) {
          const size_t bit = i * bit_width + b;
          const uint8_t byte = static_cast<uint8_t>(s.at(pos + bit / 8));
          v |= static_cast<uint32_t>((byte >> (bit % 8)) & 1) << b;
        }
        if (out.size() < count) out.push_back(v);
      }
      pos += (header >> 1) * bit_width;
    } else {
      uint32_t v = 0;
      for (int b = 0; b < (bit_width + 7) / 8; ++b) {
        v |= static_cast<uint32_t>(static_cast<uint8_t>(s.at(pos++))) << (8 * b);
      }
      for (uint64_t i = 0; i < (header >> 1); ++i) out.push_back(v);
    }
  }
  EXPECT_EQ(pos, s.size()) << "trailing bytes after the encoded values";
  return out;
}

TEST(ParquetWriterThrift, CompactProtocolBytes) {
  std::string out;
  ThriftCompactWriter w(&out);
  w.BeginStruct();
  w.FieldI32(1, 1);         // short header: delta 1, type 5; zigzag(1) = 2
  w.FieldI64(3, -1);        // delta 2, type 6; zigzag(-1) = 1
  w.FieldBinary(20, "ab");  // delta 17: long form: type 8, zigzag(20) = 40
  w.FieldBool(21, true);    // delta 1, type 1 (true)
  w.FieldListBegin(22, ThriftType::kI32, 2);
  w.ElementI32(-2);
  w.ElementI32(300);  // zigzag 600 = varint 0xD8 0x04
  w.EndStruct();
  EXPECT_EQ(Bytes(out), (std::vector<uint8_t>{0x15, 0x02, 0x26, 0x01, 0x08, 0x28, 0x02, 'a', 'b',
                                              0x11, 0x19, 0x25, 0x03, 0xD8, 0x04, 0x00}));
}

TEST(ParquetWriterRle, SpecBitPackingExample) {
  // Spec example: values 0..7 with bit width 3 pack to 10001000 11000110 11111010.
  const std::vector<uint32_t> v = {0, 1, 2, 3, 4, 5, 6, 7};
  std::string out;
  EncodeRleBitPacked(v.data(), 8, 3, &out);
  EXPECT_EQ(Bytes(out), (std::vector<uint8_t>{0x03, 0x88, 0xC6, 0xFA}));
}

TEST(ParquetWriterRle, LongRunIsRleRun) {
  const std::vector<uint32_t> v(100, 5);
  std::string out;
  EncodeRleBitPacked(v.data(), 100, 3, &out);
  EXPECT_EQ(Bytes(out), (std::vector<uint8_t>{0xC8, 0x01, 0x05}));  // varint(100 << 1), value
}

TEST(ParquetWriterRle, RandomRoundTripsThroughReferenceDecoder) {
  std::mt19937_64 rng(42);
  for (int trial = 0; trial < 300; ++trial) {
    const int bit_width = 1 + static_cast<int>(rng() % 32);
    const size_t n = rng() % 3000;
    const uint64_t limit = bit_width == 32 ? 0xFFFFFFFFull : ((1ull << bit_width) - 1);
    std::vector<uint32_t> v(n);
    for (size_t i = 0; i < n; ++i) {
      // Mix of runs and noise.
      if (i > 0 && rng() % 4 != 0) {
        v[i] = v[i - 1];
      } else {
        v[i] = static_cast<uint32_t>(rng() % (limit + 1));
      }
    }
    std::string out;
    EncodeRleBitPacked(v.data(), static_cast<int64_t>(n), bit_width, &out);
    ASSERT_EQ(ReferenceDecode(out, bit_width, n), v) << "trial " << trial;
  }
}

TEST(ParquetWriterRle, DefinitionLevelsFromBitmapAtAnyOffset) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 300; ++trial) {
    const int64_t bits = 1 + static_cast<int64_t>(rng() % 2000);
    std::vector<uint8_t> bitmap(static_cast<size_t>((bits + 7) / 8));
    const int mode = trial % 3;  // 0: random, 1: mostly present, 2: long runs
    bool run_value = true;
    for (int64_t i = 0; i < bits; ++i) {
      bool v = false;
      if (mode == 0) v = rng() % 2;
      if (mode == 1) v = rng() % 50 != 0;
      if (mode == 2) {
        if (rng() % 40 == 0) run_value = !run_value;
        v = run_value;
      }
      if (v) bitmap[i / 8] |= static_cast<uint8_t>(1u << (i % 8));
    }
    const int64_t offset = static_cast<int64_t>(rng() % static_cast<uint64_t>(bits));
    const int64_t n = bits - offset;
    std::string out;
    EncodeDefinitionLevels(bitmap.data(), offset, n, &out);
    std::vector<uint32_t> expected(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i)
      expected[i] = (bitmap[(offset + i) / 8] >> ((offset + i) % 8)) & 1;
    ASSERT_EQ(ReferenceDecode(out, 1, static_cast<size_t>(n)), expected) << "trial " << trial;
  }
  std::string all_present;
  EncodeDefinitionLevels(nullptr, 0, 10, &all_present);
  EXPECT_EQ(Bytes(all_present), (std::vector<uint8_t>{20, 1}));
}

TEST(ParquetWriterSchema, DecimalByteWidths) {
  // Fewest bytes holding 10^p - 1 in two's complement (as the Parquet spec tabulates).
  EXPECT_EQ(DecimalByteWidth(1), 1);
  EXPECT_EQ(DecimalByteWidth(2), 1);
  EXPECT_EQ(DecimalByteWidth(3), 2);
  EXPECT_EQ(DecimalByteWidth(18), 8);
  EXPECT_EQ(DecimalByteWidth(19), 9);
  EXPECT_EQ(DecimalByteWidth(38), 16);
}

// --- Files -----------------------------------------------------------------------------------

std::string TempDir() {
  const fs::path dir =
      fs::temp_directory_path() / ("tandem_writer_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir.string();
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

Result<FileMetaData> ReadFooter(const std::string& path) {
  const std::string bytes = ReadAll(path);
  if (bytes.size() < 12 || bytes.compare(0, 4, "PAR1") != 0 ||
      bytes.compare(bytes.size() - 4, 4, "PAR1") != 0) {
    return Status::Invalid("no PAR1 magic in " + path);
  }
  uint32_t len = 0;
  std::memcpy(&len, bytes.data() + bytes.size() - 8, 4);
  if (len + 12 > bytes.size()) return Status::Invalid("footer length too large");
  return ParseFileMetaData(reinterpret_cast<const uint8_t*>(bytes.data()) + bytes.size() - 8 - len,
                           len);
}

Table SmallTable() {
  Table t;
  t.schema.fields = {{"id", DataType::Int64(), false},
                     {"name", DataType::String(), true},
                     {"price", DataType::Decimal(38, 2), true}};
  auto batch = std::make_shared<Batch>();
  batch->schema = t.schema;
  ColumnBuilder id(DataType::Int64()), name(DataType::String()), price(DataType::Decimal(38, 2));
  for (int i = 0; i < 1000; ++i) {
    id.Append<int64_t>(i - 500);
    if (i % 10 == 3) {
      name.AppendNull();
      price.AppendNull();
    } else {
      name.AppendString("n" + std::to_string(i % 37));
      price.Append<int128_t>(static_cast<int128_t>(i) * 1000000007 - 12345);
    }
  }
  batch->columns = {id.Finish(), name.Finish(), price.Finish()};
  batch->num_rows = 1000;
  t.batches = {batch};
  return t;
}

TEST(ParquetWriterFile, FooterDescribesSchemaRowGroupsAndStatistics) {
  const std::string path = TempDir() + "/small.parquet";
  WriteOptions options;
  options.row_group_rows = 300;
  ASSERT_TRUE(WriteParquet(path, SmallTable(), options).ok());
  auto meta = ReadFooter(path);
  ASSERT_TRUE(meta.ok()) << meta.status().ToString();
  EXPECT_EQ(meta->num_rows, 1000);
  ASSERT_EQ(meta->row_groups.size(), 4u);
  EXPECT_EQ(meta->row_groups[3].num_rows, 100);
  ASSERT_EQ(meta->schema.size(), 4u);
  EXPECT_EQ(meta->schema[1].repetition, Repetition::REQUIRED);
  EXPECT_EQ(meta->schema[3].type, PhysicalType::FIXED_LEN_BYTE_ARRAY);
  EXPECT_EQ(meta->schema[3].type_length, 16);
  EXPECT_EQ(meta->created_by, "tandem 0.1.0");
  const ColumnMetaData& id = *meta->row_groups[0].columns[0].meta_data;
  ASSERT_TRUE(id.statistics && id.statistics->min_value && id.statistics->max_value);
  int64_t min = 0, max = 0;
  std::memcpy(&min, id.statistics->min_value->data(), 8);
  std::memcpy(&max, id.statistics->max_value->data(), 8);
  EXPECT_EQ(min, -500);
  EXPECT_EQ(max, -201);
  const ColumnMetaData& name = *meta->row_groups[0].columns[1].meta_data;
  EXPECT_EQ(name.statistics->null_count, 30);
  ASSERT_TRUE(name.dictionary_page_offset.has_value());
  EXPECT_LT(*name.dictionary_page_offset, name.data_page_offset);
  EXPECT_EQ(name.statistics->min_value, "n0");
  EXPECT_EQ(name.statistics->max_value, "n9");
}

TEST(ParquetWriterFile, NoFileAndNoTempFileWithoutClose) {
  const std::string dir = TempDir() + "/unclosed";
  fs::create_directories(dir);
  const Table t = SmallTable();
  {
    auto writer = ParquetFileWriter::Open(dir + "/x.parquet", t.schema);
    ASSERT_TRUE(writer.ok());
    ASSERT_TRUE((*writer)->WriteBatch(*t.batches[0]).ok());
    EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
  }
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 0);
}

TEST(ParquetWriterFile, MissingDirectoryIsAClearError) {
  const std::string path = TempDir() + "/no/such/dir/x.parquet";
  const Status st = WriteParquet(path, SmallTable());
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), StatusCode::kIOError);
  EXPECT_NE(st.message().find(path), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("does not exist"), std::string::npos) << st.message();
}

TEST(ParquetWriterFile, NullsInNotNullColumnAreRejected) {
  Table t = SmallTable();
  t.schema.fields[1].nullable = false;
  const Status st = WriteParquet(TempDir() + "/bad.parquet", t);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("name"), std::string::npos) << st.message();
}

}  // namespace
}  // namespace tandem::parquet
