// CACHE TABLE's choice of cached GPU tables to move to host memory for a new table
// (exec/cached_table_moves.h), from the GPU's and the host's figures, without a GPU.
#include "tandem/exec/cached_table_moves.h"

#include <gtest/gtest.h>

namespace tandem {
namespace {

constexpr int64_t kGiB = int64_t{1} << 30;

struct Tables {
  std::vector<CachedTable> tables;
  std::vector<CachedTable*> pointers;  // least recently used first

  explicit Tables(const std::vector<std::pair<std::string, int64_t>>& name_bytes) {
    for (const auto& [name, bytes] : name_bytes) {
      CachedTable t;
      t.name = name;
      t.bytes = bytes;
      tables.push_back(t);
    }
    for (CachedTable& t : tables) pointers.push_back(&t);
  }
};

std::vector<std::string> Names(const std::vector<CachedTable*>& chosen) {
  std::vector<std::string> out;
  for (const CachedTable* t : chosen) out.push_back(t->name);
  return out;
}

TEST(CachedTableMoves, TheTablesUsedLongestAgoThatMakeRoomMove) {
  Tables t({{"region", 1 * kGiB}, {"part", 3 * kGiB}, {"orders", 19 * kGiB}});
  // 80 GiB of which 23 are cached tables and 2 a query's: 55 free, 58 wanted, 3 short.
  GpuRoom room{80 * kGiB, 25 * kGiB, 100 * kGiB};
  std::string why_not;
  auto chosen = TablesToMoveForRoom(58 * kGiB, room, t.pointers, &why_not);
  EXPECT_EQ(why_not, "");
  EXPECT_EQ(Names(chosen), (std::vector<std::string>{"region", "part"}));
}

TEST(CachedTableMoves, NothingMovesForATableTheGpuCannotHoldEvenEmptied) {
  Tables t({{"part", 3 * kGiB}, {"partsupp", 12 * kGiB}, {"orders", 19 * kGiB}});
  // TPC-H lineitem at SF100 on an 80 GB GPU beside 2 GiB held by something else.
  GpuRoom room{79 * kGiB, 36 * kGiB, 100 * kGiB};
  std::string why_not;
  auto chosen = TablesToMoveForRoom(88 * kGiB, room, t.pointers, &why_not);
  EXPECT_TRUE(chosen.empty());
  EXPECT_NE(why_not.find("more than the GPU holds beside what is not a cached table"),
            std::string::npos)
      << why_not;
}

TEST(CachedTableMoves, NothingMovesWhenHostMemoryCannotTakeTheTables) {
  Tables t({{"orders", 19 * kGiB}, {"partsupp", 12 * kGiB}});
  GpuRoom room{80 * kGiB, 31 * kGiB, 10 * kGiB};
  std::string why_not;
  auto chosen = TablesToMoveForRoom(60 * kGiB, room, t.pointers, &why_not);
  EXPECT_TRUE(chosen.empty());
  EXPECT_NE(why_not.find("moving the 1 cached table(s) used longest ago"), std::string::npos)
      << why_not;
  EXPECT_NE(why_not.find("which has 10.0 GiB free"), std::string::npos) << why_not;
}

TEST(CachedTableMoves, FiguresThatCannotTellLeaveTheChoiceToTheCaller) {
  Tables t({{"nation", 4096}, {"region", 512}});
  std::string why_not;
  // The pool shows room: the copy failed for another reason (an injected failure).
  EXPECT_TRUE(
      TablesToMoveForRoom(1 << 20, GpuRoom{kGiB, 8192, kGiB}, t.pointers, &why_not).empty());
  // The capacity is unknown.
  EXPECT_TRUE(TablesToMoveForRoom(1 << 20, GpuRoom{0, 8192, kGiB}, t.pointers, &why_not).empty());
  EXPECT_EQ(why_not, "");
}

}  // namespace
}  // namespace tandem
