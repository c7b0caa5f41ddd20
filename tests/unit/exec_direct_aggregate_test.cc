// Direct-index ("perfect hash") aggregation for one integer/date key with a small value range,
// against a std::map reference computed here: negative keys, dates, unsigned and narrow types,
// value ranges exactly at and just past the limit the operator allows (so both the direct and the
// hashed path run), NULL keys, many groups (partitioned parallel merge), several batches and
// threads. GroupTable is also driven directly: leaving direct mode on a NULL or out-of-range key
// keeps every earlier group, and direct groups carry the hash HashKeys gives (merges agree).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <random>

#include "aggregate_test_util.h"
#include "tandem/column/column_builder.h"
#include "tandem/column/take.h"
#include "tandem/exec/cpu/group_table.h"
#include "tandem/exec/executor.h"

namespace tandem {
namespace {

using test::Agg;
using test::Col;

using Key = std::optional<int64_t>;

// Key of row r of an integer-like column as int64 (unsigned types zero-extended).
int64_t IntAt(const Column& c, int64_t r) {
  switch (c.type().id) {
    case TypeId::kInt8:
      return c.Value<int8_t>(r);
    case TypeId::kInt16:
      return c.Value<int16_t>(r);
    case TypeId::kInt32:
    case TypeId::kDate32:
      return c.Value<int32_t>(r);
    case TypeId::kUInt8:
      return c.Value<uint8_t>(r);
    case TypeId::kUInt16:
      return c.Value<uint16_t>(r);
    case TypeId::kUInt32:
      return c.Value<uint32_t>(r);
    default:
      return c.Value<int64_t>(r);
  }
}

ColumnPtr KeyColumn(const DataType& type, const std::vector<Key>& keys, size_t begin, size_t end) {
  ColumnBuilder b(type);
  for (size_t i = begin; i < end; ++i) {
    if (!keys[i]) {
      b.AppendNull();
      continue;
    }
    const int64_t v = *keys[i];
    switch (type.id) {
      case TypeId::kInt8:
        b.Append<int8_t>(static_cast<int8_t>(v));
        break;
      case TypeId::kInt16:
        b.Append<int16_t>(static_cast<int16_t>(v));
        break;
      case TypeId::kInt32:
      case TypeId::kDate32:
        b.Append<int32_t>(static_cast<int32_t>(v));
        break;
      case TypeId::kUInt8:
        b.Append<uint8_t>(static_cast<uint8_t>(v));
        break;
      case TypeId::kUInt16:
        b.Append<uint16_t>(static_cast<uint16_t>(v));
        break;
      case TypeId::kUInt32:
        b.Append<uint32_t>(static_cast<uint32_t>(v));
        break;
      default:
        b.Append<int64_t>(v);
    }
  }
  return b.Finish();
}

// Columns: 0 k (the key type), 1 v int64 (about 10% NULL). Rows split into `batches` batches.
std::shared_ptr<Table> MakeTable(const DataType& key_type, const std::vector<Key>& keys,
                                 int batches, uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto t = std::make_shared<Table>();
  t->schema.fields = {{"k", key_type}, {"v", DataType::Int64()}};
  const size_t n = keys.size();
  const size_t per = std::max<size_t>(1, (n + batches - 1) / batches);
  for (size_t begin = 0; begin < n; begin += per) {
    const size_t end = std::min(n, begin + per);
    ColumnBuilder v(DataType::Int64());
    for (size_t i = begin; i < end; ++i) {
      if (rng() % 10 == 0) {
        v.AppendNull();
      } else {
        v.Append<int64_t>(static_cast<int64_t>(rng() % 2000001) - 1000000);
      }
    }
    auto b = std::make_shared<Batch>();
    b->schema = t->schema;
    b->num_rows = static_cast<int64_t>(end - begin);
    b->columns = {KeyColumn(key_type, keys, begin, end), v.Finish()};
    t->batches.push_back(b);
  }
  return t;
}

Result<Table> RunAggregate(const std::shared_ptr<Table>& t, int threads) {
  auto scan = MakeScan(TableSource::Memory("t", t), {0, 1});
  auto k = MakeColumnRef(0, t->schema.field(0).type, true, "k");
  auto v = MakeColumnRef(1, DataType::Int64(), true, "v");
  std::vector<AggregateCall> aggs = {
      Agg(AggregateKind::kCountStar, nullptr, DataType::Int64(), "n"),
      Agg(AggregateKind::kCount, v, DataType::Int64(), "count_v"),
      Agg(AggregateKind::kSum, v, DataType::Int64(), "sum_v"),
      Agg(AggregateKind::kMin, v, DataType::Int64(), "min_v"),
      Agg(AggregateKind::kMax, v, DataType::Int64(), "max_v"),
      Agg(AggregateKind::kAvg, v, DataType::Float64(), "avg_v"),
  };
  auto agg = MakeAggregate(scan, {k}, {"k"}, std::move(aggs));
  ExecContext ctx;
  ctx.num_threads = threads;
  return Execute(*agg, ctx);
}

struct Ref {
  int64_t rows = 0, count = 0, sum = 0;
  int64_t min = INT64_MAX, max = INT64_MIN;
};

// Checks the aggregate's output against a std::map over the input rows.
void CheckAgainstReference(const Table& in, const Table& out, const std::string& what) {
  std::map<Key, Ref> ref;
  for (const auto& b : in.batches) {
    const Column& k = *b->columns[0];
    const Column& v = *b->columns[1];
    for (int64_t r = 0; r < b->num_rows; ++r) {
      Ref& x = ref[k.IsValid(r) ? Key(IntAt(k, r)) : Key()];
      ++x.rows;
      if (v.IsValid(r)) {
        const int64_t val = v.Value<int64_t>(r);
        ++x.count;
        x.sum += val;
        x.min = std::min(x.min, val);
        x.max = std::max(x.max, val);
      }
    }
  }
  std::map<Key, int64_t> seen;
  for (const auto& b : out.batches) {
    ASSERT_EQ(b->num_columns(), 7) << what;
    const Column& k = *b->columns[0];
    ASSERT_EQ(k.type(), in.schema.field(0).type) << what;
    for (int64_t r = 0; r < b->num_rows; ++r) {
      const Key key = k.IsValid(r) ? Key(IntAt(k, r)) : Key();
      const std::string where = what + " key " + (key ? std::to_string(*key) : "NULL");
      ASSERT_EQ(++seen[key], 1) << "duplicate group, " << where;
      auto it = ref.find(key);
      ASSERT_NE(it, ref.end()) << "group not in the input, " << where;
      const Ref& x = it->second;
      EXPECT_EQ(b->columns[1]->Value<int64_t>(r), x.rows) << where;
      EXPECT_EQ(b->columns[2]->Value<int64_t>(r), x.count) << where;
      if (x.count == 0) {
        for (int c = 3; c < 7; ++c) EXPECT_TRUE(b->columns[c]->IsNull(r)) << where << " col " << c;
        continue;
      }
      ASSERT_TRUE(b->columns[3]->IsValid(r)) << where;
      EXPECT_EQ(b->columns[3]->Value<int64_t>(r), x.sum) << where;
      EXPECT_EQ(b->columns[4]->Value<int64_t>(r), x.min) << where;
      EXPECT_EQ(b->columns[5]->Value<int64_t>(r), x.max) << where;
      EXPECT_NEAR(b->columns[6]->Value<double>(r),
                  static_cast<double>(x.sum) / static_cast<double>(x.count), 1e-6)
          << where;
    }
  }
  EXPECT_EQ(seen.size(), ref.size()) << what << ": number of groups";
}

void RunAndCheck(const DataType& type, const std::vector<Key>& keys, int batches,
                 const std::string& what, std::vector<int> thread_counts = {1, 4}) {
  const auto t = MakeTable(type, keys, batches, keys.size());
  for (int threads : thread_counts) {
    auto out = RunAggregate(t, threads);
    ASSERT_TRUE(out.ok()) << what << ": " << out.status().ToString();
    CheckAgainstReference(*t, *out, what + " threads " + std::to_string(threads));
  }
}

std::vector<Key> UniformKeys(int64_t n, int64_t lo, int64_t hi, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Key> keys(static_cast<size_t>(n));
  for (auto& k : keys) k = lo + static_cast<int64_t>(rng() % static_cast<uint64_t>(hi - lo + 1));
  return keys;
}

TEST(ExecDirectAggregate, NegativeIntegerKeys) {
  RunAndCheck(DataType::Int32(), UniformKeys(40000, -700, 300, 1), 8, "int32 [-700,300]");
  RunAndCheck(DataType::Int32(), UniformKeys(5000, -3, -1, 2), 3, "int32 [-3,-1]");
  RunAndCheck(DataType::Int64(), UniformKeys(30000, -1000000000123, -1000000000001, 3), 5,
              "int64 near -1e12");
  RunAndCheck(DataType::Int8(), UniformKeys(20000, -128, 127, 4), 4, "int8 full range");
  RunAndCheck(DataType::Int16(), UniformKeys(20000, -32768, -32000, 5), 4, "int16 low end");
}

TEST(ExecDirectAggregate, UnsignedKeys) {
  RunAndCheck(DataType::UInt8(), UniformKeys(20000, 0, 255, 6), 4, "uint8 full range");
  RunAndCheck(DataType::UInt16(), UniformKeys(20000, 65000, 65535, 7), 4, "uint16 high end");
  RunAndCheck(DataType::UInt32(), UniformKeys(20000, 4294960000LL, 4294967295LL, 8), 4,
              "uint32 above INT32_MAX");
}

TEST(ExecDirectAggregate, DateKeys) {
  // 1992-01-01 .. 1998-12-31 (TPC-H dates), random and sorted (clustered) order.
  auto keys = UniformKeys(50000, 8035, 10591, 9);
  RunAndCheck(DataType::Date32(), keys, 7, "date random");
  std::sort(keys.begin(), keys.end());
  RunAndCheck(DataType::Date32(), keys, 7, "date sorted");
  RunAndCheck(DataType::Date32(), UniformKeys(10000, -800, -1, 10), 3, "dates before 1970");
}

// Keys clustered in [lo, lo + 50) plus one row at lo + range: the operator indexes directly
// while range < min(2^23, 4 * rows + 4096) and hashes from there on.
std::vector<Key> SparseKeys(int64_t rows, int64_t lo, int64_t range, uint64_t seed) {
  auto keys = UniformKeys(rows, lo, lo + 49, seed);
  keys[rows / 3] = lo;
  keys[rows / 2] = lo + range;
  keys[rows - 1] = lo + range;
  return keys;
}

TEST(ExecDirectAggregate, ValueRangeAtAndPastTheLimit) {
  const int64_t rows = 10000;
  const int64_t limit = 4 * rows + 4096;
  for (int64_t lo : {int64_t{-20000}, int64_t{123}}) {
    for (int64_t range : {limit - 2, limit - 1, limit, limit + 1}) {
      const std::string what = "lo " + std::to_string(lo) + " range " + std::to_string(range);
      RunAndCheck(DataType::Int32(), SparseKeys(rows, lo, range, range), 6, "int32 " + what);
      RunAndCheck(DataType::Int64(), SparseKeys(rows, lo, range, range + 1), 6, "int64 " + what);
    }
  }
}

TEST(ExecDirectAggregate, ValueRangeAtTheAbsoluteCap) {
  // Enough rows that 4 * rows + 4096 passes 2^23: the cap decides.
  const int64_t rows = 2100000;
  const int64_t cap = int64_t{1} << 23;
  for (int64_t range : {cap - 1, cap}) {
    RunAndCheck(DataType::Int64(), SparseKeys(rows, -5000000, range, 11), 4,
                "int64 range " + std::to_string(range), {4});
  }
}

TEST(ExecDirectAggregate, ManyGroupsParallelMerge) {
  // 120000 distinct keys, each twice, shuffled over 16 batches: per-worker tables pass the
  // parallel-merge threshold, so groups are merged partition by partition.
  std::vector<Key> keys;
  for (int64_t k = -60000; k < 60000; ++k) {
    keys.push_back(k);
    keys.push_back(k);
  }
  std::mt19937_64 rng(12);
  std::shuffle(keys.begin(), keys.end(), rng);
  RunAndCheck(DataType::Int32(), keys, 16, "int32 many groups", {1, 3, 4});
  RunAndCheck(DataType::Date32(), keys, 16, "date many groups", {4});
  // Sorted: each worker sees a contiguous slice of the range.
  std::sort(keys.begin(), keys.end());
  RunAndCheck(DataType::Int64(), keys, 16, "int64 many groups sorted", {4});
}

TEST(ExecDirectAggregate, NullKeysMixedIn) {
  auto keys = UniformKeys(30000, -50, 50, 13);
  std::mt19937_64 rng(14);
  for (auto& k : keys) {
    if (rng() % 10 == 0) k.reset();
  }
  RunAndCheck(DataType::Int32(), keys, 6, "int32 with NULL keys");
  // NULLs only in the last batch, and a batch of only NULLs.
  auto late = UniformKeys(30000, -50, 50, 15);
  for (size_t i = 25000; i < late.size(); i += 3) late[i].reset();
  RunAndCheck(DataType::Date32(), late, 6, "date with late NULL keys");
  std::vector<Key> only_nulls(1000);
  RunAndCheck(DataType::Int64(), only_nulls, 2, "only NULL keys");
}

// ---- GroupTable driven directly ----

// Finds or inserts rows of a key column; returns the group ids.
std::vector<uint32_t> Insert(cpu::agg::GroupTable& table, const Column& keys,
                             const std::vector<uint32_t>* rows = nullptr) {
  const cpu::agg::KeyView view = cpu::agg::KeyView::FromColumns({&keys});
  const int64_t n = rows ? static_cast<int64_t>(rows->size()) : keys.length();
  std::vector<uint32_t> out(static_cast<size_t>(n));
  table.FindOrInsert(view, nullptr, nullptr, rows ? rows->data() : nullptr, n, out.data());
  return out;
}

// Checks that equal keys got equal group ids and different keys different ones, across calls
// (gid_of remembers earlier answers), and that the table's stored keys match.
void CheckGroups(const cpu::agg::GroupTable& table, const Column& keys,
                 const std::vector<uint32_t>& gids, const std::vector<uint32_t>* rows,
                 std::map<Key, uint32_t>* gid_of, const std::string& what) {
  for (size_t i = 0; i < gids.size(); ++i) {
    const int64_t r = rows ? (*rows)[i] : static_cast<int64_t>(i);
    const Key key = keys.IsValid(r) ? Key(IntAt(keys, r)) : Key();
    auto [it, inserted] = gid_of->emplace(key, gids[i]);
    ASSERT_EQ(it->second, gids[i]) << what << " row " << r;
  }
  ASSERT_EQ(table.num_groups(), static_cast<int64_t>(gid_of->size())) << what;
  const ColumnPtr stored = table.ExportKey(0);
  for (const auto& [key, g] : *gid_of) {
    ASSERT_LT(g, static_cast<uint32_t>(table.num_groups())) << what;
    EXPECT_EQ(stored->IsValid(g), key.has_value()) << what << " group " << g;
    if (key) EXPECT_EQ(IntAt(*stored, g), *key) << what << " group " << g;
  }
}

TEST(ExecDirectAggregate, GroupTableLeavesDirectModeKeepingGroups) {
  for (const DataType& type : {DataType::Int32(), DataType::Int64(), DataType::Date32(),
                               DataType::Int16(), DataType::UInt32()}) {
    const bool is_unsigned = type.is_unsigned();
    const int64_t lo = is_unsigned ? 1000 : -100;
    cpu::agg::GroupTable table({type});
    table.UseDirectIndex(lo, 201);
    ASSERT_TRUE(table.direct()) << type.ToString();
    std::map<Key, uint32_t> gid_of;
    const auto in_range = UniformKeys(3000, lo, lo + 200, 16);
    const ColumnPtr a = KeyColumn(type, in_range, 0, in_range.size());
    auto g = Insert(table, *a);
    CheckGroups(table, *a, g, nullptr, &gid_of, type.ToString() + " in range");
    EXPECT_TRUE(table.direct());
    // A subset of rows given by index, still in range.
    std::vector<uint32_t> rows;
    for (uint32_t r = 5; r < 3000; r += 7) rows.push_back(r);
    g = Insert(table, *a, &rows);
    CheckGroups(table, *a, g, &rows, &gid_of, type.ToString() + " row subset");
    EXPECT_TRUE(table.direct());
    // A NULL: back to hashing, earlier groups kept.
    std::vector<Key> with_null = UniformKeys(500, lo, lo + 200, 17);
    with_null[250].reset();
    const ColumnPtr b = KeyColumn(type, with_null, 0, with_null.size());
    g = Insert(table, *b);
    EXPECT_FALSE(table.direct()) << type.ToString();
    CheckGroups(table, *b, g, nullptr, &gid_of, type.ToString() + " after NULL");
    // Out-of-range keys and the old keys again, hashed now.
    const ColumnPtr c = KeyColumn(type, UniformKeys(2000, lo + 150, lo + 400, 18), 0, 2000);
    g = Insert(table, *c);
    CheckGroups(table, *c, g, nullptr, &gid_of, type.ToString() + " out of range");
    g = Insert(table, *a);
    CheckGroups(table, *a, g, nullptr, &gid_of, type.ToString() + " old keys again");
  }
}

TEST(ExecDirectAggregate, GroupTableOutOfRangeFirstBatchInsertsNothingTwice) {
  cpu::agg::GroupTable table({DataType::Int32()});
  table.UseDirectIndex(0, 100);
  // In range except the very last row: the range check must come before any insert.
  std::vector<Key> keys = UniformKeys(1000, 0, 99, 19);
  keys.back() = 100;
  const ColumnPtr a = KeyColumn(DataType::Int32(), keys, 0, keys.size());
  std::map<Key, uint32_t> gid_of;
  const auto g = Insert(table, *a);
  EXPECT_FALSE(table.direct());
  CheckGroups(table, *a, g, nullptr, &gid_of, "out of range at the end");
  // Below the range too.
  cpu::agg::GroupTable below({DataType::Int64()});
  below.UseDirectIndex(-10, 20);
  const ColumnPtr b = KeyColumn(DataType::Int64(), {Key(-10), Key(9), Key(-11), Key(-10)}, 0, 4);
  std::map<Key, uint32_t> gid_b;
  CheckGroups(below, *b, Insert(below, *b), nullptr, &gid_b, "below the range");
}

TEST(ExecDirectAggregate, DirectGroupsCarryTheHashKeysHash) {
  for (const DataType& type :
       {DataType::Int8(), DataType::UInt8(), DataType::Int16(), DataType::UInt16(),
        DataType::Int32(), DataType::UInt32(), DataType::Int64(), DataType::Date32()}) {
    const bool is_unsigned = type.is_unsigned();
    const int64_t lo = is_unsigned ? 0 : -60;
    const auto keys = UniformKeys(400, lo, lo + 119, 20);
    const ColumnPtr col = KeyColumn(type, keys, 0, keys.size());
    cpu::agg::GroupTable direct({type});
    direct.UseDirectIndex(lo, 120);
    cpu::agg::GroupTable hashed({type});
    const auto gd = Insert(direct, *col);
    const auto gh = Insert(hashed, *col);
    ASSERT_TRUE(direct.direct());
    ASSERT_FALSE(hashed.direct());
    // A direct table keeps no hashes until asked; then they are the keys' own.
    EXPECT_TRUE(direct.group_hashes().empty());
    direct.EnsureStoredHashes();
    ASSERT_EQ(direct.group_hashes().size(), direct.num_groups());
    const cpu::agg::KeyView view = cpu::agg::KeyView::FromColumns({col.get()});
    std::vector<uint64_t> hashes(keys.size());
    cpu::agg::HashKeys(view, static_cast<int64_t>(keys.size()), hashes.data());
    for (size_t i = 0; i < keys.size(); ++i) {
      EXPECT_EQ(direct.group_hashes()[gd[i]], hashes[i]) << type.ToString() << " row " << i;
      EXPECT_EQ(hashed.group_hashes()[gh[i]], hashes[i]) << type.ToString() << " row " << i;
    }
    // Merging the direct table's groups into a hashed table finds the same groups.
    std::vector<uint32_t> all(static_cast<size_t>(direct.num_groups()));
    for (size_t g = 0; g < all.size(); ++g) all[g] = static_cast<uint32_t>(g);
    std::vector<uint32_t> merged(all.size());
    hashed.FindOrInsert(direct.StoredKeys(), direct.group_hashes().data(),
                        direct.partition_hashes().data(), all.data(),
                        static_cast<int64_t>(all.size()), merged.data());
    EXPECT_EQ(hashed.num_groups(), direct.num_groups()) << type.ToString();
    for (size_t i = 0; i < keys.size(); ++i) {
      EXPECT_EQ(merged[gd[i]], gh[i]) << type.ToString() << " row " << i;
    }
  }
}

}  // namespace
}  // namespace tandem
