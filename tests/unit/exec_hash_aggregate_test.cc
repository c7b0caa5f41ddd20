// Hash aggregation against a naive reference (std::map over rows, long double / 128-bit
// arithmetic written independently here): random keys with NULLs, strings, many groups (parallel
// partitioned merge), DISTINCT, FILTER, grouping sets, empty inputs, overflow, float keys, and
// decimal averages rounded HALF_UP.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>
#include <random>
#include <set>

#include "aggregate_test_util.h"
#include "tandem/column/column_builder.h"
#include "tandem/column/take.h"
#include "tandem/exec/cpu/operators.h"
#include "tandem/exec/executor.h"

namespace tandem {
namespace {

using test::Agg;
using test::Col;

struct RandomData {
  std::shared_ptr<Table> table;
};

// Columns: 0 k_int int32, 1 k_str string, 2 v_int int64, 3 v_dec decimal(12,2), 4 v_dbl float64,
// 5 flag bool, 6 v_small int32 (few values, for DISTINCT).
std::shared_ptr<Table> MakeRandomTable(int batches, int rows, int key_range, uint32_t seed) {
  std::mt19937_64 rng(seed);
  auto t = std::make_shared<Table>();
  t->schema.fields = {{"k_int", DataType::Int32()},   {"k_str", DataType::String()},
                      {"v_int", DataType::Int64()},   {"v_dec", DataType::Decimal(12, 2)},
                      {"v_dbl", DataType::Float64()}, {"flag", DataType::Bool()},
                      {"v_small", DataType::Int32()}};
  for (int b = 0; b < batches; ++b) {
    std::vector<ColumnBuilder> cols;
    for (const auto& f : t->schema.fields) cols.emplace_back(f.type);
    for (int r = 0; r < rows; ++r) {
      auto chance = [&](int pct) { return static_cast<int>(rng() % 100) < pct; };
      if (chance(10)) {
        cols[0].AppendNull();
      } else {
        cols[0].Append<int32_t>(static_cast<int32_t>(rng() % key_range) - key_range / 2);
      }
      if (chance(5)) {
        cols[1].AppendNull();
      } else {
        cols[1].AppendString(rng() % 2 ? "" : "s" + std::to_string(rng() % 3));
      }
      if (chance(10)) {
        cols[2].AppendNull();
      } else {
        cols[2].Append<int64_t>(static_cast<int64_t>(rng() % 2000001) - 1000000);
      }
      if (chance(10)) {
        cols[3].AppendNull();
      } else {
        cols[3].Append<int64_t>(static_cast<int64_t>(rng() % 200000001) - 100000000);
      }
      if (chance(10)) {
        cols[4].AppendNull();
      } else {
        cols[4].Append<double>(static_cast<double>(rng() % 100000) / 7.0 - 5000);
      }
      if (chance(10)) {
        cols[5].AppendNull();
      } else {
        cols[5].AppendBool(rng() % 3 != 0);
      }
      if (chance(10)) {
        cols[6].AppendNull();
      } else {
        cols[6].Append<int32_t>(static_cast<int32_t>(rng() % 7));
      }
    }
    auto batch = std::make_shared<Batch>();
    batch->schema = t->schema;
    batch->num_rows = rows;
    for (auto& c : cols) batch->columns.push_back(c.Finish());
    t->batches.push_back(batch);
  }
  return t;
}

std::string KeyString(const std::vector<Value>& key) {
  std::string s;
  for (const auto& v : key) s += (v.is_null ? std::string("<null>") : v.ToString()) + "|";
  return s;
}

// Output rows keyed by the first `num_keys` columns.
std::map<std::string, std::vector<Value>> Rows(const Table& out, int num_keys) {
  std::map<std::string, std::vector<Value>> rows;
  for (const auto& b : out.batches) {
    for (int64_t r = 0; r < b->num_rows; ++r) {
      std::vector<Value> row;
      for (int c = 0; c < b->num_columns(); ++c) row.push_back(GetValue(*b->columns[c], r));
      std::vector<Value> key(row.begin(), row.begin() + num_keys);
      EXPECT_TRUE(rows.emplace(KeyString(key), row).second) << "duplicate group " << KeyString(key);
    }
  }
  return rows;
}

// HALF_UP (away from zero) rounding of a / b, b > 0.
int128_t DivHalfUp(int128_t a, int128_t b) {
  const bool neg = a < 0;
  const int128_t m = neg ? -a : a;
  const int128_t q = (2 * m + b) / (2 * b);
  return neg ? -q : q;
}

struct Ref {
  int64_t count_star = 0, count_int = 0;
  int128_t sum_int = 0, sum_dec = 0;
  int64_t n_dec = 0;
  bool has_dbl = false;
  double min_dbl = 0;
  std::vector<long double> dbls;
  bool has_str = false;
  std::string min_str;
  int bool_and = -1, bool_or = -1;
  std::set<int32_t> distinct_small;
  int128_t sum_int_flag = 0;
  int64_t n_int_flag = 0;
};

std::vector<AggregateCall> StandardAggs(const Table& t) {
  return {
      Agg(AggregateKind::kCountStar, nullptr, DataType::Int64(), "count_star"),
      Agg(AggregateKind::kCount, Col(t, 2), DataType::Int64(), "count_int"),
      Agg(AggregateKind::kSum, Col(t, 2), DataType::Int64(), "sum_int"),
      Agg(AggregateKind::kSum, Col(t, 3), DataType::Decimal(22, 2), "sum_dec"),
      Agg(AggregateKind::kAvg, Col(t, 3), DataType::Decimal(16, 6), "avg_dec"),
      Agg(AggregateKind::kAvg, Col(t, 2), DataType::Float64(), "avg_int"),
      Agg(AggregateKind::kMin, Col(t, 4), DataType::Float64(), "min_dbl"),
      Agg(AggregateKind::kMin, Col(t, 1), DataType::String(), "min_str"),
      Agg(AggregateKind::kVarSamp, Col(t, 4), DataType::Float64(), "var_samp"),
      Agg(AggregateKind::kStddevPop, Col(t, 4), DataType::Float64(), "stddev_pop"),
      Agg(AggregateKind::kBoolAnd, Col(t, 5), DataType::Bool(), "bool_and"),
      Agg(AggregateKind::kBoolOr, Col(t, 5), DataType::Bool(), "bool_or"),
      Agg(AggregateKind::kCount, Col(t, 6), DataType::Int64(), "count_distinct", true),
      Agg(AggregateKind::kSum, Col(t, 2), DataType::Int64(), "sum_filtered", false, Col(t, 5)),
  };
}

void CheckStandard(const Table& in, const Table& out, const std::vector<int>& key_cols) {
  std::map<std::string, Ref> ref;
  for (const auto& b : in.batches) {
    for (int64_t r = 0; r < b->num_rows; ++r) {
      std::vector<Value> key;
      for (int k : key_cols) key.push_back(GetValue(*b->columns[k], r));
      Ref& x = ref[KeyString(key)];
      ++x.count_star;
      const Column& vi = *b->columns[2];
      if (vi.IsValid(r)) {
        ++x.count_int;
        x.sum_int += vi.Value<int64_t>(r);
      }
      if (b->columns[3]->IsValid(r)) {
        x.sum_dec += b->columns[3]->Value<int64_t>(r);
        ++x.n_dec;
      }
      if (b->columns[4]->IsValid(r)) {
        const double d = b->columns[4]->Value<double>(r);
        x.min_dbl = x.has_dbl ? std::min(x.min_dbl, d) : d;
        x.has_dbl = true;
        x.dbls.push_back(d);
      }
      if (b->columns[1]->IsValid(r)) {
        const std::string s(b->columns[1]->GetString(r));
        x.min_str = x.has_str ? std::min(x.min_str, s) : s;
        x.has_str = true;
      }
      if (b->columns[5]->IsValid(r)) {
        const int f = b->columns[5]->GetBool(r);
        x.bool_and = x.bool_and < 0 ? f : (x.bool_and & f);
        x.bool_or = x.bool_or < 0 ? f : (x.bool_or | f);
        if (f && vi.IsValid(r)) {
          x.sum_int_flag += vi.Value<int64_t>(r);
          ++x.n_int_flag;
        }
      }
      if (b->columns[6]->IsValid(r)) x.distinct_small.insert(b->columns[6]->Value<int32_t>(r));
    }
  }
  const int nk = static_cast<int>(key_cols.size());
  auto rows = Rows(out, nk);
  ASSERT_EQ(rows.size(), ref.size());
  for (const auto& [key, x] : ref) {
    auto it = rows.find(key);
    ASSERT_NE(it, rows.end()) << "missing group " << key;
    const std::vector<Value>& row = it->second;
    int c = nk;
    EXPECT_EQ(row[c++].i64, x.count_star) << key;
    EXPECT_EQ(row[c++].i64, x.count_int) << key;
    if (x.count_int == 0) {
      EXPECT_TRUE(row[c++].is_null);
    } else {
      EXPECT_EQ(row[c++].i64, static_cast<int64_t>(x.sum_int)) << key;
    }
    if (x.n_dec == 0) {
      EXPECT_TRUE(row[c++].is_null);
      EXPECT_TRUE(row[c++].is_null);
    } else {
      EXPECT_TRUE(row[c].DecimalUnscaled() == x.sum_dec) << key;
      ++c;
      EXPECT_TRUE(row[c].DecimalUnscaled() == DivHalfUp(x.sum_dec * 10000, x.n_dec))
          << key << " avg " << row[c].ToString();
      ++c;
    }
    if (x.count_int == 0) {
      EXPECT_TRUE(row[c++].is_null);
    } else {
      EXPECT_NEAR(row[c++].f64, static_cast<double>(x.sum_int) / x.count_int, 1e-9);
    }
    if (!x.has_dbl) {
      EXPECT_TRUE(row[c++].is_null);
    } else {
      EXPECT_EQ(row[c++].f64, x.min_dbl);
    }
    if (!x.has_str) {
      EXPECT_TRUE(row[c++].is_null);
    } else {
      EXPECT_EQ(row[c++].str, x.min_str);
    }
    // Two-pass variance.
    const size_t n = x.dbls.size();
    long double mean = 0;
    for (long double d : x.dbls) mean += d;
    if (n) mean /= n;
    long double m2 = 0;
    for (long double d : x.dbls) m2 += (d - mean) * (d - mean);
    if (n < 2) {
      EXPECT_TRUE(row[c++].is_null);
    } else {
      const double expect = static_cast<double>(m2 / (n - 1));
      EXPECT_NEAR(row[c++].f64, expect, 1e-9 * std::max(1.0, std::fabs(expect))) << key;
    }
    if (n == 0) {
      EXPECT_TRUE(row[c++].is_null);
    } else {
      const double expect = std::sqrt(static_cast<double>(m2 / n));
      EXPECT_NEAR(row[c++].f64, expect, 1e-9 * std::max(1.0, expect)) << key;
    }
    for (int v : {x.bool_and, x.bool_or}) {
      if (v < 0) {
        EXPECT_TRUE(row[c++].is_null);
      } else {
        EXPECT_EQ(row[c++].i64, v) << key;
      }
    }
    EXPECT_EQ(row[c++].i64, static_cast<int64_t>(x.distinct_small.size())) << key;
    if (x.n_int_flag == 0) {
      EXPECT_TRUE(row[c++].is_null);
    } else {
      EXPECT_EQ(row[c++].i64, static_cast<int64_t>(x.sum_int_flag)) << key;
    }
  }
}

Result<Table> RunAggregate(std::shared_ptr<Table> t, const std::vector<int>& key_cols,
                           std::vector<AggregateCall> aggs, int threads,
                           std::vector<std::vector<int>> sets = {}) {
  std::vector<int> all;
  for (int i = 0; i < t->schema.num_fields(); ++i) all.push_back(i);
  auto scan = MakeScan(TableSource::Memory("t", t), all);
  std::vector<ExprPtr> keys;
  std::vector<std::string> names;
  for (int k : key_cols) {
    keys.push_back(Col(*t, k));
    names.push_back(t->schema.field(k).name);
  }
  auto agg = MakeAggregate(scan, keys, names, std::move(aggs), std::move(sets));
  ExecContext ctx;
  ctx.num_threads = threads;
  return Execute(*agg, ctx);
}

TEST(ExecHashAggregate, FewGroupsMatchReference) {
  auto t = MakeRandomTable(12, 3000, 5, 1);
  for (int threads : {1, 3}) {
    auto out = RunAggregate(t, {0, 1}, StandardAggs(*t), threads);
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    CheckStandard(*t, *out, {0, 1});
  }
}

TEST(ExecHashAggregate, ManyGroupsParallelMergeMatchesReference) {
  auto t = MakeRandomTable(12, 6000, 60000, 2);
  for (int threads : {1, 4}) {
    auto out = RunAggregate(t, {0, 1}, StandardAggs(*t), threads);
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    CheckStandard(*t, *out, {0, 1});
  }
}

// Few groups, many distinct values: with several workers the deduped (group, value) pairs
// (over 131072) merge in buckets of their hash on several threads. Count, sum and a FILTERed
// count of DISTINCT int64 values, NULLs among keys and values, with and without keys.
TEST(ExecHashAggregate, DistinctOverManyValuesInFewGroupsMatchesReference) {
  auto t = MakeRandomTable(50, 5000, 4, 7);
  std::vector<AggregateCall> aggs = {
      Agg(AggregateKind::kCount, Col(*t, 2), DataType::Int64(), "count_distinct", true),
      Agg(AggregateKind::kSum, Col(*t, 2), DataType::Int64(), "sum_distinct", true),
      Agg(AggregateKind::kCount, Col(*t, 2), DataType::Int64(), "count_distinct_flag", true,
          Col(*t, 5)),
      Agg(AggregateKind::kCountStar, nullptr, DataType::Int64(), "count_star")};
  for (const std::vector<int>& keys : {std::vector<int>{0}, std::vector<int>{}}) {
    std::map<std::string, std::set<int64_t>> all, flagged;
    std::map<std::string, int64_t> rows_of;
    for (const auto& b : t->batches) {
      for (int64_t r = 0; r < b->num_rows; ++r) {
        std::vector<Value> key;
        for (int k : keys) key.push_back(GetValue(*b->columns[k], r));
        const std::string k = KeyString(key);
        ++rows_of[k];
        if (!b->columns[2]->IsValid(r)) continue;
        const int64_t v = b->columns[2]->Value<int64_t>(r);
        all[k].insert(v);
        if (b->columns[5]->IsValid(r) && b->columns[5]->GetBool(r)) flagged[k].insert(v);
      }
    }
    for (int threads : {1, 4}) {
      auto out = RunAggregate(t, keys, aggs, threads);
      ASSERT_TRUE(out.ok()) << out.status().ToString();
      const auto rows = Rows(*out, static_cast<int>(keys.size()));
      ASSERT_EQ(rows.size(), rows_of.size());
      for (const auto& [k, n] : rows_of) {
        const std::vector<Value>& row = rows.at(k);
        const size_t c = keys.size();
        EXPECT_EQ(row[c].i64, static_cast<int64_t>(all[k].size())) << k << " " << threads;
        int64_t sum = 0;
        for (int64_t v : all[k]) sum += v;
        if (all[k].empty()) {
          EXPECT_TRUE(row[c + 1].is_null) << k;
        } else {
          EXPECT_EQ(row[c + 1].i64, sum) << k << " " << threads;
        }
        EXPECT_EQ(row[c + 2].i64, static_cast<int64_t>(flagged[k].size())) << k << " " << threads;
        EXPECT_EQ(row[c + 3].i64, n) << k;
      }
    }
  }
}

// The same over float arguments (NaN, -0.0 and 0.0 among them: one NaN, one zero) and strings.
TEST(ExecHashAggregate, DistinctFloatsAndStringsInFewGroupsMatchReference) {
  std::mt19937_64 rng(11);
  auto t = std::make_shared<Table>();
  t->schema.fields = {
      {"k", DataType::Int32()}, {"f", DataType::Float64()}, {"s", DataType::String()}};
  std::map<int, std::set<uint64_t>> floats;  // normalized bit patterns
  std::map<int, std::set<std::string>> strings;
  std::map<int, int64_t> rows_of;  // key -1: NULL
  for (int b = 0; b < 40; ++b) {
    ColumnBuilder k(DataType::Int32()), f(DataType::Float64()), str(DataType::String());
    for (int r = 0; r < 5000; ++r) {
      const int key = static_cast<int>(rng() % 4) - 1;
      key < 0 ? k.AppendNull() : k.Append<int32_t>(key);
      ++rows_of[key];
      const uint64_t pick = rng() % 200000;
      double d = static_cast<double>(pick) / 3.0;
      if (pick % 1000 == 1) d = std::nan("");
      if (pick % 1000 == 2) d = -0.0;
      if (pick % 1000 == 3) d = 0.0;
      f.Append<double>(d);
      const double norm = std::isnan(d) ? std::nan("") : (d == 0 ? 0.0 : d);
      uint64_t bits;
      std::memcpy(&bits, &norm, 8);
      floats[key].insert(bits);
      if (pick % 10 == 0) {
        str.AppendNull();
      } else {
        const std::string v = "v" + std::to_string(pick % 150000);
        str.AppendString(v);
        strings[key].insert(v);
      }
    }
    auto batch = std::make_shared<Batch>();
    batch->schema = t->schema;
    batch->num_rows = 5000;
    batch->columns = {k.Finish(), f.Finish(), str.Finish()};
    t->batches.push_back(batch);
  }
  std::vector<AggregateCall> aggs = {
      Agg(AggregateKind::kCount, Col(*t, 1), DataType::Int64(), "floats", true),
      Agg(AggregateKind::kCount, Col(*t, 2), DataType::Int64(), "strings", true)};
  for (int threads : {1, 4}) {
    auto out = RunAggregate(t, {0}, aggs, threads);
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    const auto rows = Rows(*out, 1);
    ASSERT_EQ(rows.size(), rows_of.size());
    for (const auto& [key, n] : rows_of) {
      const std::string k =
          KeyString({key < 0 ? Value::Null(DataType::Int32()) : Value::Int32(key)});
      const std::vector<Value>& row = rows.at(k);
      EXPECT_EQ(row[1].i64, static_cast<int64_t>(floats[key].size())) << k << " " << threads;
      EXPECT_EQ(row[2].i64, static_cast<int64_t>(strings[key].size())) << k << " " << threads;
    }
  }
}

// Keys that pack into 64 bits take the few-groups memo path (strings, ints and bools with NULLs).
TEST(ExecHashAggregate, PackedKeysMatchReference) {
  auto t = MakeRandomTable(8, 3000, 5, 7);
  for (std::vector<int> keys : {std::vector<int>{1}, {6}, {5, 6}, {5, 1}}) {
    for (int threads : {1, 3}) {
      auto out = RunAggregate(t, keys, StandardAggs(*t), threads);
      ASSERT_TRUE(out.ok()) << out.status().ToString();
      CheckStandard(*t, *out, keys);
    }
  }
}

TEST(ExecHashAggregate, NoKeysMatchesReference) {
  auto t = MakeRandomTable(5, 1000, 10, 3);
  auto out = RunAggregate(t, {}, StandardAggs(*t), 2);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  CheckStandard(*t, *out, {});
}

TEST(ExecHashAggregate, EmptyInputWithoutKeysGivesOneRow) {
  auto t = MakeRandomTable(0, 0, 10, 4);
  auto out = RunAggregate(t, {}, StandardAggs(*t), 2);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ(out->num_rows(), 1);
  const Batch& b = *out->batches[0];
  EXPECT_EQ(GetValue(*b.columns[0], 0).i64, 0);   // count(*)
  EXPECT_EQ(GetValue(*b.columns[1], 0).i64, 0);   // count(x)
  EXPECT_TRUE(b.columns[2]->IsNull(0));           // sum
  EXPECT_TRUE(b.columns[4]->IsNull(0));           // avg
  EXPECT_EQ(GetValue(*b.columns[12], 0).i64, 0);  // count(distinct)
}

TEST(ExecHashAggregate, EmptyInputWithKeysGivesNoRows) {
  auto t = MakeRandomTable(0, 0, 10, 4);
  auto out = RunAggregate(t, {0}, StandardAggs(*t), 2);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->num_rows(), 0);
}

TEST(ExecHashAggregate, GroupingSetsRollup) {
  auto t = MakeRandomTable(4, 2000, 6, 5);
  std::vector<AggregateCall> aggs = {
      Agg(AggregateKind::kCountStar, nullptr, DataType::Int64(), "n"),
      Agg(AggregateKind::kSum, Col(*t, 2), DataType::Int64(), "s")};
  auto out = RunAggregate(t, {0, 1}, aggs, 2, {{0, 1}, {0}, {}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  // Reference: for each set, group by the kept keys.
  std::map<std::string, std::pair<int64_t, int128_t>> ref;
  for (const auto& b : t->batches) {
    for (int64_t r = 0; r < b->num_rows; ++r) {
      const Value k0 = GetValue(*b->columns[0], r), k1 = GetValue(*b->columns[1], r);
      const Value null_str = Value::Null(DataType::String()), null_int = Value::Null(k0.type);
      for (auto [key, gid] : {std::pair{KeyString({k0, k1}), 0},
                              {KeyString({k0, null_str}), 2},
                              {KeyString({null_int, null_str}), 3}}) {
        auto& e = ref[key + std::to_string(gid)];
        ++e.first;
        if (b->columns[2]->IsValid(r)) e.second += b->columns[2]->Value<int64_t>(r);
      }
    }
  }
  std::map<std::string, std::pair<int64_t, int128_t>> got;
  for (const auto& b : out->batches) {
    ASSERT_EQ(b->num_columns(), 5);
    for (int64_t r = 0; r < b->num_rows; ++r) {
      const std::string key =
          KeyString({GetValue(*b->columns[0], r), GetValue(*b->columns[1], r)}) +
          std::to_string(GetValue(*b->columns[4], r).i64);
      EXPECT_TRUE(got.emplace(key, std::pair<int64_t, int128_t>{GetValue(*b->columns[2], r).i64,
                                                                GetValue(*b->columns[3], r).i64})
                      .second);
    }
  }
  ASSERT_EQ(got.size(), ref.size());
  for (const auto& [k, v] : ref) {
    ASSERT_TRUE(got.count(k)) << k;
    EXPECT_EQ(got[k].first, v.first) << k;
    EXPECT_TRUE(got[k].second == v.second) << k;
  }
}

std::shared_ptr<Table> OneColumn(ColumnPtr c, const std::string& name) {
  auto t = std::make_shared<Table>();
  t->schema.fields = {{name, c->type()}};
  auto b = std::make_shared<Batch>();
  b->schema = t->schema;
  b->num_rows = c->length();
  b->columns = {c};
  t->batches = {b};
  return t;
}

TEST(ExecHashAggregate, IntegerSumOverflowIsAnError) {
  ColumnBuilder b(DataType::Int64());
  b.Append<int64_t>(INT64_MAX);
  b.Append<int64_t>(1);
  auto t = OneColumn(b.Finish(), "x");
  auto out = RunAggregate(t, {}, {Agg(AggregateKind::kSum, Col(*t, 0), DataType::Int64(), "s")}, 1);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("overflow"), std::string::npos);
}

TEST(ExecHashAggregate, FloatKeysGroupNaNAndSignedZero) {
  ColumnBuilder b(DataType::Float64());
  for (double d : {0.0, -0.0, std::nan(""), -std::nan(""), 1.5, 1.5}) b.Append<double>(d);
  b.AppendNull();
  b.AppendNull();
  auto t = OneColumn(b.Finish(), "x");
  auto out =
      RunAggregate(t, {0}, {Agg(AggregateKind::kCountStar, nullptr, DataType::Int64(), "n")}, 1);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ(out->num_rows(), 4);  // 0, NaN, 1.5, NULL
  for (const auto& batch : out->batches) {
    for (int64_t r = 0; r < batch->num_rows; ++r) {
      EXPECT_EQ(GetValue(*batch->columns[1], r).i64, 2);
    }
  }
}

TEST(ExecHashAggregate, DecimalAverageRoundsHalfUp) {
  // avg over decimal(5,0) -> decimal(9,4): 2/3 = 0.6667, -2/3 = -0.6667, 1/8 = 0.1250
  struct Case {
    std::vector<int64_t> values;
    int64_t expect;
  };
  for (const Case& c :
       {Case{{0, 1, 1}, 6667}, Case{{0, -1, -1}, -6667}, Case{{1, 0, 0, 0, 0, 0, 0, 0}, 1250},
        Case{{1, 0, 0, 0, 0, 0}, 1667}, Case{{-1, 0, 0, 0, 0, 0}, -1667}}) {
    ColumnBuilder b(DataType::Decimal(5, 0));
    for (int64_t v : c.values) b.Append<int64_t>(v);
    auto t = OneColumn(b.Finish(), "x");
    auto out = RunAggregate(
        t, {}, {Agg(AggregateKind::kAvg, Col(*t, 0), DataType::Decimal(9, 4), "a")}, 1);
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    EXPECT_EQ(GetValue(*out->batches[0]->columns[0], 0).i64, c.expect);
  }
}

TEST(ExecHashAggregate, StringKeysAndMaxOfStrings) {
  ColumnBuilder k(DataType::String());
  ColumnBuilder v(DataType::String());
  const std::vector<std::string> keys = {"a", "bb", "a", "", "bb", "a"};
  const std::vector<std::string> vals = {"x", "yy", "zz", "q", "y", "zy"};
  for (size_t i = 0; i < keys.size(); ++i) {
    k.AppendString(keys[i]);
    v.AppendString(vals[i]);
  }
  auto t = std::make_shared<Table>();
  t->schema.fields = {{"k", DataType::String()}, {"v", DataType::String()}};
  auto b = std::make_shared<Batch>();
  b->schema = t->schema;
  b->num_rows = 6;
  b->columns = {k.Finish(), v.Finish()};
  t->batches = {b};
  auto out =
      RunAggregate(t, {0}, {Agg(AggregateKind::kMax, Col(*t, 1), DataType::String(), "m")}, 2);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  auto rows = Rows(*out, 1);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[KeyString({Value::String("a")})][1].str, "zz");
  EXPECT_EQ(rows[KeyString({Value::String("bb")})][1].str, "yy");
  EXPECT_EQ(rows[KeyString({Value::String("")})][1].str, "q");
}

}  // namespace
}  // namespace tandem

namespace tandem {
namespace {

// Filter -> Aggregate runs fused (the executor hands the predicate to the aggregation): the
// result must equal aggregating a pre-filtered copy, for selective and unselective predicates.
TEST(ExecHashAggregate, FusedFilterMatchesReference) {
  auto t = MakeRandomTable(6, 4000, 50, 6);
  std::vector<int> all;
  for (int i = 0; i < t->schema.num_fields(); ++i) all.push_back(i);
  // Keep rows where flag is TRUE (about 60%), then rows where v_small = 3 via a bool column.
  for (int keep_col : {5, 7}) {
    auto filtered = std::make_shared<Table>();
    auto input = std::make_shared<Table>();
    input->schema = t->schema;
    input->schema.fields.push_back({"rare", DataType::Bool()});
    filtered->schema = t->schema;
    for (const auto& b : t->batches) {
      ColumnBuilder rare(DataType::Bool());
      std::vector<int32_t> rows;
      for (int64_t r = 0; r < b->num_rows; ++r) {
        const bool is_rare = b->columns[6]->IsValid(r) && b->columns[6]->Value<int32_t>(r) == 3;
        rare.AppendBool(is_rare);
        const bool keep =
            keep_col == 5 ? (b->columns[5]->IsValid(r) && b->columns[5]->GetBool(r)) : is_rare;
        if (keep) rows.push_back(static_cast<int32_t>(r));
      }
      auto with = std::make_shared<Batch>(*b);
      with->schema = input->schema;
      with->columns.push_back(rare.Finish());
      input->batches.push_back(with);
      auto kept = TakeBatch(*b, rows.data(), static_cast<int64_t>(rows.size()));
      kept->num_rows = static_cast<int64_t>(rows.size());
      filtered->batches.push_back(kept);
    }
    all.push_back(7);
    auto scan = MakeScan(TableSource::Memory("t", input), all);
    all.pop_back();
    auto filter = MakeFilter(scan, Col(*input, keep_col));
    auto agg =
        MakeAggregate(filter, {Col(*t, 0), Col(*t, 1)}, {"k_int", "k_str"}, StandardAggs(*t));
    ExecContext ctx;
    auto out = Execute(*agg, ctx);
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    CheckStandard(*filtered, *out, {0, 1});
    EXPECT_EQ(ctx.Find(filter.get())->rows, filtered->num_rows());
  }
}

}  // namespace
}  // namespace tandem
