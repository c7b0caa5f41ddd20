// Window against a brute-force oracle written here (per row: sort its partition, find its
// frame by scanning, aggregate the frame): ranking, navigation and frame aggregates over ROWS
// and RANGE frames (peers, value offsets), NULL partition and order keys, several batches,
// several window specifications in one node.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <random>

#include "tandem/column/column_builder.h"
#include "tandem/column/take.h"
#include "tandem/exec/cpu/operators.h"

namespace tandem {
namespace {

using B = WindowFrame::BoundKind;
using Opt = std::optional<int64_t>;
struct Row {
  Opt p, o, v;
  int64_t id;
};

struct Spec {
  bool partition;
  bool order;
  bool desc;         // order by o DESC NULLS FIRST (else ASC NULLS LAST)
  bool id_tiebreak;  // then by id
};

struct Call {
  WindowFunctionKind kind;
  AggregateKind agg = AggregateKind::kCountStar;
  Spec spec;
  WindowFrame::Unit unit = WindowFrame::Unit::kRange;
  B start = B::kUnboundedPreceding;
  int64_t so = 0;
  B end = B::kCurrentRow;
  int64_t eo = 0;
  int64_t param = 0;  // ntile n, lag/lead offset, nth_value n
};

Schema InputSchema() {
  Schema s;
  s.fields = {{"p", DataType::Int64()},
              {"o", DataType::Int64()},
              {"v", DataType::Int64()},
              {"id", DataType::Int64()}};
  return s;
}

Table ToTable(const std::vector<Row>& rows, int batches) {
  Table t;
  t.schema = InputSchema();
  const int n = static_cast<int>(rows.size());
  const int per = std::max(1, (n + batches - 1) / batches);
  for (int begin = 0; begin < n; begin += per) {
    const int end = std::min(n, begin + per);
    std::vector<ColumnBuilder> cb;  // not copies of one builder: those would share buffers
    for (int c = 0; c < 4; ++c) cb.emplace_back(DataType::Int64());
    for (int i = begin; i < end; ++i) {
      const Opt vals[3] = {rows[i].p, rows[i].o, rows[i].v};
      for (int c = 0; c < 3; ++c) {
        if (vals[c])
          cb[c].Append<int64_t>(*vals[c]);
        else
          cb[c].AppendNull();
      }
      cb[3].Append<int64_t>(rows[i].id);
    }
    auto b = std::make_shared<Batch>();
    b->schema = t.schema;
    b->num_rows = end - begin;
    for (auto& c : cb) b->columns.push_back(c.Finish());
    t.batches.push_back(b);
  }
  return t;
}

// ORDER BY comparison of two rows under a spec (without the id tie-break when peers matter).
int OrderCmp(const Row& a, const Row& b, const Spec& s, bool with_id) {
  if (s.order && a.o != b.o) {
    if (!a.o || !b.o) return (!a.o) == s.desc ? -1 : 1;  // DESC: NULLS FIRST; ASC: NULLS LAST
    const int c = *a.o < *b.o ? -1 : 1;
    return s.desc ? -c : c;
  }
  if (with_id && s.id_tiebreak && a.id != b.id) return a.id < b.id ? -1 : 1;
  return 0;
}

std::optional<double> Oracle(const std::vector<Row>& rows, const Call& c, const Row& me) {
  std::vector<Row> part;
  for (const Row& r : rows) {
    if (!c.spec.partition || r.p == me.p) part.push_back(r);
  }
  std::stable_sort(part.begin(), part.end(),
                   [&](const Row& a, const Row& b) { return OrderCmp(a, b, c.spec, true) < 0; });
  const int64_t n = static_cast<int64_t>(part.size());
  int64_t i = 0;
  while (part[i].id != me.id) ++i;
  auto peer = [&](int64_t j) { return OrderCmp(part[j], me, c.spec, true) == 0; };
  int64_t peer_start = i, peer_end = i + 1;
  while (peer_start > 0 && peer(peer_start - 1)) --peer_start;
  while (peer_end < n && peer(peer_end)) ++peer_end;
  switch (c.kind) {
    case WindowFunctionKind::kRowNumber:
      return i + 1;
    case WindowFunctionKind::kRank:
      return peer_start + 1;
    case WindowFunctionKind::kDenseRank: {
      int64_t rank = 1;
      for (int64_t j = 1; j <= peer_start; ++j)
        rank += OrderCmp(part[j - 1], part[j], c.spec, true) != 0;
      return rank;
    }
    case WindowFunctionKind::kPercentRank:
      return n > 1 ? static_cast<double>(peer_start) / (n - 1) : 0.0;
    case WindowFunctionKind::kCumeDist:
      return static_cast<double>(peer_end) / n;
    case WindowFunctionKind::kNtile: {
      // Buckets as evenly sized as possible, larger ones first.
      int64_t j = 0;
      for (int64_t b = 0; b < c.param; ++b) {
        const int64_t size = n / c.param + (b < n % c.param ? 1 : 0);
        if (i < j + size) return b + 1;
        j += size;
      }
      return std::nullopt;
    }
    case WindowFunctionKind::kLag:
    case WindowFunctionKind::kLead: {
      const int64_t j = c.kind == WindowFunctionKind::kLag ? i - c.param : i + c.param;
      if (j < 0 || j >= n) {
        if (c.kind == WindowFunctionKind::kLead && me.o) return static_cast<double>(*me.o);
        return std::nullopt;  // LEAD's default is the o column
      }
      if (!part[j].v) return std::nullopt;
      return static_cast<double>(*part[j].v);
    }
    default:
      break;
  }
  // Frame membership by scanning.
  auto in_frame = [&](int64_t j) {
    if (c.unit == WindowFrame::Unit::kRows) {
      auto pos = [&](B k, int64_t off) -> int64_t {
        switch (k) {
          case B::kUnboundedPreceding:
            return INT64_MIN / 2;
          case B::kUnboundedFollowing:
            return INT64_MAX / 2;
          case B::kCurrentRow:
            return i;
          case B::kPreceding:
            return i - off;
          case B::kFollowing:
            return i + off;
        }
        return 0;
      };
      return j >= pos(c.start, c.so) && j <= pos(c.end, c.eo);
    }
    auto after_start = [&]() {
      switch (c.start) {
        case B::kUnboundedPreceding:
          return true;
        case B::kCurrentRow:
          return j >= peer_start;
        default:
          break;
      }
      if (!me.o) return peer(j);
      if (!part[j].o) return false;
      const int64_t sign = c.spec.desc ? -1 : 1;
      const int64_t bound = *me.o + sign * (c.start == B::kPreceding ? -c.so : c.so);
      return sign * *part[j].o >= sign * bound;
    };
    auto before_end = [&]() {
      switch (c.end) {
        case B::kUnboundedFollowing:
          return true;
        case B::kCurrentRow:
          return j < peer_end;
        default:
          break;
      }
      if (!me.o) return peer(j);
      if (!part[j].o) return false;
      const int64_t sign = c.spec.desc ? -1 : 1;
      const int64_t bound = *me.o + sign * (c.end == B::kPreceding ? -c.eo : c.eo);
      return sign * *part[j].o <= sign * bound;
    };
    return after_start() && before_end();
  };
  std::vector<int64_t> frame;
  for (int64_t j = 0; j < n; ++j) {
    if (in_frame(j)) frame.push_back(j);
  }
  if (c.kind == WindowFunctionKind::kFirstValue || c.kind == WindowFunctionKind::kLastValue ||
      c.kind == WindowFunctionKind::kNthValue) {
    const int64_t at = c.kind == WindowFunctionKind::kFirstValue  ? 0
                       : c.kind == WindowFunctionKind::kLastValue ? int64_t(frame.size()) - 1
                                                                  : c.param - 1;
    if (at < 0 || at >= static_cast<int64_t>(frame.size()) || !part[frame[at]].v) {
      return std::nullopt;
    }
    return static_cast<double>(*part[frame[at]].v);
  }
  if (c.agg == AggregateKind::kCountStar) return static_cast<double>(frame.size());
  std::vector<int64_t> vals;
  for (int64_t j : frame) {
    if (part[j].v) vals.push_back(*part[j].v);
  }
  if (c.agg == AggregateKind::kCount) return static_cast<double>(vals.size());
  if (vals.empty()) return std::nullopt;
  int64_t sum = 0;
  for (int64_t v : vals) sum += v;
  switch (c.agg) {
    case AggregateKind::kSum:
      return static_cast<double>(sum);
    case AggregateKind::kAvg:
      return static_cast<double>(sum) / vals.size();
    case AggregateKind::kMin:
      return static_cast<double>(*std::min_element(vals.begin(), vals.end()));
    case AggregateKind::kMax:
      return static_cast<double>(*std::max_element(vals.begin(), vals.end()));
    default:
      return std::nullopt;
  }
}

WindowCall MakeCall(const Call& c) {
  const Schema s = InputSchema();
  auto col = [&](int i) { return MakeColumnRef(i, s.field(i).type, true, s.field(i).name); };
  WindowCall w;
  w.kind = c.kind;
  w.aggregate = c.agg;
  if (c.spec.partition) w.partition_by.push_back(col(0));
  if (c.spec.order) w.order_by.push_back({col(1), !c.spec.desc, c.spec.desc});
  if (c.spec.id_tiebreak) w.order_by.push_back({col(3), true, false});
  w.frame.unit = c.unit;
  w.frame.start = c.start;
  w.frame.start_offset = c.so;
  w.frame.end = c.end;
  w.frame.end_offset = c.eo;
  w.frame.has_order = c.spec.order;
  w.type = DataType::Int64();
  switch (c.kind) {
    case WindowFunctionKind::kPercentRank:
    case WindowFunctionKind::kCumeDist:
      w.type = DataType::Float64();
      break;
    case WindowFunctionKind::kNtile:
      w.args = {MakeLiteral(Value::Int64(c.param))};
      break;
    case WindowFunctionKind::kLag:
      w.args = {col(2), MakeLiteral(Value::Int64(c.param))};
      break;
    case WindowFunctionKind::kLead:
      w.args = {col(2), MakeLiteral(Value::Int64(c.param)), col(1)};
      break;
    case WindowFunctionKind::kFirstValue:
    case WindowFunctionKind::kLastValue:
      w.args = {col(2)};
      break;
    case WindowFunctionKind::kNthValue:
      w.args = {col(2), MakeLiteral(Value::Int64(c.param))};
      break;
    case WindowFunctionKind::kAggregate:
      if (c.agg != AggregateKind::kCountStar) w.args = {col(2)};
      if (c.agg == AggregateKind::kAvg) w.type = DataType::Float64();
      break;
    default:
      break;
  }
  w.name = "w";
  return w;
}

TEST(ExecWindow, MatchesBruteForceOracle) {
  const Spec peers{true, true, false, false};      // PARTITION BY p ORDER BY o (ties)
  const Spec peers_desc{true, true, true, false};  // ... ORDER BY o DESC NULLS FIRST
  const Spec rows_spec{true, true, true, true};    // ... ORDER BY o DESC, id
  const Spec whole{false, false, false, false};
  using K = WindowFunctionKind;
  using A = AggregateKind;
  using U = WindowFrame::Unit;
  const std::vector<Call> calls = {
      {K::kRank, A::kCountStar, peers},
      {K::kDenseRank, A::kCountStar, peers_desc},
      {K::kPercentRank, A::kCountStar, peers},
      {K::kCumeDist, A::kCountStar, peers_desc},
      {K::kAggregate, A::kSum, peers},
      {K::kAggregate, A::kCount, peers, U::kRange, B::kPreceding, 2, B::kFollowing, 1},
      {K::kAggregate, A::kMin, peers, U::kRange, B::kCurrentRow, 0, B::kUnboundedFollowing},
      {K::kAggregate, A::kMax, peers_desc, U::kRange, B::kPreceding, 1, B::kFollowing, 1},
      {K::kAggregate, A::kAvg, peers, U::kRange, B::kUnboundedPreceding, 0, B::kUnboundedFollowing},
      {K::kAggregate, A::kSum, peers_desc, U::kRange, B::kFollowing, 1, B::kFollowing, 3},
      {K::kRowNumber, A::kCountStar, rows_spec},
      {K::kNtile, A::kCountStar, rows_spec, U::kRange, B::kUnboundedPreceding, 0, B::kCurrentRow, 0,
       3},
      {K::kLag, A::kCountStar, rows_spec, U::kRange, B::kUnboundedPreceding, 0, B::kCurrentRow, 0,
       2},
      {K::kLead, A::kCountStar, rows_spec, U::kRange, B::kUnboundedPreceding, 0, B::kCurrentRow, 0,
       1},
      {K::kFirstValue, A::kCountStar, rows_spec, U::kRows, B::kPreceding, 2, B::kCurrentRow},
      {K::kLastValue, A::kCountStar, rows_spec, U::kRows, B::kCurrentRow, 0, B::kFollowing, 3},
      {K::kNthValue, A::kCountStar, rows_spec, U::kRows, B::kUnboundedPreceding, 0, B::kCurrentRow,
       0, 2},
      {K::kAggregate, A::kSum, rows_spec, U::kRows, B::kPreceding, 1, B::kFollowing, 1},
      {K::kAggregate, A::kMin, rows_spec, U::kRows, B::kPreceding, 3, B::kPreceding, 1},
      {K::kAggregate, A::kMax, rows_spec, U::kRows, B::kUnboundedPreceding, 0, B::kCurrentRow},
      {K::kAggregate, A::kCountStar, rows_spec, U::kRows, B::kFollowing, 1, B::kFollowing, 3},
      {K::kAggregate, A::kAvg, rows_spec, U::kRows, B::kPreceding, 2, B::kUnboundedFollowing},
      {K::kAggregate, A::kSum, whole},
      {K::kAggregate, A::kCountStar, whole},
  };
  std::mt19937_64 rng(11);
  std::uniform_int_distribution<int> d(0, 9);
  for (int n : {1, 7, 300}) {
    std::vector<Row> rows;
    for (int i = 0; i < n; ++i) {
      Row r;
      if (d(rng) != 0) r.p = d(rng) % 4;
      if (d(rng) != 0) r.o = d(rng) - 3;
      if (d(rng) != 0) r.v = d(rng) * 7 - 20;
      r.id = i;
      rows.push_back(r);
    }
    PlanNode node;
    node.kind = PlanKind::kWindow;
    node.schema = InputSchema();
    for (const Call& c : calls) {
      node.windows.push_back(MakeCall(c));
      node.schema.fields.push_back({"w", node.windows.back().type});
    }
    ExecContext ctx;
    auto res = cpu::Window(node, ToTable(rows, 3), ctx);
    ASSERT_TRUE(res.ok()) << res.status().ToString();
    ASSERT_EQ(res->num_rows(), n);
    for (const auto& b : res->batches) {
      ASSERT_TRUE(b->Validate().ok()) << b->Validate().ToString();
      for (int64_t i = 0; i < b->num_rows; ++i) {
        const int64_t id = b->columns[3]->Value<int64_t>(i);
        for (size_t w = 0; w < calls.size(); ++w) {
          const Column& col = *b->columns[4 + w];
          const auto expected = Oracle(rows, calls[w], rows[id]);
          ASSERT_EQ(col.IsValid(i), expected.has_value()) << "call " << w << " row " << id;
          if (!expected) continue;
          const double got = col.type().id == TypeId::kFloat64
                                 ? col.Value<double>(i)
                                 : static_cast<double>(col.Value<int64_t>(i));
          EXPECT_NEAR(got, *expected, 1e-9) << "call " << w << " row " << id << " n " << n;
        }
      }
    }
  }
}

}  // namespace
}  // namespace tandem
