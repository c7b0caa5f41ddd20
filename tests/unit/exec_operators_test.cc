// CPU operators other than aggregation, run through the executor on small plans whose
// expressions are column references: scans (memory, Parquet with row-group pruning, CSV), filter,
// project, limit/offset, values; metrics and EXPLAIN ANALYZE text. Expected rows are computed
// here from the input data.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tandem/column/column_builder.h"
#include "tandem/column/take.h"
#include "tandem/exec/executor.h"
#include "tandem/exec/plan_text.h"
#include "tandem/io/parquet/writer.h"

namespace tandem {
namespace {

// Columns: id int64 (0..n-1), keep bool (id % 3 != 0, NULL when id % 10 == 7), name string.
std::shared_ptr<Table> MakeTable(int batches, int rows) {
  auto t = std::make_shared<Table>();
  t->schema.fields = {
      {"id", DataType::Int64()}, {"keep", DataType::Bool()}, {"name", DataType::String()}};
  int64_t id = 0;
  for (int b = 0; b < batches; ++b) {
    ColumnBuilder ids(DataType::Int64()), keep(DataType::Bool()), name(DataType::String());
    for (int r = 0; r < rows; ++r, ++id) {
      ids.Append<int64_t>(id);
      if (id % 10 == 7) {
        keep.AppendNull();
      } else {
        keep.AppendBool(id % 3 != 0);
      }
      name.AppendString("n" + std::to_string(id));
    }
    auto batch = std::make_shared<Batch>();
    batch->schema = t->schema;
    batch->num_rows = rows;
    batch->columns = {ids.Finish(), keep.Finish(), name.Finish()};
    t->batches.push_back(batch);
  }
  return t;
}

ExprPtr Ref(const Schema& s, int i) {
  return MakeColumnRef(i, s.field(i).type, true, s.field(i).name);
}

std::vector<int64_t> Ids(const Table& t, int column) {
  std::vector<int64_t> out;
  for (const auto& b : t.batches) {
    EXPECT_EQ(b->num_columns(), t.schema.num_fields());
    for (int64_t r = 0; r < b->num_rows; ++r) out.push_back(b->columns[column]->Value<int64_t>(r));
  }
  return out;
}

TEST(ExecOperators, FilterKeepsTrueRowsInOrder) {
  auto t = MakeTable(7, 1000);
  auto scan = MakeScan(TableSource::Memory("t", t), {0, 1, 2});
  auto filter = MakeFilter(scan, Ref(scan->schema, 1));
  ExecContext ctx;
  auto out = Execute(*filter, ctx);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  std::vector<int64_t> expect;
  for (int64_t id = 0; id < 7000; ++id) {
    if (id % 10 != 7 && id % 3 != 0) expect.push_back(id);
  }
  EXPECT_EQ(Ids(*out, 0), expect);
  for (const auto& b : out->batches) {
    for (int64_t r = 0; r < b->num_rows; ++r) {
      EXPECT_EQ(b->columns[2]->GetString(r),
                "n" + std::to_string(b->columns[0]->Value<int64_t>(r)));
    }
  }
  const OperatorMetrics* m = ctx.Find(filter.get());
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->rows, static_cast<int64_t>(expect.size()));
  EXPECT_GT(m->bytes, 0);
  EXPECT_EQ(ctx.Find(scan.get())->rows, 7000);
}

TEST(ExecOperators, ProjectReordersColumnsAndScanSelects) {
  auto t = MakeTable(3, 100);
  auto scan = MakeScan(TableSource::Memory("t", t), {2, 0});
  auto project = MakeProject(scan, {Ref(scan->schema, 1), Ref(scan->schema, 0)}, {"a", "b"});
  ExecContext ctx;
  auto out = Execute(*project, ctx);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ(out->schema.num_fields(), 2);
  EXPECT_EQ(out->schema.field(0).name, "a");
  std::vector<int64_t> expect(300);
  for (int i = 0; i < 300; ++i) expect[i] = i;
  EXPECT_EQ(Ids(*out, 0), expect);
  EXPECT_EQ(out->batches[1]->columns[1]->GetString(5), "n105");
}

TEST(ExecOperators, LimitAndOffsetAcrossBatches) {
  auto t = MakeTable(5, 10);
  for (auto [limit, offset] : std::vector<std::pair<int64_t, int64_t>>{
           {3, 0}, {15, 8}, {100, 0}, {0, 0}, {-1, 42}, {5, 50}, {10, 10}}) {
    auto scan = MakeScan(TableSource::Memory("t", t), {0});
    auto lim = MakeLimit(scan, limit, offset);
    ExecContext ctx;
    auto out = Execute(*lim, ctx);
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    std::vector<int64_t> expect;
    for (int64_t id = offset; id < 50 && (limit < 0 || id < offset + limit); ++id) {
      expect.push_back(id);
    }
    EXPECT_EQ(Ids(*out, 0), expect) << limit << " " << offset;
  }
}

TEST(ExecOperators, ValuesConvertToColumnTypes) {
  Schema s;
  s.fields = {{"i", DataType::Int32()},
              {"d", DataType::Decimal(10, 2)},
              {"f", DataType::Float64()},
              {"s", DataType::String()}};
  std::vector<std::vector<Value>> rows = {
      {Value::Int32(1), Value::Decimal(15, 3, 1), Value::Float64(0.5), Value::String("x")},
      {Value::Null(DataType::Int32()), Value::Int32(7), Value::Int32(2),
       Value::Null(DataType::String())}};
  auto values = MakeValues(s, rows);
  ExecContext ctx;
  auto out = Execute(*values, ctx);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ(out->num_rows(), 2);
  const Batch& b = *out->batches[0];
  EXPECT_EQ(b.columns[0]->Value<int32_t>(0), 1);
  EXPECT_TRUE(b.columns[0]->IsNull(1));
  EXPECT_EQ(b.columns[1]->Value<int64_t>(0), 150);  // 1.5 at scale 2
  EXPECT_EQ(b.columns[1]->Value<int64_t>(1), 700);
  EXPECT_EQ(b.columns[2]->Value<double>(1), 2.0);
  EXPECT_EQ(b.columns[3]->GetString(0), "x");
  EXPECT_TRUE(b.columns[3]->IsNull(1));
}

TEST(ExecOperators, ParquetScanPrunesRowGroupsAndExplainAnalyzeShowsIt) {
  auto t = MakeTable(4, 1000);
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("exec_ops_" + std::to_string(::getpid()) + ".parquet"))
                               .string();
  parquet::WriteOptions options;
  options.row_group_rows = 1000;
  ASSERT_TRUE(parquet::WriteParquet(path, *t, options).ok());
  auto source = TableSource::Parquet("t", path);
  ASSERT_TRUE(source.ok()) << source.status().ToString();
  auto scan = MakeScan(*source, {2, 0});
  parquet::ScanPredicate p;
  p.column = "id";
  p.op = parquet::ScanPredicate::Op::kGe;
  p.value = int64_t{2500};
  scan->scan_predicates = {p};
  auto lim = MakeLimit(scan, 5, 0);
  ExecContext ctx;
  auto out = Execute(*lim, ctx);
  std::filesystem::remove(path);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  // Row groups [0,1000) and [1000,2000) are pruned; the first rows left start at 2000.
  EXPECT_EQ(Ids(*out, 1), (std::vector<int64_t>{2000, 2001, 2002, 2003, 2004}));
  const std::string text = PlanToStringWithMetrics(*lim, ctx);
  EXPECT_NE(text.find("2/4 row groups"), std::string::npos) << text;
  EXPECT_NE(text.find("5 rows"), std::string::npos) << text;
  EXPECT_NE(text.find("2000 rows"), std::string::npos) << text;
}

TEST(ExecOperators, CsvScanAndCountStarWithoutColumns) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("exec_ops_" + std::to_string(::getpid()) + ".csv"))
          .string();
  {
    std::ofstream f(path);
    f << "a,b\n1,x\n2,y\n3,z\n";
  }
  auto source = TableSource::Csv("c", path);
  ASSERT_TRUE(source.ok()) << source.status().ToString();
  auto scan = MakeScan(*source, {1});
  ExecContext ctx;
  auto out = Execute(*scan, ctx);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ(out->num_rows(), 3);
  EXPECT_EQ(out->batches[0]->columns[0]->GetString(2), "z");
  // No columns at all (count(*) after projection pruning): rows are still counted.
  auto empty_scan = MakeScan(*source, {});
  auto counted = Execute(*empty_scan, ctx);
  std::filesystem::remove(path);
  ASSERT_TRUE(counted.ok()) << counted.status().ToString();
  EXPECT_EQ(counted->num_rows(), 3);
  EXPECT_EQ(counted->schema.num_fields(), 0);
}

}  // namespace
}  // namespace tandem
