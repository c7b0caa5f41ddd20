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
#include "tandem/io/parquet/reader.h"
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

fs::path TestDirectory() {
  return fs::temp_directory_path() / ("tandem_writer_test_" + std::to_string(::getpid()));
}

// Removes the test directory when the test program ends.
class TempDirCleanup : public ::testing::Environment {
 public:
  void TearDown() override { fs::remove_all(TestDirectory()); }
};
[[maybe_unused]] ::testing::Environment* const kCleanup =
    ::testing::AddGlobalTestEnvironment(new TempDirCleanup);

std::string TempDir() {
  fs::create_directories(TestDirectory());
  return TestDirectory().string();
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

// --- Round trips through ParquetFile ---------------------------------------------------------

// A column of `type` with random values (extremes included), some nulls when nullable, drawn
// from a pool of `cardinality` values when cardinality > 0.
ColumnPtr RandomColumn(const DataType& type, int64_t rows, double null_fraction, int cardinality,
                       std::mt19937_64& rng) {
  ColumnBuilder b(type);
  std::vector<uint64_t> pool;
  for (int i = 0; i < cardinality; ++i) pool.push_back(rng());
  auto bits = [&]() -> uint64_t { return pool.empty() ? rng() : pool[rng() % pool.size()]; };
  std::uniform_real_distribution<double> unit(0, 1);
  for (int64_t r = 0; r < rows; ++r) {
    if (unit(rng) < null_fraction) {
      b.AppendNull();
      continue;
    }
    const uint64_t x = bits();
    switch (type.id) {
      case TypeId::kBool:
        b.AppendBool(x & 1);
        break;
      case TypeId::kInt8:
        b.Append<int8_t>(static_cast<int8_t>(x));
        break;
      case TypeId::kInt16:
        b.Append<int16_t>(static_cast<int16_t>(x));
        break;
      case TypeId::kInt32:
      case TypeId::kDate32:
        b.Append<int32_t>(static_cast<int32_t>(x % 5000000) - 2500000);
        break;
      case TypeId::kUInt8:
        b.Append<uint8_t>(static_cast<uint8_t>(x));
        break;
      case TypeId::kUInt16:
        b.Append<uint16_t>(static_cast<uint16_t>(x));
        break;
      case TypeId::kUInt32:
        b.Append<uint32_t>(static_cast<uint32_t>(x));
        break;
      case TypeId::kInt64:
      case TypeId::kTimestamp:
        b.Append<int64_t>(static_cast<int64_t>(x) >> (x % 7 == 0 ? 0 : 8));
        break;
      case TypeId::kUInt64:
        b.Append<uint64_t>(x);
        break;
      case TypeId::kFloat32: {
        const float specials[] = {NAN, INFINITY, -INFINITY, -0.0f, 0.0f};
        b.Append<float>(x % 9 < 5 ? specials[x % 9]
                                  : static_cast<float>(static_cast<int64_t>(x)) / 1e9f);
        break;
      }
      case TypeId::kFloat64: {
        const double specials[] = {NAN, INFINITY, -INFINITY, -0.0, 0.0};
        b.Append<double>(x % 9 < 5 ? specials[x % 9]
                                   : static_cast<double>(static_cast<int64_t>(x)) / 1e9);
        break;
      }
      case TypeId::kDecimal: {
        int128_t max = 1;
        for (int i = 0; i < type.precision; ++i) max *= 10;
        max -= 1;
        const int128_t wide = (static_cast<int128_t>(x) << 64) | rng();
        int128_t v = wide % (max + 1);
        if (x % 11 == 0) v = (x & 1) ? max : -max;
        if (type.precision <= kMaxDecimal64Precision) {
          b.Append<int64_t>(static_cast<int64_t>(v));
        } else {
          b.Append<int128_t>(v);
        }
        break;
      }
      case TypeId::kString:
      case TypeId::kBinary: {
        std::string s(x % 13 == 0 ? 3000 : x % 17, static_cast<char>('a' + x % 26));
        if (!s.empty()) s[0] = static_cast<char>(x >> 56);  // bytes >= 0x80 too
        b.AppendString(s);
        break;
      }
    }
  }
  return b.Finish();
}

bool SameValue(const Column& a, int64_t i, const Column& b, int64_t j) {
  if (a.IsNull(i) || b.IsNull(j)) return a.IsNull(i) && b.IsNull(j);
  if (a.type().id == TypeId::kBool) return a.GetBool(i) == b.GetBool(j);
  if (a.type().is_string_like()) return a.GetString(i) == b.GetString(j);
  const int w = a.type().byte_width();
  return std::memcmp(a.values()->data() + i * w, b.values()->data() + j * w, w) == 0;
}

std::vector<Field> AllTypes() {
  return {{"b", DataType::Bool()},
          {"i8", DataType::Int8()},
          {"i16", DataType::Int16()},
          {"i32", DataType::Int32(), false},
          {"i64", DataType::Int64()},
          {"u8", DataType::UInt8()},
          {"u16", DataType::UInt16()},
          {"u32", DataType::UInt32()},
          {"u64", DataType::UInt64()},
          {"f32", DataType::Float32()},
          {"f64", DataType::Float64()},
          {"d9", DataType::Decimal(9, 2)},
          {"d18", DataType::Decimal(18, 18)},
          {"d19", DataType::Decimal(19, 0)},
          {"d38", DataType::Decimal(38, 5)},
          {"date", DataType::Date32()},
          {"ts", DataType::Timestamp(false)},
          {"tsz", DataType::Timestamp(true)},
          {"s", DataType::String()},
          {"bin", DataType::Binary(), false}};
}

void ExpectRoundTrip(const Table& table, const WriteOptions& options, const std::string& what) {
  const std::string path = TempDir() + "/roundtrip.parquet";
  const Status written = WriteParquet(path, table, options);
  ASSERT_TRUE(written.ok()) << what << ": " << written.ToString();
  auto file = ParquetFile::Open(path);
  ASSERT_TRUE(file.ok()) << what << ": " << file.status().ToString();
  const Schema& schema = (*file)->schema();
  ASSERT_EQ(schema.num_fields(), table.schema.num_fields()) << what;
  for (int c = 0; c < schema.num_fields(); ++c) {
    EXPECT_EQ(schema.field(c).type, table.schema.field(c).type) << what << " column " << c;
    EXPECT_EQ(schema.field(c).nullable, table.schema.field(c).nullable) << what << " column " << c;
  }
  const int64_t expected_groups =
      (table.num_rows() + options.row_group_rows - 1) / options.row_group_rows;
  ASSERT_EQ((*file)->num_row_groups(), expected_groups) << what;
  std::vector<int> all(static_cast<size_t>(schema.num_fields()));
  for (int c = 0; c < schema.num_fields(); ++c) all[c] = c;
  // Walk the written batches and the read row groups side by side.
  size_t batch = 0;
  int64_t row_in_batch = 0;
  for (int g = 0; g < (*file)->num_row_groups(); ++g) {
    auto read = (*file)->ReadRowGroup(g, all);
    ASSERT_TRUE(read.ok()) << what << ": " << read.status().ToString();
    const Batch& got = **read;
    // Read in pieces (smaller and larger than the pages), with compressed pages decompressed
    // again for each piece or held in the column's own buffer, the row group is the same rows.
    for (const bool hold_pages : {false, true}) {
      for (int64_t piece_rows : {8, 24, 1000}) {
        int64_t at = 0;
        const Status pieces = (*file)->ReadRowGroupPieces(
            g, all, piece_rows,
            [&](BatchPtr piece) {
              EXPECT_TRUE(piece->num_rows == piece_rows || at + piece->num_rows == got.num_rows)
                  << what << ": piece of " << piece->num_rows << " rows at " << at;
              for (int c = 0; c < schema.num_fields(); ++c) {
                EXPECT_EQ(piece->column(c)->length(), piece->num_rows);
                for (int64_t r = 0; r < piece->num_rows; ++r) {
                  if (!SameValue(*got.column(c), at + r, *piece->column(c), r)) {
                    return Status::Invalid("column " + table.schema.field(c).name + ", row " +
                                           std::to_string(at + r) + " differs in pieces of " +
                                           std::to_string(piece_rows) +
                                           (hold_pages ? ", pages held" : ""));
                  }
                }
              }
              at += piece->num_rows;
              return Status::OK();
            },
            hold_pages);
        ASSERT_TRUE(pieces.ok()) << what << ", row group " << g << ": " << pieces.ToString();
        ASSERT_EQ(at, got.num_rows) << what << ", pieces of " << piece_rows;
      }
    }
    for (int64_t r = 0; r < got.num_rows; ++r) {
      while (row_in_batch == table.batches[batch]->num_rows) {
        ++batch;
        row_in_batch = 0;
      }
      const Batch& want = *table.batches[batch];
      for (int c = 0; c < schema.num_fields(); ++c) {
        ASSERT_TRUE(SameValue(*want.column(c), row_in_batch, *got.column(c), r))
            << what << ": column " << table.schema.field(c).name << ", row group " << g << ", row "
            << r;
      }
      ++row_in_batch;
    }
  }
}

TEST(ParquetWriterRoundTrip, EveryTypeCodecAndEncoding) {
  std::mt19937_64 rng(2024);
  const CompressionCodec codecs[] = {CompressionCodec::UNCOMPRESSED, CompressionCodec::SNAPPY,
                                     CompressionCodec::ZSTD,         CompressionCodec::GZIP,
                                     CompressionCodec::LZ4_RAW,      CompressionCodec::BROTLI};
  for (int trial = 0; trial < 12; ++trial) {
    Table table;
    table.schema.fields = AllTypes();
    // Several batches of uneven sizes, so row groups span batches.
    for (int64_t rows : {700, 1, 0, 1299}) {
      auto b = std::make_shared<Batch>();
      b->schema = table.schema;
      b->num_rows = rows;
      for (const Field& f : table.schema.fields) {
        const double nulls = f.nullable ? (trial % 3) * 0.3 : 0.0;
        const int cardinality = trial % 2 == 0 ? 0 : 1 + static_cast<int>(rng() % 200);
        b->columns.push_back(RandomColumn(f.type, rows, nulls, cardinality, rng));
      }
      table.batches.push_back(b);
    }
    WriteOptions options;
    options.codec = codecs[trial % 6];
    options.dictionary = trial % 4 != 3;
    options.row_group_rows = trial < 3 ? 512 : 100000;
    options.data_page_bytes = (trial + trial / 6) % 2 == 0 ? 700 : 1 << 20;
    ExpectRoundTrip(table, options, "trial " + std::to_string(trial));
  }
}

TEST(ParquetWriterRoundTrip, AllNullAndEmptyColumns) {
  std::mt19937_64 rng(3);
  Table table;
  table.schema.fields = {{"n", DataType::String()}, {"x", DataType::Float64()}};
  auto b = std::make_shared<Batch>();
  b->schema = table.schema;
  b->num_rows = 1000;
  b->columns = {RandomColumn(DataType::String(), 1000, 1.0, 0, rng),
                RandomColumn(DataType::Float64(), 1000, 1.0, 0, rng)};
  table.batches.push_back(b);
  ExpectRoundTrip(table, WriteOptions(), "all null");
}

// Encoding statistics of the first column chunk of a file.
std::vector<PageEncodingStats> ChunkEncodings(const std::string& path) {
  auto meta = ReadFooter(path);
  EXPECT_TRUE(meta.ok());
  if (!meta.ok()) return {};
  return meta->row_groups[0].columns[0].meta_data->encoding_stats;
}

int32_t PagesOf(const std::vector<PageEncodingStats>& stats, PageType type, Encoding encoding) {
  int32_t n = 0;
  for (const auto& s : stats) n += (s.page_type == type && s.encoding == encoding) ? s.count : 0;
  return n;
}

TEST(ParquetWriterFile, DictionaryFallsBackToPlainWhenItGrowsTooLarge) {
  std::mt19937_64 rng(11);
  Table table;
  table.schema.fields = {{"unique", DataType::Int64()}};
  ColumnBuilder b(DataType::Int64());
  for (int64_t i = 0; i < 400000; ++i) b.Append<int64_t>(i * 7919);
  auto batch = std::make_shared<Batch>();
  batch->schema = table.schema;
  batch->num_rows = 400000;
  batch->columns = {b.Finish()};
  table.batches = {batch};
  WriteOptions options;
  options.data_page_bytes = 64 << 10;
  const std::string path = TempDir() + "/fallback.parquet";
  ASSERT_TRUE(WriteParquet(path, table, options).ok());
  const auto stats = ChunkEncodings(path);
  EXPECT_EQ(PagesOf(stats, PageType::DICTIONARY_PAGE, Encoding::PLAIN), 1);
  // 1 MiB of 8-byte entries fills after 131072 values: 16 pages of 8192 values.
  EXPECT_EQ(PagesOf(stats, PageType::DATA_PAGE, Encoding::RLE_DICTIONARY), 16);
  EXPECT_EQ(PagesOf(stats, PageType::DATA_PAGE, Encoding::PLAIN),
            (400000 - 16 * 8192 + 8191) / 8192);
  ExpectRoundTrip(table, options, "fallback");
}

TEST(ParquetWriterFile, DictionaryOffWritesPlainPagesOnly) {
  Table table = SmallTable();
  WriteOptions options;
  options.dictionary = false;
  const std::string path = TempDir() + "/plain.parquet";
  ASSERT_TRUE(WriteParquet(path, table, options).ok());
  auto meta = ReadFooter(path);
  ASSERT_TRUE(meta.ok());
  for (const ColumnChunk& c : meta->row_groups[0].columns) {
    EXPECT_FALSE(c.meta_data->dictionary_page_offset.has_value());
    EXPECT_EQ(PagesOf(c.meta_data->encoding_stats, PageType::DATA_PAGE, Encoding::PLAIN), 1);
  }
}

}  // namespace
}  // namespace tandem::parquet
