// A table cached in part (exec/cpu/scan_cached_part.h) whose files change after CACHE TABLE:
// scans that need columns from the files must not line the cached rows up with rows that are
// no longer the ones cached, so they read the files whole.
#include <gtest/gtest.h>

#include <filesystem>

#include "tandem/column/column_builder.h"
#include "tandem/format/value_format.h"
#include "tandem/io/parquet/writer.h"
#include "tandem/sql/session.h"

namespace tandem {
namespace {

namespace fs = std::filesystem;

// n rows: a = i * step, s a 60-character string (the column left in the file), in row groups of
// 1000 rows.
void WriteTable(const std::string& path, int64_t n, int64_t step) {
  ColumnBuilder a(DataType::Int64(), n), s(DataType::String(), n);
  for (int64_t i = 0; i < n; ++i) {
    a.Append<int64_t>(i * step);
    s.AppendString(std::to_string(100000000 + i) + std::string(51, 'x'));
  }
  auto batch = std::make_shared<Batch>();
  batch->schema.fields = {{"a", DataType::Int64()}, {"s", DataType::String()}};
  batch->columns = {a.Finish(), s.Finish()};
  batch->num_rows = n;
  Table table;
  table.schema = batch->schema;
  table.batches.push_back(batch);
  parquet::WriteOptions options;
  options.row_group_rows = 1000;
  ASSERT_TRUE(parquet::WriteParquet(path, table, options).ok());
}

std::string FirstRow(sql::Session& session, const std::string& query) {
  auto r = session.Execute(query);
  EXPECT_TRUE(r.ok()) << query << ": " << r.status().ToString();
  if (!r.ok() || r->table.batches.empty()) return "";
  std::string out;
  const Batch& b = *r->table.batches[0];
  for (int c = 0; c < b.num_columns(); ++c) {
    if (c) out += "|";
    format::AppendText(*b.column(c), 0, &out);
  }
  return out;
}

TEST(CachedPartScan, FilesChangedAfterCachingAreReadWholeNotLinedUp) {
  const fs::path dir =
      fs::temp_directory_path() / ("tandem_cached_part_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string path = (dir / "t.parquet").string();
  WriteTable(path, 20000, 1);
  sql::Session session;
  ASSERT_TRUE(session.RegisterTable("t", path).ok());
  ASSERT_TRUE(session.Execute("SET tandem.sql.device = cpu").ok());
  ASSERT_TRUE(session.Execute("CACHE TABLE t").ok());
  const int64_t whole = session.table_cache().tables().begin()->second.bytes;
  ASSERT_TRUE(session.Execute("UNCACHE TABLE t").ok());
  ASSERT_TRUE(
      session.Execute("SET \"tandem.memory.host.limit\" = '" + std::to_string(whole / 2) + "'")
          .ok());
  auto cached = session.Execute("CACHE TABLE t");
  ASSERT_TRUE(cached.ok()) << cached.status().ToString();
  EXPECT_EQ(cached->message.rfind("table t cached in part (20000 rows, 1 of 2 columns", 0), 0u)
      << cached->message;
  ASSERT_TRUE(session.Execute("SET \"tandem.memory.host.limit\" = '0'").ok());
  const std::string both = "SELECT count(*), sum(a), min(s), max(s) FROM t WHERE a % 3 = 0";
  EXPECT_EQ(FirstRow(session, both), "6667|66663333|100000000" + std::string(51, 'x') + "|" +
                                         "100019998" + std::string(51, 'x'));

  // Rewritten with more rows and other values: the scan of both columns reads the new file.
  WriteTable(path, 30000, 2);
  EXPECT_EQ(FirstRow(session, both), "10000|299970000|100000000" + std::string(51, 'x') + "|" +
                                         "100029997" + std::string(51, 'x'));
  // A scan of the cached column alone reads what was cached, as for a table cached whole.
  EXPECT_EQ(FirstRow(session, "SELECT count(*), sum(a) FROM t"), "20000|199990000");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace tandem
