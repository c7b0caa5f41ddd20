// Window SUM / AVG of doubles over sliding and running frames when NaN, +inf and -inf enter and
// leave the frame, and when a huge value leaves it (no cancellation). Expectations are worked out
// by hand from IEEE semantics of the frame's own values (DuckDB 1.4.4 gives the same numbers for
// the first case: `sum(d) over (partition by g order by o rows between 2 preceding and current
// row)`).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <optional>

#include "tandem/column/column_builder.h"
#include "tandem/exec/cpu/window_functions.h"

namespace tandem {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
using B = WindowFrame::BoundKind;
using OptD = std::optional<double>;

// A layout of rows already in sorted order, partitions given by their sizes, every row its own
// peer group.
cpu::WindowLayout Layout(const std::vector<int64_t>& partition_sizes) {
  cpu::WindowLayout L;
  int64_t start = 0;
  for (int64_t size : partition_sizes) {
    for (int64_t i = 0; i < size; ++i) {
      L.refs.push_back(start + i);
      L.part_start.push_back(start);
      L.part_end.push_back(start + size);
      L.peer_start.push_back(start + i);
      L.peer_end.push_back(start + i + 1);
    }
    start += size;
  }
  return L;
}

ColumnPtr Doubles(const std::vector<OptD>& v) {
  ColumnBuilder b(DataType::Float64());
  for (auto x : v) {
    if (x) {
      b.Append<double>(*x);
    } else {
      b.AppendNull();
    }
  }
  return b.Finish();
}

// SUM or AVG of `values` over ROWS BETWEEN <start> AND <end> in each partition.
std::vector<OptD> FrameAggregate(AggregateKind kind, const std::vector<int64_t>& partitions,
                                 const std::vector<OptD>& values, B start, int64_t so, B end,
                                 int64_t eo) {
  cpu::WindowLayout L = Layout(partitions);
  WindowCall call;
  call.kind = WindowFunctionKind::kAggregate;
  call.aggregate = kind;
  call.type = DataType::Float64();
  call.name = "w";
  call.frame.unit = WindowFrame::Unit::kRows;
  call.frame.start = start;
  call.frame.start_offset = so;
  call.frame.end = end;
  call.frame.end_offset = eo;
  call.frame.has_order = true;
  std::vector<int64_t> fs, fe;
  EXPECT_TRUE(cpu::ComputeFrames(call.frame, L, nullptr, true, &fs, &fe).ok());
  auto r = cpu::ComputeWindowAggregate(call, L, {Doubles(values)}, fs, fe);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  std::vector<OptD> out;
  if (!r.ok()) return out;
  for (int64_t i = 0; i < (*r)->length(); ++i) {
    out.push_back((*r)->IsNull(i) ? OptD{} : OptD{(*r)->Value<double>(i)});
  }
  return out;
}

// Exact comparison where NaN equals NaN.
void ExpectSame(const std::vector<OptD>& actual, const std::vector<OptD>& expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    ASSERT_EQ(actual[i].has_value(), expected[i].has_value()) << "row " << i;
    if (!actual[i]) continue;
    const double a = *actual[i], e = *expected[i];
    if (std::isnan(e)) {
      EXPECT_TRUE(std::isnan(a)) << "row " << i << ": " << a;
    } else {
      EXPECT_EQ(a, e) << "row " << i;
    }
  }
}

const std::vector<OptD> kValues = {1.0,   2.0, kNaN, 3.0, 4.0, 5.0, kInf, 6.0,  // partition 1
                                   -kInf, 1.0, 2.0,  3.0};                      // partition 2

TEST(ExecWindowNanTest, SlidingSumRecoversAfterNaNAndInfLeave) {
  // Frames of 3 rows ending at the current row.
  auto s =
      FrameAggregate(AggregateKind::kSum, {8, 4}, kValues, B::kPreceding, 2, B::kCurrentRow, 0);
  ExpectSame(s, {1.0, 3.0, kNaN, kNaN, kNaN, 12.0, kInf, kInf, -kInf, -kInf, -kInf, 6.0});
}

TEST(ExecWindowNanTest, SlidingAvgRecoversAfterNaNAndInfLeave) {
  auto a = FrameAggregate(AggregateKind::kAvg, {8, 4}, kValues, B::kPreceding, 1, B::kFollowing, 1);
  ExpectSame(a, {1.5, kNaN, kNaN, kNaN, 4.0, kInf, kInf, kInf, -kInf, -kInf, 2.0, 2.5});
}

TEST(ExecWindowNanTest, BothInfinitiesGiveNaN) {
  auto s = FrameAggregate(AggregateKind::kSum, {5}, {kInf, -kInf, 1.0, std::nullopt, 2.0},
                          B::kPreceding, 1, B::kCurrentRow, 0);
  ExpectSame(s, {kInf, kNaN, -kInf, 1.0, 2.0});
}

TEST(ExecWindowNanTest, RunningSumRestartsPerPartition) {
  auto s = FrameAggregate(AggregateKind::kSum, {3, 3}, {1.0, kNaN, 2.0, 1.0, kInf, 0.5},
                          B::kUnboundedPreceding, 0, B::kCurrentRow, 0);
  ExpectSame(s, {1.0, kNaN, kNaN, 1.0, kInf, kInf});
  auto a = FrameAggregate(AggregateKind::kAvg, {3, 3}, {1.0, 2.0, 6.0, -kInf, kInf, 0.5},
                          B::kUnboundedPreceding, 0, B::kCurrentRow, 0);
  ExpectSame(a, {1.0, 1.5, 3.0, -kInf, kNaN, kNaN});
}

TEST(ExecWindowNanTest, HugeValueLeavingTheFrameKeepsSmallSumsExact) {
  // 1e300 leaves the 2-row frame; prefix differences would give 0 for the last rows.
  auto s = FrameAggregate(AggregateKind::kSum, {5}, {1e300, 1.0, -1e300, 0.25, 0.5}, B::kPreceding,
                          1, B::kCurrentRow, 0);
  ExpectSame(s, {1e300, 1e300, -1e300, -1e300, 0.75});
  auto t = FrameAggregate(AggregateKind::kSum, {5}, {1e20, 1.0, 2.0, 3.0, 0.25}, B::kPreceding, 2,
                          B::kCurrentRow, 0);
  ExpectSame(t, {1e20, 1e20, 1e20, 6.0, 5.25});
}

TEST(ExecWindowNanTest, EmptyAndAllNullFramesAreNull) {
  auto s = FrameAggregate(AggregateKind::kSum, {4}, {kNaN, std::nullopt, std::nullopt, 2.0},
                          B::kPreceding, 1, B::kCurrentRow, 0);
  ExpectSame(s, {kNaN, kNaN, std::nullopt, 2.0});
  // Frame 3..2 rows ahead is empty.
  auto e = FrameAggregate(AggregateKind::kAvg, {3}, {kInf, 1.0, 2.0}, B::kFollowing, 3,
                          B::kFollowing, 4);
  ExpectSame(e, {std::nullopt, std::nullopt, std::nullopt});
}

// RANGE BETWEEN 1 PRECEDING AND 1 FOLLOWING over ORDER BY d ASC NULLS LAST with d = -inf, 1, 2,
// 2.5, 3, +inf, NaN, NaN, NULL (already sorted; NaN largest): a NaN's frame is its NaN peers,
// an infinity's only its own peers (inf - 1 = inf), finite keys never reach NaN or NULL rows.
// DuckDB 1.4.4 gives the same frames (sum of 2^row over each frame).
TEST(ExecWindowNanTest, RangeOffsetsWithNaNAndInfKeys) {
  cpu::WindowLayout L = Layout({9});
  const std::vector<std::pair<int64_t, int64_t>> peers = {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5},
                                                          {5, 6}, {6, 8}, {6, 8}, {8, 9}};
  for (int64_t i = 0; i < 9; ++i) {
    L.peer_start[i] = peers[i].first;
    L.peer_end[i] = peers[i].second;
  }
  auto key = Doubles({-kInf, 1.0, 2.0, 2.5, 3.0, kInf, kNaN, kNaN, std::nullopt});
  WindowFrame frame;
  frame.unit = WindowFrame::Unit::kRange;
  frame.start = B::kPreceding;
  frame.start_offset = 1;
  frame.end = B::kFollowing;
  frame.end_offset = 1;
  frame.has_order = true;
  std::vector<int64_t> fs, fe;
  ASSERT_TRUE(cpu::ComputeFrames(frame, L, key.get(), true, &fs, &fe).ok());
  EXPECT_EQ(fs, (std::vector<int64_t>{0, 1, 1, 2, 2, 5, 6, 6, 8}));
  EXPECT_EQ(fe, (std::vector<int64_t>{1, 3, 5, 5, 5, 6, 8, 8, 9}));
  // Descending (keys reversed: NaN first, NULLs still last).
  auto desc = Doubles({kNaN, kNaN, kInf, 3.0, 2.5, 2.0, 1.0, -kInf, std::nullopt});
  const std::vector<std::pair<int64_t, int64_t>> dpeers = {{0, 2}, {0, 2}, {2, 3}, {3, 4}, {4, 5},
                                                           {5, 6}, {6, 7}, {7, 8}, {8, 9}};
  for (int64_t i = 0; i < 9; ++i) {
    L.peer_start[i] = dpeers[i].first;
    L.peer_end[i] = dpeers[i].second;
  }
  ASSERT_TRUE(cpu::ComputeFrames(frame, L, desc.get(), false, &fs, &fe).ok());
  EXPECT_EQ(fs, (std::vector<int64_t>{0, 0, 2, 3, 3, 3, 5, 7, 8}));
  EXPECT_EQ(fe, (std::vector<int64_t>{2, 2, 3, 6, 6, 7, 7, 8, 9}));
}

}  // namespace
}  // namespace tandem
