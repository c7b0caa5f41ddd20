// SpillFile and SpillPartitions: batches of every column layout round trip through an unnamed
// temporary file (values, validity, null counts, int64 string offsets), in append order, from
// many threads at once and past the flush threshold; partitions get exactly their rows; errors
// name the directory and the setting; nothing ever appears in the spill directory.
#include "tandem/memory/spill_file.h"

#include <dirent.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "tandem/column/column_builder.h"

namespace tandem {
namespace {

// A fresh directory from mkdtemp, removed (it must then be empty) at the end.
class TempDir {
 public:
  TempDir() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/tandem_spill_test_XXXXXX";
    if (::mkdtemp(pattern.data()) != nullptr) path_ = pattern;
  }
  ~TempDir() {
    if (!path_.empty()) ::rmdir(path_.c_str());
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Every entry of `dir` other than "." and "..", hidden ones included.
std::vector<std::string> Entries(const std::string& dir) {
  std::vector<std::string> out;
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) {
    out.push_back("<opendir failed: " + std::string(std::strerror(errno)) + ">");
    return out;
  }
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name != "." && name != "..") out.push_back(name);
  }
  ::closedir(d);
  return out;
}

Schema AllTypesSchema() {
  return Schema{{{"i32", DataType::Int32()},
                 {"i64", DataType::Int64()},
                 {"f64", DataType::Float64()},
                 {"flag", DataType::Bool()},
                 {"day", DataType::Date32()},
                 {"price", DataType::Decimal(15, 2)},
                 {"wide", DataType::Decimal(38, 6)},
                 {"name", DataType::String()}}};
}

int128_t WideValue(int64_t seed, int64_t row) {
  // Past 64 bits and of both signs: seed * 10^30 + row, negated for odd rows.
  int128_t v = 1;
  for (int i = 0; i < 30; ++i) v *= 10;
  v = v * (seed + 1) + row;
  return row % 2 ? -v : v;
}

std::string NameValue(int64_t seed, int64_t row) {
  if (row % 5 == 0) return "";  // empty strings among the others
  return "s" + std::to_string(seed) + "_" + std::string(static_cast<size_t>(row % 13), 'x') +
         std::to_string(row);
}

// A batch of AllTypesSchema with `rows` rows; with_nulls puts a NULL in every column at rows
// where (row + column) % 4 == 1.
BatchPtr MakeAllTypesBatch(int64_t seed, int64_t rows, bool with_nulls) {
  const Schema schema = AllTypesSchema();
  std::vector<ColumnBuilder> b;
  for (const Field& f : schema.fields) b.emplace_back(f.type);
  for (int64_t r = 0; r < rows; ++r) {
    auto is_null = [&](int c) { return with_nulls && (r + c) % 4 == 1; };
    for (int c = 0; c < schema.num_fields(); ++c) {
      if (is_null(c)) {
        b[c].AppendNull();
        continue;
      }
      switch (c) {
        case 0:
          b[c].Append<int32_t>(static_cast<int32_t>(seed * 1000 + r) * (r % 3 ? 1 : -1));
          break;
        case 1:
          b[c].Append<int64_t>((seed << 40) + r * 1234567);
          break;
        case 2:
          b[c].Append<double>(r == 7 ? -0.0 : static_cast<double>(seed) + r * 0.25);
          break;
        case 3:
          b[c].AppendBool((r * 7 + seed) % 3 == 0);
          break;
        case 4:
          b[c].Append<int32_t>(static_cast<int32_t>(19000 + seed + r));
          break;
        case 5:
          b[c].Append<int64_t>(seed * 100000 + r * 99 - 500);  // unscaled cents
          break;
        case 6:
          b[c].Append<int128_t>(WideValue(seed, r));
          break;
        case 7:
          b[c].AppendString(NameValue(seed, r));
          break;
      }
    }
  }
  auto batch = std::make_shared<Batch>();
  batch->schema = schema;
  batch->num_rows = rows;
  for (auto& builder : b) batch->columns.push_back(builder.Finish());
  return batch;
}

// A string column with int64 offsets built by hand: "", NULL, "hello", "", "world!", ...
ColumnPtr MakeLargeOffsetStrings(int64_t rows, bool with_nulls) {
  auto offsets = Buffer::Allocate((rows + 1) * 8);
  int64_t* off = offsets->mutable_data_as<int64_t>();
  auto validity = with_nulls ? Buffer::Allocate(bit_util::BytesForBits(rows)) : nullptr;
  std::string bytes;
  int64_t nulls = 0;
  off[0] = 0;
  for (int64_t r = 0; r < rows; ++r) {
    const bool null = with_nulls && r % 3 == 1;
    if (null) {
      ++nulls;
    } else {
      if (validity) bit_util::SetBit(validity->mutable_data(), r);
      if (r % 4 != 0) bytes += "large" + std::to_string(r);
    }
    off[r + 1] = static_cast<int64_t>(bytes.size());
  }
  auto data = Buffer::CopyOf(bytes.data(), static_cast<int64_t>(bytes.size()));
  return std::make_shared<Column>(DataType::String(), rows, nulls, validity, offsets, data,
                                  /*large_offsets=*/true);
}

std::string Describe(const Column& c) {
  return c.type().ToString() + " of " + std::to_string(c.length()) + " rows";
}

void ExpectSameBuffer(const std::shared_ptr<Buffer>& a, const std::shared_ptr<Buffer>& b,
                      const char* which) {
  ASSERT_EQ(a == nullptr, b == nullptr) << which;
  if (!a) return;
  ASSERT_EQ(a->size(), b->size()) << which;
  if (a->size() > 0) {
    EXPECT_EQ(std::memcmp(a->data(), b->data(), static_cast<size_t>(a->size())), 0) << which;
  }
}

// Same type, length, nulls (count, bitmap presence, per row), values of valid rows, and the
// same raw buffers (the format keeps them byte for byte).
void ExpectSameColumn(const Column& want, const Column& got) {
  SCOPED_TRACE(Describe(want));
  ASSERT_EQ(want.type(), got.type());
  ASSERT_EQ(want.length(), got.length());
  EXPECT_EQ(want.null_count(), got.null_count());
  EXPECT_EQ(want.has_validity(), got.has_validity());
  EXPECT_EQ(want.large_offsets(), got.large_offsets());
  ASSERT_TRUE(got.Validate().ok()) << got.Validate().ToString();
  const DataType& t = want.type();
  for (int64_t r = 0; r < want.length(); ++r) {
    ASSERT_EQ(want.IsValid(r), got.IsValid(r)) << "row " << r;
    if (want.IsNull(r)) continue;
    if (t.id == TypeId::kBool) {
      EXPECT_EQ(want.GetBool(r), got.GetBool(r)) << "row " << r;
    } else if (t.is_string_like()) {
      EXPECT_EQ(want.GetString(r), got.GetString(r)) << "row " << r;
    } else if (t.is_wide_decimal()) {
      EXPECT_TRUE(want.Value<int128_t>(r) == got.Value<int128_t>(r)) << "row " << r;
    } else if (t.id == TypeId::kFloat64) {
      const double a = want.Value<double>(r), b = got.Value<double>(r);
      EXPECT_EQ(std::memcmp(&a, &b, sizeof a), 0) << "row " << r << ": " << a << " vs " << b;
    } else if (t.byte_width() == 8) {
      EXPECT_EQ(want.Value<int64_t>(r), got.Value<int64_t>(r)) << "row " << r;
    } else if (t.byte_width() == 4) {
      EXPECT_EQ(want.Value<int32_t>(r), got.Value<int32_t>(r)) << "row " << r;
    } else {
      ADD_FAILURE() << "type not covered by the test";
    }
  }
  ExpectSameBuffer(want.validity(), got.validity(), "validity");
  ExpectSameBuffer(want.values(), got.values(), "values");
  ExpectSameBuffer(want.data(), got.data(), "data");
}

void ExpectSameBatch(const Batch& want, const Batch& got) {
  ASSERT_TRUE(got.Validate().ok()) << got.Validate().ToString();
  ASSERT_EQ(want.num_rows, got.num_rows);
  ASSERT_EQ(want.num_columns(), got.num_columns());
  for (int c = 0; c < want.num_columns(); ++c) {
    SCOPED_TRACE("column " + std::to_string(c));
    ExpectSameColumn(*want.columns[c], *got.columns[c]);
  }
}

void ExpectSameTable(const std::vector<BatchPtr>& want, const Table& got) {
  ASSERT_EQ(want.size(), got.batches.size());
  for (size_t i = 0; i < want.size(); ++i) {
    SCOPED_TRACE("batch " + std::to_string(i));
    ExpectSameBatch(*want[i], *got.batches[i]);
  }
}

std::unique_ptr<SpillFile> MustCreate(const std::string& dir) {
  auto file = SpillFile::Create(dir);
  EXPECT_TRUE(file.ok()) << file.status().ToString();
  return file.ok() ? std::move(file).value() : nullptr;
}

TEST(SpillFile, RoundTripsEveryColumnLayoutInAppendOrder) {
  TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  auto file = MustCreate(dir.path());
  ASSERT_NE(file, nullptr);
  EXPECT_EQ(file->rows(), 0);
  EXPECT_EQ(file->bytes(), 0);

  const std::vector<BatchPtr> batches = {MakeAllTypesBatch(1, 100, /*with_nulls=*/false),
                                         MakeAllTypesBatch(2, 77, true),
                                         MakeAllTypesBatch(3, 0, false),  // zero rows
                                         MakeAllTypesBatch(4, 1, true),
                                         MakeAllTypesBatch(5, 1000, true),
                                         MakeAllTypesBatch(6, 3, false)};
  int64_t rows = 0;
  for (const auto& b : batches) {
    ASSERT_TRUE(b->Validate().ok());
    ASSERT_TRUE(file->Append(*b).ok());
    rows += b->num_rows;
    EXPECT_EQ(file->rows(), rows);
  }
  EXPECT_GT(file->bytes(), 0);
  EXPECT_EQ(file->num_blocks(), static_cast<int64_t>(batches.size()));

  auto first = file->ReadAll(AllTypesSchema());
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(first->num_rows(), rows);
  EXPECT_EQ(first->schema.num_fields(), AllTypesSchema().num_fields());
  ExpectSameTable(batches, *first);

  // The file keeps its contents: a second read gives the same.
  auto second = file->ReadAll(AllTypesSchema());
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  ExpectSameTable(batches, *second);
  EXPECT_EQ(file->rows(), rows);
}

TEST(SpillFile, ReadBlockFromManyThreadsMatchesWhatWasAppended) {
  TempDir dir;
  auto file = MustCreate(dir.path());
  ASSERT_NE(file, nullptr);
  std::vector<BatchPtr> batches;
  for (int i = 0; i < 24; ++i) {
    batches.push_back(MakeAllTypesBatch(100 + i, i % 5 == 4 ? 0 : 50 + 13 * i, i % 2 == 1));
    ASSERT_TRUE(file->Append(*batches.back()).ok());
  }
  EXPECT_EQ(file->num_blocks(), 24);
  ASSERT_TRUE(file->FinishWriting().ok());
  EXPECT_EQ(file->num_blocks(), 24);

  // Every thread reads every block, starting at a different one.
  constexpr int kThreads = 8;
  const Schema schema = AllTypesSchema();
  std::vector<std::vector<BatchPtr>> got(kThreads, std::vector<BatchPtr>(batches.size()));
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      const int64_t n = file->num_blocks();
      for (int64_t k = 0; k < n; ++k) {
        const int64_t i = (k + t * 3) % n;
        auto b = file->ReadBlock(i, schema);
        if (!b.ok()) {
          failures.fetch_add(1);
          continue;
        }
        got[t][static_cast<size_t>(i)] = std::move(b).value();
      }
    });
  }
  for (auto& th : threads) th.join();
  ASSERT_EQ(failures.load(), 0);
  for (int t = 0; t < kThreads; ++t) {
    for (size_t i = 0; i < batches.size(); ++i) {
      SCOPED_TRACE("thread " + std::to_string(t) + ", block " + std::to_string(i));
      ASSERT_NE(got[t][i], nullptr);
      ExpectSameBatch(*batches[i], *got[t][i]);
    }
  }
}

TEST(SpillFile, ReadBlockOutOfRangeOrNotWrittenOutIsAnError) {
  TempDir dir;
  auto file = MustCreate(dir.path());
  ASSERT_NE(file, nullptr);
  const Schema schema = AllTypesSchema();
  EXPECT_FALSE(file->ReadBlock(0, schema).ok());
  auto b = MakeAllTypesBatch(7, 10, true);
  ASSERT_TRUE(file->Append(*b).ok());
  // Still buffered (far below 1 MiB): not readable before FinishWriting, but no crash.
  EXPECT_FALSE(file->ReadBlock(0, schema).ok());
  ASSERT_TRUE(file->FinishWriting().ok());
  auto read = file->ReadBlock(0, schema);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  ExpectSameBatch(*b, **read);
  EXPECT_FALSE(file->ReadBlock(1, schema).ok());
  EXPECT_FALSE(file->ReadBlock(-1, schema).ok());
  // A schema with another number of columns does not match the block.
  const Schema other{{{"x", DataType::Int64()}}};
  EXPECT_FALSE(file->ReadBlock(0, other).ok());
  // FinishWriting twice is harmless.
  ASSERT_TRUE(file->FinishWriting().ok());
  EXPECT_EQ(file->num_blocks(), 1);
}

TEST(SpillFile, EmptyFileReadsAsNoBatches) {
  TempDir dir;
  auto file = MustCreate(dir.path());
  ASSERT_NE(file, nullptr);
  auto t = file->ReadAll(AllTypesSchema());
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_TRUE(t->batches.empty());
  EXPECT_EQ(t->num_rows(), 0);
}

TEST(SpillFile, AppendAfterReadAllKeepsTheOrder) {
  TempDir dir;
  auto file = MustCreate(dir.path());
  ASSERT_NE(file, nullptr);
  std::vector<BatchPtr> batches = {MakeAllTypesBatch(10, 50, true)};
  ASSERT_TRUE(file->Append(*batches[0]).ok());
  auto t1 = file->ReadAll(AllTypesSchema());
  ASSERT_TRUE(t1.ok());
  ExpectSameTable(batches, *t1);
  batches.push_back(MakeAllTypesBatch(11, 20, false));
  ASSERT_TRUE(file->Append(*batches[1]).ok());
  auto t2 = file->ReadAll(AllTypesSchema());
  ASSERT_TRUE(t2.ok());
  ExpectSameTable(batches, *t2);
  EXPECT_EQ(file->rows(), 70);
}

TEST(SpillFile, TruncateBlocksForgetsTheLaterBlocksOnly) {
  // A UNION ALL input's pipeline that runs again forgets only what it appended (FileAppendSink),
  // whether its blocks were flushed to disk (2000 rows each, past the flush threshold) or not.
  TempDir dir;
  auto file = MustCreate(dir.path());
  ASSERT_NE(file, nullptr);
  std::vector<BatchPtr> kept = {MakeAllTypesBatch(20, 2000, true), MakeAllTypesBatch(21, 7, false)};
  for (const auto& b : kept) ASSERT_TRUE(file->Append(*b).ok());
  for (int64_t seed = 22; seed < 25; ++seed) {
    ASSERT_TRUE(file->Append(*MakeAllTypesBatch(seed, 2000, true)).ok());
  }
  ASSERT_TRUE(file->TruncateBlocks(2).ok());
  EXPECT_EQ(file->num_blocks(), 2);
  EXPECT_EQ(file->rows(), 2007);
  ASSERT_TRUE(file->TruncateBlocks(5).ok());  // past the end: nothing
  EXPECT_EQ(file->num_blocks(), 2);
  kept.push_back(MakeAllTypesBatch(30, 33, true));
  ASSERT_TRUE(file->Append(*kept.back()).ok());
  auto all = file->ReadAll(AllTypesSchema());
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  ExpectSameTable(kept, *all);
  EXPECT_EQ(file->rows(), 2040);
  ASSERT_TRUE(file->TruncateBlocks(0).ok());
  EXPECT_EQ(file->rows(), 0);
  EXPECT_EQ(file->num_blocks(), 0);
}

TEST(SpillFile, RoundTripsInt64StringOffsets) {
  TempDir dir;
  auto file = MustCreate(dir.path());
  ASSERT_NE(file, nullptr);
  const Schema schema{{{"s", DataType::String()}, {"n", DataType::Int64()}}};
  std::vector<BatchPtr> batches;
  for (int i = 0; i < 3; ++i) {
    const int64_t rows = i == 1 ? 0 : 40 + i;
    auto b = std::make_shared<Batch>();
    b->schema = schema;
    b->num_rows = rows;
    b->columns.push_back(MakeLargeOffsetStrings(rows, /*with_nulls=*/i == 2));
    ColumnBuilder n(DataType::Int64());
    for (int64_t r = 0; r < rows; ++r) n.Append<int64_t>(r);
    b->columns.push_back(n.Finish());
    ASSERT_TRUE(b->Validate().ok()) << b->Validate().ToString();
    ASSERT_TRUE(b->columns[0]->large_offsets());
    ASSERT_TRUE(file->Append(*b).ok());
    batches.push_back(b);
  }
  auto t = file->ReadAll(schema);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  ExpectSameTable(batches, *t);
  for (const auto& b : t->batches) EXPECT_TRUE(b->columns[0]->large_offsets());
  EXPECT_EQ(t->batches[2]->columns[0]->GetString(2), "large2");
  EXPECT_TRUE(t->batches[2]->columns[0]->IsNull(1));
  EXPECT_EQ(t->batches[2]->columns[0]->GetString(0), "");
}

TEST(SpillFile, ConcurrentAppendsKeepEveryRow) {
  TempDir dir;
  auto file = MustCreate(dir.path());
  ASSERT_NE(file, nullptr);
  constexpr int kThreads = 8;
  constexpr int kBatches = 200;
  constexpr int kRows = 16;
  const Schema schema{{{"thread", DataType::Int32()},
                       {"seq", DataType::Int32()},
                       {"v", DataType::Int64()},
                       {"s", DataType::String()}}};
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kBatches; ++i) {
        ColumnBuilder th(DataType::Int32()), seq(DataType::Int32()), v(DataType::Int64()),
            s(DataType::String());
        for (int r = 0; r < kRows; ++r) {
          th.Append<int32_t>(t);
          seq.Append<int32_t>(i);
          const int64_t value = (static_cast<int64_t>(t) * kBatches + i) * kRows + r;
          if (r == 3) {
            v.AppendNull();
          } else {
            v.Append<int64_t>(value);
          }
          s.AppendString(std::to_string(value));
        }
        Batch b;
        b.schema = schema;
        b.num_rows = kRows;
        b.columns = {th.Finish(), seq.Finish(), v.Finish(), s.Finish()};
        if (!file->Append(b).ok()) failures.fetch_add(1);
      }
    });
  }
  for (auto& th : threads) th.join();
  ASSERT_EQ(failures.load(), 0);
  EXPECT_EQ(file->rows(), int64_t{kThreads} * kBatches * kRows);

  auto t = file->ReadAll(schema);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  ASSERT_EQ(t->batches.size(), static_cast<size_t>(kThreads * kBatches));
  EXPECT_EQ(t->num_rows(), int64_t{kThreads} * kBatches * kRows);

  int64_t sum = 0, want_sum = 0, nulls = 0;
  std::vector<int> next_seq(kThreads, 0);
  for (const auto& b : t->batches) {
    ASSERT_TRUE(b->Validate().ok()) << b->Validate().ToString();
    ASSERT_EQ(b->num_rows, kRows);
    const int thread = b->columns[0]->Value<int32_t>(0);
    ASSERT_GE(thread, 0);
    ASSERT_LT(thread, kThreads);
    // One thread's batches come back in the order that thread appended them.
    EXPECT_EQ(b->columns[1]->Value<int32_t>(0), next_seq[thread]++);
    for (int r = 0; r < kRows; ++r) {
      EXPECT_EQ(b->columns[0]->Value<int32_t>(r), thread);
      const Column& v = *b->columns[2];
      const std::string s(b->columns[3]->GetString(r));
      if (v.IsNull(r)) {
        ++nulls;
      } else {
        sum += v.Value<int64_t>(r);
        EXPECT_EQ(s, std::to_string(v.Value<int64_t>(r)));
      }
    }
  }
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(next_seq[t], kBatches);
  for (int64_t x = 0; x < int64_t{kThreads} * kBatches * kRows; ++x) {
    if (x % kRows != 3) want_sum += x;
  }
  EXPECT_EQ(sum, want_sum);
  EXPECT_EQ(nulls, int64_t{kThreads} * kBatches);
}

TEST(SpillFile, FilePastTheFlushThresholdRoundTrips) {
  TempDir dir;
  auto file = MustCreate(dir.path());
  ASSERT_NE(file, nullptr);
  const Schema schema{{{"k", DataType::Int64()}, {"payload", DataType::String()}}};
  const SpillTotals before = SpillTotalsNow();
  std::vector<BatchPtr> batches;
  int64_t rows = 0;
  // 48 batches of about 150 KiB each: about 7 MiB, so several 1 MiB flushes, and batches that
  // straddle a flush.
  for (int i = 0; i < 48; ++i) {
    ColumnBuilder k(DataType::Int64()), p(DataType::String());
    const int n = 300 + i;
    for (int r = 0; r < n; ++r) {
      k.Append<int64_t>(int64_t{i} * 100000 + r);
      if ((r + i) % 17 == 0) {
        p.AppendNull();
      } else {
        p.AppendString(std::string(static_cast<size_t>(400 + (r * 31 + i) % 200),
                                   static_cast<char>('a' + (r + i) % 26)));
      }
    }
    auto b = std::make_shared<Batch>();
    b->schema = schema;
    b->num_rows = n;
    b->columns = {k.Finish(), p.Finish()};
    ASSERT_TRUE(file->Append(*b).ok());
    rows += n;
    batches.push_back(b);
  }
  EXPECT_GT(file->bytes(), int64_t{5} << 20);
  EXPECT_EQ(file->rows(), rows);
  // Most of it is on disk already, before any read.
  EXPECT_GE(SpillTotalsNow().bytes_written - before.bytes_written, int64_t{4} << 20);

  auto t = file->ReadAll(schema);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->num_rows(), rows);
  ExpectSameTable(batches, *t);
  auto again = file->ReadAll(schema);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  ExpectSameTable(batches, *again);
}

// One row of a keyed batch (k int64, s string that may be NULL).
struct Row {
  int64_t k;
  bool s_null;
  std::string s;
};

BatchPtr MakeKeyedBatch(int64_t base, int64_t rows) {
  const Schema schema{{{"k", DataType::Int64()}, {"s", DataType::String()}}};
  ColumnBuilder k(DataType::Int64()), s(DataType::String());
  for (int64_t r = 0; r < rows; ++r) {
    k.Append<int64_t>(base + r);
    if (r % 6 == 2) {
      s.AppendNull();
    } else {
      s.AppendString(r % 6 == 4 ? "" : "v" + std::to_string(base + r));
    }
  }
  auto b = std::make_shared<Batch>();
  b->schema = schema;
  b->num_rows = rows;
  b->columns = {k.Finish(), s.Finish()};
  return b;
}

std::vector<Row> ReadRows(SpillFile& file, const Schema& schema) {
  std::vector<Row> out;
  auto t = file.ReadAll(schema);
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  if (!t.ok()) return out;
  for (const auto& b : t->batches) {
    EXPECT_TRUE(b->Validate().ok()) << b->Validate().ToString();
    for (int64_t r = 0; r < b->num_rows; ++r) {
      const bool null = b->columns[1]->IsNull(r);
      out.push_back(Row{b->columns[0]->Value<int64_t>(r), null,
                        null ? std::string() : std::string(b->columns[1]->GetString(r))});
    }
  }
  return out;
}

void ExpectRows(const std::vector<Row>& want, const std::vector<Row>& got) {
  ASSERT_EQ(want.size(), got.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(want[i].k, got[i].k) << "row " << i;
    EXPECT_EQ(want[i].s_null, got[i].s_null) << "row " << i;
    EXPECT_EQ(want[i].s, got[i].s) << "row " << i;
  }
}

TEST(SpillPartitions, EachPartitionGetsExactlyItsRowsInOrder) {
  TempDir dir;
  constexpr int kParts = 5;
  auto created = SpillPartitions::Create(kParts, dir.path());
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  auto parts = std::move(created).value();
  ASSERT_EQ(parts->count(), kParts);
  EXPECT_EQ(parts->bytes(), 0);
  const Schema schema = MakeKeyedBatch(0, 0)->schema;

  std::vector<std::vector<Row>> want(kParts);
  auto expect_row = [&](const Batch& b, int64_t r, uint32_t p) {
    const bool null = b.columns[1]->IsNull(r);
    want[p].push_back(Row{b.columns[0]->Value<int64_t>(r), null,
                          null ? std::string() : std::string(b.columns[1]->GetString(r))});
  };
  // Mixed batches: a scattered partition number per row (partition 4 is never used by them).
  for (int i = 0; i < 6; ++i) {
    auto b = MakeKeyedBatch(int64_t{i} * 1000, 97 + i);
    std::vector<uint32_t> part(static_cast<size_t>(b->num_rows));
    for (int64_t r = 0; r < b->num_rows; ++r) {
      part[r] = static_cast<uint32_t>((r * 7 + i + r / 5) % (kParts - 1));
      expect_row(*b, r, part[r]);
    }
    ASSERT_TRUE(parts->Append(*b, part.data()).ok());
  }
  // A batch going entirely to partition 2, then one entirely to partition 4.
  {
    auto b = MakeKeyedBatch(50000, 33);
    std::vector<uint32_t> part(33, 2);
    for (int64_t r = 0; r < 33; ++r) expect_row(*b, r, 2);
    ASSERT_TRUE(parts->Append(*b, part.data()).ok());
  }
  {
    auto b = MakeKeyedBatch(60000, 10);
    std::vector<uint32_t> part(10, 4);
    for (int64_t r = 0; r < 10; ++r) expect_row(*b, r, 4);
    ASSERT_TRUE(parts->Append(*b, part.data()).ok());
  }
  // A zero-row batch changes nothing.
  {
    auto b = MakeKeyedBatch(70000, 0);
    ASSERT_TRUE(parts->Append(*b, nullptr).ok());
  }

  int64_t total = 0, bytes = 0;
  for (int p = 0; p < kParts; ++p) {
    SCOPED_TRACE("partition " + std::to_string(p));
    EXPECT_EQ(parts->file(p).rows(), static_cast<int64_t>(want[p].size()));
    ExpectRows(want[p], ReadRows(parts->file(p), schema));
    total += parts->file(p).rows();
    bytes += parts->file(p).bytes();
  }
  EXPECT_EQ(total, 6 * 97 + 15 + 33 + 10);
  EXPECT_EQ(parts->bytes(), bytes);
  // Partition 4 got only the one whole batch, as one block.
  ASSERT_TRUE(parts->FinishWriting().ok());
  ASSERT_EQ(parts->file(4).num_blocks(), 1);
  auto p4 = parts->file(4).ReadBlock(0, schema);
  ASSERT_TRUE(p4.ok()) << p4.status().ToString();
  EXPECT_EQ((*p4)->num_rows, 10);
  EXPECT_EQ((*p4)->columns[0]->Value<int64_t>(0), 60000);
  // Partition 2: one block per mixed batch plus the whole batch.
  EXPECT_EQ(parts->file(2).num_blocks(), 7);
}

TEST(SpillPartitions, ConcurrentAppends) {
  TempDir dir;
  constexpr int kParts = 3;
  auto created = SpillPartitions::Create(kParts, dir.path());
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  auto parts = std::move(created).value();
  constexpr int kThreads = 8;
  constexpr int kBatches = 50;
  constexpr int kRows = 40;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kBatches; ++i) {
        auto b = MakeKeyedBatch((int64_t{t} * kBatches + i) * kRows, kRows);
        std::vector<uint32_t> part(kRows);
        for (int r = 0; r < kRows; ++r) {
          part[r] = static_cast<uint32_t>(((int64_t{t} * kBatches + i) * kRows + r) % kParts);
        }
        if (!parts->Append(*b, part.data()).ok()) failures.fetch_add(1);
      }
    });
  }
  for (auto& th : threads) th.join();
  ASSERT_EQ(failures.load(), 0);
  const Schema schema = MakeKeyedBatch(0, 0)->schema;
  int64_t count = 0;
  for (int p = 0; p < kParts; ++p) {
    for (const Row& row : ReadRows(parts->file(p), schema)) {
      EXPECT_EQ(row.k % kParts, p);
      ++count;
    }
  }
  EXPECT_EQ(count, int64_t{kThreads} * kBatches * kRows);
}

TEST(SpillFile, MissingDirectoryIsAnIOErrorNamingIt) {
  TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  const std::string missing = dir.path() + "/no_such_dir";
  auto file = SpillFile::Create(missing);
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.status().code(), StatusCode::kIOError);
  EXPECT_NE(file.status().message().find(missing), std::string::npos) << file.status().message();
  EXPECT_NE(file.status().message().find("tandem.spill.dir"), std::string::npos)
      << file.status().message();

  auto parts = SpillPartitions::Create(4, missing);
  ASSERT_FALSE(parts.ok());
  EXPECT_EQ(parts.status().code(), StatusCode::kIOError);
  EXPECT_NE(parts.status().message().find(missing), std::string::npos);
  EXPECT_TRUE(Entries(dir.path()).empty());
}

TEST(SpillFile, EmptyDirSettingUsesTmpdir) {
  TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  const char* old = std::getenv("TMPDIR");
  const std::string saved = old ? old : "";
  const std::string missing = dir.path() + "/absent_tmpdir";
  ::setenv("TMPDIR", missing.c_str(), 1);
  auto bad = SpillFile::Create("");
  ::setenv("TMPDIR", dir.path().c_str(), 1);
  auto good = SpillFile::Create("");
  if (old) {
    ::setenv("TMPDIR", saved.c_str(), 1);
  } else {
    ::unsetenv("TMPDIR");
  }
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find(missing), std::string::npos) << bad.status().message();
  ASSERT_TRUE(good.ok()) << good.status().ToString();
  ASSERT_TRUE((*good)->Append(*MakeAllTypesBatch(1, 5, true)).ok());
  EXPECT_TRUE(Entries(dir.path()).empty());
}

TEST(SpillFile, LeavesNothingInTheSpillDirectory) {
  TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  ASSERT_TRUE(Entries(dir.path()).empty());
  const SpillTotals before = SpillTotalsNow();
  {
    std::vector<std::unique_ptr<SpillFile>> files;
    for (int i = 0; i < 4; ++i) {
      files.push_back(MustCreate(dir.path()));
      ASSERT_NE(files.back(), nullptr);
    }
    auto parts = SpillPartitions::Create(3, dir.path());
    ASSERT_TRUE(parts.ok()) << parts.status().ToString();
    EXPECT_GE(SpillTotalsNow().files - before.files, 7);
    EXPECT_TRUE(Entries(dir.path()).empty());
    for (int i = 0; i < 4; ++i) {
      for (int j = 0; j < 3; ++j) {
        ASSERT_TRUE(files[i]->Append(*MakeAllTypesBatch(i * 10 + j, 200, j % 2 == 0)).ok());
      }
    }
    auto b = MakeKeyedBatch(0, 30);
    std::vector<uint32_t> part(30);
    for (int r = 0; r < 30; ++r) part[r] = static_cast<uint32_t>(r % 3);
    ASSERT_TRUE((*parts)->Append(*b, part.data()).ok());
    for (auto& f : files) ASSERT_TRUE(f->ReadAll(AllTypesSchema()).ok());
    for (const auto& name : Entries(dir.path())) ADD_FAILURE() << "in the spill dir: " << name;
  }
  EXPECT_TRUE(Entries(dir.path()).empty());
  // rmdir succeeds only on an empty directory.
  EXPECT_EQ(::rmdir(dir.path().c_str()), 0) << std::strerror(errno);
}

}  // namespace
}  // namespace tandem
