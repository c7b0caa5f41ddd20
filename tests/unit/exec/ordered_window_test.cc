// One partition's window calls computed in chunks (exec/cpu/ordered_window.h) against the
// in-memory Window over the same rows. The rows come sorted by the calls' ORDER BY (few distinct
// keys, NULLs among them: peer groups longer than a chunk, computed in pieces under calls that
// see peers (exec/cpu/large_peer_group.h), and shorter), in batches of random
// sizes (an empty one among them); chunks of 1 to 1000 rows. The in-memory Window sorts stably,
// so both keep the input's order and every value must match row for row: ROW_NUMBER, RANK,
// DENSE_RANK, COUNT(*), COUNT(x), SUM by RANGE and by ROWS, MIN and MAX (NaN above all numbers)
// of integers, doubles and decimals with NULLs, running AVG by RANGE and by ROWS (NaN and
// infinities among the doubles), sliding ROWS frames (reaching past several chunks), SUM, AVG,
// MAX over the whole partition, LAG and LEAD by up to 20 rows (past several chunks), NTILE,
// PERCENT_RANK, CUME_DIST, FIRST_VALUE, LAST_VALUE and NTH_VALUE; with no ORDER BY too. Calls
// that need the partition whole are refused.
#include "tandem/exec/cpu/ordered_window.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "tandem/column/column_builder.h"
#include "tandem/exec/cpu/operators.h"
#include "tandem/format/value_format.h"

namespace tandem {
namespace {

struct Row {
  std::optional<int64_t> g, x;
  std::optional<double> d;
  std::optional<int64_t> cents;
};

Schema InputSchema() {
  Schema s;
  s.fields = {{"g", DataType::Int64()},
              {"x", DataType::Int64()},
              {"d", DataType::Float64()},
              {"m", DataType::Decimal(12, 2)}};
  return s;
}

// Rows sorted by g ascending, NULLs last, in batches of 0 to 50 rows.
Table SortedInput(int64_t rows, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Row> all(static_cast<size_t>(rows));
  for (Row& r : all) {
    if (rng() % 8 != 0) r.g = static_cast<int64_t>(rng() % 6);
    if (rng() % 5 != 0) r.x = static_cast<int64_t>(rng() % 2001) - 1000;
    const uint64_t pick = rng() % 12;
    if (pick == 0) {
      r.d = std::nan("");
    } else if (pick == 1 && rng() % 4 == 0) {
      r.d = (rng() % 2 ? 1 : -1) * std::numeric_limits<double>::infinity();
    } else if (pick > 2) {
      r.d = static_cast<double>(rng() % 100) - 50;
    }
    if (rng() % 4 != 0) r.cents = static_cast<int64_t>(rng() % 100000) - 50000;
  }
  std::stable_sort(all.begin(), all.end(), [](const Row& a, const Row& b) {
    if (!a.g || !b.g) return a.g.has_value() && !b.g.has_value();
    return *a.g < *b.g;
  });
  Table t;
  t.schema = InputSchema();
  size_t begin = 0;
  bool empty_done = false;
  while (begin < all.size()) {
    size_t n = empty_done ? 1 + rng() % 50 : 0;
    empty_done = true;
    n = std::min(n, all.size() - begin);
    ColumnBuilder g(DataType::Int64()), x(DataType::Int64()), d(DataType::Float64()),
        m(DataType::Decimal(12, 2));
    for (size_t i = begin; i < begin + n; ++i) {
      const Row& r = all[i];
      r.g ? g.Append<int64_t>(*r.g) : g.AppendNull();
      r.x ? x.Append<int64_t>(*r.x) : x.AppendNull();
      r.d ? d.Append<double>(*r.d) : d.AppendNull();
      r.cents ? m.Append<int64_t>(*r.cents) : m.AppendNull();
    }
    auto batch = std::make_shared<Batch>();
    batch->schema = t.schema;
    batch->num_rows = static_cast<int64_t>(n);
    batch->columns = {g.Finish(), x.Finish(), d.Finish(), m.Finish()};
    t.batches.push_back(std::move(batch));
    begin += n;
  }
  return t;
}

enum class Frame { kRunning, kRunningRows, kWhole };

WindowCall Call(const std::string& name, WindowFunctionKind kind, DataType type,
                AggregateKind aggregate = AggregateKind::kCountStar, int arg = -1,
                Frame frame = Frame::kRunning, bool ordered = true) {
  const Schema input = InputSchema();
  WindowCall call;
  call.kind = kind;
  call.aggregate = aggregate;
  call.type = type;
  call.name = name;
  if (arg >= 0) {
    call.args.push_back(MakeColumnRef(arg, input.field(arg).type, true, input.field(arg).name));
  }
  if (ordered)
    call.order_by.push_back({MakeColumnRef(0, DataType::Int64(), true, "g"), true, false});
  call.frame.has_order = ordered;
  if (frame == Frame::kRunningRows) call.frame.unit = WindowFrame::Unit::kRows;
  if (frame == Frame::kWhole || !ordered) {
    call.frame.end = WindowFrame::BoundKind::kUnboundedFollowing;
  }
  return call;
}

PlanPtr ChunkableWindow() {
  using K = WindowFunctionKind;
  using A = AggregateKind;
  return MakeWindow(
      MakeValues(InputSchema(), {}),
      {Call("rn", K::kRowNumber, DataType::Int64()), Call("rk", K::kRank, DataType::Int64()),
       Call("dr", K::kDenseRank, DataType::Int64()),
       Call("c", K::kAggregate, DataType::Int64(), A::kCountStar),
       Call("cx", K::kAggregate, DataType::Int64(), A::kCount, 1),
       Call("sx", K::kAggregate, DataType::Int64(), A::kSum, 1),
       Call("sx_rows", K::kAggregate, DataType::Int64(), A::kSum, 1, Frame::kRunningRows),
       Call("sd", K::kAggregate, DataType::Float64(), A::kSum, 2, Frame::kRunningRows),
       Call("sm", K::kAggregate, DataType::Decimal(22, 2), A::kSum, 3),
       Call("mnx", K::kAggregate, DataType::Int64(), A::kMin, 1, Frame::kRunningRows),
       Call("mxd", K::kAggregate, DataType::Float64(), A::kMax, 2),
       Call("mnm", K::kAggregate, DataType::Decimal(12, 2), A::kMin, 3),
       Call("sx_all", K::kAggregate, DataType::Int64(), A::kSum, 1, Frame::kWhole),
       Call("ax_all", K::kAggregate, DataType::Float64(), A::kAvg, 1, Frame::kWhole),
       Call("mxm_all", K::kAggregate, DataType::Decimal(12, 2), A::kMax, 3, Frame::kWhole)});
}

// LAG and LEAD of `arg` by `offset` rows (none: the default of 1), with a default column.
WindowCall Navigation(const std::string& name, WindowFunctionKind kind, int arg, int offset,
                      int fallback = -1) {
  const Schema input = InputSchema();
  WindowCall call = Call(name, kind, input.field(arg).type, AggregateKind::kCountStar, arg);
  if (offset >= 0) call.args.push_back(MakeLiteral(Value::Int64(offset)));
  if (fallback >= 0) {
    call.args.push_back(
        MakeColumnRef(fallback, input.field(fallback).type, true, input.field(fallback).name));
  }
  return call;
}

// LAG and LEAD reaching past chunks of 1, 5 and 17 rows, with and without defaults.
PlanPtr NavigationWindow() {
  using K = WindowFunctionKind;
  return MakeWindow(MakeValues(InputSchema(), {}),
                    {Navigation("lag1", K::kLag, 1, -1), Navigation("lag3", K::kLag, 1, 3, 0),
                     Navigation("lag0", K::kLag, 2, 0), Navigation("lead1", K::kLead, 2, -1),
                     Navigation("lead7", K::kLead, 1, 7, 0), Navigation("lag20", K::kLag, 3, 20),
                     Call("rn", K::kRowNumber, DataType::Int64())});
}

// NTILE (fewer and more buckets than rows), PERCENT_RANK and CUME_DIST: from each row's place
// among all rows, not the chunk's.
PlanPtr PositionWindow() {
  using K = WindowFunctionKind;
  auto ntile = [](const std::string& name, int64_t buckets) {
    WindowCall call = Call(name, K::kNtile, DataType::Int64());
    call.args.push_back(MakeLiteral(Value::Int64(buckets)));
    return call;
  };
  return MakeWindow(
      MakeValues(InputSchema(), {}),
      {ntile("nt3", 3), ntile("nt7", 7), ntile("nt5000", 5000),
       Call("pr", K::kPercentRank, DataType::Float64()),
       Call("cd", K::kCumeDist, DataType::Float64()), Call("rk", K::kRank, DataType::Int64())});
}

// FIRST_VALUE, LAST_VALUE and NTH_VALUE up to the current row (RANGE and ROWS) and over the whole
// partition, NTH_VALUE at positions inside the first chunk, past it, and past every row.
PlanPtr PickWindow() {
  using K = WindowFunctionKind;
  auto nth = [](const std::string& name, int64_t n, Frame frame) {
    WindowCall call =
        Call(name, K::kNthValue, DataType::Int64(), AggregateKind::kCountStar, 1, frame);
    call.args.push_back(MakeLiteral(Value::Int64(n)));
    return call;
  };
  const Schema input = InputSchema();
  auto value = [&](const std::string& name, K kind, int arg, Frame frame) {
    return Call(name, kind, input.field(arg).type, AggregateKind::kCountStar, arg, frame);
  };
  return MakeWindow(
      MakeValues(InputSchema(), {}),
      {value("fv", K::kFirstValue, 2, Frame::kRunning),
       value("fv_all", K::kFirstValue, 3, Frame::kWhole),
       value("lv", K::kLastValue, 1, Frame::kRunning),
       value("lv_rows", K::kLastValue, 1, Frame::kRunningRows),
       value("lv_all", K::kLastValue, 2, Frame::kWhole), nth("nth3", 3, Frame::kRunning),
       nth("nth40", 40, Frame::kRunningRows), nth("nth700", 700, Frame::kRunning),
       nth("nth5000", 5000, Frame::kWhole), nth("nth2_all", 2, Frame::kWhole)});
}

// Running AVG by RANGE and by ROWS of integers, doubles (NaN and infinities among them) and
// decimals: sums and counts carried from chunk to chunk.
PlanPtr AverageWindow() {
  using K = WindowFunctionKind;
  using A = AggregateKind;
  return MakeWindow(
      MakeValues(InputSchema(), {}),
      {Call("ax", K::kAggregate, DataType::Float64(), A::kAvg, 1),
       Call("ax_rows", K::kAggregate, DataType::Float64(), A::kAvg, 1, Frame::kRunningRows),
       Call("ad", K::kAggregate, DataType::Float64(), A::kAvg, 2),
       Call("ad_rows", K::kAggregate, DataType::Float64(), A::kAvg, 2, Frame::kRunningRows),
       Call("am", K::kAggregate, DataType::Decimal(16, 6), A::kAvg, 3),
       Call("am_rows", K::kAggregate, DataType::Decimal(16, 6), A::kAvg, 3, Frame::kRunningRows),
       Call("sx", K::kAggregate, DataType::Int64(), A::kSum, 1)});
}

// A ROWS frame from `start` to `end` rows from the current one (negative: before it).
WindowCall Sliding(WindowCall call, int64_t start, int64_t end) {
  using BK = WindowFrame::BoundKind;
  auto bound = [](int64_t at) {
    return at < 0 ? BK::kPreceding : at > 0 ? BK::kFollowing : BK::kCurrentRow;
  };
  call.frame.unit = WindowFrame::Unit::kRows;
  call.frame.start = bound(start);
  call.frame.start_offset = start < 0 ? -start : start;
  call.frame.end = bound(end);
  call.frame.end_offset = end < 0 ? -end : end;
  return call;
}

// The same frame by RANGE: offsets in values of g.
WindowCall ByRange(WindowCall call, int64_t start, int64_t end) {
  call = Sliding(std::move(call), start, end);
  call.frame.unit = WindowFrame::Unit::kRange;
  return call;
}

// Sliding ROWS frames, before and after the current row, some reaching past several chunks.
PlanPtr SlidingWindow() {
  using K = WindowFunctionKind;
  using A = AggregateKind;
  WindowCall nth2 = Call("nth2", K::kNthValue, DataType::Int64(), A::kCountStar, 1);
  nth2.args.push_back(MakeLiteral(Value::Int64(2)));
  return MakeWindow(
      MakeValues(InputSchema(), {}),
      {Sliding(Call("sx", K::kAggregate, DataType::Int64(), A::kSum, 1), -3, 2),
       Sliding(Call("ad", K::kAggregate, DataType::Float64(), A::kAvg, 2), 0, 5),
       Sliding(Call("mnm", K::kAggregate, DataType::Decimal(12, 2), A::kMin, 3), -20, -1),
       Sliding(Call("mxx", K::kAggregate, DataType::Int64(), A::kMax, 1), 2, 7),
       Sliding(Call("c", K::kAggregate, DataType::Int64(), A::kCountStar), 0, 30),
       Sliding(Call("fv", K::kFirstValue, DataType::Int64(), A::kCountStar, 1), -2, 0),
       Sliding(Call("lv", K::kLastValue, DataType::Float64(), A::kCountStar, 2), 0, 3),
       Sliding(nth2, -4, 4), Call("rn", K::kRowNumber, DataType::Int64())});
}

// Calls with no ORDER BY: ROW_NUMBER in the input's order, aggregates over every row (the
// default frame), a running SUM by ROWS.
PlanPtr UnorderedWindow() {
  using K = WindowFunctionKind;
  using A = AggregateKind;
  const Frame whole = Frame::kWhole;
  return MakeWindow(MakeValues(InputSchema(), {}),
                    {Call("rn", K::kRowNumber, DataType::Int64(), A::kCountStar, -1, whole, false),
                     Call("sx", K::kAggregate, DataType::Int64(), A::kSum, 1, whole, false),
                     Call("c", K::kAggregate, DataType::Int64(), A::kCountStar, -1, whole, false),
                     Call("mnd", K::kAggregate, DataType::Float64(), A::kMin, 2, whole, false)});
}

std::vector<std::string> ColumnText(const Table& t, int column) {
  std::vector<std::string> out;
  for (const BatchPtr& b : t.batches) {
    for (int64_t r = 0; r < b->num_rows; ++r) {
      std::string text;
      format::AppendText(*b->columns[column], r, &text);
      out.push_back(std::move(text));
    }
  }
  return out;
}

void ExpectChunksMatch(const PlanPtr& window) {
  ASSERT_TRUE(cpu::ComputesInOrderedChunks(*window));
  ExecContext ctx;
  for (uint64_t seed : {1u, 2u, 3u}) {
    const Table input = SortedInput(seed == 1 ? 10 : 3000, seed);
    Result<Table> want = cpu::Window(*window, input, ctx);
    ASSERT_TRUE(want.ok()) << want.status().ToString();
    for (int64_t chunk_rows : {1, 5, 17, 1000}) {
      Table sorted = input;
      Result<Table> got = cpu::WindowInOrderedChunks(*window, &sorted, chunk_rows, ctx);
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      EXPECT_TRUE(sorted.batches.empty());
      ASSERT_EQ(got->num_rows(), input.num_rows());
      for (int c = 0; c < window->schema.num_fields(); ++c) {
        EXPECT_EQ(ColumnText(*got, c), ColumnText(*want, c))
            << window->schema.field(c).name << ", seed " << seed << ", chunks of " << chunk_rows;
      }
    }
  }
}

TEST(OrderedWindow, ChunksGiveTheInMemoryWindowsValues) { ExpectChunksMatch(ChunkableWindow()); }

TEST(OrderedWindow, RunningAveragesCarryTheirSumsAndCounts) { ExpectChunksMatch(AverageWindow()); }

TEST(OrderedWindow, SlidingFramesReachIntoTheChunksAround) { ExpectChunksMatch(SlidingWindow()); }

TEST(OrderedWindow, LagAndLeadReachAcrossChunks) { ExpectChunksMatch(NavigationWindow()); }

TEST(OrderedWindow, PositionsAmongAllRows) { ExpectChunksMatch(PositionWindow()); }

TEST(OrderedWindow, FirstLastAndNthValues) { ExpectChunksMatch(PickWindow()); }

// Calls that do not see peers (ROW_NUMBER, NTILE, frames by ROWS, over the whole partition):
// chunks end anywhere, inside the long peer groups of the input too.
PlanPtr PeerBlindWindow() {
  using K = WindowFunctionKind;
  using A = AggregateKind;
  WindowCall ntile = Call("nt7", K::kNtile, DataType::Int64());
  ntile.args.push_back(MakeLiteral(Value::Int64(7)));
  return MakeWindow(
      MakeValues(InputSchema(), {}),
      {Call("rn", K::kRowNumber, DataType::Int64()),
       Call("sx_rows", K::kAggregate, DataType::Int64(), A::kSum, 1, Frame::kRunningRows),
       Call("mnx", K::kAggregate, DataType::Int64(), A::kMin, 1, Frame::kRunningRows),
       Call("am_rows", K::kAggregate, DataType::Decimal(16, 6), A::kAvg, 3, Frame::kRunningRows),
       Call("lv_rows", K::kLastValue, DataType::Int64(), A::kCountStar, 1, Frame::kRunningRows),
       Call("sx_all", K::kAggregate, DataType::Int64(), A::kSum, 1, Frame::kWhole), ntile,
       Navigation("lead2", K::kLead, 1, 2)});
}

TEST(OrderedWindow, CallsBlindToPeersCutInsidePeerGroups) {
  EXPECT_TRUE(cpu::PeersMatter(*ChunkableWindow()));
  EXPECT_TRUE(cpu::PeersMatter(*PositionWindow()));  // PERCENT_RANK, CUME_DIST
  EXPECT_FALSE(cpu::PeersMatter(*NavigationWindow()));
  EXPECT_FALSE(cpu::PeersMatter(*SlidingWindow()));
  EXPECT_FALSE(cpu::PeersMatter(*PeerBlindWindow()));
  ExpectChunksMatch(PeerBlindWindow());
}

// RANGE frames ending at the row's peers, by ORDER BY value (g: six values, NULLs last): over
// the rows kept from before each chunk whose g is within the offset of the chunk's last; a ROWS
// frame beside them keeps its own rows.
PlanPtr RangeWindow() {
  using K = WindowFunctionKind;
  using A = AggregateKind;
  return MakeWindow(
      MakeValues(InputSchema(), {}),
      {ByRange(Call("sx1", K::kAggregate, DataType::Int64(), A::kSum, 1), -1, 0),
       ByRange(Call("ad2", K::kAggregate, DataType::Float64(), A::kAvg, 2), -2, 0),
       ByRange(Call("mnm0", K::kAggregate, DataType::Decimal(12, 2), A::kMin, 3), 0, 0),
       ByRange(Call("c31", K::kAggregate, DataType::Int64(), A::kCountStar), -3, -1),
       ByRange(Call("fv2", K::kFirstValue, DataType::Int64(), A::kCountStar, 1), -2, 0),
       ByRange(Call("lv1", K::kLastValue, DataType::Float64(), A::kCountStar, 2), -1, 0),
       Sliding(Call("sx_rows", K::kAggregate, DataType::Int64(), A::kSum, 1), -7, 0),
       Call("rn", K::kRowNumber, DataType::Int64())});
}

TEST(OrderedWindow, RangeFramesReachBackByValue) {
  EXPECT_TRUE(cpu::PeersMatter(*RangeWindow()));
  ExpectChunksMatch(RangeWindow());
}

// RANGE frames reaching ahead by ORDER BY value (g: six values, NULLs last): the last rows of a
// chunk within the reach ahead of its last g stay open and are computed again with the next
// chunk (also rows of several chunks back when chunks are shorter than the reach); beside a
// frame reaching back, a LEAD and a ROWS frame reaching ahead.
PlanPtr RangeAheadWindow() {
  using K = WindowFunctionKind;
  using A = AggregateKind;
  return MakeWindow(
      MakeValues(InputSchema(), {}),
      {ByRange(Call("sx21", K::kAggregate, DataType::Int64(), A::kSum, 1), -2, 1),
       ByRange(Call("c02", K::kAggregate, DataType::Int64(), A::kCountStar), 0, 2),
       ByRange(Call("ad13", K::kAggregate, DataType::Float64(), A::kAvg, 2), 1, 3),
       ByRange(Call("mxm11", K::kAggregate, DataType::Decimal(12, 2), A::kMax, 3), -1, 1),
       ByRange(Call("lv01", K::kLastValue, DataType::Float64(), A::kCountStar, 2), 0, 1),
       ByRange(Call("c31", K::kAggregate, DataType::Int64(), A::kCountStar), -3, -1),
       Sliding(Call("sx_rows", K::kAggregate, DataType::Int64(), A::kSum, 1), -2, 5),
       Navigation("ld", K::kLead, 1, 3), Call("rk", K::kRank, DataType::Int64())});
}

// COUNT, SUM and AVG of integers and decimals from the current row (by RANGE: its first peer) to
// the partition's end: the totals over every row, taken first, less the rows before.
PlanPtr SuffixWindow() {
  using K = WindowFunctionKind;
  using A = AggregateKind;
  auto to_end = [](WindowCall call, bool by_rows) {
    call.frame.unit = by_rows ? WindowFrame::Unit::kRows : WindowFrame::Unit::kRange;
    call.frame.start = WindowFrame::BoundKind::kCurrentRow;
    call.frame.end = WindowFrame::BoundKind::kUnboundedFollowing;
    return call;
  };
  return MakeWindow(
      MakeValues(InputSchema(), {}),
      {to_end(Call("c_rows", K::kAggregate, DataType::Int64(), A::kCountStar), true),
       to_end(Call("c_range", K::kAggregate, DataType::Int64(), A::kCountStar), false),
       to_end(Call("cx", K::kAggregate, DataType::Int64(), A::kCount, 1), false),
       to_end(Call("sx_rows", K::kAggregate, DataType::Int64(), A::kSum, 1), true),
       to_end(Call("sx_range", K::kAggregate, DataType::Int64(), A::kSum, 1), false),
       to_end(Call("sm", K::kAggregate, DataType::Decimal(22, 2), A::kSum, 3), false),
       to_end(Call("ax", K::kAggregate, DataType::Float64(), A::kAvg, 1), true),
       Call("rk", K::kRank, DataType::Int64()), Navigation("ld", K::kLead, 1, 2)});
}

TEST(OrderedWindow, AggregatesToThePartitionsEnd) {
  EXPECT_TRUE(cpu::NeedsEveryRowFirst(*SuffixWindow()));
  ExpectChunksMatch(SuffixWindow());
}

TEST(OrderedWindow, RangeFramesReachAheadByValue) {
  EXPECT_TRUE(cpu::ComputesInOrderedChunks(*RangeAheadWindow()));
  ExpectChunksMatch(RangeAheadWindow());
}

TEST(OrderedWindow, WithNoOrderByChunksAreTheInputsBatches) {
  ExpectChunksMatch(UnorderedWindow());
}

TEST(OrderedWindow, CallsThatNeedThePartitionWholeAreRefused) {
  using K = WindowFunctionKind;
  auto only = [](WindowCall call) { return MakeWindow(MakeValues(InputSchema(), {}), {call}); };
  // LAG by more rows than are kept between chunks (2^20), or by a computed offset.
  EXPECT_FALSE(cpu::ComputesInOrderedChunks(*only(Navigation("l", K::kLag, 1, 2000000))));
  WindowCall cume = Call("c", K::kCumeDist, DataType::Float64(), AggregateKind::kCountStar, -1,
                         Frame::kWhole, false);
  EXPECT_FALSE(cpu::ComputesInOrderedChunks(*only(cume)));  // no ORDER BY: all rows are peers
  WindowCall computed = Navigation("l", K::kLag, 1, -1);
  computed.args.push_back(MakeColumnRef(0, DataType::Int64(), true, "g"));
  EXPECT_FALSE(cpu::ComputesInOrderedChunks(*only(computed)));
  // Sliding frames reaching further than that, or by RANGE.
  WindowCall far =
      Sliding(Call("a", K::kAggregate, DataType::Float64(), AggregateKind::kAvg, 1), -2000000, 0);
  EXPECT_FALSE(cpu::ComputesInOrderedChunks(*only(far)));
  WindowCall by_range =  // MIN from the row's peers to the end (COUNT, SUM, AVG can be)
      Sliding(Call("a", K::kAggregate, DataType::Int64(), AggregateKind::kMin, 1), 0, 1);
  by_range.frame.unit = WindowFrame::Unit::kRange;
  by_range.frame.end = WindowFrame::BoundKind::kUnboundedFollowing;
  EXPECT_FALSE(cpu::ComputesInOrderedChunks(*only(by_range)));
  EXPECT_FALSE(cpu::ComputesInOrderedChunks(*only(Call(
      "r", K::kRank, DataType::Int64(), AggregateKind::kCountStar, -1, Frame::kWhole, false))));
  WindowCall ahead = Call("s", K::kAggregate, DataType::Int64(), AggregateKind::kSum, 1);
  ahead.frame.end = WindowFrame::BoundKind::kFollowing;  // a row ahead, not to the end
  ahead.frame.end_offset = 1;
  EXPECT_FALSE(cpu::ComputesInOrderedChunks(*only(ahead)));
  WindowCall partitioned = Call("r", K::kRowNumber, DataType::Int64());
  partitioned.partition_by.push_back(MakeColumnRef(1, DataType::Int64(), true, "x"));
  EXPECT_FALSE(cpu::ComputesInOrderedChunks(*only(partitioned)));
  WindowCall other_order = Call("r", K::kRowNumber, DataType::Int64());
  other_order.order_by[0].ascending = false;
  EXPECT_FALSE(cpu::ComputesInOrderedChunks(*MakeWindow(
      MakeValues(InputSchema(), {}), {Call("q", K::kRowNumber, DataType::Int64()), other_order})));
  WindowCall strings = Call("mn", K::kAggregate, DataType::String(), AggregateKind::kMin, 1);
  EXPECT_FALSE(cpu::ComputesInOrderedChunks(*only(strings)));
}

}  // namespace
}  // namespace tandem
