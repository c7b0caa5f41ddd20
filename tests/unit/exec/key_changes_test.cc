// KeyChanges (exec/cpu/sort_runs.h): where sorted rows' keys change, read off the sorted key
// words, against SortKeyEncoder::MarkKeyChanges over the same rows (the typed comparison the
// window used before). Keys: a short string (the empty string and "\0" among its values), a
// double with -0.0, 0.0 and NaNs, an int32 and an int64, with NULLs, in ASC/DESC and NULLS
// FIRST/LAST; the first one or two keys as the PARTITION BY prefix. Keys that are not encoded
// whole (a long string) leave the marks unfilled.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "tandem/column/column_builder.h"
#include "tandem/exec/cpu/sort_keys.h"
#include "tandem/exec/cpu/sort_runs.h"

namespace tandem::cpu {
namespace {

std::vector<BatchPtr> RandomBatches(uint64_t seed, int max_string) {
  std::mt19937_64 rng(seed);
  const std::string alphabet("ab\0", 3);
  const double doubles[] = {-0.0,
                            0.0,
                            1.5,
                            -2.0,
                            std::numeric_limits<double>::quiet_NaN(),
                            -std::numeric_limits<double>::quiet_NaN()};
  std::vector<BatchPtr> out;
  for (int b = 0; b < 5; ++b) {
    ColumnBuilder s(DataType::String()), d(DataType::Float64()), i(DataType::Int32()),
        l(DataType::Int64());
    const int64_t rows = 300 + static_cast<int64_t>(rng() % 400);
    for (int64_t r = 0; r < rows; ++r) {
      if (rng() % 9 == 0) {
        s.AppendNull();
      } else {
        std::string v;
        const int len = static_cast<int>(rng() % (max_string + 1));
        for (int c = 0; c < len; ++c) v += alphabet[rng() % alphabet.size()];
        s.AppendString(v);
      }
      rng() % 11 == 0 ? d.AppendNull() : d.Append<double>(doubles[rng() % 6]);
      rng() % 13 == 0 ? i.AppendNull() : i.Append<int32_t>(static_cast<int32_t>(rng() % 3) - 1);
      rng() % 7 == 0 ? l.AppendNull() : l.Append<int64_t>(static_cast<int64_t>(rng() % 4));
    }
    auto batch = std::make_shared<Batch>();
    batch->num_rows = rows;
    batch->columns = {s.Finish(), d.Finish(), i.Finish(), l.Finish()};
    out.push_back(batch);
  }
  return out;
}

std::vector<std::vector<ColumnPtr>> KeyColumns(const std::vector<BatchPtr>& batches) {
  std::vector<std::vector<ColumnPtr>> cols;
  for (const BatchPtr& b : batches) cols.push_back(b->columns);
  return cols;
}

TEST(KeyChanges, MatchTheTypedComparisonOfTheSortedRows) {
  int checked = 0;
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    const std::vector<BatchPtr> batches = RandomBatches(seed, 3);
    for (int partition_keys : {0, 1, 2}) {
      std::vector<SortOrder> orders(4);
      for (int k = 0; k < 4; ++k) {
        orders[k].ascending = ((seed >> k) & 1) == 0;
        orders[k].nulls_first = ((seed + k) & 1) == 0;
      }
      SortKeyEncoder encoder(KeyColumns(batches), orders);
      ASSERT_FALSE(encoder.needs_tail()) << "short strings are encoded whole";
      KeyChanges changes;
      changes.prefix_bytes = encoder.ExactPrefixBytes(partition_keys);
      ASSERT_GE(changes.prefix_bytes, 0);
      Result<std::vector<int64_t>> refs = SortedRowRefs(batches, encoder, -1, &changes);
      ASSERT_TRUE(refs.ok()) << refs.status().ToString();
      ASSERT_TRUE(changes.filled);
      std::vector<uint8_t> part(refs->size(), 0), peer;
      encoder.MarkKeyChanges(*refs, 0, partition_keys, &part);
      peer = part;
      encoder.MarkKeyChanges(*refs, partition_keys, 4, &peer);
      part[0] = peer[0] = 1;  // row 0 starts everything
      EXPECT_EQ(changes.prefix_changed, part) << "seed " << seed << ", " << partition_keys;
      EXPECT_EQ(changes.any_changed, peer) << "seed " << seed << ", " << partition_keys;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 24);
}

TEST(KeyChanges, NotFilledWhenAKeyIsOnlyAPrefix) {
  const std::vector<BatchPtr> batches = RandomBatches(3, 40);  // strings past the words
  SortKeyEncoder encoder(KeyColumns(batches), std::vector<SortOrder>(4));
  ASSERT_TRUE(encoder.needs_tail());
  EXPECT_EQ(encoder.ExactPrefixBytes(1), -1);
  EXPECT_EQ(encoder.ExactPrefixBytes(0), 0);
}

}  // namespace
}  // namespace tandem::cpu
