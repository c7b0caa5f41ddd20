// Helpers of the GPU Parquet tests (parquet_device_reader_test.cc, page_parse_gpu_test.cc):
// temporary folders, the parquet-testing files, value-by-value table equality, random tables of
// every type the writer takes, and the host expansion of a staged chunk (what the decode kernels
// compute, done on the host: rank -> dense index -> run -> value).
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "tandem/column/column_builder.h"
#include "tandem/common/bit_util.h"
#include "tandem/io/parquet/decode/convert.h"
#include "tandem/io/parquet/gpu/chunk_staging.h"
#include "tandem/io/parquet/reader.h"
#include "tandem/io/parquet/type_mapping.h"
#include "tandem/io/parquet/writer.h"

namespace tandem::parquet {

namespace fs = std::filesystem;

inline fs::path TempDir(const std::string& name) {
  fs::path dir =
      fs::temp_directory_path() / ("tandem_gpu_parquet_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// parquet-testing/data: $TANDEM_TESTDATA_DIR, a copy carried to the device machine under
// .device-h5/testdata, or ../shared/testdata next to the repository.
inline std::string ParquetTestingDir() {
  std::vector<std::string> roots;
  if (const char* env = std::getenv("TANDEM_TESTDATA_DIR")) roots.push_back(env);
  roots.push_back(".device-h5/testdata");
  std::string here = __FILE__;
  roots.push_back(here.substr(0, here.rfind('/')) + "/../../../shared/testdata");
  for (const auto& root : roots) {
    const fs::path dir = fs::path(root) / "parquet-testing" / "data";
    if (fs::is_directory(dir)) return dir.string();
  }
  return "";
}

inline BatchPtr OneBatch(const Table& table) {
  auto batch = ConcatenateBatches(table.batches, table.schema);
  EXPECT_TRUE(batch.ok()) << batch.status().ToString();
  return batch.ok() ? *batch : nullptr;
}

// Value-by-value equality; the first difference is reported with its place.
inline void ExpectSameTable(const Table& expected, const Table& actual, const std::string& what) {
  ASSERT_EQ(expected.schema.num_fields(), actual.schema.num_fields()) << what;
  for (int c = 0; c < expected.schema.num_fields(); ++c) {
    ASSERT_EQ(expected.schema.field(c).name, actual.schema.field(c).name) << what;
    ASSERT_EQ(expected.schema.field(c).type, actual.schema.field(c).type) << what;
  }
  BatchPtr e = OneBatch(expected), a = OneBatch(actual);
  ASSERT_TRUE(e && a) << what;
  ASSERT_EQ(e->num_rows, a->num_rows) << what;
  for (int c = 0; c < e->num_columns(); ++c) {
    const Column& x = *e->column(c);
    const Column& y = *a->column(c);
    const std::string where = what + ", column " + expected.schema.field(c).name;
    ASSERT_EQ(x.length(), y.length()) << where;
    ASSERT_EQ(x.null_count(), y.null_count()) << where;
    const DataType& type = x.type();
    const int width = type.is_string_like() || type.id == TypeId::kBool ? 0 : type.byte_width();
    for (int64_t i = 0; i < x.length(); ++i) {
      ASSERT_EQ(x.IsValid(i), y.IsValid(i)) << where << ", row " << i;
      if (!x.IsValid(i)) continue;
      if (type.id == TypeId::kBool) {
        ASSERT_EQ(x.GetBool(i), y.GetBool(i)) << where << ", row " << i;
      } else if (type.is_string_like()) {
        ASSERT_EQ(x.GetString(i), y.GetString(i)) << where << ", row " << i;
      } else {
        ASSERT_EQ(0, std::memcmp(x.values()->data() + i * width, y.values()->data() + i * width,
                                 static_cast<size_t>(width)))
            << where << ", row " << i;
      }
    }
  }
}

// A random table: every type the writer takes, `null_fraction` of NULLs in nullable columns,
// strings of low and high cardinality (dictionary-friendly and not).
inline Table RandomTable(int64_t rows, double null_fraction, uint32_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0, 1);
  const std::vector<std::pair<std::string, DataType>> fields = {
      {"b", DataType::Bool()},           {"i8", DataType::Int8()},
      {"i16", DataType::Int16()},        {"i32", DataType::Int32()},
      {"i64", DataType::Int64()},        {"u8", DataType::UInt8()},
      {"u32", DataType::UInt32()},       {"u64", DataType::UInt64()},
      {"f32", DataType::Float32()},      {"f64", DataType::Float64()},
      {"d9", DataType::Decimal(9, 2)},   {"d18", DataType::Decimal(18, 3)},
      {"d30", DataType::Decimal(30, 4)}, {"date", DataType::Date32()},
      {"ts", DataType::Timestamp(true)}, {"s_low", DataType::String()},
      {"s_high", DataType::String()},    {"bin", DataType::Binary()},
      {"small", DataType::Int32()},
  };
  Table table;
  auto batch = std::make_shared<Batch>();
  batch->num_rows = rows;
  for (size_t f = 0; f < fields.size(); ++f) {
    const auto& [name, type] = fields[f];
    const bool nullable = f % 2 == 1 || null_fraction >= 1.0;
    table.schema.fields.push_back({name, type, nullable});
    ColumnBuilder b(type, rows);
    const double special[] = {0.0, -0.0, std::numeric_limits<double>::quiet_NaN(),
                              std::numeric_limits<double>::infinity(), -1.5};
    for (int64_t i = 0; i < rows; ++i) {
      if (nullable && unit(rng) < null_fraction) {
        b.AppendNull();
        continue;
      }
      const uint64_t r = rng();
      switch (type.id) {
        case TypeId::kBool:
          b.AppendBool(r & 1);
          break;
        case TypeId::kInt8:
          b.Append<int8_t>(static_cast<int8_t>(r));
          break;
        case TypeId::kInt16:
          b.Append<int16_t>(static_cast<int16_t>(r));
          break;
        case TypeId::kInt32:
        case TypeId::kDate32:
          b.Append<int32_t>(name == "small" ? static_cast<int32_t>(r % 7) - 3
                                            : static_cast<int32_t>(r % 40000) - 20000);
          break;
        case TypeId::kUInt8:
          b.Append<uint8_t>(static_cast<uint8_t>(r));
          break;
        case TypeId::kUInt32:
          b.Append<uint32_t>(static_cast<uint32_t>(r));
          break;
        case TypeId::kUInt64:
          b.Append<uint64_t>(r);
          break;
        case TypeId::kInt64:
        case TypeId::kTimestamp:
          b.Append<int64_t>(static_cast<int64_t>(r) / 8);
          break;
        case TypeId::kFloat32:
          b.Append<float>(r % 5 == 0 ? static_cast<float>(special[r % 25 / 5])
                                     : static_cast<float>(unit(rng) * 1e6 - 5e5));
          break;
        case TypeId::kFloat64:
          b.Append<double>(r % 5 == 0 ? special[r % 25 / 5] : unit(rng) * 1e12 - 5e11);
          break;
        case TypeId::kDecimal:
          if (type.precision <= 9) {
            b.Append<int64_t>(static_cast<int64_t>(r % 1999999999) - 999999999);
          } else if (type.precision <= 18) {
            b.Append<int64_t>(static_cast<int64_t>(r % 1999999999999999999ull) -
                              999999999999999999);
          } else {
            b.Append<__int128>(static_cast<__int128>(static_cast<int64_t>(r)) * 1000003);
          }
          break;
        case TypeId::kString:
        case TypeId::kBinary: {
          std::string s;
          const size_t len = name == "s_low" ? r % 4 : r % 40;
          for (size_t k = 0; k < len; ++k) {
            s.push_back(
                static_cast<char>(name == "s_low" ? 'a' + (r >> (8 + k)) % 3 : (rng() & 0xff)));
          }
          b.AppendString(s);
          break;
        }
        default:
          ADD_FAILURE() << "unexpected type";
      }
    }
    batch->columns.push_back(b.Finish());
  }
  batch->schema = table.schema;
  table.batches.push_back(batch);
  return table;
}

// --- Staging checked without a device ---------------------------------------------------------
// The kernels' logic run on the host over staged chunks (pageable staging): rank -> dense index
// -> run -> value. Equal to ReadParquet column by column, this checks the page walk, the run
// tables, the validity bitmaps and the dictionaries before any kernel runs.

inline int64_t FindRunOnHost(const gpu_decode::StagedChunk& c, int64_t d) {
  auto it = std::upper_bound(c.runs.begin(), c.runs.end(), d,
                             [](int64_t v, const gpu_decode::ValueRun& r) { return v < r.first; });
  return (it - c.runs.begin()) - 1;
}

inline uint32_t HybridOnHost(const gpu_decode::StagedChunk& c, const gpu_decode::ValueRun& run,
                             int64_t d) {
  if (run.kind == gpu_decode::RunKind::kRepeat) return static_cast<uint32_t>(run.payload);
  uint32_t v = 0;
  for (int b = 0; b < run.bit_width; ++b) {
    const int64_t bit = run.payload + (d - run.first) * run.bit_width + b;
    v |= static_cast<uint32_t>((c.staging[bit >> 3] >> (bit & 7)) & 1) << b;
  }
  return v;
}

inline ColumnPtr ExpandOnHost(const gpu_decode::StagedChunk& c) {
  ColumnBuilder b(c.type, c.num_rows);
  int64_t d = 0;
  for (int64_t row = 0; row < c.num_rows; ++row) {
    if (!c.validity.empty() && !bit_util::GetBit(c.validity.data(), row)) {
      b.AppendNull();
      continue;
    }
    const int64_t r = FindRunOnHost(c, d);
    EXPECT_GE(r, 0);
    const gpu_decode::ValueRun& run = c.runs[r];
    if (c.kind == gpu_decode::OutputKind::kStrings) {
      if (run.kind == gpu_decode::RunKind::kPlain) {
        const int64_t pos = c.plain_positions[run.payload + d - run.first];
        uint32_t len;
        std::memcpy(&len, c.staging + pos - 4, 4);
        b.AppendString(std::string_view(reinterpret_cast<const char*>(c.staging + pos), len));
      } else {
        const uint32_t k = HybridOnHost(c, run, d);
        EXPECT_LT(k, c.dictionary_size);
        const int64_t begin = c.dictionary_offsets[k];
        b.AppendString(
            std::string_view(reinterpret_cast<const char*>(c.dictionary_bytes.data()) + begin,
                             c.dictionary_offsets[k + 1] - begin));
      }
    } else if (c.kind == gpu_decode::OutputKind::kBool) {
      b.AppendBool(HybridOnHost(c, run, d) != 0);
    } else {
      uint8_t value[16] = {};
      if (run.kind == gpu_decode::RunKind::kPlain) {
        EXPECT_TRUE(decode::ConvertFixed(
                        c.conversion, c.staging + run.payload + (d - run.first) * c.physical_width,
                        1, 0, c.out_width, value)
                        .ok());
      } else {
        const uint32_t k = HybridOnHost(c, run, d);
        EXPECT_LT(k, c.dictionary_size);
        std::memcpy(value, c.dictionary_values.data() + int64_t{k} * c.out_width, c.out_width);
      }
      std::memcpy(b.AppendUninitialized(1), value, c.out_width);
    }
    ++d;
  }
  EXPECT_EQ(d, c.num_valid);
  return b.Finish();
}

// Writes the staging tests' random files into `dir` (12: no, some and only NULLs; dictionary on
// and off; pages of 500 bytes and of 1 MiB; SNAPPY and ZSTD alternating; row groups of 1000 of
// 2500 rows; seeds from `seed`) and returns the sum of check(path) over them, stopping at a fatal
// failure.
template <typename Check>
int64_t SumOverRandomFiles(const fs::path& dir, uint32_t seed, Check&& check) {
  int file = 0;
  int64_t sum = 0;
  for (double nulls : {0.0, 0.4, 1.0}) {
    for (bool dictionary : {true, false}) {
      for (int64_t page_bytes : {int64_t{500}, int64_t{1} << 20}) {
        WriteOptions w;
        w.codec = file % 2 ? CompressionCodec::ZSTD : CompressionCodec::SNAPPY;
        w.dictionary = dictionary;
        w.data_page_bytes = page_bytes;
        w.row_group_rows = 1000;
        const std::string path = (dir / ("f" + std::to_string(file) + ".parquet")).string();
        EXPECT_TRUE(WriteParquet(path, RandomTable(2500, nulls, seed + file), w).ok()) << path;
        ++file;
        sum += check(path);
        if (::testing::Test::HasFatalFailure()) return sum;
      }
    }
  }
  return sum;
}

// The same over the parquet-testing files (0 where they are not found).
template <typename Check>
int64_t SumOverParquetTestingFiles(Check&& check) {
  const std::string data = ParquetTestingDir();
  int64_t sum = 0;
  if (data.empty()) return 0;
  for (const auto& entry : fs::directory_iterator(data)) {
    if (entry.path().extension() != ".parquet") continue;
    sum += check(entry.path().string());
    if (::testing::Test::HasFatalFailure()) return sum;
  }
  return sum;
}

// Calls visit(chunk, length, meta, leaf, row_group, first_row, column) for every column chunk of
// `path`
// (its bytes with the reader's 100 bytes of padding; columns in order, then row groups) and
// returns how many visits returned true.
template <typename Visit>
int64_t CountChunks(const std::string& path, Visit&& visit) {
  auto file = ParquetFile::Open(path);
  if (!file.ok()) return 0;
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto leaves = MapParquetSchema((*file)->metadata().schema);
  if (!leaves.ok()) return 0;
  int64_t count = 0;
  for (size_t col = 0; col < leaves->size(); ++col) {
    int64_t first_row = 0;
    for (const RowGroup& rg : (*file)->metadata().row_groups) {
      const ColumnMetaData& md = *rg.columns[col].meta_data;
      const int64_t start = ChunkStart(md);
      const int64_t length =
          std::min<int64_t>(md.total_compressed_size + 100, bytes.size() - start);
      count += visit(reinterpret_cast<const uint8_t*>(bytes.data()) + start, length, md,
                     (*leaves)[col], rg, first_row, col);
      if (::testing::Test::HasFatalFailure()) return count;
      first_row += rg.num_rows;
    }
  }
  return count;
}

// Rows [first, first + count) of `column` as a column of their own.
inline ColumnPtr RowsOf(const Column& column, int64_t first, int64_t count) {
  ColumnBuilder rows(column.type(), count);
  for (int64_t i = 0; i < count; ++i) rows.AppendFrom(column, first + i);
  return rows.Finish();
}

// ExpectSameTable for two columns of `field`.
inline void ExpectSameColumn(const ColumnPtr& want, const ColumnPtr& got, const Field& field,
                             const std::string& what) {
  Table a, b;
  a.schema.fields = {field};
  b.schema.fields = {field};
  for (auto [table, column] : {std::pair{&a, want}, std::pair{&b, got}}) {
    auto batch = std::make_shared<Batch>();
    batch->schema = table->schema;
    batch->num_rows = column->length();
    batch->columns = {column};
    table->batches = {batch};
  }
  ExpectSameTable(a, b, what);
}

}  // namespace tandem::parquet
