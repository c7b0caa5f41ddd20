// SortedRowRefs (exec/cpu/sort_runs.h) against a stable sort of the same rows by the typed SQL
// comparison (CompareSortRows), ties in input order: runs sorted per thread and merged level by
// level in pieces cut by co-rank, with full sorts and limits, keys of one to four words, with a
// string past the words (compared by the tail), few distinct values (long runs of ties) and
// NULLs. 300 000 rows, so that merges of the default pool's runs are cut into several pieces.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "tandem/column/column_builder.h"
#include "tandem/exec/cpu/row_gather.h"
#include "tandem/exec/cpu/sort_keys.h"
#include "tandem/exec/cpu/sort_runs.h"

namespace tandem::cpu {
namespace {

// Columns: int64 with 5 values and NULLs, int64 spread wide, a string of up to 30 characters
// over three letters, int32 with 3 values.
std::vector<BatchPtr> Batches(uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<BatchPtr> out;
  for (int b = 0; b < 5; ++b) {
    ColumnBuilder few(DataType::Int64()), wide(DataType::Int64()), s(DataType::String()),
        small(DataType::Int32());
    const int64_t rows = 50000 + static_cast<int64_t>(rng() % 20000);
    for (int64_t r = 0; r < rows; ++r) {
      rng() % 10 == 0 ? few.AppendNull() : few.Append<int64_t>(static_cast<int64_t>(rng() % 5));
      wide.Append<int64_t>(static_cast<int64_t>(rng() % 1000003) - 500000);
      std::string v(rng() % 31, 'a');
      for (char& c : v) c = static_cast<char>('a' + rng() % 3);
      s.AppendString(v);
      small.Append<int32_t>(static_cast<int32_t>(rng() % 3));
    }
    auto batch = std::make_shared<Batch>();
    batch->num_rows = rows;
    batch->columns = {few.Finish(), wide.Finish(), s.Finish(), small.Finish()};
    out.push_back(batch);
  }
  return out;
}

// The refs of a stable sort of every row by `keys` (column indexes) under `orders`.
std::vector<int64_t> Expected(const std::vector<BatchPtr>& batches, const std::vector<int>& keys,
                              const std::vector<SortOrder>& orders, int64_t limit) {
  std::vector<std::vector<ColumnPtr>> cols;
  std::vector<int64_t> refs;
  for (size_t b = 0; b < batches.size(); ++b) {
    cols.emplace_back();
    for (int k : keys) cols.back().push_back(batches[b]->columns[static_cast<size_t>(k)]);
    for (int64_t r = 0; r < batches[b]->num_rows; ++r) {
      refs.push_back(PackRowRef(static_cast<int64_t>(b), r));
    }
  }
  const int n = static_cast<int>(keys.size());
  std::stable_sort(refs.begin(), refs.end(), [&](int64_t x, int64_t y) {
    return CompareSortRows(cols[static_cast<size_t>(x >> 32)], x & 0xFFFFFFFF,
                           cols[static_cast<size_t>(y >> 32)], y & 0xFFFFFFFF, orders, 0, n) < 0;
  });
  if (limit >= 0 && limit < static_cast<int64_t>(refs.size())) refs.resize(limit);
  return refs;
}

TEST(SortedRowRefs, EqualAStableSortByTheTypedComparison) {
  const std::vector<BatchPtr> batches = Batches(7);
  const std::vector<std::vector<int>> key_sets = {{0},    {0, 3}, {0, 1},   {3, 0, 1},
                                                  {0, 2}, {2, 1}, {3, 2, 0}};
  int checked = 0;
  for (size_t set = 0; set < key_sets.size(); ++set) {
    const std::vector<int>& keys = key_sets[set];
    std::vector<SortOrder> orders(keys.size());
    for (size_t k = 0; k < keys.size(); ++k) {
      orders[k].ascending = ((set + k) & 1) == 0;
      orders[k].nulls_first = ((set >> k) & 1) == 0;
    }
    std::vector<std::vector<ColumnPtr>> cols;
    for (const BatchPtr& b : batches) {
      cols.emplace_back();
      for (int k : keys) cols.back().push_back(b->columns[static_cast<size_t>(k)]);
    }
    SortKeyEncoder encoder(cols, orders);
    for (int64_t limit : {int64_t{-1}, int64_t{1}, int64_t{777}, int64_t{150000}}) {
      Result<std::vector<int64_t>> refs = SortedRowRefs(batches, encoder, limit, nullptr);
      ASSERT_TRUE(refs.ok()) << refs.status().ToString();
      const std::vector<int64_t> expected = Expected(batches, keys, orders, limit);
      ASSERT_EQ(refs->size(), expected.size()) << "keys set " << set << ", limit " << limit;
      EXPECT_TRUE(*refs == expected)
          << "keys set " << set << " (" << encoder.words() << " words, tail "
          << encoder.needs_tail() << "), limit " << limit;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 28);
}

}  // namespace
}  // namespace tandem::cpu
