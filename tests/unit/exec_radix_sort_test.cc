// The parallel stable radix sort that Sort uses when the keys encode into one 64-bit word with no
// tail (integers, dates, a NULL byte), against std::stable_sort over the input rows with a
// comparator written here. A payload column of row numbers checks stability (equal keys keep
// input order). Covers ASC/DESC, NULLS FIRST/LAST, negative values, int32/int64 extremes, many
// duplicates, all-equal keys, keys varying only in low or high bytes, two keys in one word,
// several batches, and 0, 1 and 1M rows. Each case first asserts that the encoder takes the
// radix path (one word, no tail).
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <random>

#include "sort_test_util.h"
#include "tandem/column/column_builder.h"
#include "tandem/exec/cpu/operators.h"
#include "tandem/exec/cpu/sort_keys.h"

namespace tandem {
namespace {

using Cell = std::optional<int64_t>;

// Rows of key cells; the table gets the key columns followed by int64 "row" = row number.
struct Input {
  std::vector<DataType> types;
  std::vector<std::vector<Cell>> keys;  // [key][row]
  int64_t rows() const { return keys.empty() ? 0 : static_cast<int64_t>(keys[0].size()); }
};

void AppendCell(ColumnBuilder& b, const DataType& type, const Cell& c) {
  if (!c) return b.AppendNull();
  switch (type.id) {
    case TypeId::kInt16:
      return b.Append<int16_t>(static_cast<int16_t>(*c));
    case TypeId::kInt32:
    case TypeId::kDate32:
      return b.Append<int32_t>(static_cast<int32_t>(*c));
    default:
      return b.Append<int64_t>(*c);
  }
}

// The input cut into batches of the given sizes (cycled), empty batches included.
Table ToTable(const Input& in, const std::vector<int64_t>& batch_sizes) {
  Table t;
  for (size_t k = 0; k < in.types.size(); ++k) {
    t.schema.fields.push_back({"k" + std::to_string(k), in.types[k]});
  }
  t.schema.fields.push_back({"row", DataType::Int64(), false});
  const int64_t n = in.rows();
  int64_t begin = 0;
  for (size_t s = 0; begin < n || (n == 0 && s == 0); ++s) {
    const int64_t end = std::min(n, begin + batch_sizes[s % batch_sizes.size()]);
    auto b = std::make_shared<Batch>();
    b->schema = t.schema;
    b->num_rows = end - begin;
    for (size_t k = 0; k < in.types.size(); ++k) {
      ColumnBuilder cb(in.types[k]);
      for (int64_t r = begin; r < end; ++r) AppendCell(cb, in.types[k], in.keys[k][r]);
      b->columns.push_back(cb.Finish());
    }
    ColumnBuilder rows(DataType::Int64());
    for (int64_t r = begin; r < end; ++r) rows.Append<int64_t>(r);
    b->columns.push_back(rows.Finish());
    t.batches.push_back(b);
    begin = end;
  }
  return t;
}

std::vector<int64_t> OracleOrder(const Input& in, const std::vector<cpu::SortOrder>& orders) {
  std::vector<int64_t> order(static_cast<size_t>(in.rows()));
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int64_t>(i);
  std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) {
    for (size_t k = 0; k < orders.size(); ++k) {
      const Cell& a = in.keys[k][x];
      const Cell& b = in.keys[k][y];
      if (!a || !b) {
        if (!a && !b) continue;
        return !a == orders[k].nulls_first;
      }
      if (*a != *b) return orders[k].ascending ? *a < *b : *a > *b;
    }
    return false;
  });
  return order;
}

using test::RowNumbers;

// Sorts `in` by all its keys under every ASC/DESC x NULLS FIRST/LAST combination of the first
// key (the others ASC NULLS LAST, or reversed), cut into batches several ways.
void CheckSorts(const Input& in, const std::string& what,
                const std::vector<std::vector<int64_t>>& batchings = {{1 << 30},
                                                                      {1000, 1, 0, 4097}}) {
  for (const auto& sizes : batchings) {
    const Table table = ToTable(in, sizes);
    for (int variant = 0; variant < 4; ++variant) {
      std::vector<cpu::SortOrder> orders(in.types.size());
      for (size_t k = 0; k < orders.size(); ++k) {
        orders[k] = {(variant & 1) == 0, (variant & 2) != 0};
        if (k > 0) orders[k].ascending = !orders[k].ascending;
      }
      // The radix path: one word and no tail.
      std::vector<std::vector<ColumnPtr>> columns;
      for (const auto& b : table.batches) {
        columns.emplace_back(b->columns.begin(), b->columns.end() - 1);
      }
      const cpu::SortKeyEncoder encoder(columns, orders);
      ASSERT_EQ(encoder.words(), 1) << what;
      ASSERT_FALSE(encoder.needs_tail()) << what;

      PlanNode node;
      node.kind = PlanKind::kSort;
      node.schema = table.schema;
      for (size_t k = 0; k < orders.size(); ++k) {
        node.sort_keys.push_back({MakeColumnRef(static_cast<int>(k), in.types[k], true),
                                  orders[k].ascending, orders[k].nulls_first});
      }
      ExecContext ctx;
      auto res = cpu::Sort(node, table, ctx);
      ASSERT_TRUE(res.ok()) << what << ": " << res.status().ToString();
      const auto got = RowNumbers(*res);
      const auto expected = OracleOrder(in, orders);
      ASSERT_EQ(got.size(), expected.size()) << what;
      const auto mismatch = std::mismatch(got.begin(), got.end(), expected.begin());
      EXPECT_TRUE(mismatch.first == got.end())
          << what << " variant " << variant << " batches " << sizes.size()
          << ": first difference at " << (mismatch.first - got.begin()) << " got row "
          << *mismatch.first << " expected row " << *mismatch.second;
    }
  }
}

Input OneKey(const DataType& type, std::vector<Cell> cells) {
  Input in;
  in.types = {type};
  in.keys = {std::move(cells)};
  return in;
}

std::vector<Cell> RandomCells(int64_t n, int64_t lo, int64_t hi, int null_pct, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Cell> cells(static_cast<size_t>(n));
  const uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo) + 1;
  for (auto& c : cells) {
    if (static_cast<int>(rng() % 100) < null_pct) continue;
    c = static_cast<int64_t>(static_cast<uint64_t>(lo) + (span == 0 ? rng() : rng() % span));
  }
  return cells;
}

TEST(ExecRadixSort, Int32WithNullsAllOrders) {
  CheckSorts(OneKey(DataType::Int32(), RandomCells(20000, -1000000, 1000000, 10, 1)),
             "int32 random with NULLs");
}

TEST(ExecRadixSort, ManyDuplicatesStayStable) {
  CheckSorts(OneKey(DataType::Int32(), RandomCells(30000, -2, 2, 5, 2)), "int32 five values");
  CheckSorts(OneKey(DataType::Int64(), RandomCells(30000, 7, 8, 0, 3)), "int64 two values");
  CheckSorts(OneKey(DataType::Int64(), std::vector<Cell>(5000, Cell(-42))), "int64 all equal");
  CheckSorts(OneKey(DataType::Int32(), std::vector<Cell>(5000)), "int32 all NULL");
}

TEST(ExecRadixSort, Extremes) {
  std::vector<Cell> i32 = RandomCells(10000, INT32_MIN, INT32_MAX, 3, 4);
  std::vector<Cell> i64 = RandomCells(10000, INT64_MIN, INT64_MAX, 0, 5);
  for (size_t i = 0; i < i32.size(); i += 97) {
    i32[i] = (i / 97) % 2 ? INT32_MIN : INT32_MAX;
    i64[i] = (i / 97) % 2 ? INT64_MIN : INT64_MAX;
  }
  for (size_t i = 50; i < i32.size(); i += 101) {
    i32[i] = (i / 101) % 2 ? -1 : 0;
    i64[i] = (i / 101) % 2 ? -1 : 0;
  }
  CheckSorts(OneKey(DataType::Int32(), i32), "int32 extremes");
  CheckSorts(OneKey(DataType::Int64(), i64), "int64 extremes");
}

TEST(ExecRadixSort, DatesAndNegatives) {
  CheckSorts(OneKey(DataType::Date32(), RandomCells(20000, -30000, 30000, 8, 6)), "dates");
  CheckSorts(OneKey(DataType::Int64(), RandomCells(20000, -5000, -1, 0, 7)), "int64 negatives");
}

TEST(ExecRadixSort, KeysVaryingInFewBytes) {
  // Only the lowest byte varies; only the highest; a low and a high byte (middle bytes equal).
  std::vector<Cell> low = RandomCells(20000, 0x1234567800, 0x12345678FF, 0, 8);
  std::vector<Cell> high(20000), both(20000);
  std::mt19937_64 rng(9);
  for (size_t i = 0; i < high.size(); ++i) {
    high[i] = static_cast<int64_t>((rng() % 256) << 56) | 0x00ABCDEF12345678;
    both[i] = static_cast<int64_t>(((rng() % 4) << 56) | (rng() % 3));
  }
  CheckSorts(OneKey(DataType::Int64(), low), "int64 low byte");
  CheckSorts(OneKey(DataType::Int64(), high), "int64 high byte");
  CheckSorts(OneKey(DataType::Int64(), both), "int64 low and high bytes");
}

TEST(ExecRadixSort, TwoKeysInOneWord) {
  // int16 (NULLs: 3 bytes) + int32 (NULLs: 5 bytes) = one word.
  Input in;
  in.types = {DataType::Int16(), DataType::Int32()};
  in.keys = {RandomCells(30000, -3, 3, 10, 10), RandomCells(30000, -20, 20, 10, 11)};
  CheckSorts(in, "int16, int32");
}

TEST(ExecRadixSort, SizesZeroOneAndOneMillion) {
  CheckSorts(OneKey(DataType::Int32(), {}), "no rows", {{1 << 30}});
  CheckSorts(OneKey(DataType::Int32(), {Cell(5)}), "one row");
  CheckSorts(OneKey(DataType::Int32(), {Cell()}), "one NULL row");
  CheckSorts(OneKey(DataType::Int32(), RandomCells(1000000, -50000, 50000, 5, 12)), "1M int32",
             {{1 << 30}, {131072, 70001, 65536, 3}});
  CheckSorts(OneKey(DataType::Int64(), RandomCells(1000000, INT64_MIN, INT64_MAX, 0, 13)),
             "1M int64", {{250000}});
}

}  // namespace
}  // namespace tandem
