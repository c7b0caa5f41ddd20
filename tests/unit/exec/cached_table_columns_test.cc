// CACHE TABLE's choice of the columns to cache when a table does not fit host memory whole
// (exec/cached_table_columns.h), and how a table cached in part answers which scans it serves.
#include "tandem/exec/cached_table_columns.h"

#include <gtest/gtest.h>

#include "tandem/exec/exec_context.h"

namespace tandem {
namespace {

std::vector<ProjectedColumn> Fixed(const std::vector<int64_t>& bytes) {
  std::vector<ProjectedColumn> out;
  for (int64_t b : bytes) out.push_back({b, false});
  return out;
}

TEST(CachedTableColumns, StringsStayInTheFilesFirstWidestFirst) {
  // TPC-H lineitem's shape: narrow numbers, a wide comment, a middling string, a short string
  // narrower than the numbers.
  const std::vector<ProjectedColumn> projected = {{8, false}, {8, false}, {30, true},
                                                  {16, true}, {4, true},  {4, false}};
  ColumnsToCache cut = NarrowColumnsThatFit(projected, 40);
  EXPECT_EQ(cut.kept, (std::vector<int>{0, 1, 3, 4, 5}));
  EXPECT_EQ(cut.left_out, (std::vector<int>{2}));
  cut = NarrowColumnsThatFit(projected, 24);
  EXPECT_EQ(cut.kept, (std::vector<int>{0, 1, 4, 5}));
  EXPECT_EQ(cut.left_out, (std::vector<int>{2, 3}));
  // The short string goes before any number, though it is narrower.
  cut = NarrowColumnsThatFit(projected, 20);
  EXPECT_EQ(cut.kept, (std::vector<int>{0, 1, 5}));
  EXPECT_EQ(cut.left_out, (std::vector<int>{2, 3, 4}));
  // Then the widest numbers.
  cut = NarrowColumnsThatFit(projected, 12);
  EXPECT_EQ(cut.kept, (std::vector<int>{0, 5}));
  EXPECT_EQ(cut.left_out, (std::vector<int>{1, 2, 3, 4}));
}

TEST(CachedTableColumns, ANarrowColumnLeftOutComesBackWhereAWiderOneMadeRoom) {
  const std::vector<ProjectedColumn> projected = {{8, false}, {8, false}, {30, true},
                                                  {16, true}, {4, true},  {4, false}};
  // Leaving out the strings is not enough (20 > 17); leaving out a number too leaves 12, and
  // the short string fits beside it again.
  const ColumnsToCache cut = NarrowColumnsThatFit(projected, 17);
  EXPECT_EQ(cut.kept, (std::vector<int>{0, 4, 5}));
  EXPECT_EQ(cut.left_out, (std::vector<int>{1, 2, 3}));
}

TEST(CachedTableColumns, AmongEqualWidthsTheLaterColumnGoesFirst) {
  const ColumnsToCache cut = NarrowColumnsThatFit(Fixed({8, 8, 8}), 16);
  EXPECT_EQ(cut.kept, (std::vector<int>{0, 1}));
  EXPECT_EQ(cut.left_out, (std::vector<int>{2}));
}

TEST(CachedTableColumns, EverythingFitsOrNothingDoes) {
  ColumnsToCache cut = NarrowColumnsThatFit(Fixed({8, 8}), 16);
  EXPECT_EQ(cut.kept, (std::vector<int>{0, 1}));
  EXPECT_TRUE(cut.left_out.empty());
  cut = NarrowColumnsThatFit(Fixed({8, 8}), 7);
  EXPECT_TRUE(cut.kept.empty());
  EXPECT_EQ(cut.left_out, (std::vector<int>{0, 1}));
  cut = NarrowColumnsThatFit(Fixed({8, 8}), -5);  // less free than the share left for queries
  EXPECT_TRUE(cut.kept.empty());
  cut = NarrowColumnsThatFit({}, 100);
  EXPECT_TRUE(cut.kept.empty() && cut.left_out.empty());
}

TEST(CachedTableColumns, ATableCachedInPartServesOnlyScansOfItsColumns) {
  CachedTable whole;
  EXPECT_TRUE(whole.Holds({0, 5, 9}));
  EXPECT_EQ(whole.SlotsOf({5, 0}), (std::vector<int>{5, 0}));
  CachedTable part;
  part.columns = {0, 1, 3, 4};  // column 2 left in the files
  EXPECT_TRUE(part.Holds({}));  // count(*)
  EXPECT_TRUE(part.Holds({4, 0}));
  EXPECT_FALSE(part.Holds({1, 2}));
  EXPECT_EQ(part.SlotsOf({4, 0, 3}), (std::vector<int>{3, 0, 2}));

  TableCache cache;
  TableSource* key = reinterpret_cast<TableSource*>(&part);  // only compared, never read
  CachedTable entry = part;
  entry.name = "t";
  entry.source = std::shared_ptr<const TableSource>(key, [](const TableSource*) {});
  cache.Put(entry);
  EXPECT_NE(cache.PeekHolding(key, {0, 4}), nullptr);
  EXPECT_EQ(cache.PeekHolding(key, {2}), nullptr);
  EXPECT_EQ(cache.FindHolding(key, {0, 2}), nullptr);
  EXPECT_NE(cache.FindHolding(key, {3}), nullptr);
}

}  // namespace
}  // namespace tandem
