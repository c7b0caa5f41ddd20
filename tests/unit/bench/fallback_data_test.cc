// The fallback benchmark's data generator: identical output for any thread count and slicing,
// the row counts asked for, and values inside the documented domains.
#include "tandem/benchdata/fallback_data.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "tandem/io/parquet/reader.h"

namespace tandem::benchdata {
namespace {

namespace fs = std::filesystem;

std::string ReadBytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

fs::path FreshDir(const std::string& name) {
  fs::path dir = fs::temp_directory_path() /
                 ("tandem_fallback_test_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  return dir;
}

TEST(FallbackData, FilesAreIdenticalForAnyThreadCountAndSliceSize) {
  FallbackDataOptions a;
  a.rows = 250000;
  a.rows_per_file = 100000;
  a.threads = 1;
  a.slice_rows = 100000;
  FallbackDataOptions b = a;
  b.threads = 4;
  b.slice_rows = 7919;  // slices that do not divide the files
  const fs::path da = FreshDir("a"), db = FreshDir("b");
  auto ra = WriteFallbackData(da.string(), a);
  auto rb = WriteFallbackData(db.string(), b);
  ASSERT_TRUE(ra.ok()) << ra.status().ToString();
  ASSERT_TRUE(rb.ok()) << rb.status().ToString();
  EXPECT_EQ(ra->fact_files, 3);
  for (const char* f : {"fact/part-00000.parquet", "fact/part-00001.parquet",
                        "fact/part-00002.parquet", "customers/part-00000.parquet"}) {
    const std::string x = ReadBytes(da / f), y = ReadBytes(db / f);
    ASSERT_FALSE(x.empty()) << f;
    EXPECT_TRUE(x == y) << f << " differs between 1 and 4 threads";
  }
  // Read back: the row counts asked for.
  auto fact = parquet::ReadParquet((da / "fact").string());
  ASSERT_TRUE(fact.ok()) << fact.status().ToString();
  int64_t rows = 0;
  for (const auto& batch : fact->batches) rows += batch->num_rows;
  EXPECT_EQ(rows, 250000);
  auto customers = parquet::ReadParquet((da / "customers").string());
  ASSERT_TRUE(customers.ok());
  rows = 0;
  for (const auto& batch : customers->batches) rows += batch->num_rows;
  EXPECT_EQ(rows, kFallbackCustomers);
  // A smaller rerun into the same folder removes the files it no longer writes.
  a.rows = 1000;
  ASSERT_TRUE(WriteFallbackData(da.string(), a).ok());
  EXPECT_FALSE(fs::exists(da / "fact/part-00001.parquet"));
  fs::remove_all(da);
  fs::remove_all(db);
}

TEST(FallbackData, RowsDependOnlyOnTheirNumberAndTheSeed) {
  BatchPtr whole = GenerateFactRows(0, 1000);
  BatchPtr tail = GenerateFactRows(600, 1000);
  ASSERT_EQ(whole->num_rows, 1000);
  ASSERT_EQ(tail->num_rows, 400);
  for (int c = 0; c < whole->num_columns(); ++c) {
    for (int64_t r = 0; r < 400; ++r) {
      const Column& w = *whole->column(c);
      const Column& t = *tail->column(c);
      ASSERT_EQ(w.IsNull(600 + r), t.IsNull(r));
      if (w.type().is_string_like()) {
        if (!w.IsNull(600 + r)) EXPECT_EQ(w.GetString(600 + r), t.GetString(r));
      } else if (w.type().id == TypeId::kFloat64) {
        EXPECT_EQ(w.Value<double>(600 + r), t.Value<double>(r));
      }
    }
  }
  BatchPtr other = GenerateFactRows(0, 1000, kFallbackDefaultSeed + 1);
  int same = 0;
  for (int64_t r = 0; r < 1000; ++r) {
    same += other->column(3)->Value<double>(r) == whole->column(3)->Value<double>(r);
  }
  EXPECT_LT(same, 50) << "another seed should give other amounts";
}

TEST(FallbackData, ValuesStayInTheirDomains) {
  const int64_t n = 50000;
  BatchPtr b = GenerateFactRows(0, n);
  ASSERT_TRUE(b->Validate().ok());
  const Schema schema = FallbackFactSchema();
  ASSERT_EQ(b->num_columns(), 10 + kFallbackMetrics);
  EXPECT_EQ(schema.field(3).name, "amount");
  const std::set<std::string> statuses(FallbackStatuses().begin(), FallbackStatuses().end());
  const std::set<std::string> channels(FallbackChannels().begin(), FallbackChannels().end());
  int64_t null_notes = 0, selected = 0;
  for (int64_t r = 0; r < n; ++r) {
    EXPECT_EQ(b->column(0)->Value<int64_t>(r), r + 1);
    const int64_t customer = b->column(1)->Value<int64_t>(r);
    ASSERT_GE(customer, 1);
    ASSERT_LE(customer, kFallbackCustomers);
    const double amount = b->column(3)->Value<double>(r);
    ASSERT_GE(amount, 1.0);
    ASSERT_LE(amount, 1000.0);
    const int32_t quantity = b->column(4)->Value<int32_t>(r);
    ASSERT_GE(quantity, 1);
    ASSERT_LE(quantity, 50);
    const double discount = b->column(5)->Value<double>(r);
    ASSERT_GE(discount, 0.0);
    ASSERT_LE(discount, 0.3);
    ASSERT_TRUE(statuses.count(std::string(b->column(6)->GetString(r))));
    ASSERT_TRUE(channels.count(std::string(b->column(7)->GetString(r))));
    ASSERT_EQ(b->column(8)->GetString(r).size(), 10u);
    if (b->column(9)->IsNull(r)) {
      ++null_notes;
    } else {
      ASSERT_GE(b->column(9)->GetString(r).size(), 10u);
    }
    for (int m = 0; m < kFallbackMetrics; ++m) {
      const double v = b->column(10 + m)->Value<double>(r);
      ASSERT_LE(std::abs(v), 10.0 * (m + 1) * (m + 1)) << "m" << m + 1;
    }
    selected += amount >= 500 && quantity >= 10 && quantity <= 20;
  }
  EXPECT_GT(null_notes, n / 200);  // about 1%
  EXPECT_LT(null_notes, n / 50);
  // The benchmark's filter keeps about 11% of the rows.
  EXPECT_GT(selected, n * 9 / 100);
  EXPECT_LT(selected, n * 13 / 100);
}

TEST(FallbackData, CustomersCoverEveryRegionAndSegment) {
  BatchPtr c = GenerateCustomerRows(0, kFallbackCustomers);
  ASSERT_EQ(c->num_rows, kFallbackCustomers);
  std::set<std::pair<std::string, std::string>> groups;
  for (int64_t r = 0; r < c->num_rows; ++r) {
    EXPECT_EQ(c->column(0)->Value<int64_t>(r), r + 1);
    groups.insert(
        {std::string(c->column(2)->GetString(r)), std::string(c->column(1)->GetString(r))});
    const double risk = c->column(3)->Value<double>(r);
    ASSERT_GE(risk, 0.0);
    ASSERT_LE(risk, 1.0);
  }
  EXPECT_EQ(groups.size(), FallbackRegions().size() * FallbackSegments().size());
  EXPECT_EQ(groups.size(), 40u);
}

TEST(FallbackData, PlansFilesInRowOrder) {
  auto files = PlanFactFiles(10, 4);
  ASSERT_EQ(files.size(), 3u);
  EXPECT_EQ(files[2].begin, 8);
  EXPECT_EQ(files[2].end, 10);
  EXPECT_EQ(PlanFactFiles(0, 4).size(), 1u);  // an empty table is still one file
}

}  // namespace
}  // namespace tandem::benchdata
