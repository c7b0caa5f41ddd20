// CSV writer: RFC 4180 quoting, NULL vs empty string, exact round trip of every type through the
// reader with an explicit schema, and atomic replacement (temporary file, renamed on Close).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "tandem/column/column_builder.h"
#include "tandem/io/csv/csv.h"

namespace tandem::csv {
namespace {

namespace fs = std::filesystem;

// A fresh directory per test (name: the running test's name).
std::string TempDir() {
  const std::string test = ::testing::UnitTest::GetInstance()->current_test_info()->name();
  std::string dir =
      fs::temp_directory_path() / ("tandem_csvw_" + std::to_string(getpid()) + "_" + test);
  fs::create_directories(dir);
  return dir;
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

int128_t Pow10(int n) {
  int128_t v = 1;
  for (int i = 0; i < n; ++i) v *= 10;
  return v;
}

Table OneBatch(Schema schema, std::vector<ColumnPtr> columns) {
  auto batch = std::make_shared<Batch>();
  batch->schema = schema;
  batch->num_rows = columns.empty() ? 0 : columns[0]->length();
  batch->columns = std::move(columns);
  Table t;
  t.schema = std::move(schema);
  t.batches.push_back(batch);
  return t;
}

TEST(CsvWriter, QuotesOnlyWhenNeeded) {
  ColumnBuilder s(DataType::String());
  for (const char* v : {"plain", "a,b", "say \"hi\"", "two\nlines", " pad", ""}) s.AppendString(v);
  s.AppendNull();
  ColumnBuilder n(DataType::Int64());
  for (int i = 0; i < 7; ++i) n.Append<int64_t>(i);
  Table t = OneBatch(Schema{{{"s", DataType::String()}, {"n,um", DataType::Int64()}}},
                     {s.Finish(), n.Finish()});
  std::string out;
  AppendCsvHeader(t.schema, {}, &out);
  AppendCsvRows(*t.batches[0], 0, 7, {}, &out);
  EXPECT_EQ(out,
            "s,\"n,um\"\nplain,0\n\"a,b\",1\n\"say \"\"hi\"\"\",2\n\"two\nlines\",3\n\" pad\",4\n"
            "\"\",5\n,6\n");
}

TEST(CsvWriter, NullMarkerTextIsQuoted) {
  ColumnBuilder s(DataType::String());
  s.AppendString("NA");
  s.AppendNull();
  Table t = OneBatch(Schema{{{"s", DataType::String()}}}, {s.Finish()});
  CsvWriteOptions o;
  o.null_marker = "NA";
  o.header = false;
  std::string out;
  AppendCsvRows(*t.batches[0], 0, 2, o, &out);
  EXPECT_EQ(out, "\"NA\"\nNA\n");
}

TEST(CsvWriter, RoundTripsEveryTypeExactly) {
  Schema schema{{{"i8", DataType::Int8()},
                 {"i64", DataType::Int64()},
                 {"u64", DataType::UInt64()},
                 {"f64", DataType::Float64()},
                 {"f32", DataType::Float32()},
                 {"d18", DataType::Decimal(18, 3)},
                 {"d38", DataType::Decimal(38, 10)},
                 {"date", DataType::Date32()},
                 {"ts", DataType::Timestamp(false)},
                 {"tsz", DataType::Timestamp(true)},
                 {"b", DataType::Bool()},
                 {"s", DataType::String()},
                 {"bin", DataType::Binary()}}};
  std::vector<ColumnBuilder> b;
  for (const Field& f : schema.fields) b.emplace_back(f.type);
  const int64_t i64s[] = {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max(),
                          0};
  const double f64s[] = {std::nan(""), -0.0, 1.0 / 3};
  const int128_t max38 = Pow10(38) - 1;
  const int128_t d38s[] = {max38, -max38, 1};
  const int32_t dates[] = {std::numeric_limits<int32_t>::min(), -1, 2932896};
  const int64_t tss[] = {std::numeric_limits<int64_t>::min() + 1, -1,
                         std::numeric_limits<int64_t>::max()};
  for (int r = 0; r < 3; ++r) {
    b[0].Append<int8_t>(r == 0 ? -128 : 127);
    b[1].Append<int64_t>(i64s[r]);
    b[2].Append<uint64_t>(r == 0 ? std::numeric_limits<uint64_t>::max() : r);
    b[3].Append<double>(f64s[r]);
    b[4].Append<float>(r == 0 ? std::numeric_limits<float>::max() : 0.1f);
    b[5].Append<int64_t>(r == 0 ? 999999999999999999LL : -5);
    b[6].Append<int128_t>(d38s[r]);
    b[7].Append<int32_t>(dates[r]);
    b[8].Append<int64_t>(tss[r]);
    b[9].Append<int64_t>(tss[2 - r]);
    b[10].AppendBool(r == 1);
    if (r == 2) {
      b[11].AppendNull();
    } else {
      b[11].AppendString(r == 0 ? "" : "x,\"y\"\nz");
    }
    b[12].AppendString(std::string("\0\xff", 2));
  }
  std::vector<ColumnPtr> cols;
  for (auto& builder : b) cols.push_back(builder.Finish());
  Table t = OneBatch(schema, cols);
  const std::string path = TempDir() + "/all.csv";
  ASSERT_TRUE(WriteCsv(path, t).ok());
  CsvReadOptions o;
  o.schema = schema;
  o.schema->fields[12].type = DataType::String();  // binary is written as base64 text
  auto back = ReadCsv(path, o);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_EQ(back->num_rows(), 3);
  const Batch& got = *back->batches[0];
  for (int c = 0; c < 12; ++c) {
    for (int64_t r = 0; r < 3; ++r) {
      const Column& want = *cols[c];
      const Column& have = *got.column(c);
      ASSERT_EQ(want.IsNull(r), have.IsNull(r)) << schema.field(c).name << " row " << r;
      if (want.IsNull(r)) continue;
      if (want.type().id == TypeId::kString) {
        EXPECT_EQ(want.GetString(r), have.GetString(r));
      } else if (want.type().id == TypeId::kBool) {
        EXPECT_EQ(want.GetBool(r), have.GetBool(r));
      } else {
        const int w = want.type().byte_width();
        EXPECT_EQ(0, std::memcmp(want.values()->data() + r * w, have.values()->data() + r * w, w))
            << schema.field(c).name << " row " << r;
      }
    }
  }
  EXPECT_EQ(got.column(12)->GetString(0), "AP8=");
  fs::remove_all(TempDir());
}

TEST(CsvWriter, AtomicReplaceAndAbandon) {
  const std::string dir = TempDir();
  const std::string path = dir + "/out.csv";
  { std::ofstream(path) << "old\n"; }
  Schema schema{{{"a", DataType::Int64()}}};
  {
    auto w = CsvFileWriter::Open(path, schema);
    ASSERT_TRUE(w.ok());
    // While open, the target still holds the old content and a temporary sits beside it.
    EXPECT_EQ(Slurp(path), "old\n");
    int entries = 0;
    for (const auto& e : fs::directory_iterator(dir)) {
      ++entries;
      (void)e;
    }
    EXPECT_EQ(entries, 2);
  }  // destroyed without Close: temporary removed, target untouched
  EXPECT_EQ(Slurp(path), "old\n");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);

  ColumnBuilder b(DataType::Int64());
  b.Append<int64_t>(7);
  Table t = OneBatch(schema, {b.Finish()});
  ASSERT_TRUE(WriteCsv(path, t).ok());
  EXPECT_EQ(Slurp(path), "a\n7\n");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
  fs::remove_all(dir);
}

TEST(CsvWriter, RejectsMismatchedBatch) {
  const std::string path = TempDir() + "/bad.csv";
  auto w = CsvFileWriter::Open(path, Schema{{{"a", DataType::Int64()}}});
  ASSERT_TRUE(w.ok());
  ColumnBuilder b(DataType::String());
  b.AppendString("x");
  Table t = OneBatch(Schema{{{"a", DataType::String()}}}, {b.Finish()});
  Status st = (*w)->WriteBatch(*t.batches[0]);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("column a"), std::string::npos) << st.message();
  fs::remove_all(TempDir());
}

}  // namespace
}  // namespace tandem::csv
