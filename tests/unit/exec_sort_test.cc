// Sort and TopN against std::stable_sort with a comparator over Values written here: several
// keys, ASC/DESC, NULLS FIRST/LAST, floats with NaN/-0.0/inf, strings with long shared prefixes
// and embedded zero bytes, wide decimals, inputs over several batches; TopN with offsets.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "tandem/column/column_builder.h"
#include "tandem/column/take.h"
#include "tandem/exec/cpu/operators.h"

namespace tandem {
namespace {

Schema TestSchema() {
  Schema s;
  s.fields = {{"i", DataType::Int64()},
              {"f", DataType::Float64()},
              {"s", DataType::String()},
              {"d", DataType::Decimal(30, 2)},
              {"b", DataType::Int32()}};
  return s;
}

std::vector<std::vector<Value>> RandomRows(std::mt19937_64& rng, int64_t n) {
  std::uniform_int_distribution<int> small(0, 9);
  std::vector<std::vector<Value>> rows;
  const double specials[] = {NAN, -0.0, 0.0, INFINITY, -INFINITY, 1.5, -2.25, 1e300};
  const std::string prefix = "a-very-long-shared-prefix-of-strings-";
  for (int64_t r = 0; r < n; ++r) {
    std::vector<Value> row;
    row.push_back(small(rng) == 0 ? Value::Null(DataType::Int64()) : Value::Int64(small(rng) - 4));
    row.push_back(small(rng) == 0 ? Value::Null(DataType::Float64())
                                  : Value::Float64(specials[small(rng) % 8]));
    std::string s =
        small(rng) < 5 ? prefix + std::to_string(small(rng)) : std::to_string(small(rng));
    if (small(rng) == 1) s.push_back('\0');
    row.push_back(small(rng) == 0 ? Value::Null(DataType::String()) : Value::String(s));
    row.push_back(small(rng) == 0
                      ? Value::Null(DataType::Decimal(30, 2))
                      : Value::Decimal((int128_t{small(rng) - 5} << 70) + small(rng), 30, 2));
    row.push_back(Value::Int32(static_cast<int32_t>(r)));  // identifies the row
    rows.push_back(row);
  }
  return rows;
}

Table ToTable(const Schema& schema, const std::vector<std::vector<Value>>& rows, int batches) {
  Table t;
  t.schema = schema;
  const int64_t n = static_cast<int64_t>(rows.size());
  const int64_t per = std::max<int64_t>(1, (n + batches - 1) / batches);
  for (int64_t begin = 0; begin < n; begin += per) {
    const int64_t end = std::min(n, begin + per);
    auto b = std::make_shared<Batch>();
    b->schema = schema;
    b->num_rows = end - begin;
    for (int c = 0; c < schema.num_fields(); ++c) {
      ColumnBuilder cb(schema.field(c).type);
      for (int64_t i = begin; i < end; ++i) {
        const Value& v = rows[i][c];
        if (v.is_null)
          cb.AppendNull();
        else if (v.type.id == TypeId::kString)
          cb.AppendString(v.str);
        else if (v.type.id == TypeId::kFloat64)
          cb.Append<double>(v.f64);
        else if (v.type.id == TypeId::kInt32)
          cb.Append<int32_t>(static_cast<int32_t>(v.i64));
        else if (v.type.is_wide_decimal())
          cb.Append<int128_t>(v.i128);
        else
          cb.Append<int64_t>(v.i64);
      }
      b->columns.push_back(cb.Finish());
    }
    t.batches.push_back(b);
  }
  return t;
}

// SQL order of two non-NULL values of one column (NaN largest, -0.0 == 0.0).
int CompareValue(const Value& a, const Value& b) {
  switch (a.type.id) {
    case TypeId::kFloat64: {
      const bool an = std::isnan(a.f64), bn = std::isnan(b.f64);
      if (an || bn) return an == bn ? 0 : (an ? 1 : -1);
      return a.f64 < b.f64 ? -1 : (a.f64 > b.f64 ? 1 : 0);
    }
    case TypeId::kString:
      return a.str < b.str ? -1 : (a.str > b.str ? 1 : 0);
    case TypeId::kDecimal:
      return a.i128 < b.i128 ? -1 : (a.i128 > b.i128 ? 1 : 0);
    default:
      return a.i64 < b.i64 ? -1 : (a.i64 > b.i64 ? 1 : 0);
  }
}

struct Key {
  int column;
  bool asc;
  bool nulls_first;
};

std::vector<int64_t> OracleOrder(const std::vector<std::vector<Value>>& rows,
                                 const std::vector<Key>& keys) {
  std::vector<int64_t> order(rows.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int64_t>(i);
  std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) {
    for (const Key& k : keys) {
      const Value& a = rows[x][k.column];
      const Value& b = rows[y][k.column];
      if (a.is_null || b.is_null) {
        if (a.is_null && b.is_null) continue;
        return a.is_null == k.nulls_first;
      }
      const int c = CompareValue(a, b);
      if (c != 0) return k.asc ? c < 0 : c > 0;
    }
    return false;
  });
  return order;
}

std::vector<int64_t> RowIds(const Table& t) {
  std::vector<int64_t> ids;
  for (const auto& b : t.batches) {
    for (int64_t i = 0; i < b->num_rows; ++i) ids.push_back(b->columns[4]->Value<int32_t>(i));
  }
  return ids;
}

PlanNode SortNode(const Schema& schema, const std::vector<Key>& keys) {
  PlanNode node;
  node.kind = PlanKind::kSort;
  node.schema = schema;
  for (const Key& k : keys) {
    node.sort_keys.push_back(
        {MakeColumnRef(k.column, schema.field(k.column).type, true), k.asc, k.nulls_first});
  }
  return node;
}

const std::vector<std::vector<Key>> kKeySets = {
    {{0, true, false}},
    {{1, true, false}},
    {{1, false, true}},
    {{2, true, true}},
    {{2, false, false}, {0, true, true}},
    {{3, true, false}, {1, false, false}},
    {{0, false, false}, {2, true, false}, {1, true, true}},
    {{2, true, false}, {3, false, true}, {0, true, false}, {1, false, false}},
};

TEST(ExecSort, MatchesStableSortOracle) {
  std::mt19937_64 rng(7);
  const auto rows = RandomRows(rng, 3000);
  const Schema schema = TestSchema();
  for (int batches : {1, 3, 7}) {
    const Table input = ToTable(schema, rows, batches);
    for (const auto& keys : kKeySets) {
      ExecContext ctx;
      auto res = cpu::Sort(SortNode(schema, keys), input, ctx);
      ASSERT_TRUE(res.ok()) << res.status().ToString();
      EXPECT_EQ(RowIds(*res), OracleOrder(rows, keys)) << "keys " << keys.size();
    }
  }
}

TEST(ExecSort, TopNWithOffsets) {
  std::mt19937_64 rng(8);
  const auto rows = RandomRows(rng, 5000);
  const Schema schema = TestSchema();
  const Table input = ToTable(schema, rows, 4);
  for (const auto& keys : kKeySets) {
    const auto expected_all = OracleOrder(rows, keys);
    for (auto [limit, offset] : std::vector<std::pair<int64_t, int64_t>>{
             {0, 0}, {1, 0}, {10, 0}, {10, 5}, {100, 4990}, {7000, 3}, {-1, 10}}) {
      PlanNode sort = SortNode(schema, keys);
      PlanNode lim;
      lim.kind = PlanKind::kLimit;
      lim.schema = schema;
      lim.limit = limit;
      lim.offset = offset;
      ExecContext ctx;
      auto res = cpu::TopN(lim, sort, input, ctx);
      ASSERT_TRUE(res.ok()) << res.status().ToString();
      const int64_t n = static_cast<int64_t>(expected_all.size());
      const int64_t end = limit < 0 ? n : std::min(n, offset + limit);
      std::vector<int64_t> expected;
      for (int64_t i = offset; i < end; ++i) expected.push_back(expected_all[i]);
      EXPECT_EQ(RowIds(*res), expected) << "limit " << limit << " offset " << offset;
    }
  }
}

TEST(ExecSort, EmptyInput) {
  const Schema schema = TestSchema();
  Table empty;
  empty.schema = schema;
  ExecContext ctx;
  auto res = cpu::Sort(SortNode(schema, kKeySets[4]), empty, ctx);
  ASSERT_TRUE(res.ok());
  EXPECT_EQ(res->num_rows(), 0);
}

}  // namespace
}  // namespace tandem
