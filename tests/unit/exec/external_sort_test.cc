// The external merge sort (exec/cpu/external_sort.h) against the in-memory Sort: with the input
// fed in order on one thread, runs are stable and ties go to the earlier run, so the output must
// be the in-memory sort's row for row. Keys mix a string with NULLs and few values, a double with
// NaN, -0.0 and NULLs, and an integer, in every ASC/DESC and NULLS FIRST/LAST variant. Runs of a
// few KiB make dozens of runs; a merge budget of one byte merges two at a time (several passes);
// a huge run size never spills (the in-memory path). Fed from four threads, the order of the keys
// and the set of rows must still be the in-memory sort's.
#include "tandem/exec/cpu/external_sort.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "../sort_test_util.h"
#include "tandem/column/column_builder.h"
#include "tandem/column/slice.h"
#include "tandem/exec/cpu/operator_util.h"
#include "tandem/exec/cpu/operators.h"

namespace tandem {
namespace {

Schema InputSchema() {
  Schema s;
  s.fields.push_back({"s", DataType::String()});
  s.fields.push_back({"d", DataType::Float64()});
  s.fields.push_back({"k", DataType::Int64()});
  s.fields.push_back({"row", DataType::Int64(), false});
  return s;
}

// `rows` random rows in batches of up to `batch_rows` (an empty batch among them).
Table RandomInput(int64_t rows, int64_t batch_rows, uint64_t seed) {
  std::mt19937_64 rng(seed);
  Table t;
  t.schema = InputSchema();
  for (int64_t begin = 0; begin < rows; begin += batch_rows) {
    const int64_t end = std::min(rows, begin + batch_rows);
    ColumnBuilder s(DataType::String()), d(DataType::Float64()), k(DataType::Int64()),
        row(DataType::Int64());
    for (int64_t r = begin; r < end; ++r) {
      if (rng() % 10 == 0) {
        s.AppendNull();
      } else {
        s.AppendString("name-" + std::to_string(rng() % 40));
      }
      const uint64_t pick = rng() % 20;
      if (pick == 0) {
        d.AppendNull();
      } else if (pick == 1) {
        d.Append<double>(std::nan(""));
      } else if (pick == 2) {
        d.Append<double>(-0.0);
      } else {
        d.Append<double>(static_cast<double>(rng() % 200) / 4 - 25);
      }
      if (rng() % 15 == 0) {
        k.AppendNull();
      } else {
        k.Append<int64_t>(static_cast<int64_t>(rng() % 1000) - 500);
      }
      row.Append<int64_t>(r);
    }
    auto b = std::make_shared<Batch>();
    b->schema = t.schema;
    b->num_rows = end - begin;
    b->columns = {s.Finish(), d.Finish(), k.Finish(), row.Finish()};
    t.batches.push_back(b);
    if (t.batches.size() == 2) {
      t.batches.push_back(SliceBatchView(*b, 0, 0));
    }
  }
  return t;
}

PlanNode SortNode(int variant) {
  PlanNode node;
  node.kind = PlanKind::kSort;
  node.schema = InputSchema();
  const bool asc = (variant & 1) == 0;
  const bool nulls_first = (variant & 2) != 0;
  node.sort_keys.push_back({MakeColumnRef(0, DataType::String(), true), !asc, nulls_first});
  node.sort_keys.push_back({MakeColumnRef(1, DataType::Float64(), true), asc, !nulls_first});
  node.sort_keys.push_back({MakeColumnRef(2, DataType::Int64(), true), asc, nulls_first});
  return node;
}

using test::RowNumbers;

struct Sorted {
  Table table;
  int runs = 0;
  int passes = 0;
};

// The external sort of `input`, fed in order on one thread or from `threads` threads.
Sorted SortExternally(const PlanNode& node, const Table& input, int64_t run_bytes,
                      int64_t merge_budget, int threads, ExecContext& ctx) {
  cpu::SortRunSink sink(node, run_bytes, ctx);
  if (threads <= 1) {
    for (const auto& b : input.batches) EXPECT_TRUE(sink.Consume(*b, ctx.eval).ok());
  } else {
    const Status st = cpu::opx::ForEachMorsel(
        static_cast<int64_t>(input.batches.size()), threads, ctx.eval,
        [&](int64_t i, EvalContext& eval) { return sink.Consume(*input.batches[i], eval); });
    EXPECT_TRUE(st.ok()) << st.ToString();
  }
  EXPECT_TRUE(sink.Finish().ok());
  auto merged = sink.Merge(merge_budget);
  EXPECT_TRUE(merged.ok()) << merged.status().ToString();
  return {merged.ok() ? *merged : Table{}, sink.runs_written(), sink.merge_passes()};
}

// Whether rows a and b of the in-memory result have equal keys (NaN equal to NaN).
bool SameKeys(const Table& t, int64_t a, int64_t b) {
  const auto ref = [&](int64_t r, int col) -> std::pair<const Column*, int64_t> {
    for (const auto& batch : t.batches) {
      if (r < batch->num_rows) return {batch->columns[col].get(), r};
      r -= batch->num_rows;
    }
    return {nullptr, 0};
  };
  for (int col = 0; col < 3; ++col) {
    auto [ca, ra] = ref(a, col);
    auto [cb, rb] = ref(b, col);
    if (ca->IsNull(ra) != cb->IsNull(rb)) return false;
    if (ca->IsNull(ra)) continue;
    if (col == 0 && ca->GetString(ra) != cb->GetString(rb)) return false;
    if (col == 1) {
      const double x = ca->Value<double>(ra), y = cb->Value<double>(rb);
      if (!(x == y || (std::isnan(x) && std::isnan(y)))) return false;
    }
    if (col == 2 && ca->Value<int64_t>(ra) != cb->Value<int64_t>(rb)) return false;
  }
  return true;
}

TEST(ExternalSort, EqualsTheInMemorySortRowForRow) {
  const Table input = RandomInput(60000, 3000, 1);
  for (int variant = 0; variant < 4; ++variant) {
    const PlanNode node = SortNode(variant);
    ExecContext ctx;
    auto expected = cpu::Sort(node, input, ctx);
    ASSERT_TRUE(expected.ok()) << expected.status().ToString();
    const std::vector<int64_t> want = RowNumbers(*expected);
    // (run bytes, merge budget): many runs in one pass, two at a time, never spilled.
    const std::vector<std::pair<int64_t, int64_t>> settings = {
        {40 << 10, int64_t{1} << 30}, {40 << 10, 1}, {int64_t{1} << 40, 1}};
    for (const auto& [run_bytes, budget] : settings) {
      const Sorted got = SortExternally(node, input, run_bytes, budget, 1, ctx);
      EXPECT_EQ(RowNumbers(got.table), want) << "variant " << variant << ", runs of " << run_bytes
                                             << " bytes, merge budget " << budget;
      if (run_bytes < (1 << 20)) {
        EXPECT_GT(got.runs, 10);
        EXPECT_EQ(got.passes > 1, budget == 1) << got.passes << " merge passes";
      } else {
        EXPECT_EQ(got.runs, 0);
      }
    }
  }
}

TEST(ExternalSort, FedFromSeveralThreadsKeepsKeyOrderAndRows) {
  const Table input = RandomInput(40000, 1000, 2);
  const PlanNode node = SortNode(1);
  ExecContext ctx;
  auto expected = cpu::Sort(node, input, ctx);
  ASSERT_TRUE(expected.ok());
  const Sorted got = SortExternally(node, input, 30 << 10, 100 << 10, 4, ctx);
  const std::vector<int64_t> want = RowNumbers(*expected);
  std::vector<int64_t> rows = RowNumbers(got.table);
  ASSERT_EQ(rows.size(), want.size());
  // Position of each row in the in-memory result: equal keys wherever the two orders differ.
  std::vector<int64_t> position(want.size());
  for (size_t i = 0; i < want.size(); ++i) position[static_cast<size_t>(want[i])] = i;
  for (size_t i = 0; i < rows.size(); ++i) {
    ASSERT_TRUE(
        SameKeys(*expected, position[static_cast<size_t>(rows[i])], static_cast<int64_t>(i)))
        << "row " << i << " of the external sort is out of order";
  }
  std::sort(rows.begin(), rows.end());
  for (size_t i = 0; i < rows.size(); ++i) ASSERT_EQ(rows[i], static_cast<int64_t>(i));
}

TEST(ExternalSort, EmptyInput) {
  const PlanNode node = SortNode(0);
  ExecContext ctx;
  const Sorted got = SortExternally(node, Table{InputSchema(), {}}, 1024, 1, 1, ctx);
  EXPECT_EQ(got.table.num_rows(), 0);
  EXPECT_EQ(got.runs, 0);
}

}  // namespace
}  // namespace tandem
