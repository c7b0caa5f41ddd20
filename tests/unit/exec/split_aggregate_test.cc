// SplitForChunks (exec/split_aggregate.h) against the one-pass aggregation. An aggregation that
// runs over slices of its input (GPU chunks) runs `partial` over each slice, `merge` over the
// concatenated partial rows and `finish` over the merged rows; the result must be exactly what
// the aggregation gives over the whole input in one pass, in the same schema, whatever the
// slicing. The CPU operators are the engine here (cpu::HashAggregate, cpu::Project) and the
// one-pass cpu::HashAggregate of the original node over the whole table is the oracle: random
// keys and values with NULLs; count, sum, avg (decimal, integer, double), min/max, bool_and/or
// and FILTER; no keys, one key and two keys; 1, 2, 3, 7 and 50 slices; empty inputs; the
// aggregations that do not split (DISTINCT, variance, grouping sets, avg of uint64); and
// values whose partial sums are large (avg of int64 near 2^62, sums that overflow only in a
// slice).
#include "tandem/exec/split_aggregate.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "../aggregate_test_util.h"
#include "tandem/column/column_builder.h"
#include "tandem/column/take.h"
#include "tandem/exec/cpu/operator_util.h"
#include "tandem/exec/cpu/operators.h"
#include "tandem/exec/exec_context.h"
#include "tandem/types/decimal.h"

namespace tandem {
namespace {

using test::Agg;
using test::Col;

// Columns of the random table.
enum RandomColumn { kKInt, kKStr, kVInt, kVDec, kVDbl, kFlag, kVStr };

// k_int int32, k_str string, v_int int64, v_dec decimal(12,2), v_dbl float64, flag bool, v_str
// string; every column has NULLs. Batches of uneven sizes, so that slices cut across them.
std::shared_ptr<Table> MakeRandomTable(const std::vector<int>& batch_rows, int key_range,
                                       uint32_t seed) {
  std::mt19937_64 rng(seed);
  auto t = std::make_shared<Table>();
  t->schema.fields = {{"k_int", DataType::Int32()},   {"k_str", DataType::String()},
                      {"v_int", DataType::Int64()},   {"v_dec", DataType::Decimal(12, 2)},
                      {"v_dbl", DataType::Float64()}, {"flag", DataType::Bool()},
                      {"v_str", DataType::String()}};
  for (int rows : batch_rows) {
    std::vector<ColumnBuilder> cols;
    for (const auto& f : t->schema.fields) cols.emplace_back(f.type);
    auto chance = [&](int pct) { return static_cast<int>(rng() % 100) < pct; };
    for (int r = 0; r < rows; ++r) {
      if (chance(10)) {
        cols[kKInt].AppendNull();
      } else {
        cols[kKInt].Append<int32_t>(static_cast<int32_t>(rng() % key_range) - key_range / 2);
      }
      if (chance(8)) {
        cols[kKStr].AppendNull();
      } else {
        cols[kKStr].AppendString(rng() % 3 == 0 ? "" : "s" + std::to_string(rng() % 3));
      }
      if (chance(10)) {
        cols[kVInt].AppendNull();
      } else {
        cols[kVInt].Append<int64_t>(static_cast<int64_t>(rng() % 2000001) - 1000000);
      }
      if (chance(10)) {
        cols[kVDec].AppendNull();
      } else {
        cols[kVDec].Append<int64_t>(static_cast<int64_t>(rng() % 200000001) - 100000000);
      }
      if (chance(5)) {
        cols[kVDbl].AppendNull();
      } else {
        cols[kVDbl].Append<double>(static_cast<double>(rng() % 100000) / 7.0 - 5000);
      }
      if (chance(10)) {
        cols[kFlag].AppendNull();
      } else {
        cols[kFlag].AppendBool(rng() % 4 != 0);
      }
      if (chance(10)) {
        cols[kVStr].AppendNull();
      } else {
        std::string s;
        const int len = static_cast<int>(rng() % 6);
        for (int i = 0; i < len; ++i) s.push_back(static_cast<char>('a' + rng() % 26));
        cols[kVStr].AppendString(s);
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

std::shared_ptr<Table> OneBatchTable(std::vector<Field> fields, std::vector<ColumnPtr> columns) {
  auto t = std::make_shared<Table>();
  t->schema.fields = std::move(fields);
  auto b = std::make_shared<Batch>();
  b->schema = t->schema;
  b->num_rows = columns.empty() ? 0 : columns[0]->length();
  b->columns = std::move(columns);
  t->batches = {b};
  return t;
}

// An aggregation list; `approx` names the output columns (of the aggregates, from 0) whose
// doubles are summed in another order when split (float sums and averages).
struct AggList {
  std::string name;
  std::vector<AggregateCall> calls;
  std::vector<bool> approx;
};

AggList CountsAndSums(const Table& t) {
  return {"counts_and_sums",
          {Agg(AggregateKind::kCountStar, nullptr, DataType::Int64(), "count_star"),
           Agg(AggregateKind::kCount, Col(t, kVInt), DataType::Int64(), "count_int"),
           Agg(AggregateKind::kSum, Col(t, kVInt), DataType::Int64(), "sum_int"),
           Agg(AggregateKind::kSum, Col(t, kVDec), DataType::Decimal(22, 2), "sum_dec"),
           Agg(AggregateKind::kSum, Col(t, kVInt), DataType::Int64(), "sum_int_filtered", false,
               Col(t, kFlag))},
          {false, false, false, false, false}};
}

AggList Averages(const Table& t) {
  return {"averages",
          {Agg(AggregateKind::kAvg, Col(t, kVDec), DataType::Decimal(16, 6), "avg_dec"),
           Agg(AggregateKind::kAvg, Col(t, kVInt), DataType::Float64(), "avg_int"),
           Agg(AggregateKind::kAvg, Col(t, kVDbl), DataType::Float64(), "avg_dbl"),
           Agg(AggregateKind::kAvg, Col(t, kVInt), DataType::Float64(), "avg_int_filtered", false,
               Col(t, kFlag))},
          {false, false, true, false}};
}

AggList MinMaxBool(const Table& t) {
  return {"min_max_bool",
          {Agg(AggregateKind::kMin, Col(t, kVDbl), DataType::Float64(), "min_dbl"),
           Agg(AggregateKind::kMax, Col(t, kVDbl), DataType::Float64(), "max_dbl"),
           Agg(AggregateKind::kMin, Col(t, kVStr), DataType::String(), "min_str"),
           Agg(AggregateKind::kMax, Col(t, kVStr), DataType::String(), "max_str"),
           Agg(AggregateKind::kBoolAnd, Col(t, kFlag), DataType::Bool(), "bool_and"),
           Agg(AggregateKind::kBoolOr, Col(t, kFlag), DataType::Bool(), "bool_or")},
          {false, false, false, false, false, false}};
}

// Everything at once (an avg between other calls shifts the partial columns by one).
AggList Everything(const Table& t) {
  AggList all{"everything", {}, {}};
  for (const AggList& l : {Averages(t), CountsAndSums(t), MinMaxBool(t)}) {
    all.calls.insert(all.calls.end(), l.calls.begin(), l.calls.end());
    all.approx.insert(all.approx.end(), l.approx.begin(), l.approx.end());
  }
  all.calls.push_back(Agg(AggregateKind::kSum, Col(t, kVDbl), DataType::Float64(), "sum_dbl"));
  all.approx.push_back(true);
  return all;
}

PlanPtr AggregateOver(std::shared_ptr<Table> t, const std::vector<int>& key_cols,
                      std::vector<AggregateCall> calls,
                      std::vector<std::vector<int>> grouping_sets = {}) {
  std::vector<int> all;
  for (int i = 0; i < t->schema.num_fields(); ++i) all.push_back(i);
  auto scan = MakeScan(TableSource::Memory("t", t), all);
  std::vector<ExprPtr> keys;
  std::vector<std::string> names;
  for (int k : key_cols) {
    keys.push_back(Col(*t, k));
    names.push_back(t->schema.field(k).name);
  }
  return MakeAggregate(scan, keys, names, std::move(calls), std::move(grouping_sets));
}

// The split run the way the executor runs it: partial over each slice, the partial rows
// concatenated, merged, finished.
Result<Table> RunSplit(const SplitAggregate& split, const std::vector<Table>& slices,
                       ExecContext& ctx, int64_t* partial_rows = nullptr) {
  Table partials;
  partials.schema = split.partial->schema;
  for (const Table& slice : slices) {
    TANDEM_ASSIGN_OR_RAISE(Table p, cpu::HashAggregate(*split.partial, slice, ctx));
    for (BatchPtr& b : p.batches) partials.batches.push_back(std::move(b));
  }
  if (partial_rows) *partial_rows = partials.num_rows();
  TANDEM_ASSIGN_OR_RAISE(Table merged, cpu::HashAggregate(*split.merge, partials, ctx));
  return cpu::Project(*split.finish, merged, ctx);
}

std::string KeyString(const std::vector<Value>& key) {
  std::string s;
  for (const auto& v : key) s += (v.is_null ? std::string("<null>") : v.ToString()) + "|";
  return s;
}

// Output rows ordered by their first `num_keys` columns (each key once).
std::map<std::string, std::vector<Value>> RowsByKey(const Table& out, int num_keys) {
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

std::string Show(const Value& v) { return v.is_null ? "NULL" : v.ToString(); }

// `got` equals `expect` row for row (by key); the columns nk + i with approx[i] within 1e-9
// relative (of at least 1), every other column exactly (type, NULL and value).
void ExpectSameRows(const Table& expect, const Table& got, int nk, const std::vector<bool>& approx,
                    const std::string& where) {
  ASSERT_EQ(got.schema.num_fields(), expect.schema.num_fields()) << where;
  const auto e_rows = RowsByKey(expect, nk);
  const auto g_rows = RowsByKey(got, nk);
  ASSERT_EQ(g_rows.size(), e_rows.size()) << where;
  for (const auto& [key, e] : e_rows) {
    auto it = g_rows.find(key);
    ASSERT_NE(it, g_rows.end()) << where << ": missing group " << key;
    const std::vector<Value>& g = it->second;
    ASSERT_EQ(g.size(), e.size()) << where;
    for (size_t c = 0; c < e.size(); ++c) {
      const std::string col = where + ", group " + key + ", column " + expect.schema.field(c).name;
      const bool near = c >= static_cast<size_t>(nk) && approx[c - nk];
      if (near && !e[c].is_null && !g[c].is_null) {
        ASSERT_TRUE(g[c].type == e[c].type) << col;
        EXPECT_NEAR(g[c].f64, e[c].f64, 1e-9 * std::max(1.0, std::fabs(e[c].f64))) << col;
      } else {
        EXPECT_TRUE(g[c] == e[c]) << col << ": expected " << Show(e[c]) << " ("
                                  << e[c].type.ToString() << "), got " << Show(g[c]) << " ("
                                  << g[c].type.ToString() << ")";
      }
    }
  }
}

// finish's schema is the node's: names, types and nullability.
void ExpectSameSchema(const Schema& expect, const Schema& got, const std::string& where) {
  ASSERT_EQ(got.num_fields(), expect.num_fields()) << where;
  for (int i = 0; i < expect.num_fields(); ++i) {
    EXPECT_EQ(got.field(i).name, expect.field(i).name) << where << " column " << i;
    EXPECT_TRUE(got.field(i).type == expect.field(i).type)
        << where << " column " << expect.field(i).name << ": expected "
        << expect.field(i).type.ToString() << ", got " << got.field(i).type.ToString();
    EXPECT_EQ(got.field(i).nullable, expect.field(i).nullable)
        << where << " column " << expect.field(i).name;
  }
}

// Splits `node`, runs it over RowChunks(table, k) for every k of `slice_counts`, and checks it
// against the one-pass aggregation of the whole table.
void CheckSplitMatchesOnePass(const PlanNode& node, const Table& table,
                              const std::vector<bool>& approx, const std::string& where,
                              const std::vector<int>& slice_counts = {1, 2, 3, 7, 50}) {
  std::string why;
  std::optional<SplitAggregate> split = SplitForChunks(node, &why);
  ASSERT_TRUE(split.has_value()) << where << ": not split: " << why;
  ExpectSameSchema(node.schema, split->finish->schema, where + " finish schema");
  const int nk = static_cast<int>(node.group_keys.size());
  ExecContext ctx;
  ctx.num_threads = 2;
  Result<Table> one_pass = cpu::HashAggregate(node, table, ctx);
  ASSERT_TRUE(one_pass.ok()) << where << ": " << one_pass.status().ToString();
  for (int k : slice_counts) {
    const std::string at = where + ", " + std::to_string(k) + " slices";
    std::vector<Table> slices = cpu::opx::RowChunks(table, k);
    if (k > 1 && table.num_rows() >= k) ASSERT_GT(slices.size(), 1u) << at;
    int64_t sliced_rows = 0;
    for (const Table& s : slices) sliced_rows += s.num_rows();
    ASSERT_EQ(sliced_rows, table.num_rows()) << at;
    Result<Table> got = RunSplit(*split, slices, ctx);
    ASSERT_TRUE(got.ok()) << at << ": " << got.status().ToString();
    ExpectSameSchema(node.schema, got->schema, at + " output schema");
    ExpectSameRows(*one_pass, *got, nk, approx, at);
  }
}

// ---- 1. random tables ------------------------------------------------------------------------

TEST(SplitAggregate, RandomTableMatchesOnePass) {
  auto t = MakeRandomTable({700, 1, 1300, 257, 1742}, 9, 11);
  for (const std::vector<int>& keys :
       {std::vector<int>{}, std::vector<int>{kKInt}, std::vector<int>{kKInt, kKStr}}) {
    for (const AggList& list : {CountsAndSums(*t), Averages(*t), MinMaxBool(*t), Everything(*t)}) {
      auto node = AggregateOver(t, keys, list.calls);
      CheckSplitMatchesOnePass(*node, *t, list.approx,
                               list.name + " by " + std::to_string(keys.size()) + " keys");
    }
  }
}

// Many groups: most groups meet in a few slices only, some in one.
TEST(SplitAggregate, ManyGroupsMatchOnePass) {
  auto t = MakeRandomTable({3000, 2000}, 4000, 12);
  const AggList list = Everything(*t);
  for (const std::vector<int>& keys : {std::vector<int>{kKInt}, std::vector<int>{kKInt, kKStr}}) {
    auto node = AggregateOver(t, keys, list.calls);
    CheckSplitMatchesOnePass(*node, *t, list.approx,
                             "many groups by " + std::to_string(keys.size()) + " keys");
  }
}

// Keys that are all NULL in some slices and groups whose values are all NULL (sum, avg, min
// NULL in a slice's partial row but not in another's).
TEST(SplitAggregate, MostlyNullValuesMatchOnePass) {
  ColumnBuilder k(DataType::Int32()), v(DataType::Int64()), d(DataType::Decimal(12, 2)),
      x(DataType::Float64()), f(DataType::Bool());
  for (int r = 0; r < 60; ++r) {
    if (r % 5 == 0) {
      k.AppendNull();
    } else {
      k.Append<int32_t>(r % 3);
    }
    // Values only in rows 40..49 (the fifth slice of ten).
    if (r >= 40 && r < 50) {
      v.Append<int64_t>(r * 1000 - 7);
      d.Append<int64_t>(r * 12345 - 1);
      x.Append<double>(r / 3.0);
      f.AppendBool(r % 2 == 0);
    } else {
      v.AppendNull();
      d.AppendNull();
      x.AppendNull();
      f.AppendNull();
    }
  }
  auto t = OneBatchTable({{"k", DataType::Int32()},
                          {"v", DataType::Int64()},
                          {"d", DataType::Decimal(12, 2)},
                          {"x", DataType::Float64()},
                          {"f", DataType::Bool()}},
                         {k.Finish(), v.Finish(), d.Finish(), x.Finish(), f.Finish()});
  std::vector<AggregateCall> calls = {
      Agg(AggregateKind::kCountStar, nullptr, DataType::Int64(), "n"),
      Agg(AggregateKind::kCount, Col(*t, 1), DataType::Int64(), "count_v"),
      Agg(AggregateKind::kSum, Col(*t, 1), DataType::Int64(), "sum_v"),
      Agg(AggregateKind::kAvg, Col(*t, 1), DataType::Float64(), "avg_v"),
      Agg(AggregateKind::kSum, Col(*t, 2), DataType::Decimal(22, 2), "sum_d"),
      Agg(AggregateKind::kAvg, Col(*t, 2), DataType::Decimal(16, 6), "avg_d"),
      Agg(AggregateKind::kAvg, Col(*t, 3), DataType::Float64(), "avg_x"),
      Agg(AggregateKind::kMax, Col(*t, 3), DataType::Float64(), "max_x"),
      Agg(AggregateKind::kBoolAnd, Col(*t, 4), DataType::Bool(), "all_f"),
      Agg(AggregateKind::kBoolOr, Col(*t, 4), DataType::Bool(), "any_f"),
      Agg(AggregateKind::kSum, Col(*t, 1), DataType::Int64(), "sum_v_f", false, Col(*t, 4)),
  };
  const std::vector<bool> approx = {false, false, false, false, false, false,
                                    true,  false, false, false, false};
  for (const std::vector<int>& keys : {std::vector<int>{}, std::vector<int>{0}}) {
    auto node = AggregateOver(t, keys, calls);
    CheckSplitMatchesOnePass(*node, *t, approx,
                             "mostly NULL by " + std::to_string(keys.size()) + " keys",
                             {1, 2, 3, 6, 7, 10, 50});
  }
}

// ---- 2. empty input ----------------------------------------------------------------------

// The split aggregation of `node` run over `t` as one slice (an error when it does not split).
Result<Table> SplitOverOneSlice(const PlanNode& node, const Table& t) {
  std::string why;
  std::optional<SplitAggregate> split = SplitForChunks(node, &why);
  if (!split) return Status::Internal("not split: " + why);
  ExecContext ctx;
  return RunSplit(*split, cpu::opx::RowChunks(t, 1), ctx);
}

TEST(SplitAggregate, EmptyInputWithoutKeysGivesOneRow) {
  auto no_batches = MakeRandomTable({}, 9, 13);
  auto empty_batch = MakeRandomTable({0}, 9, 13);
  for (const auto& t : {no_batches, empty_batch}) {
    const AggList list = Everything(*t);
    auto node = AggregateOver(t, {}, list.calls);
    ASSERT_EQ(cpu::opx::RowChunks(*t, 1).size(), 1u);
    CheckSplitMatchesOnePass(*node, *t, list.approx, "empty, no keys", {1});
    // And what that one row holds.
    Result<Table> got = SplitOverOneSlice(*node, *t);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    ASSERT_EQ(got->num_rows(), 1);
    const auto rows = RowsByKey(*got, 0);
    const std::vector<Value>& row = rows.begin()->second;
    for (int c = 0; c < got->schema.num_fields(); ++c) {
      const AggregateCall& a = list.calls[c];
      if (a.kind == AggregateKind::kCount || a.kind == AggregateKind::kCountStar) {
        EXPECT_TRUE(row[c] == Value::Int64(0)) << a.name << " " << Show(row[c]);
      } else {
        EXPECT_TRUE(row[c].is_null) << a.name << " " << Show(row[c]);
      }
    }
  }
}

TEST(SplitAggregate, EmptyInputWithKeysGivesNoRows) {
  auto no_batches = MakeRandomTable({}, 9, 14);
  auto empty_batch = MakeRandomTable({0}, 9, 14);
  for (const auto& t : {no_batches, empty_batch}) {
    const AggList list = Everything(*t);
    for (const std::vector<int>& keys : {std::vector<int>{kKInt}, std::vector<int>{kKInt, kKStr}}) {
      auto node = AggregateOver(t, keys, list.calls);
      CheckSplitMatchesOnePass(*node, *t, list.approx, "empty, keys", {1});
      Result<Table> got = SplitOverOneSlice(*node, *t);
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      EXPECT_EQ(got->num_rows(), 0);
    }
  }
}

// ---- 3. aggregations that do not split ---------------------------------------------------

void ExpectNotSplit(const PlanNode& node, const std::string& what) {
  std::string why;
  std::optional<SplitAggregate> split = SplitForChunks(node, &why);
  EXPECT_FALSE(split.has_value()) << what << " was split";
  EXPECT_FALSE(why.empty()) << what << ": no reason given";
}

TEST(SplitAggregate, WhatDoesNotCombineIsNotSplit) {
  auto t = MakeRandomTable({100}, 9, 15);
  const std::vector<AggregateCall> offenders = {
      Agg(AggregateKind::kCount, Col(*t, kVInt), DataType::Int64(), "count_distinct", true),
      Agg(AggregateKind::kSum, Col(*t, kVInt), DataType::Int64(), "sum_distinct", true),
      Agg(AggregateKind::kVarSamp, Col(*t, kVDbl), DataType::Float64(), "var_samp"),
      Agg(AggregateKind::kStddevPop, Col(*t, kVDbl), DataType::Float64(), "stddev_pop"),
      // An average of decimals past 34 digits (its result type is capped at 38).
      Agg(AggregateKind::kAvg, MakeCast(Col(*t, kVDec), DataType::Decimal(36, 2)),
          DataType::Decimal(38, 6), "avg_wide"),
  };
  for (const AggregateCall& bad : offenders) {
    for (const std::vector<int>& keys : {std::vector<int>{}, std::vector<int>{kKInt}}) {
      // Alone, and after aggregations that do split.
      ExpectNotSplit(*AggregateOver(t, keys, {bad}), bad.name);
      std::vector<AggregateCall> calls = CountsAndSums(*t).calls;
      calls.push_back(bad);
      ExpectNotSplit(*AggregateOver(t, keys, calls), bad.name + " among others");
    }
  }
}

TEST(SplitAggregate, GroupingSetsAreNotSplit) {
  auto t = MakeRandomTable({100}, 9, 16);
  auto node = AggregateOver(t, {kKInt, kKStr},
                            {Agg(AggregateKind::kCountStar, nullptr, DataType::Int64(), "n"),
                             Agg(AggregateKind::kSum, Col(*t, kVInt), DataType::Int64(), "s")},
                            {{0, 1}, {0}, {}});
  ASSERT_FALSE(node->grouping_sets.empty());
  ExpectNotSplit(*node, "grouping sets");
}

std::shared_ptr<Table> UInt64Table(const std::vector<uint64_t>& values, int keys) {
  ColumnBuilder k(DataType::Int32()), v(DataType::UInt64());
  for (size_t i = 0; i < values.size(); ++i) {
    k.Append<int32_t>(static_cast<int32_t>(i % keys));
    if (i % 11 == 5) {
      v.AppendNull();
    } else {
      v.Append<uint64_t>(values[i]);
    }
  }
  return OneBatchTable({{"k", DataType::Int32()}, {"u", DataType::UInt64()}},
                       {k.Finish(), v.Finish()});
}

TEST(SplitAggregate, AvgOfUInt64IsNotSplit) {
  auto t = UInt64Table({1, 2, 3}, 1);
  ExpectNotSplit(
      *AggregateOver(t, {}, {Agg(AggregateKind::kAvg, Col(*t, 1), DataType::Float64(), "a")}),
      "avg(uint64)");
  ExpectNotSplit(*AggregateOver(t, {0},
                                {Agg(AggregateKind::kCountStar, nullptr, DataType::Int64(), "n"),
                                 Agg(AggregateKind::kAvg, Col(*t, 1), DataType::Float64(), "a")}),
                 "avg(uint64) grouped");
}

// The aggregations of a uint64 column that do split (sum as decimal(30,0), min, max), over
// values whose sums pass 2^64.
TEST(SplitAggregate, UInt64SumMinMaxMatchOnePass) {
  std::mt19937_64 rng(17);
  std::vector<uint64_t> values;
  for (int i = 0; i < 200; ++i) {
    values.push_back(std::numeric_limits<uint64_t>::max() - rng() % 1000000);
  }
  auto t = UInt64Table(values, 3);
  std::vector<AggregateCall> calls = {
      Agg(AggregateKind::kSum, Col(*t, 1), DataType::Decimal(30, 0), "s"),
      Agg(AggregateKind::kMin, Col(*t, 1), DataType::UInt64(), "lo"),
      Agg(AggregateKind::kMax, Col(*t, 1), DataType::UInt64(), "hi"),
      Agg(AggregateKind::kCount, Col(*t, 1), DataType::Int64(), "n"),
  };
  for (const std::vector<int>& keys : {std::vector<int>{}, std::vector<int>{0}}) {
    auto node = AggregateOver(t, keys, calls);
    CheckSplitMatchesOnePass(*node, *t, {false, false, false, false},
                             "uint64 by " + std::to_string(keys.size()) + " keys");
  }
}

// ---- 4. large partial sums ---------------------------------------------------------------

// avg(int64) of values near 2^62 (and near the int64 limits): every slice's sum passes int64;
// the split sums as decimal(38,0) and must give the one-pass (128-bit) average exactly.
TEST(SplitAggregate, AvgOfLargeInt64MatchesOnePass) {
  std::mt19937_64 rng(18);
  ColumnBuilder k(DataType::Int32()), v(DataType::Int64()), f(DataType::Bool());
  const int64_t big = int64_t{1} << 62;
  for (int r = 0; r < 400; ++r) {
    k.Append<int32_t>(r % 3);
    f.AppendBool(r % 4 != 0);
    if (r % 13 == 7) {
      v.AppendNull();
    } else if (r % 50 == 0) {
      v.Append<int64_t>(std::numeric_limits<int64_t>::max() - static_cast<int64_t>(rng() % 100));
    } else if (r % 97 == 0) {
      v.Append<int64_t>(-big - static_cast<int64_t>(rng() % 1000));
    } else {
      v.Append<int64_t>(big + static_cast<int64_t>(rng() % 1000000) - 500000);
    }
  }
  auto t =
      OneBatchTable({{"k", DataType::Int32()}, {"v", DataType::Int64()}, {"f", DataType::Bool()}},
                    {k.Finish(), v.Finish(), f.Finish()});
  std::vector<AggregateCall> calls = {
      Agg(AggregateKind::kAvg, Col(*t, 1), DataType::Float64(), "avg_v"),
      Agg(AggregateKind::kCount, Col(*t, 1), DataType::Int64(), "n"),
      Agg(AggregateKind::kAvg, Col(*t, 1), DataType::Float64(), "avg_v_f", false, Col(*t, 2)),
      Agg(AggregateKind::kMax, Col(*t, 1), DataType::Int64(), "hi"),
      Agg(AggregateKind::kMin, Col(*t, 1), DataType::Int64(), "lo"),
  };
  for (const std::vector<int>& keys : {std::vector<int>{}, std::vector<int>{0}}) {
    auto node = AggregateOver(t, keys, calls);
    CheckSplitMatchesOnePass(*node, *t, {false, false, false, false, false},
                             "avg of large int64 by " + std::to_string(keys.size()) + " keys");
  }
}

// sum(int64) whose total fits in int64 while the sum over a slice does not: 2^62, 2^62, -2^62,
// -2^62 (in that order) sum to 0 in one pass (128-bit accumulation, checked at the end), but cut
// in two slices the first slice sums to 2^63. The split should give what one pass gives.
TEST(SplitAggregate, SumOfInt64OverflowingOnlyInASliceMatchesOnePass) {
  ColumnBuilder v(DataType::Int64());
  const int64_t big = int64_t{1} << 62;
  for (int64_t x : {big, big, -big, -big}) v.Append<int64_t>(x);
  auto t = OneBatchTable({{"v", DataType::Int64()}}, {v.Finish()});
  auto node = AggregateOver(t, {}, {Agg(AggregateKind::kSum, Col(*t, 0), DataType::Int64(), "s")});
  ExecContext ctx;
  Result<Table> one_pass = cpu::HashAggregate(*node, *t, ctx);
  ASSERT_TRUE(one_pass.ok()) << one_pass.status().ToString();
  ASSERT_EQ(one_pass->num_rows(), 1);
  EXPECT_TRUE(GetValue(*one_pass->batches[0]->columns[0], 0) == Value::Int64(0));
  CheckSplitMatchesOnePass(*node, *t, {false}, "sum(int64) overflowing in a slice", {1, 2, 4});
}

// The same for a sum of decimal(38, 2), whose result type is capped at 38 digits: 6e37 twice
// passes 38 digits in the first of two slices (not 128 bits); the total, 0, fits. A total past
// 38 digits is the one-pass overflow error either way.
TEST(SplitAggregate, SumOfWideDecimalsPastPrecisionOnlyInASliceMatchesOnePass) {
  const DataType dec = DataType::Decimal(38, 2);
  const int128_t big = static_cast<int128_t>(6) * decimal::MaxUnscaled(37);
  for (const bool total_fits : {true, false}) {
    ColumnBuilder v(dec);
    for (int128_t x : {big, big, -big, total_fits ? -big : big}) v.Append<int128_t>(x);
    auto t = OneBatchTable({{"v", dec}}, {v.Finish()});
    auto node = AggregateOver(t, {}, {Agg(AggregateKind::kSum, Col(*t, 0), dec, "s")});
    ExecContext ctx;
    Result<Table> one_pass = cpu::HashAggregate(*node, *t, ctx);
    if (!total_fits) {
      EXPECT_FALSE(one_pass.ok()) << "6e37 * 3 fits decimal(38, 2)";
      Result<Table> split = SplitOverOneSlice(*node, *t);
      EXPECT_FALSE(split.ok()) << "the split sum of 6e37 * 3 fits decimal(38, 2)";
      continue;
    }
    ASSERT_TRUE(one_pass.ok()) << one_pass.status().ToString();
    CheckSplitMatchesOnePass(*node, *t, {false}, "sum(decimal(38,2)) past 38 digits in a slice",
                             {1, 2, 4});
  }
}

}  // namespace
}  // namespace tandem
