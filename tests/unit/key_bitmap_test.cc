// The key bitmap of a hash join's build side (exec/cpu/key_bitmap.h): which build keys get one,
// and that RowsThatMayMatch keeps exactly the probe rows whose key is a non-NULL build key, for
// keys inside, below and above the span, NULLs on both sides, narrow integers and dates, with and
// without a selection.
#include "tandem/exec/cpu/key_bitmap.h"

#include <gtest/gtest.h>

#include <optional>
#include <random>
#include <set>
#include <vector>

#include "tandem/column/column_builder.h"

namespace tandem::cpu {
namespace {

template <typename T>
ColumnPtr Keys(const DataType& type, const std::vector<std::optional<T>>& values) {
  ColumnBuilder b(type);
  for (const auto& v : values) {
    if (v) {
      b.Append<T>(*v);
    } else {
      b.AppendNull();
    }
  }
  return b.Finish();
}

TEST(KeyBitmap, KeepsExactlyTheRowsWhoseKeyIsABuildKey) {
  std::mt19937_64 rng(3);
  std::vector<std::optional<int64_t>> build, probe;
  std::set<int64_t> keys;
  for (int i = 0; i < 2000; ++i) {
    if (i % 97 == 0) {
      build.push_back(std::nullopt);
      continue;
    }
    const int64_t k = -5000 + static_cast<int64_t>(rng() % 100000);
    build.push_back(k);
    keys.insert(k);
  }
  for (int i = 0; i < 20000; ++i) {
    if (i % 13 == 0) {
      probe.push_back(std::nullopt);
    } else if (i % 7 == 0) {
      probe.push_back(INT64_MIN + i);  // far below the span
    } else if (i % 11 == 0) {
      probe.push_back(INT64_MAX - i);  // far above it
    } else {
      probe.push_back(-6000 + static_cast<int64_t>(rng() % 102000));
    }
  }
  // Two build batches, as a join's build side comes.
  const std::vector<std::optional<int64_t>> first(build.begin(), build.begin() + 700);
  const std::vector<std::optional<int64_t>> second(build.begin() + 700, build.end());
  const auto bitmap = KeyBitmap::Build(
      DataType::Int64(), {{Keys(DataType::Int64(), first)}, {Keys(DataType::Int64(), second)}});
  ASSERT_NE(bitmap, nullptr);
  const ColumnPtr column = Keys(DataType::Int64(), probe);
  std::vector<int32_t> expected, selection, expected_selected;
  for (int i = 0; i < static_cast<int>(probe.size()); ++i) {
    const bool hit = probe[i] && keys.count(*probe[i]) > 0;
    if (hit) expected.push_back(i);
    if (i % 3 == 0) {
      selection.push_back(i);
      if (hit) expected_selected.push_back(i);
    }
  }
  ASSERT_FALSE(expected.empty());
  EXPECT_EQ(bitmap->RowsThatMayMatch(*column, nullptr), expected);
  EXPECT_EQ(bitmap->RowsThatMayMatch(*column, &selection), expected_selected);
}

TEST(KeyBitmap, NarrowIntegersAndDates) {
  const auto int8 = KeyBitmap::Build(
      DataType::Int8(), {{Keys<int8_t>(DataType::Int8(), {-128, 5, std::nullopt, 127})}});
  ASSERT_NE(int8, nullptr);
  const ColumnPtr probe = Keys<int8_t>(DataType::Int8(), {127, -128, 0, std::nullopt, 5, -127});
  EXPECT_EQ(int8->RowsThatMayMatch(*probe, nullptr), (std::vector<int32_t>{0, 1, 4}));
  const auto dates =
      KeyBitmap::Build(DataType::Date32(), {{Keys<int32_t>(DataType::Date32(), {8000, 9000})}});
  ASSERT_NE(dates, nullptr);
  const ColumnPtr days = Keys<int32_t>(DataType::Date32(), {7999, 8000, 8500, 9000, 9001});
  EXPECT_EQ(dates->RowsThatMayMatch(*days, nullptr), (std::vector<int32_t>{1, 3}));
}

TEST(KeyBitmap, NoneWhereItWouldNotPay) {
  // Two keys 2^40 apart: a span of more than 128 values per key and past 2^33.
  EXPECT_EQ(KeyBitmap::Build(DataType::Int64(),
                             {{Keys<int64_t>(DataType::Int64(), {0, int64_t{1} << 40})}}, 0,
                             UINT64_MAX, 1e12),
            nullptr);
  // TPC-H SF100's part keys, 20M apart: past 2^24, so only for a probe side of at least 2.5M
  // rows (one per 8 values), and never past 2^27 values.
  const std::vector<std::vector<ColumnPtr>> wide = {
      {Keys<int64_t>(DataType::Int64(), {1, 20000000})}};
  EXPECT_EQ(KeyBitmap::Build(DataType::Int64(), wide), nullptr);
  EXPECT_EQ(KeyBitmap::Build(DataType::Int64(), wide, 0, UINT64_MAX, 2e6), nullptr);
  EXPECT_EQ(KeyBitmap::Build(DataType::Int64(),
                             {{Keys<int64_t>(DataType::Int64(), {0, int64_t{1} << 27})}}, 0,
                             UINT64_MAX, 6e8),
            nullptr);
  const auto parts = KeyBitmap::Build(DataType::Int64(), wide, 0, UINT64_MAX, 6e8);
  ASSERT_NE(parts, nullptr);
  EXPECT_EQ(
      parts->RowsThatMayMatch(
          *Keys<int64_t>(DataType::Int64(), {0, 1, 2, 19999999, 20000000, 20000001}), nullptr),
      (std::vector<int32_t>{1, 4}));
  // Only NULLs, no batches, and keys that are not integers.
  EXPECT_EQ(KeyBitmap::Build(DataType::Int64(),
                             {{Keys<int64_t>(DataType::Int64(), {std::nullopt, std::nullopt})}}),
            nullptr);
  EXPECT_EQ(KeyBitmap::Build(DataType::Int64(), {}), nullptr);
  EXPECT_EQ(
      KeyBitmap::Build(DataType::Float64(), {{Keys<double>(DataType::Float64(), {1.0, 2.0})}}),
      nullptr);
  // The extremes of int64 span 2^64 values: never a bitmap (the span wraps to 0).
  EXPECT_EQ(KeyBitmap::Build(DataType::Int64(),
                             {{Keys<int64_t>(DataType::Int64(), {INT64_MIN, INT64_MAX})}}),
            nullptr);
}

TEST(KeyBitmap, StopsPayingWhenBatchesKeepMostRows) {
  const auto bitmap =
      KeyBitmap::Build(DataType::Int64(), {{Keys<int64_t>(DataType::Int64(), {1, 2, 3})}});
  ASSERT_NE(bitmap, nullptr);
  for (int i = 0; i < 15; ++i) {
    EXPECT_TRUE(bitmap->StillPays());
    bitmap->Record(90, 100);
  }
  bitmap->Record(90, 100);
  EXPECT_FALSE(bitmap->StillPays());  // 16 batches, every one keeping 90 of 100 rows
  const auto selective =
      KeyBitmap::Build(DataType::Int64(), {{Keys<int64_t>(DataType::Int64(), {1, 2, 3})}});
  for (int i = 0; i < 32; ++i) selective->Record(i % 4 == 0 ? 90 : 10, 100);
  EXPECT_TRUE(selective->StillPays());  // a quarter kept most: still worth it
}

TEST(KeyBitmap, OfSeveralKeysTheSparsestIsChosen) {
  // Build rows (supplier, part) as TPC-H Q09's partsupp of green parts: every supplier of
  // 1..100 appears, the parts are 1 in 20 of 1..4000; a string key between them gets no bitmap.
  std::vector<std::optional<int64_t>> supplier, part;
  std::vector<std::optional<std::string>> names;
  for (int64_t p = 1; p <= 4000; p += 20) {
    for (int64_t j = 0; j < 4; ++j) {
      supplier.push_back((p / 20 * 4 + j) % 100 + 1);
      part.push_back(p);
      names.push_back("x");
    }
  }
  ColumnBuilder name_builder(DataType::String());
  for (const auto& n : names) name_builder.AppendString(*n);
  const std::vector<std::vector<ColumnPtr>> build = {
      {Keys(DataType::Int64(), supplier), name_builder.Finish(), Keys(DataType::Int64(), part)}};
  size_t key = 99;
  const auto bitmap = KeyBitmap::BuildSparsest(
      {DataType::Int64(), DataType::String(), DataType::Int64()}, build, &key);
  ASSERT_NE(bitmap, nullptr);
  EXPECT_EQ(key, 2u);
  EXPECT_NEAR(bitmap->fill(), 200.0 / 3981.0, 1e-9);
  const auto first = KeyBitmap::Build(DataType::Int64(), build, 0);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->fill(), 1.0);
  // No key with a bitmap: none chosen.
  key = 99;
  EXPECT_EQ(KeyBitmap::BuildSparsest({DataType::String()}, {{name_builder.Finish()}}, &key),
            nullptr);
  EXPECT_EQ(key, 99u);
}

TEST(KeyBitmap, ATighterSpanBoundIsKept) {
  // Keys 0..999 and 5000: a span of 5001 values.
  std::vector<std::optional<int64_t>> keys;
  for (int64_t k = 0; k < 1000; ++k) keys.push_back(k);
  keys.push_back(5000);
  const std::vector<std::vector<ColumnPtr>> build = {{Keys(DataType::Int64(), keys)}};
  EXPECT_EQ(KeyBitmap::Build(DataType::Int64(), build, 0, 5000), nullptr);
  const auto bitmap = KeyBitmap::Build(DataType::Int64(), build, 0, 5001);
  ASSERT_NE(bitmap, nullptr);
  EXPECT_NEAR(bitmap->fill(), 1001.0 / 5001.0, 1e-12);
}

}  // namespace
}  // namespace tandem::cpu
