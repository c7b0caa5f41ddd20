// Take: rows gathered by index from every layout, a negative index giving NULL; strings with
// 32- and 64-bit offsets, NULLs and empty strings in the source.
#include "tandem/column/take.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "tandem/column/column_builder.h"

namespace tandem {
namespace {

ColumnPtr Strings() {
  ColumnBuilder b(DataType::String());
  b.AppendString("alpha");
  b.AppendString("");
  b.AppendNull();
  b.AppendString("a longer string than sixteen bytes");
  b.AppendString("z");
  return b.Finish();
}

// The same values with 64-bit offsets.
ColumnPtr WithLargeOffsets(const Column& c) {
  auto offsets = Buffer::Allocate((c.length() + 1) * 8);
  for (int64_t i = 0; i <= c.length(); ++i) {
    offsets->mutable_data_as<int64_t>()[i] = c.StringOffset(i);
  }
  return std::make_shared<Column>(c.type(), c.length(), c.null_count(), c.validity(), offsets,
                                  c.data(), true);
}

void ExpectStrings(const Column& out, const std::vector<const char*>& expected) {
  ASSERT_EQ(out.length(), static_cast<int64_t>(expected.size()));
  ASSERT_TRUE(out.Validate().ok()) << out.Validate().ToString();
  int64_t nulls = 0;
  for (size_t i = 0; i < expected.size(); ++i) {
    if (expected[i] == nullptr) {
      EXPECT_TRUE(out.IsNull(i)) << i;
      ++nulls;
    } else {
      EXPECT_TRUE(out.IsValid(i)) << i;
      EXPECT_EQ(out.GetString(i), expected[i]) << i;
    }
  }
  EXPECT_EQ(out.null_count(), nulls);
}

TEST(Take, StringsWithNullsEmptyStringsAndNegativeIndexes) {
  const ColumnPtr source = Strings();
  const std::vector<int32_t> idx = {3, -1, 0, 2, 1, 4, 3};
  const std::vector<const char*> expected = {
      "a longer string than sixteen bytes", nullptr, "alpha", nullptr, "", "z",
      "a longer string than sixteen bytes"};
  ExpectStrings(*Take(*source, idx.data(), static_cast<int64_t>(idx.size())), expected);
  const ColumnPtr large = WithLargeOffsets(*source);
  ExpectStrings(*Take(*large, idx.data(), static_cast<int64_t>(idx.size())), expected);
  const std::vector<int64_t> idx64(idx.begin(), idx.end());
  ExpectStrings(*Take(*large, idx64.data(), static_cast<int64_t>(idx64.size())), expected);
}

TEST(Take, StringsWithoutNullsKeepNoBitmap) {
  ColumnBuilder b(DataType::String());
  for (int i = 0; i < 100; ++i)
    b.AppendString(std::string(static_cast<size_t>(i % 7), 'a' + i % 26));
  const ColumnPtr source = b.Finish();
  std::vector<int32_t> idx;
  for (int i = 99; i >= 0; i -= 3) idx.push_back(i);
  const ColumnPtr out = Take(*source, idx.data(), static_cast<int64_t>(idx.size()));
  EXPECT_FALSE(out->has_validity());
  for (size_t i = 0; i < idx.size(); ++i) EXPECT_EQ(out->GetString(i), source->GetString(idx[i]));
  EXPECT_EQ(Take(*source, idx.data(), 0)->length(), 0);
}

TEST(Take, FromAStringColumnOfNoRowsEveryRowIsNull) {
  // An outer join's unmatched rows gather from an empty side: every index negative.
  const Column empty(DataType::String(), 0, 0, nullptr, nullptr);
  const std::vector<int32_t> idx = {-1, -1};
  ExpectStrings(*Take(empty, idx.data(), 2), {nullptr, nullptr});
  EXPECT_EQ(Take(empty, idx.data(), 0)->length(), 0);
}

TEST(Take, FixedWidthWithNullsAndNegativeIndexes) {
  ColumnBuilder b(DataType::Int64());
  b.Append<int64_t>(10);
  b.AppendNull();
  b.Append<int64_t>(-30);
  const ColumnPtr source = b.Finish();
  const std::vector<int32_t> idx = {2, 1, -1, 0};
  const ColumnPtr out = Take(*source, idx.data(), 4);
  ASSERT_EQ(out->length(), 4);
  EXPECT_EQ(out->null_count(), 2);
  EXPECT_EQ(out->Value<int64_t>(0), -30);
  EXPECT_TRUE(out->IsNull(1));
  EXPECT_TRUE(out->IsNull(2));
  EXPECT_EQ(out->Value<int64_t>(3), 10);
}

}  // namespace
}  // namespace tandem
