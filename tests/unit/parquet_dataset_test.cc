// ReadParquet over many files: hive partition columns (int64 / string / NULL), file and row-group
// order, projection with "did you mean" errors, row-group and partition pruning with ReadStats,
// schema mismatches naming the differing file, and thread-count independence. The data is built
// here, so every expected value is known without consulting the reader.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "tandem/column/column_builder.h"
#include "tandem/io/parquet/dataset.h"
#include "tandem/io/parquet/writer.h"

namespace tandem::parquet {
namespace {
namespace fs = std::filesystem;
using Op = ScanPredicate::Op;

// Rows [first, first + n): id = i, name = "n<i>" (NULL when i % 7 == 3), x = i * 0.5.
Table MakeTable(int64_t first, int64_t n, bool id_as_int32 = false) {
  Table t;
  t.schema.fields = {{"id", id_as_int32 ? DataType::Int32() : DataType::Int64(), false},
                     {"name", DataType::String(), true},
                     {"x", DataType::Float64(), false}};
  ColumnBuilder id(t.schema.field(0).type), name(DataType::String()), x(DataType::Float64());
  for (int64_t i = first; i < first + n; ++i) {
    if (id_as_int32) {
      id.Append<int32_t>(static_cast<int32_t>(i));
    } else {
      id.Append<int64_t>(i);
    }
    if (i % 7 == 3) {
      name.AppendNull();
    } else {
      name.AppendString("n" + std::to_string(i));
    }
    x.Append<double>(i * 0.5);
  }
  auto b = std::make_shared<Batch>();
  b->schema = t.schema;
  b->columns = {id.Finish(), name.Finish(), x.Finish()};
  b->num_rows = n;
  t.batches.push_back(b);
  return t;
}

class ParquetDatasetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::path(::testing::TempDir()) /
            ("tandem_dataset_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  void Write(const std::string& rel, const Table& t, int64_t row_group_rows = 100) {
    fs::path p = root_ / rel;
    fs::create_directories(p.parent_path());
    WriteOptions o;
    o.row_group_rows = row_group_rows;
    Status st = WriteParquet(p.string(), t, o);
    ASSERT_TRUE(st.ok()) << st.message();
  }
  // Three hive partitions, 250 rows each (3 row groups of <= 100 rows per file).
  void WriteHive() {
    Write("year=2020/month=1/part-0.parquet", MakeTable(0, 250));
    Write("year=2020/month=12/part-0.parquet", MakeTable(250, 250));
    Write("year=2021/month=__HIVE_DEFAULT_PARTITION__/part-0.parquet", MakeTable(500, 250));
    Write("year=2020/month=1/_SUCCESS", MakeTable(0, 1));  // hidden: skipped
  }
  std::string R(const std::string& rel = "") const {
    return rel.empty() ? root_.string() : (root_ / rel).string();
  }
  fs::path root_;
};

// All values of one column of a table, as int64 (ints) or -1 for NULL.
std::vector<int64_t> Ints(const Table& t, int column) {
  std::vector<int64_t> v;
  for (const auto& b : t.batches) {
    const Column& c = *b->column(column);
    for (int64_t r = 0; r < b->num_rows; ++r) {
      v.push_back(c.IsNull(r)                     ? -1
                  : c.type().id == TypeId::kInt32 ? c.Value<int32_t>(r)
                                                  : c.Value<int64_t>(r));
    }
  }
  return v;
}

TEST_F(ParquetDatasetTest, HivePartitionsInFileOrder) {
  WriteHive();
  ReadStats stats;
  auto t = ReadParquet(R(), {}, &stats);
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(t->schema.num_fields(), 5);
  EXPECT_EQ(t->schema.field(3).name, "year");
  EXPECT_EQ(t->schema.field(3).type, DataType::Int64());
  EXPECT_EQ(t->schema.field(4).name, "month");
  EXPECT_EQ(t->schema.field(4).type, DataType::Int64());
  EXPECT_TRUE(t->schema.field(4).nullable);
  EXPECT_EQ(t->num_rows(), 750);
  EXPECT_EQ(stats.files, 3);
  EXPECT_EQ(stats.row_groups, 9);
  EXPECT_EQ(stats.row_groups_skipped, 0);
  EXPECT_EQ(stats.rows, 750);
  EXPECT_GT(stats.bytes_read, 0);
  // Files sort bytewise: month=1 < month=12 < year=2021.
  const auto ids = Ints(*t, 0);
  for (int64_t i = 0; i < 750; ++i) ASSERT_EQ(ids[i], i);
  const auto years = Ints(*t, 3);
  const auto months = Ints(*t, 4);
  for (int64_t i = 0; i < 750; ++i) {
    ASSERT_EQ(years[i], i < 500 ? 2020 : 2021);
    ASSERT_EQ(months[i], i < 250 ? 1 : (i < 500 ? 12 : -1));
  }
  for (const auto& b : t->batches) ASSERT_TRUE(b->Validate().ok());
  // Strings and nulls survive.
  int64_t row = 0;
  for (const auto& b : t->batches) {
    const Column& name = *b->column(1);
    for (int64_t r = 0; r < b->num_rows; ++r, ++row) {
      if (row % 7 == 3) {
        ASSERT_TRUE(name.IsNull(r));
      } else {
        ASSERT_EQ(name.GetString(r), "n" + std::to_string(row));
      }
      ASSERT_EQ(b->column(2)->Value<double>(r), row * 0.5);
    }
  }
}

TEST_F(ParquetDatasetTest, StringPartitionValuesAreUrlDecoded) {
  Write("city=New%20York/a.parquet", MakeTable(0, 5));
  Write("city=Z%C3%BCrich/b.parquet", MakeTable(5, 5));
  Write("city=007/c.parquet", MakeTable(10, 5));
  auto t = ReadParquet(R(), {});
  ASSERT_TRUE(t.ok()) << t.status().message();
  const int city = t->schema.FieldIndex("city");
  ASSERT_EQ(city, 3);
  EXPECT_EQ(t->schema.field(city).type, DataType::String());  // "New York" is not an integer
  std::vector<std::string> seen;
  for (const auto& b : t->batches) seen.push_back(std::string(b->column(city)->GetString(0)));
  EXPECT_EQ(seen, (std::vector<std::string>{"007", "New York", "Z\xC3\xBCrich"}));
}

TEST_F(ParquetDatasetTest, ProjectionOrderAndPartitionOnly) {
  WriteHive();
  ReadOptions o;
  o.columns = {"month", "id"};
  auto t = ReadParquet(R(), o);
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(t->schema.num_fields(), 2);
  EXPECT_EQ(t->schema.field(0).name, "month");
  EXPECT_EQ(Ints(*t, 1)[600], 600);
  EXPECT_EQ(Ints(*t, 0)[260], 12);
  // Only a partition column: row counts still come from the files.
  o.columns = {"year"};
  t = ReadParquet(R(), o);
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->num_rows(), 750);
}

TEST_F(ParquetDatasetTest, UnknownColumnSuggestsName) {
  WriteHive();
  ReadOptions o;
  o.columns = {"naem"};
  auto t = ReadParquet(R(), o);
  ASSERT_FALSE(t.ok());
  const std::string& m = t.status().message();
  EXPECT_NE(m.find("unknown column 'naem'"), std::string::npos) << m;
  EXPECT_NE(m.find("did you mean 'name'?"), std::string::npos) << m;
  EXPECT_NE(m.find("id, name, x, year, month"), std::string::npos) << m;
  o.columns = {"zzzzzzzz"};
  t = ReadParquet(R(), o);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().message().find("did you mean"), std::string::npos);
}

TEST_F(ParquetDatasetTest, RowGroupPruning) {
  WriteHive();
  ReadOptions o;
  o.predicates = {{"id", Op::kLt, int64_t{150}}};
  ReadStats stats;
  auto t = ReadParquet(R(), o, &stats);
  ASSERT_TRUE(t.ok()) << t.status().message();
  // Row groups are [0,100) [100,200) [200,250) per file; only the first two can match.
  EXPECT_EQ(stats.row_groups, 9);
  EXPECT_EQ(stats.row_groups_skipped, 7);
  EXPECT_EQ(t->num_rows(), 200);  // pruning is by row group; filtering is the caller's job
  EXPECT_EQ(Ints(*t, 0).back(), 199);

  o.predicates = {{"id", Op::kGe, int64_t{100}}, {"id", Op::kLe, int64_t{120}}};
  t = ReadParquet(R(), o, &stats);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(stats.row_groups_skipped, 8);
  // Statistics can never prove a mismatch of a column without min/max: nothing is skipped.
  o.predicates = {{"id", Op::kIsNotNull, {}}};
  t = ReadParquet(R(), o, &stats);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(stats.row_groups_skipped, 0);
}

TEST_F(ParquetDatasetTest, PartitionPruning) {
  WriteHive();
  ReadOptions o;
  o.predicates = {{"year", Op::kEq, int64_t{2021}}};
  ReadStats stats;
  auto t = ReadParquet(R(), o, &stats);
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(stats.files, 3);
  EXPECT_EQ(stats.files_skipped, 2);
  EXPECT_EQ(t->num_rows(), 250);
  EXPECT_EQ(Ints(*t, 0).front(), 500);

  o.predicates = {{"month", Op::kIsNull, {}}};
  t = ReadParquet(R(), o, &stats);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(stats.files_skipped, 2);
  o.predicates = {{"month", Op::kGt, int64_t{5}}};
  t = ReadParquet(R(), o, &stats);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(stats.files_skipped, 2);  // month=1 fails, NULL never compares true
  EXPECT_EQ(Ints(*t, 4).front(), 12);

  // Everything skipped: empty table, but with the full schema.
  o.predicates = {{"year", Op::kEq, int64_t{1999}}};
  t = ReadParquet(R(), o, &stats);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(stats.files_skipped, 3);
  EXPECT_EQ(t->num_rows(), 0);
  EXPECT_EQ(t->schema.num_fields(), 5);

  o.predicates = {{"yeer", Op::kEq, int64_t{1999}}};
  t = ReadParquet(R(), o, &stats);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("did you mean 'year'"), std::string::npos);
}

TEST_F(ParquetDatasetTest, SchemaMismatchNamesTheFile) {
  Write("a.parquet", MakeTable(0, 10));
  Write("b.parquet", MakeTable(10, 10, /*id_as_int32=*/true));
  auto t = ReadParquet(R(), {});
  ASSERT_FALSE(t.ok());
  const std::string& m = t.status().message();
  EXPECT_NE(m.find("file " + R("b.parquet") + " has a different schema from " + R("a.parquet")),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("column 'id' is int32 there but int64"), std::string::npos) << m;

  fs::remove(root_ / "b.parquet");
  Table fewer;
  fewer.schema.fields = {{"id", DataType::Int64(), false}};
  ColumnBuilder id(DataType::Int64());
  id.Append<int64_t>(1);
  fewer.batches.push_back(std::make_shared<Batch>(Batch{fewer.schema, {id.Finish()}, 1}));
  Write("c.parquet", fewer);
  t = ReadParquet(R(), {});
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("it has 1 columns, the first file 3"), std::string::npos)
      << t.status().message();
}

TEST_F(ParquetDatasetTest, PartitionKeyCollidingWithColumn) {
  Write("id=1/a.parquet", MakeTable(0, 10));
  auto t = ReadParquet(R(), {});
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("partition key 'id'"), std::string::npos);
}

TEST_F(ParquetDatasetTest, SameResultOnOneThread) {
  WriteHive();
  ReadOptions one;
  one.num_threads = 1;
  auto a = ReadParquet(R(), one);
  auto b = ReadParquet(R(), {});
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(Ints(*a, 0), Ints(*b, 0));
  EXPECT_EQ(Ints(*a, 4), Ints(*b, 4));
}

TEST_F(ParquetDatasetTest, GlobAndErrors) {
  WriteHive();
  auto t = ReadParquet(R("year=2020/*/*.parquet"), {});
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->num_rows(), 500);
  EXPECT_EQ(t->schema.FieldIndex("year"), -1);  // partitions start below the glob's prefix
  EXPECT_EQ(t->schema.FieldIndex("month"), 3);
  t = ReadParquet(R("nothing/*.parquet"), {});
  ASSERT_FALSE(t.ok());
  t = ReadParquet(R("missing.parquet"), {});
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().message(), "no such file or directory: " + R("missing.parquet"));
  // A file that is not Parquet: the error names it.
  {
    std::FILE* f = std::fopen(R("year=2020/month=1/junk.parquet").c_str(), "w");
    std::fputs("this is not parquet at all", f);
    std::fclose(f);
  }
  t = ReadParquet(R(), {});
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("junk.parquet"), std::string::npos) << t.status().message();
}

TEST_F(ParquetDatasetTest, ReadsParquetTestingFile) {
  const std::string path =
      std::string(TANDEM_TESTDATA_DIR) + "/parquet-testing/data/alltypes_plain.parquet";
  ReadStats stats;
  auto t = ReadParquet(path, {}, &stats);
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->num_rows(), 8);  // per parquet-testing's README and pyarrow
  EXPECT_EQ(stats.files, 1);
  EXPECT_EQ(t->schema.num_fields(), 11);
  const auto ids = Ints(*t, t->schema.FieldIndex("id"));
  EXPECT_EQ(ids, (std::vector<int64_t>{4, 5, 6, 7, 2, 3, 0, 1}));
}

}  // namespace
}  // namespace tandem::parquet
