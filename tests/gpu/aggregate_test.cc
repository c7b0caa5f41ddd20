// GPU hash aggregate against its CPU twin (cpu::HashAggregate) on random data: NULL keys and
// values, NaN / -0.0 / 0.0 float keys, string and date keys, decimals (narrow and wide), every
// aggregate kind the GPU runs (count, sum, avg, min, max, stddev/variance, bool_and/or,
// DISTINCT, FILTER clauses), a fused filter, empty input, one row, and a million groups.
// Groups are matched by key; exact values must agree exactly, double results to 1e-9 relative.
// Few groups (at most AggregateFewGroupsLimit()) take the shared-memory path: those cases run
// with it on and off (aggregate_tuning.h) and check that it was taken.
#include "tandem/expr/aggregate.h"

#include <cmath>
#include <map>
#include <random>

#include "gpu_test_util.h"
#include "tandem/column/column_builder.h"
#include "tandem/column/take.h"
#include "tandem/exec/cpu/hash_aggregate.h"
#include "tandem/exec/cpu/operators.h"
#include "tandem/exec/gpu/aggregate_tuning.h"
#include "tandem/exec/gpu/gpu_operators.h"

namespace tandem::gpu {
namespace {

// Columns: 0 k_int int32, 1 k_str string, 2 k_dbl float64 (NaN, +-0.0), 3 k_date date32,
// 4 v_int int64, 5 v_dec decimal(12,2), 6 v_wide decimal(30,4), 7 v_dbl float64, 8 flag bool,
// 9 v_str string, 10 k_big int64 (about rows/2 distinct values).
Table MakeTable(int64_t rows, int key_range, uint64_t seed) {
  std::mt19937_64 rng(seed);
  Table t;
  t.schema.fields = {{"k_int", DataType::Int32()},         {"k_str", DataType::String()},
                     {"k_dbl", DataType::Float64()},       {"k_date", DataType::Date32()},
                     {"v_int", DataType::Int64()},         {"v_dec", DataType::Decimal(12, 2)},
                     {"v_wide", DataType::Decimal(30, 4)}, {"v_dbl", DataType::Float64()},
                     {"flag", DataType::Bool()},           {"v_str", DataType::String()},
                     {"k_big", DataType::Int64()}};
  std::vector<ColumnBuilder> cols;
  for (const auto& f : t.schema.fields) cols.emplace_back(f.type);
  auto chance = [&](int pct) { return static_cast<int>(rng() % 100) < pct; };
  const double special[] = {NAN, -0.0, 0.0, 1.5, -2.25};
  for (int64_t r = 0; r < rows; ++r) {
    if (chance(10)) {
      cols[0].AppendNull();
    } else {
      cols[0].Append<int32_t>(static_cast<int32_t>(rng() % key_range) - key_range / 2);
    }
    if (chance(5)) {
      cols[1].AppendNull();
    } else {
      cols[1].AppendString(rng() % 4 == 0 ? "" : "key-" + std::to_string(rng() % key_range));
    }
    if (chance(5)) {
      cols[2].AppendNull();
    } else {
      cols[2].Append<double>(special[rng() % 5]);
    }
    cols[3].Append<int32_t>(static_cast<int32_t>(rng() % 5) + 19000);
    if (chance(10)) {
      cols[4].AppendNull();
    } else {
      cols[4].Append<int64_t>(static_cast<int64_t>(rng() % 2000001) - 1000000);
    }
    if (chance(10)) {
      cols[5].AppendNull();
    } else {
      cols[5].Append<int64_t>(static_cast<int64_t>(rng() % 200000001) - 100000000);
    }
    if (chance(10)) {
      cols[6].AppendNull();
    } else {
      const int128_t big = static_cast<int128_t>(rng() % 1000000000000ULL) * 1000000000 +
                           static_cast<int128_t>(rng() % 1000000000);
      cols[6].Append<int128_t>(rng() % 2 ? big : -big);
    }
    if (chance(10)) {
      cols[7].AppendNull();
    } else {
      cols[7].Append<double>(static_cast<double>(rng() % 100000) / 7.0 - 5000);
    }
    if (chance(10)) {
      cols[8].AppendNull();
    } else {
      cols[8].AppendBool(rng() % 3 != 0);
    }
    if (chance(10)) {
      cols[9].AppendNull();
    } else {
      cols[9].AppendString(std::string(rng() % 5, static_cast<char>('a' + rng() % 26)));
    }
    cols[10].Append<int64_t>(static_cast<int64_t>(rng() % std::max<int64_t>(1, rows / 2)));
  }
  auto batch = std::make_shared<Batch>();
  batch->schema = t.schema;
  batch->num_rows = rows;
  for (auto& c : cols) batch->columns.push_back(c.Finish());
  t.batches.push_back(batch);
  return t;
}

ExprPtr Col(const Table& t, int i) {
  return MakeColumnRef(i, t.schema.field(i).type, true, t.schema.field(i).name);
}

AggregateCall Agg(const Table& t, AggregateKind kind, int col, bool distinct = false,
                  ExprPtr filter = nullptr) {
  AggregateCall a;
  a.kind = kind;
  if (col >= 0) a.arg = Col(t, col);
  auto type = AggregateResultType(kind, col >= 0 ? t.schema.field(col).type : DataType::Int64());
  EXPECT_TRUE(type.ok());
  a.type = *type;
  a.nullable = kind != AggregateKind::kCount && kind != AggregateKind::kCountStar;
  a.name = std::string(AggregateKindName(kind)) + "(" +
           (col >= 0 ? t.schema.field(col).name : "*") + ")" + (distinct ? " distinct" : "");
  a.distinct = distinct;
  a.filter = std::move(filter);
  return a;
}

std::vector<AggregateCall> AllAggs(const Table& t) {
  using K = AggregateKind;
  std::vector<AggregateCall> a = {
      Agg(t, K::kCountStar, -1),
      Agg(t, K::kCount, 4),
      Agg(t, K::kSum, 4),
      Agg(t, K::kSum, 5),
      Agg(t, K::kSum, 6),
      Agg(t, K::kSum, 7),
      Agg(t, K::kAvg, 4),
      Agg(t, K::kAvg, 5),
      Agg(t, K::kAvg, 6),
      Agg(t, K::kAvg, 7),
      Agg(t, K::kMin, 4),
      Agg(t, K::kMax, 5),
      Agg(t, K::kMin, 6),
      Agg(t, K::kMax, 7),
      Agg(t, K::kMin, 9),
      Agg(t, K::kMax, 9),
      Agg(t, K::kMin, 8),
      Agg(t, K::kMax, 3),
      Agg(t, K::kStddevSamp, 7),
      Agg(t, K::kVarPop, 5),
      Agg(t, K::kBoolAnd, 8),
      Agg(t, K::kBoolOr, 8),
      Agg(t, K::kCount, 4, true),
      Agg(t, K::kSum, 5, true),
      Agg(t, K::kCount, 9, true),
      Agg(t, K::kSum, 4, false, Col(t, 8)),
      Agg(t, K::kCount, 9, true, Col(t, 8)),
  };
  return a;
}

PlanPtr MakeNode(const Table& t, const std::vector<int>& keys, std::vector<AggregateCall> aggs) {
  auto values = MakeValues(t.schema, {});
  std::vector<ExprPtr> key_exprs;
  std::vector<std::string> names;
  for (int k : keys) {
    key_exprs.push_back(Col(t, k));
    names.push_back(t.schema.field(k).name);
  }
  return MakeAggregate(values, key_exprs, names, std::move(aggs));
}

// Output rows keyed by the first `num_keys` columns' text.
std::map<std::string, std::vector<Value>> Rows(const Table& out, int num_keys) {
  std::map<std::string, std::vector<Value>> rows;
  for (const auto& b : out.batches) {
    for (int64_t r = 0; r < b->num_rows; ++r) {
      std::vector<Value> row;
      std::string key;
      for (int c = 0; c < b->num_columns(); ++c) {
        row.push_back(GetValue(*b->columns[c], r));
        // A group of -0.0 and 0.0 keys shows either one (the CPU's first row, the GPU's any row).
        if (row.back().type.is_floating() && row.back().f64 == 0) row.back().f64 = 0.0;
        if (c < num_keys) key += (row.back().is_null ? "<null>" : row.back().ToString()) + "|";
      }
      EXPECT_TRUE(rows.emplace(key, row).second) << "duplicate group " << key;
    }
  }
  return rows;
}

bool SameValue(const Value& a, const Value& b) {
  if (a.is_null || b.is_null) return a.is_null == b.is_null;
  if (a.type.id == TypeId::kFloat64 || a.type.id == TypeId::kFloat32) {
    if (std::isnan(a.f64) || std::isnan(b.f64)) return std::isnan(a.f64) && std::isnan(b.f64);
    // Sums in another order: relative 1e-9, or absolute 1e-6 for sums that cancel to near 0.
    return std::fabs(a.f64 - b.f64) <= 1e-9 * std::fabs(a.f64) + 1e-6;
  }
  return a.ToString() == b.ToString();
}

void ExpectSameGroups(const Table& cpu, const Table& gpu, int num_keys) {
  ASSERT_EQ(cpu.num_rows(), gpu.num_rows());
  const auto want = Rows(cpu, num_keys);
  const auto got = Rows(gpu, num_keys);
  ASSERT_EQ(want.size(), got.size());
  int reported = 0;
  for (const auto& [key, row] : want) {
    auto it = got.find(key);
    if (it == got.end()) {
      std::string extra;  // what the GPU has instead, to tell a wrong key from a lost group
      for (const auto& [k, r] : got) {
        if (!want.count(k) && extra.size() < 400) extra += " " + k;
      }
      FAIL() << "GPU lacks group " << key << "; groups only the GPU has:" << extra;
    }
    ASSERT_EQ(row.size(), it->second.size());
    for (size_t c = 0; c < row.size(); ++c) {
      if (!SameValue(row[c], it->second[c]) && reported++ < 10) {
        ADD_FAILURE() << "group " << key << " column " << cpu.schema.field(c).name << ": CPU "
                      << row[c].ToString() << " GPU " << it->second[c].ToString();
      }
    }
  }
}

class GpuAggregate : public ::testing::Test {
 protected:
  void SetUp() override {
    TANDEM_REQUIRE_GPU();
    auto s = Stream::Create();
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    stream_ = std::make_unique<Stream>(std::move(*s));
  }

  Result<Table> RunGpu(const PlanNode& node, const Table& input, const Expr* filter = nullptr) {
    TANDEM_ASSIGN_OR_RAISE(auto dev, ToDevice(input, *stream_));
    GpuContext ctx;
    ctx.stream = stream_.get();
    ctx.eval = eval_;
    TANDEM_ASSIGN_OR_RAISE(auto out, HashAggregate(node, filter, *dev, ctx));
    return ToHost(*out, *stream_);
  }

  void Compare(const Table& t, const std::vector<int>& keys, std::vector<AggregateCall> aggs) {
    auto node = MakeNode(t, keys, std::move(aggs));
    ASSERT_EQ(AggregateUnsupported(*node), "");
    ExecContext ctx;
    auto cpu = cpu::HashAggregate(*node, t, ctx);
    ASSERT_TRUE(cpu.ok()) << cpu.status().ToString();
    auto gpu = RunGpu(*node, t);
    ASSERT_TRUE(gpu.ok()) << gpu.status().ToString();
    ExpectSameGroups(*cpu, *gpu, static_cast<int>(keys.size()));
  }

  // The CPU and the GPU both fail on `t`, in the same words.
  void ExpectSameError(const PlanNode& node, const Table& t) {
    ExecContext ctx;
    auto cpu = cpu::HashAggregate(node, t, ctx);
    auto gpu = RunGpu(node, t);
    ASSERT_FALSE(cpu.ok());
    ASSERT_FALSE(gpu.ok());
    EXPECT_EQ(cpu.status().message(), gpu.status().message());
  }

  std::unique_ptr<Stream> stream_;
  EvalContext eval_;  // the GPU run's (which kernels: interpreted, generated, fused)
};

TEST_F(GpuAggregate, EveryAggregateOverKeySets) {
  TANDEM_REQUIRE_GPU();
  const Table t = MakeTable(20000, 50, 1);
  for (const auto& keys :
       std::vector<std::vector<int>>{{}, {0}, {1}, {2}, {3}, {0, 1, 3}, {2, 1}, {8}, {10}}) {
    SCOPED_TRACE(::testing::PrintToString(keys));
    Compare(t, keys, AllAggs(t));
  }
}

// Calls fn for tables of 0, 1 and 2 rows (random from `seed` on) with no, one and two keys.
template <typename Fn>
void ForTinyInputs(uint64_t seed, Fn&& fn) {
  for (int64_t rows : {0, 1, 2}) {
    const Table t = MakeTable(rows, 5, seed + rows);
    for (const auto& keys : std::vector<std::vector<int>>{{}, {0}, {1, 2}}) {
      SCOPED_TRACE(std::to_string(rows) + " rows, keys " + ::testing::PrintToString(keys));
      fn(t, keys);
    }
  }
}

TEST_F(GpuAggregate, EmptyAndOneRow) {
  TANDEM_REQUIRE_GPU();
  ForTinyInputs(
      2, [&](const Table& t, const std::vector<int>& keys) { Compare(t, keys, AllAggs(t)); });
}

TEST_F(GpuAggregate, MillionsOfGroups) {
  TANDEM_REQUIRE_GPU();
  const Table t = MakeTable(4000000, 1000, 3);
  using K = AggregateKind;
  Compare(t, {10},
          {Agg(t, K::kCountStar, -1), Agg(t, K::kSum, 4), Agg(t, K::kAvg, 5), Agg(t, K::kMax, 9),
           Agg(t, K::kMin, 7)});
  Compare(t, {10, 1}, {Agg(t, K::kCountStar, -1), Agg(t, K::kSum, 6)});
}

TEST_F(GpuAggregate, FewGroupsManyRows) {
  TANDEM_REQUIRE_GPU();
  const Table t = MakeTable(3000000, 4, 4);
  Compare(t, {8}, AllAggs(t));
  Compare(t, {}, AllAggs(t));
}

TEST_F(GpuAggregate, FusedFilter) {
  TANDEM_REQUIRE_GPU();
  const Table t = MakeTable(50000, 20, 5);
  auto node = MakeNode(t, {0, 1}, AllAggs(t));
  auto pred = MakeCall("lt", {Col(t, 4), MakeLiteral(Value::Int64(1000))}, DataType::Bool(), true);
  ExecContext ctx;
  auto cpu = cpu::HashAggregateFiltered(*node, *pred, t, ctx, nullptr);
  ASSERT_TRUE(cpu.ok()) << cpu.status().ToString();
  auto gpu = RunGpu(*node, t, pred.get());
  ASSERT_TRUE(gpu.ok()) << gpu.status().ToString();
  ExpectSameGroups(*cpu, *gpu, 2);
}

TEST_F(GpuAggregate, IntegerSumOverflowIsAnError) {
  TANDEM_REQUIRE_GPU();
  Table t;
  t.schema.fields = {{"k", DataType::Int32()}, {"v", DataType::Int64()}};
  ColumnBuilder k(DataType::Int32()), v(DataType::Int64());
  for (int i = 0; i < 4; ++i) {
    k.Append<int32_t>(i % 2);
    v.Append<int64_t>(INT64_MAX / 2 + 10);
  }
  auto b = std::make_shared<Batch>();
  b->schema = t.schema;
  b->num_rows = 4;
  b->columns = {k.Finish(), v.Finish()};
  t.batches.push_back(b);
  auto node = MakeNode(t, {0}, {Agg(t, AggregateKind::kSum, 1)});
  ExpectSameError(*node, t);
  ExecContext ctx;
  // Intermediate overflow that cancels out is not an error (exact 128-bit accumulation).
  ColumnBuilder k2(DataType::Int32()), v2(DataType::Int64());
  for (int64_t x : {INT64_MAX, INT64_MAX, INT64_MIN, INT64_MIN + 5}) {
    k2.Append<int32_t>(0);
    v2.Append<int64_t>(x);
  }
  b->columns = {k2.Finish(), v2.Finish()};
  auto cpu2 = cpu::HashAggregate(*node, t, ctx);
  auto gpu2 = RunGpu(*node, t);
  ASSERT_TRUE(cpu2.ok()) << cpu2.status().ToString();
  ASSERT_TRUE(gpu2.ok()) << gpu2.status().ToString();
  ExpectSameGroups(*cpu2, *gpu2, 1);
}

// ---- the few-groups path ---------------------------------------------------------------------

// Sets the few-groups limit for a scope.
class FewGroupsLimit {
 public:
  explicit FewGroupsLimit(int64_t limit) : saved_(AggregateFewGroupsLimit()) {
    SetAggregateFewGroupsLimit(limit);
  }
  ~FewGroupsLimit() { SetAggregateFewGroupsLimit(saved_); }

 private:
  int64_t saved_;
};

// One column of a table as rows of a single type (for the overflow cases).
Table OneColumnTable(const DataType& key_type, const std::vector<int32_t>& keys,
                     const DataType& value_type, const std::vector<int128_t>& values) {
  Table t;
  t.schema.fields = {{"k", key_type}, {"v", value_type}};
  ColumnBuilder k(key_type), v(value_type);
  for (size_t i = 0; i < values.size(); ++i) {
    k.Append<int32_t>(keys[i % keys.size()]);
    if (value_type.is_wide_decimal()) {
      v.Append<int128_t>(values[i]);
    } else {
      v.Append<int64_t>(static_cast<int64_t>(values[i]));
    }
  }
  auto b = std::make_shared<Batch>();
  b->schema = t.schema;
  b->num_rows = static_cast<int64_t>(values.size());
  b->columns = {k.Finish(), v.Finish()};
  t.batches.push_back(b);
  return t;
}

class GpuAggregateFewGroups : public GpuAggregate {
 protected:
  // Compares with the CPU twin on the few-groups path (which must be taken when there are rows)
  // and on the general path.
  void CompareBothPaths(const Table& t, const std::vector<int>& keys,
                        const std::vector<AggregateCall>& aggs) {
    {
      SCOPED_TRACE("few-groups path");
      const int64_t before = AggregateFewGroupsFolds();
      Compare(t, keys, aggs);
      if (t.num_rows() > 0) {
        EXPECT_GT(AggregateFewGroupsFolds(), before) << "fast path not taken";
      }
    }
    {
      SCOPED_TRACE("general path");
      FewGroupsLimit off(0);
      const int64_t before = AggregateFewGroupsFolds();
      Compare(t, keys, aggs);
      EXPECT_EQ(AggregateFewGroupsFolds(), before);
    }
  }

  // Both paths fail with the CPU's message.
  void ExpectSameError(const Table& t, const std::vector<int>& keys,
                       const std::vector<AggregateCall>& aggs) {
    auto node = MakeNode(t, keys, aggs);
    ExecContext ctx;
    auto cpu = cpu::HashAggregate(*node, t, ctx);
    ASSERT_FALSE(cpu.ok());
    for (int64_t limit : {kDefaultAggregateFewGroupsLimit, int64_t{0}}) {
      FewGroupsLimit scope(limit);
      auto gpu = RunGpu(*node, t);
      ASSERT_FALSE(gpu.ok()) << "limit " << limit;
      EXPECT_EQ(cpu.status().message(), gpu.status().message()) << "limit " << limit;
    }
  }
};

TEST_F(GpuAggregateFewGroups, OneTwoFourHundredGroups) {
  TANDEM_REQUIRE_GPU();
  // k_int takes key_range values and NULL: 2, 4, 100 and 128 (the limit) groups.
  for (int key_range : {1, 3, 99, 127}) {
    SCOPED_TRACE("key range " + std::to_string(key_range));
    const Table t = MakeTable(300000, key_range, 10 + key_range);
    CompareBothPaths(t, {0}, AllAggs(t));
    if (key_range == 1) CompareBothPaths(t, {}, AllAggs(t));  // one group
  }
  // Q1's shape: two string keys.
  const Table t = MakeTable(300000, 2, 20);
  CompareBothPaths(t, {1, 8}, AllAggs(t));
}

TEST_F(GpuAggregateFewGroups, AboveTheLimitTakesTheGeneralPath) {
  TANDEM_REQUIRE_GPU();
  const Table t = MakeTable(50000, 200, 21);
  const int64_t before = AggregateFewGroupsFolds();
  Compare(t, {0}, AllAggs(t));
  EXPECT_EQ(AggregateFewGroupsFolds(), before);
}

TEST_F(GpuAggregateFewGroups, EmptyAndTinyInputs) {
  TANDEM_REQUIRE_GPU();
  for (int64_t rows : {0, 1, 31, 33}) {
    const Table t = MakeTable(rows, 3, 30 + rows);
    for (const auto& keys : std::vector<std::vector<int>>{{}, {0}, {1, 8}}) {
      SCOPED_TRACE(std::to_string(rows) + " rows, keys " + ::testing::PrintToString(keys));
      CompareBothPaths(t, keys, AllAggs(t));
    }
  }
}

TEST_F(GpuAggregateFewGroups, AllNullArguments) {
  TANDEM_REQUIRE_GPU();
  Table t = MakeTable(100000, 3, 40);
  auto& b = *t.batches[0];
  for (int c = 4; c <= 9; ++c) {
    ColumnBuilder nulls(t.schema.field(c).type);
    nulls.AppendNulls(b.num_rows);
    b.columns[c] = nulls.Finish();
  }
  CompareBothPaths(t, {0}, AllAggs(t));
  CompareBothPaths(t, {}, AllAggs(t));
}

TEST_F(GpuAggregateFewGroups, IntegerOverflowAcrossBlocks) {
  TANDEM_REQUIRE_GPU();
  const int64_t n = 1 << 20;
  std::vector<int128_t> big(n, INT64_MAX / 2 + 10);
  const Table over = OneColumnTable(DataType::Int32(), {0, 1}, DataType::Int64(), big);
  ExpectSameError(over, {0}, {Agg(over, AggregateKind::kSum, 1)});
  ExpectSameError(over, {}, {Agg(over, AggregateKind::kSum, 1)});
  // Far beyond 64 bits on the way, back in range at the end: exact, no error.
  std::vector<int128_t> cancel(n);
  for (int64_t i = 0; i < n; ++i) cancel[i] = i < n / 2 ? INT64_MAX : INT64_MIN;
  cancel[n - 1] = 5;  // sum: 2^63 - n/2 + 5, within int64
  const Table ok = OneColumnTable(DataType::Int32(), {0}, DataType::Int64(), cancel);
  CompareBothPaths(ok, {0}, {Agg(ok, AggregateKind::kSum, 1), Agg(ok, AggregateKind::kAvg, 1)});
  CompareBothPaths(ok, {}, {Agg(ok, AggregateKind::kSum, 1)});
}

TEST_F(GpuAggregateFewGroups, WideDecimalOverflowAcrossBlocks) {
  TANDEM_REQUIRE_GPU();
  const int64_t n = 1 << 20;
  const DataType d38 = DataType::Decimal(38, 0);
  int128_t e37 = 1;
  for (int i = 0; i < 37; ++i) e37 *= 10;
  // Beyond 128 bits.
  std::vector<int128_t> big(n, e37);
  const Table over = OneColumnTable(DataType::Int32(), {0, 1, 2}, d38, big);
  ExpectSameError(over, {0}, {Agg(over, AggregateKind::kSum, 1)});
  ExpectSameError(over, {}, {Agg(over, AggregateKind::kAvg, 1)});
  // Within 128 bits but beyond 38 digits.
  std::vector<int128_t> digits(n, 1);
  digits[5] = 6 * e37;
  digits[n - 3] = 6 * e37;
  const Table prec = OneColumnTable(DataType::Int32(), {0}, d38, digits);
  ExpectSameError(prec, {0}, {Agg(prec, AggregateKind::kSum, 1)});
  // Past 128 bits in block and warp partials (the first half positive, the second negative),
  // exact at the end. The CPU twin adds in 128 bits and fails on such intermediates, so the two
  // GPU paths are compared with each other and with the exact answer.
  std::vector<int128_t> cancel(n);
  for (int64_t i = 0; i < n; ++i) cancel[i] = (i < n / 2 ? 9 : -9) * e37;
  cancel[11] = 12345;
  const Table ok = OneColumnTable(DataType::Int32(), {0, 1}, d38, cancel);
  auto node =
      MakeNode(ok, {0}, {Agg(ok, AggregateKind::kSum, 1), Agg(ok, AggregateKind::kCount, 1)});
  std::map<std::string, std::vector<Value>> results[2];
  for (int path = 0; path < 2; ++path) {
    FewGroupsLimit scope(path == 0 ? kDefaultAggregateFewGroupsLimit : 0);
    auto gpu = RunGpu(*node, ok);
    ASSERT_TRUE(gpu.ok()) << gpu.status().ToString();
    results[path] = Rows(*gpu, 1);
  }
  ASSERT_EQ(results[0].size(), 2u);
  ASSERT_EQ(results[1].size(), 2u);
  for (const auto& [key, row] : results[0]) {
    ASSERT_EQ(results[1].count(key), 1u);
    for (size_t c = 0; c < row.size(); ++c) {
      EXPECT_EQ(row[c].ToString(), results[1][key][c].ToString()) << key;
    }
  }
  // Rows alternate between the keys: key 0 has rows 0, 2, ... (row 11 is odd: key 1), so its
  // positives and negatives cancel exactly; key 1 keeps 12345 - 9e37 instead of 9e37.
  EXPECT_TRUE(results[0]["0|"][1].DecimalUnscaled() == 0) << results[0]["0|"][1].ToString();
  EXPECT_TRUE(results[0]["1|"][1].DecimalUnscaled() == int128_t{12345} - 9 * e37)
      << results[0]["1|"][1].ToString();
}

// ---- fused aggregate kernels (exec/gpu/fused_aggregate_gen.h) ------------------------------

// Generated kernels on (compiled before the first launch), counting launches.
class GpuKernelFusedAggregate : public GpuAggregate {
 protected:
  void SetUp() override {
    GpuAggregate::SetUp();
    eval_.gpu_kernels = GpuKernels::kGenerateWait;
    eval_.kernel_cache_dir = ::testing::TempDir() + "tandem-fused-kernels";
    eval_.gpu_launches = std::make_shared<GpuExpressionLaunches>();
  }
  int64_t Fused() const { return eval_.gpu_launches->fused.load(); }

  // The CPU's answer and the GPU's, with the filter (may be null) fused in; the GPU must run a
  // fused kernel (or, for no rows, none).
  void CompareFused(const Table& t, const std::vector<int>& keys, std::vector<AggregateCall> aggs,
                    const ExprPtr& filter) {
    auto node = MakeNode(t, keys, std::move(aggs));
    ASSERT_EQ(AggregateUnsupported(*node), "");
    ExecContext ctx;
    auto cpu = filter ? cpu::HashAggregateFiltered(*node, *filter, t, ctx, nullptr)
                      : cpu::HashAggregate(*node, t, ctx);
    ASSERT_TRUE(cpu.ok()) << cpu.status().ToString();
    const int64_t before = Fused();
    auto gpu = RunGpu(*node, t, filter.get());
    ASSERT_TRUE(gpu.ok()) << gpu.status().ToString();
    if (t.num_rows() > 0) EXPECT_GT(Fused(), before) << "no fused kernel ran";
    ExpectSameGroups(*cpu, *gpu, static_cast<int>(keys.size()));
  }
};

// Counts and sums (exact over int64, decimal(12,2), decimal(30,4); doubles), over columns and
// over expressions.
std::vector<AggregateCall> FusableAggs(const Table& t) {
  using K = AggregateKind;
  std::vector<AggregateCall> a = {
      Agg(t, K::kCountStar, -1), Agg(t, K::kCount, 4), Agg(t, K::kCount, 9), Agg(t, K::kSum, 4),
      Agg(t, K::kSum, 5),        Agg(t, K::kSum, 6),   Agg(t, K::kSum, 7),   Agg(t, K::kAvg, 4),
      Agg(t, K::kAvg, 5),        Agg(t, K::kAvg, 6),   Agg(t, K::kAvg, 7),
  };
  AggregateCall plus = Agg(t, K::kSum, 4);
  plus.arg = MakeCall("add", {Col(t, 4), MakeLiteral(Value::Int64(7))}, DataType::Int64(), true);
  plus.name = "sum(v_int + 7)";
  a.push_back(plus);
  return a;
}

TEST_F(GpuKernelFusedAggregate, MatchesTheCpuWithAndWithoutKeysAndFilters) {
  TANDEM_REQUIRE_GPU();
  const Table t = MakeTable(60000, 30, 21);
  // Keeps about 60 % of the rows (flags as the group table's mask), and about 5 % (the kept rows
  // gathered first).
  const ExprPtr pred =
      MakeCall("lt", {Col(t, 4), MakeLiteral(Value::Int64(200000))}, DataType::Bool(), true);
  const ExprPtr selective =
      MakeCall("lt", {Col(t, 4), MakeLiteral(Value::Int64(-900000))}, DataType::Bool(), true);
  for (const auto& keys : std::vector<std::vector<int>>{{}, {0}, {1}, {2}, {8}, {0, 1, 3}, {10}}) {
    for (const ExprPtr& filter : {ExprPtr(), pred, selective}) {
      SCOPED_TRACE(::testing::PrintToString(keys) + (filter ? " " + filter->ToString() : ""));
      CompareFused(t, keys, FusableAggs(t), filter);
    }
  }
}

TEST_F(GpuKernelFusedAggregate, FewGroupsAndTheGeneralPathAgree) {
  TANDEM_REQUIRE_GPU();
  const Table t = MakeTable(2000000, 4, 22);
  for (int64_t limit : {kDefaultAggregateFewGroupsLimit, int64_t{0}}) {
    FewGroupsLimit scope(limit);
    SCOPED_TRACE("few-groups limit " + std::to_string(limit));
    CompareFused(t, {8}, FusableAggs(t), nullptr);
    CompareFused(t, {}, FusableAggs(t), nullptr);
  }
}

TEST_F(GpuKernelFusedAggregate, EmptyAndOneRowInputs) {
  TANDEM_REQUIRE_GPU();
  ForTinyInputs(23, [&](const Table& t, const std::vector<int>& keys) {
    CompareFused(t, keys, FusableAggs(t), nullptr);
  });
}

TEST_F(GpuKernelFusedAggregate, ARowErrorIsReportedInTheCpusWords) {
  TANDEM_REQUIRE_GPU();
  const Table t = MakeTable(20000, 10, 24);
  AggregateCall overflow = Agg(t, AggregateKind::kSum, 4);
  overflow.arg = MakeCall("multiply", {Col(t, 4), MakeLiteral(Value::Int64(INT64_MAX / 2))},
                          DataType::Int64(), true);
  overflow.name = "sum(v_int * big)";
  for (const auto& keys : std::vector<std::vector<int>>{{}, {0}}) {
    ExpectSameError(*MakeNode(t, keys, {overflow}), t);
  }
}

TEST_F(GpuKernelFusedAggregate, OtherAggregatesAreNotFused) {
  TANDEM_REQUIRE_GPU();
  const Table t = MakeTable(5000, 10, 25);
  const int64_t before = Fused();
  Compare(t, {0}, AllAggs(t));  // min, max, DISTINCT, FILTER ...: the unfused path
  EXPECT_EQ(Fused(), before);
}

}  // namespace
}  // namespace tandem::gpu
