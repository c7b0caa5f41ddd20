// Sorting with string keys (exec/cpu/sort_keys.h) against std::stable_sort with a comparator
// written here (byte-wise strings, shorter first on a common prefix, NULLs by NULLS FIRST/LAST):
// a short string key followed by an integer key, in every ASC/DESC and NULLS order. Strings of
// up to 6 bytes from a small alphabet that includes "\0" (so "ab" < "ab\0" < "abc"), the empty
// string and NULLs, encoded whole with their length so that the integer after them is encoded
// too; then long strings (a prefix only: ties go to the typed comparison). A payload of row
// numbers checks stability.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <random>
#include <string>

#include "sort_test_util.h"
#include "tandem/column/column_builder.h"
#include "tandem/exec/cpu/operators.h"
#include "tandem/exec/cpu/sort_keys.h"

namespace tandem {
namespace {

struct Row {
  std::optional<std::string> s;
  std::optional<int64_t> k;
};

std::vector<Row> RandomRows(int64_t n, int max_len, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const std::string alphabet("ab\0c", 4);
  std::vector<Row> rows(static_cast<size_t>(n));
  for (Row& r : rows) {
    if (rng() % 10 != 0) {
      std::string s;
      const int len = static_cast<int>(rng() % (max_len + 1));
      for (int i = 0; i < len; ++i) s += alphabet[rng() % alphabet.size()];
      r.s = s;
    }
    if (rng() % 8 != 0) r.k = static_cast<int64_t>(rng() % 7) - 3;
  }
  return rows;
}

Table ToTable(const std::vector<Row>& rows) {
  Table t;
  t.schema.fields = {
      {"s", DataType::String()}, {"k", DataType::Int64()}, {"row", DataType::Int64()}};
  for (size_t begin = 0; begin < rows.size(); begin += 700) {
    const size_t end = std::min(rows.size(), begin + 700);
    ColumnBuilder s(DataType::String()), k(DataType::Int64()), row(DataType::Int64());
    for (size_t i = begin; i < end; ++i) {
      rows[i].s ? s.AppendString(*rows[i].s) : s.AppendNull();
      rows[i].k ? k.Append<int64_t>(*rows[i].k) : k.AppendNull();
      row.Append<int64_t>(static_cast<int64_t>(i));
    }
    auto batch = std::make_shared<Batch>();
    batch->schema = t.schema;
    batch->num_rows = static_cast<int64_t>(end - begin);
    batch->columns = {s.Finish(), k.Finish(), row.Finish()};
    t.batches.push_back(std::move(batch));
  }
  return t;
}

template <typename T>
int CompareCells(const std::optional<T>& a, const std::optional<T>& b, const cpu::SortOrder& o) {
  if (!a || !b) {
    if (!a && !b) return 0;
    return (!a == o.nulls_first) ? -1 : 1;
  }
  const int c = *a < *b ? -1 : (*b < *a ? 1 : 0);  // std::string: byte-wise, shorter first
  return o.ascending ? c : -c;
}

void ExpectSortedLikeTheOracle(int max_len, int64_t n) {
  const std::vector<Row> rows = RandomRows(n, max_len, 5);
  const Table table = ToTable(rows);
  for (int variant = 0; variant < 16; ++variant) {
    const cpu::SortOrder so{(variant & 1) == 0, (variant & 2) != 0};
    const cpu::SortOrder ko{(variant & 4) == 0, (variant & 8) != 0};
    std::vector<int64_t> expected(rows.size());
    for (size_t i = 0; i < rows.size(); ++i) expected[i] = static_cast<int64_t>(i);
    std::stable_sort(expected.begin(), expected.end(), [&](int64_t a, int64_t b) {
      const int c = CompareCells(rows[a].s, rows[b].s, so);
      return c != 0 ? c < 0 : CompareCells(rows[a].k, rows[b].k, ko) < 0;
    });
    PlanNode node;
    node.kind = PlanKind::kSort;
    node.schema = table.schema;
    node.sort_keys.push_back(
        {MakeColumnRef(0, DataType::String(), true), so.ascending, so.nulls_first});
    node.sort_keys.push_back(
        {MakeColumnRef(1, DataType::Int64(), true), ko.ascending, ko.nulls_first});
    ExecContext ctx;
    Result<Table> sorted = cpu::Sort(node, table, ctx);
    ASSERT_TRUE(sorted.ok()) << sorted.status().ToString();
    EXPECT_EQ(test::RowNumbers(*sorted), expected) << "variant " << variant;
  }
}

// Whether the encoder of strings of up to `max_len` bytes and the integer leaves ties to the
// typed comparison.
bool NeedsTail(int max_len) {
  const Table table = ToTable(RandomRows(100, max_len, 1));
  std::vector<std::vector<ColumnPtr>> columns;
  for (const auto& b : table.batches)
    columns.emplace_back(b->columns.begin(), b->columns.end() - 1);
  return cpu::SortKeyEncoder(columns, {{true, false}, {true, false}}).needs_tail();
}

TEST(ExecStringSort, ShortStringsAreEncodedWholeAndTheKeysAfterThemToo) {
  EXPECT_FALSE(NeedsTail(6));
  ExpectSortedLikeTheOracle(6, 20000);
}

TEST(ExecStringSort, LongStringsKeepATail) {
  EXPECT_TRUE(NeedsTail(40));
  ExpectSortedLikeTheOracle(40, 20000);
}

}  // namespace
}  // namespace tandem
