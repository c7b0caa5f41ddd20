// GPU Sort, TopN and Limit against their CPU twins (cpu::Sort, cpu::TopN, cpu::Limit) on random
// tables of every type with NULLs, NaN, -0.0, infinities, many duplicates and strings with
// shared prefixes and zero bytes: single keys in all four ASC/DESC x NULLS FIRST/LAST orders,
// mixed multi-key sorts, empty and one-row inputs, and a large input. A row-id column makes the
// comparison check stability too (ties must keep input order on both devices).
#include <random>

#include "column_test_util.h"
#include "gpu_test_util.h"
#include "tandem/exec/cpu/operators.h"
#include "tandem/exec/gpu/gpu_operators.h"

namespace tandem::gpu {
namespace {

using testing::AllTypes;
using testing::ExpectTablesEqual;
using testing::RandomTable;
using testing::WithRowIds;

struct Key {
  int column;
  bool asc;
  bool nulls_first;
};

Schema AllTypesSchema() {
  Schema s;
  int i = 0;
  for (const DataType& t : AllTypes()) s.fields.push_back({"c" + std::to_string(i++), t});
  return s;
}

PlanPtr SortPlan(const Schema& schema, const std::vector<Key>& keys) {
  std::vector<SortKey> sort_keys;
  for (const Key& k : keys) {
    sort_keys.push_back(
        {MakeColumnRef(k.column, schema.field(k.column).type, true, schema.field(k.column).name),
         k.asc, k.nulls_first});
  }
  return MakeSort(MakeValues(schema, {}), std::move(sort_keys));
}

class GpuSortTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = Stream::Create();
    if (s.ok()) stream_ = std::move(*s);
    ctx_.stream = &stream_;
  }

  DeviceBatchPtr Upload(const Table& t) {
    auto d = ToDevice(t, stream_);
    EXPECT_TRUE(d.ok()) << d.status().ToString();
    return d.ok() ? *d : nullptr;
  }
  Table Download(const Result<DeviceBatchPtr>& d) {
    EXPECT_TRUE(d.ok()) << d.status().ToString();
    if (!d.ok()) return Table{};
    auto t = ToHost(*d.value(), stream_);
    EXPECT_TRUE(t.ok()) << t.status().ToString();
    return t.ok() ? *t : Table{};
  }

  void ExpectSortMatches(const Table& input, const std::vector<Key>& keys) {
    PlanPtr sort = SortPlan(input.schema, keys);
    ExecContext cpu_ctx;
    auto expected = cpu::Sort(*sort, input, cpu_ctx);
    ASSERT_TRUE(expected.ok()) << expected.status().ToString();
    DeviceBatchPtr device = Upload(input);
    ASSERT_NE(device, nullptr);
    Table actual = Download(Sort(*sort, *device, ctx_));
    SCOPED_TRACE("keys: " + KeysText(input.schema, keys));
    ExpectTablesEqual(*expected, actual);
  }

  void ExpectTopNMatches(const Table& input, const std::vector<Key>& keys, int64_t limit,
                         int64_t offset) {
    PlanPtr sort = SortPlan(input.schema, keys);
    PlanPtr lim = MakeLimit(sort, limit, offset);
    ExecContext cpu_ctx;
    auto expected = cpu::TopN(*lim, *sort, input, cpu_ctx);
    ASSERT_TRUE(expected.ok()) << expected.status().ToString();
    DeviceBatchPtr device = Upload(input);
    ASSERT_NE(device, nullptr);
    Table actual = Download(TopN(*lim, *sort, *device, ctx_));
    SCOPED_TRACE("limit " + std::to_string(limit) + " offset " + std::to_string(offset) +
                 " keys: " + KeysText(input.schema, keys));
    ExpectTablesEqual(*expected, actual);
  }

  static std::string KeysText(const Schema& schema, const std::vector<Key>& keys) {
    std::string s;
    for (const Key& k : keys) {
      s += schema.field(k.column).type.ToString() + (k.asc ? " ASC" : " DESC") +
           (k.nulls_first ? " NULLS FIRST, " : " NULLS LAST, ");
    }
    return s;
  }

  Stream stream_;
  GpuContext ctx_;
};

TEST_F(GpuSortTest, EveryTypeEveryOrderSingleKey) {
  TANDEM_REQUIRE_GPU();
  std::mt19937_64 rng(11);
  const Table input = WithRowIds(RandomTable(AllTypesSchema(), {700, 333, 5}, rng, 0.15, 200));
  for (int c = 0; c < static_cast<int>(AllTypes().size()); ++c) {
    for (bool asc : {true, false}) {
      for (bool nulls_first : {true, false}) ExpectSortMatches(input, {{c, asc, nulls_first}});
    }
  }
}

TEST_F(GpuSortTest, KeysWithoutNulls) {
  TANDEM_REQUIRE_GPU();
  std::mt19937_64 rng(12);
  const Table input = WithRowIds(RandomTable(AllTypesSchema(), {999}, rng, 0.0, 50));
  for (int c = 0; c < static_cast<int>(AllTypes().size()); ++c) {
    ExpectSortMatches(input, {{c, true, false}});
    ExpectSortMatches(input, {{c, false, true}});
  }
}

TEST_F(GpuSortTest, MultiKeyMixedOrders) {
  TANDEM_REQUIRE_GPU();
  std::mt19937_64 rng(13);
  // Few distinct values: long runs of ties on the leading keys.
  const Table input = WithRowIds(RandomTable(AllTypesSchema(), {1500, 501}, rng, 0.2, 6));
  const std::vector<std::vector<Key>> key_sets = {
      {{3, true, false}, {10, false, true}},
      {{15, true, true}, {0, false, false}, {4, true, false}},
      {{10, false, false}, {15, false, true}, {12, true, true}},
      {{0, true, true}, {1, false, false}, {9, true, false}, {16, false, true}, {11, true, true}},
      {{12, false, false}, {14, true, true}},
      {{8, true, true},
       {5, false, false},
       {6, true, true},
       {7, false, false},
       {2, true, true},
       {13, false, true}},
  };
  for (const auto& keys : key_sets) ExpectSortMatches(input, keys);
}

TEST_F(GpuSortTest, EmptyAndOneRow) {
  TANDEM_REQUIRE_GPU();
  std::mt19937_64 rng(14);
  const std::vector<Key> keys = {{15, true, false}, {10, false, true}, {4, true, true}};
  Table empty;
  empty.schema = AllTypesSchema();
  ExpectSortMatches(WithRowIds(empty), keys);
  ExpectSortMatches(WithRowIds(RandomTable(AllTypesSchema(), {1}, rng, 0.5)), keys);
  ExpectSortMatches(WithRowIds(RandomTable(AllTypesSchema(), {2}, rng, 0.5)), keys);
  ExpectTopNMatches(WithRowIds(empty), keys, 5, 0);
}

TEST_F(GpuSortTest, LargeInput) {
  TANDEM_REQUIRE_GPU();
  std::mt19937_64 rng(15);
  Schema s;
  s.fields = {{"k", DataType::Int32()},
              {"f", DataType::Float64()},
              {"s", DataType::String()},
              {"d", DataType::Decimal(30, 4)}};
  const Table input = WithRowIds(RandomTable(s, {400000, 400000, 200001}, rng, 0.05, 100000));
  ExpectSortMatches(input, {{0, true, false}, {1, false, true}});
  ExpectSortMatches(input, {{2, true, true}, {3, false, false}});
  ExpectTopNMatches(input, {{1, true, false}, {2, false, false}}, 100, 7);
}

TEST_F(GpuSortTest, TopNLimitsAndOffsets) {
  TANDEM_REQUIRE_GPU();
  std::mt19937_64 rng(16);
  const Table input = WithRowIds(RandomTable(AllTypesSchema(), {2500, 100}, rng, 0.2, 30));
  const std::vector<std::vector<Key>> key_sets = {{{10, true, false}},
                                                  {{15, false, true}, {3, true, false}},
                                                  {{12, true, true}, {9, false, false}}};
  for (const auto& keys : key_sets) {
    for (auto [limit, offset] : std::vector<std::pair<int64_t, int64_t>>{{0, 0},
                                                                         {1, 0},
                                                                         {10, 0},
                                                                         {10, 5},
                                                                         {100, 2590},
                                                                         {7000, 3},
                                                                         {-1, 10},
                                                                         {5, 9999},
                                                                         {5, -3}}) {
      ExpectTopNMatches(input, keys, limit, offset);
    }
  }
}

TEST_F(GpuSortTest, LimitMatchesCpu) {
  TANDEM_REQUIRE_GPU();
  std::mt19937_64 rng(17);
  const Table input = WithRowIds(RandomTable(AllTypesSchema(), {37, 0, 91, 4}, rng, 0.3));
  for (auto [limit, offset] : std::vector<std::pair<int64_t, int64_t>>{
           {-1, 0}, {0, 0}, {1, 0}, {13, 0}, {13, 29}, {500, 7}, {-1, 131}, {-1, 132}, {3, 200}}) {
    PlanPtr lim = MakeLimit(MakeValues(input.schema, {}), limit, offset);
    ExecContext cpu_ctx;
    auto expected = cpu::Limit(*lim, input, cpu_ctx);
    ASSERT_TRUE(expected.ok());
    DeviceBatchPtr device = Upload(input);
    ASSERT_NE(device, nullptr);
    SCOPED_TRACE("limit " + std::to_string(limit) + " offset " + std::to_string(offset));
    ExpectTablesEqual(*expected, Download(Limit(*lim, *device, ctx_)));
  }
  PlanPtr negative = MakeLimit(MakeValues(input.schema, {}), 5, -1);
  DeviceBatchPtr device = Upload(input);
  auto res = Limit(*negative, *device, ctx_);
  ASSERT_FALSE(res.ok());
  EXPECT_EQ(res.status().code(), StatusCode::kInvalid);
}

TEST_F(GpuSortTest, ExpressionKeysAreUnsupported) {
  TANDEM_REQUIRE_GPU();
  std::mt19937_64 rng(18);
  const Table input = RandomTable(AllTypesSchema(), {10}, rng, 0.1);
  ExprPtr col = MakeColumnRef(4, DataType::Int64(), true, "c4");
  ExprPtr neg = MakeCall("negate", {col}, DataType::Int64(), true);
  PlanPtr sort = MakeSort(MakeValues(input.schema, {}), {{neg, true, false}});
  EXPECT_NE(SortUnsupported(*sort).find("sort key expression"), std::string::npos);
  DeviceBatchPtr device = Upload(input);
  auto res = Sort(*sort, *device, ctx_);
  ASSERT_FALSE(res.ok());
  EXPECT_EQ(res.status().code(), StatusCode::kUnsupported);
}

}  // namespace
}  // namespace tandem::gpu
