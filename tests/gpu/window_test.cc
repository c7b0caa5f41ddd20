// GPU window operator against its CPU twin (cpu::Window) on random tables with NULLs,
// duplicates (ties in partition and order keys), NaN, -0.0, infinities, strings with shared
// prefixes, decimals of both widths: ranking (ROW_NUMBER, RANK, DENSE_RANK, PERCENT_RANK,
// CUME_DIST), navigation (LAG/LEAD with offsets and defaults, FIRST_VALUE, LAST_VALUE) and
// COUNT(*)/COUNT/SUM/AVG/MIN/MAX over ROWS frames (unbounded, current row, n preceding/following,
// empty frames, huge offsets) and offset-free RANGE frames (peers), several specifications in one
// node (the output follows the first one's order), partition keys that are expressions, empty
// input, one row, partitions of one row and one large partition, and the CPU's errors (integer
// overflow, a NULL LAG offset). Every value is compared bit for bit, except SUM/AVG of float
// arguments: the CPU adds in long double, the GPU in double, so those compare to 1e-12 relative
// (NaN and infinities exactly).
#include <cmath>
#include <random>

#include "column_test_util.h"
#include "gpu_test_util.h"
#include "tandem/exec/cpu/operators.h"
#include "tandem/exec/gpu/gpu_operators_more.h"

namespace tandem::gpu {
namespace {

using testing::CellsEqual;
using testing::CellText;
using testing::RandomColumn;

using Kind = WindowFunctionKind;
using Bound = WindowFrame::BoundKind;
using Unit = WindowFrame::Unit;

// Columns of the test table.
enum Col { kP, kPs, kO, kOi, kV32, kVd, kVdw, kVf, kVs, kVf32, kVu64, kVb, kVi16, kUnique };

Schema TestSchema() {
  Schema s;
  s.fields = {{"p", DataType::Int32()},          {"ps", DataType::String()},
              {"o", DataType::Float64()},        {"oi", DataType::Int64()},
              {"v32", DataType::Int32()},        {"vd", DataType::Decimal(12, 2)},
              {"vdw", DataType::Decimal(30, 4)}, {"vf", DataType::Float64()},
              {"vs", DataType::String()},        {"vf32", DataType::Float32()},
              {"vu64", DataType::UInt64()},      {"vb", DataType::Bool()},
              {"vi16", DataType::Int16()},       {"unique", DataType::Int64()}};
  return s;
}

// Distinct values per column: few for keys (ties, big partitions), many for values.
Table TestTable(const std::vector<int64_t>& batches, std::mt19937_64& rng, int partitions = 5) {
  const Schema s = TestSchema();
  const int distinct[] = {partitions, 3, 30, 50, 1000, 200, 200, 40, 60, 40, 100, 2, 300, 1 << 30};
  const double nulls[] = {0.05, 0.1, 0.1, 0.05, 0.15, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.2, 0.1, 0.0};
  Table t;
  t.schema = s;
  for (int64_t len : batches) {
    auto batch = std::make_shared<Batch>();
    batch->schema = s;
    batch->num_rows = len;
    for (int c = 0; c < s.num_fields(); ++c) {
      batch->columns.push_back(RandomColumn(s.field(c).type, len, rng, nulls[c], distinct[c]));
    }
    t.batches.push_back(batch);
  }
  return t;
}

ExprPtr C(int c) {
  const Schema s = TestSchema();
  return MakeColumnRef(c, s.field(c).type, true, s.field(c).name);
}

ExprPtr Int64Lit(int64_t v) { return MakeLiteral(Value::Int64(v)); }

struct Spec {
  std::vector<ExprPtr> partition_by;
  std::vector<SortKey> order_by;
};

Spec DefaultSpec() { return {{C(kP)}, {{C(kO), true, false}}}; }

WindowFrame DefaultFrame(const Spec& spec) {
  WindowFrame f;
  f.has_order = !spec.order_by.empty();
  f.end = f.has_order ? Bound::kCurrentRow : Bound::kUnboundedFollowing;
  return f;
}

WindowFrame Frame(Unit unit, Bound start, int64_t start_offset, Bound end, int64_t end_offset) {
  WindowFrame f;
  f.unit = unit;
  f.start = start;
  f.start_offset = start_offset;
  f.end = end;
  f.end_offset = end_offset;
  f.has_order = true;
  return f;
}

WindowCall Function(Kind kind, std::vector<ExprPtr> args, DataType type, const Spec& spec,
                    const WindowFrame& frame) {
  WindowCall w;
  w.kind = kind;
  w.args = std::move(args);
  w.partition_by = spec.partition_by;
  w.order_by = spec.order_by;
  w.frame = frame;
  w.type = type;
  w.name = "w";
  return w;
}

WindowCall Aggregate(AggregateKind agg, int col, const Spec& spec, const WindowFrame& frame) {
  const DataType arg = col >= 0 ? TestSchema().field(col).type : DataType::Int64();
  auto type = AggregateResultType(agg, arg);
  EXPECT_TRUE(type.ok()) << type.status().ToString();
  WindowCall w = Function(Kind::kAggregate, {}, *type, spec, frame);
  w.aggregate = agg;
  if (col >= 0) w.args = {C(col)};
  w.name = std::string(AggregateKindName(agg)) + "(" + (col >= 0 ? arg.ToString() : "*") + ")";
  return w;
}

// Every aggregate kind over columns of several types, under one specification and frame.
std::vector<WindowCall> AggregateCalls(const Spec& spec, const WindowFrame& frame) {
  using A = AggregateKind;
  return {Aggregate(A::kCountStar, -1, spec, frame),
          Aggregate(A::kCount, kVs, spec, frame),
          Aggregate(A::kSum, kV32, spec, frame),
          Aggregate(A::kAvg, kV32, spec, frame),
          Aggregate(A::kSum, kVd, spec, frame),
          Aggregate(A::kAvg, kVd, spec, frame),
          Aggregate(A::kSum, kVdw, spec, frame),
          Aggregate(A::kAvg, kVdw, spec, frame),
          Aggregate(A::kSum, kVf, spec, frame),
          Aggregate(A::kAvg, kVf32, spec, frame),
          Aggregate(A::kSum, kVu64, spec, frame),
          Aggregate(A::kSum, kVi16, spec, frame),
          Aggregate(A::kMin, kVs, spec, frame),
          Aggregate(A::kMax, kVs, spec, frame),
          Aggregate(A::kMin, kVf, spec, frame),
          Aggregate(A::kMax, kVf32, spec, frame),
          Aggregate(A::kMin, kVd, spec, frame),
          Aggregate(A::kMax, kVdw, spec, frame),
          Aggregate(A::kMax, kVb, spec, frame),
          Aggregate(A::kMin, kVu64, spec, frame),
          Function(Kind::kFirstValue, {C(kVs)}, DataType::String(), spec, frame),
          Function(Kind::kLastValue, {C(kVf)}, DataType::Float64(), spec, frame)};
}

std::vector<WindowFrame> TestFrames() {
  return {
      Frame(Unit::kRange, Bound::kUnboundedPreceding, 0, Bound::kCurrentRow, 0),  // the default
      Frame(Unit::kRange, Bound::kCurrentRow, 0, Bound::kUnboundedFollowing, 0),
      Frame(Unit::kRange, Bound::kCurrentRow, 0, Bound::kCurrentRow, 0),
      Frame(Unit::kRange, Bound::kUnboundedPreceding, 0, Bound::kUnboundedFollowing, 0),
      Frame(Unit::kRows, Bound::kUnboundedPreceding, 0, Bound::kCurrentRow, 0),
      Frame(Unit::kRows, Bound::kPreceding, 2, Bound::kFollowing, 1),
      Frame(Unit::kRows, Bound::kCurrentRow, 0, Bound::kUnboundedFollowing, 0),
      Frame(Unit::kRows, Bound::kFollowing, 3, Bound::kFollowing, 5),
      Frame(Unit::kRows, Bound::kPreceding, 5, Bound::kPreceding, 2),
      Frame(Unit::kRows, Bound::kFollowing, 1, Bound::kPreceding, 1),  // always empty
      Frame(Unit::kRows, Bound::kUnboundedPreceding, 0, Bound::kUnboundedFollowing, 0),
      Frame(Unit::kRows, Bound::kPreceding, int64_t{1} << 40, Bound::kFollowing, int64_t{1} << 40),
      Frame(Unit::kRows, Bound::kCurrentRow, 0, Bound::kCurrentRow, 0),
  };
}

bool IsFloatSum(const WindowCall& w) {
  return w.kind == Kind::kAggregate &&
         (w.aggregate == AggregateKind::kSum || w.aggregate == AggregateKind::kAvg) &&
         !w.args.empty() && w.args[0]->type.is_floating();
}

bool DoublesClose(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  if (std::isinf(a) || std::isinf(b)) return a == b;
  const double scale = std::max({1.0, std::fabs(a), std::fabs(b)});
  return std::fabs(a - b) <= 1e-12 * scale;
}

// Row for row: bit-exact, except float SUM/AVG columns (close).
void ExpectWindowTablesEqual(const Table& expected, const Table& actual,
                             const std::vector<bool>& approx) {
  ASSERT_EQ(expected.schema.num_fields(), actual.schema.num_fields());
  for (int c = 0; c < expected.schema.num_fields(); ++c) {
    ASSERT_EQ(expected.schema.field(c).type, actual.schema.field(c).type) << "column " << c;
  }
  ASSERT_EQ(expected.num_rows(), actual.num_rows());
  for (const auto& b : actual.batches) {
    for (const auto& col : b->columns)
      ASSERT_TRUE(col->Validate().ok()) << col->Validate().message();
  }
  size_t eb = 0, ab = 0;
  int64_t er = 0, ar = 0, failures = 0;
  for (int64_t row = 0; row < expected.num_rows(); ++row, ++er, ++ar) {
    while (er >= expected.batches[eb]->num_rows) ++eb, er = 0;
    while (ar >= actual.batches[ab]->num_rows) ++ab, ar = 0;
    for (int c = 0; c < expected.schema.num_fields(); ++c) {
      const Column& e = *expected.batches[eb]->column(c);
      const Column& a = *actual.batches[ab]->column(c);
      bool same;
      if (approx[c] && !e.IsNull(er) && !a.IsNull(ar)) {
        same = DoublesClose(e.Value<double>(er), a.Value<double>(ar));
      } else {
        same = CellsEqual(e, er, a, ar);
      }
      if (!same) {
        ADD_FAILURE() << "row " << row << " column " << c << " (" << expected.schema.field(c).name
                      << "): expected " << CellText(e, er) << ", got " << CellText(a, ar);
        if (++failures >= 10) return;
      }
    }
  }
}

class GpuWindowTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = Stream::Create();
    if (s.ok()) stream_ = std::move(*s);
    ctx_.stream = &stream_;
  }

  // must_fail: the CPU must return an error (which the GPU must return too).
  void ExpectMatches(const Table& input, std::vector<WindowCall> calls, bool must_fail = false) {
    auto node = MakeWindow(MakeValues(input.schema, {}), std::move(calls));
    ASSERT_EQ(WindowUnsupported(*node), "");
    ExecContext cpu_ctx;
    auto expected = cpu::Window(*node, input, cpu_ctx);
    if (must_fail) ASSERT_FALSE(expected.ok()) << "the CPU did not fail";
    auto device = ToDevice(input, stream_);
    ASSERT_TRUE(device.ok()) << device.status().ToString();
    auto result = Window(*node, **device, ctx_);
    if (!expected.ok()) {  // the same error on both devices
      ASSERT_FALSE(result.ok()) << "CPU failed with " << expected.status().ToString();
      EXPECT_EQ(result.status().message(), expected.status().message());
      return;
    }
    ASSERT_TRUE(result.ok()) << result.status().ToString();
    auto actual = ToHost(**result, stream_);
    ASSERT_TRUE(actual.ok()) << actual.status().ToString();
    std::vector<bool> approx(input.schema.num_fields(), false);
    for (const WindowCall& w : node->windows) approx.push_back(IsFloatSum(w));
    ExpectWindowTablesEqual(*expected, *actual, approx);
  }

  Stream stream_;
  GpuContext ctx_;
};

TEST_F(GpuWindowTest, RankingFunctions) {
  TANDEM_REQUIRE_GPU();
  std::mt19937_64 rng(51);
  const Table input = TestTable({1500, 700}, rng);
  const std::vector<Spec> specs = {
      DefaultSpec(),
      {{C(kPs), C(kP)}, {{C(kOi), false, true}, {C(kO), true, true}}},
      {{}, {{C(kVs), true, false}}},
      {{C(kP)}, {}},
      {{}, {}},
  };
  for (size_t i = 0; i < specs.size(); ++i) {
    SCOPED_TRACE("specification " + std::to_string(i));
    const Spec& s = specs[i];
    const WindowFrame f = DefaultFrame(s);
    ExpectMatches(input, {Function(Kind::kRowNumber, {}, DataType::Int64(), s, f),
                          Function(Kind::kRank, {}, DataType::Int64(), s, f),
                          Function(Kind::kDenseRank, {}, DataType::Int64(), s, f),
                          Function(Kind::kPercentRank, {}, DataType::Float64(), s, f),
                          Function(Kind::kCumeDist, {}, DataType::Float64(), s, f)});
  }
}

TEST_F(GpuWindowTest, NavigationFunctions) {
  TANDEM_REQUIRE_GPU();
  std::mt19937_64 rng(52);
  const Table input = TestTable({2000, 13}, rng);
  const Spec s = DefaultSpec();
  const WindowFrame f = DefaultFrame(s);
  ExpectMatches(
      input, {Function(Kind::kLag, {C(kVs)}, DataType::String(), s, f),
              Function(Kind::kLag, {C(kVf), Int64Lit(2)}, DataType::Float64(), s, f),
              Function(Kind::kLead, {C(kVd), Int64Lit(3), C(kVd)}, DataType::Decimal(12, 2), s, f),
              Function(Kind::kLead, {C(kVs), Int64Lit(1), C(kPs)}, DataType::String(), s, f),
              Function(Kind::kLag, {C(kVdw), Int64Lit(0)}, DataType::Decimal(30, 4), s, f),
              Function(Kind::kLead, {C(kVi16), Int64Lit(1000000)}, DataType::Int16(), s, f),
              Function(Kind::kLag, {C(kVb), Int64Lit(7), C(kVb)}, DataType::Bool(), s, f),
              Function(Kind::kFirstValue, {C(kVs)}, DataType::String(), s, f),
              Function(Kind::kLastValue, {C(kVf32)}, DataType::Float32(), s, f)});
}

TEST_F(GpuWindowTest, AggregatesOverEveryFrame) {
  TANDEM_REQUIRE_GPU();
  std::mt19937_64 rng(53);
  const Table input = TestTable({2500, 500}, rng);
  const std::vector<WindowFrame> frames = TestFrames();
  for (size_t i = 0; i < frames.size(); ++i) {
    SCOPED_TRACE("frame " + std::to_string(i));
    ExpectMatches(input, AggregateCalls(DefaultSpec(), frames[i]));
  }
}

TEST_F(GpuWindowTest, AggregatesUnderOtherSpecifications) {
  TANDEM_REQUIRE_GPU();
  std::mt19937_64 rng(54);
  const Table input = TestTable({3000}, rng);
  const Spec two_keys{{C(kPs), C(kP)}, {{C(kOi), false, true}, {C(kVs), true, false}}};
  const Spec no_order{{C(kP)}, {}};
  const Spec no_partition{{}, {{C(kVd), false, false}}};
  const std::vector<WindowFrame> frames = {
      Frame(Unit::kRows, Bound::kPreceding, 4, Bound::kCurrentRow, 0),
      Frame(Unit::kRange, Bound::kUnboundedPreceding, 0, Bound::kCurrentRow, 0)};
  for (const Spec& s : {two_keys, no_partition}) {
    for (const WindowFrame& f : frames) ExpectMatches(input, AggregateCalls(s, f));
  }
  ExpectMatches(input, AggregateCalls(no_order, DefaultFrame(no_order)));
}

TEST_F(GpuWindowTest, SeveralSpecificationsInOneNode) {
  TANDEM_REQUIRE_GPU();
  std::mt19937_64 rng(55);
  const Table input = TestTable({1200, 800}, rng);
  const Spec a = DefaultSpec();
  const Spec b{{C(kPs)}, {{C(kVs), false, false}}};
  const Spec c{{}, {{C(kOi), true, true}}};
  const WindowFrame rows = Frame(Unit::kRows, Bound::kPreceding, 1, Bound::kFollowing, 1);
  ExpectMatches(input, {Function(Kind::kRowNumber, {}, DataType::Int64(), b, DefaultFrame(b)),
                        Aggregate(AggregateKind::kSum, kVd, a, rows),
                        Function(Kind::kLag, {C(kVs)}, DataType::String(), c, DefaultFrame(c)),
                        Aggregate(AggregateKind::kMax, kVf, c, DefaultFrame(c)),
                        Function(Kind::kDenseRank, {}, DataType::Int64(), a, DefaultFrame(a)),
                        Aggregate(AggregateKind::kAvg, kVf, b, rows)});
}

TEST_F(GpuWindowTest, ExpressionKeys) {
  TANDEM_REQUIRE_GPU();
  std::mt19937_64 rng(56);
  const Table input = TestTable({1000}, rng);
  ExprPtr shifted = MakeCall("add", {C(kOi), Int64Lit(1)}, DataType::Int64(), true);
  const Spec s{{shifted},
               {{MakeCall("add", {C(kOi), Int64Lit(7)}, DataType::Int64(), true), false, false}}};
  ExpectMatches(input, {Function(Kind::kRank, {}, DataType::Int64(), s, DefaultFrame(s)),
                        Aggregate(AggregateKind::kSum, kV32, s, DefaultFrame(s))});
}

TEST_F(GpuWindowTest, EmptyAndOneRowInputs) {
  TANDEM_REQUIRE_GPU();
  std::mt19937_64 rng(57);
  for (const std::vector<int64_t>& batches :
       std::vector<std::vector<int64_t>>{{}, {0}, {1}, {1, 0, 1}}) {
    SCOPED_TRACE("batches: " + std::to_string(batches.size()));
    const Table input = TestTable(batches, rng);
    std::vector<WindowCall> calls = AggregateCalls(DefaultSpec(), TestFrames()[5]);
    const Spec s = DefaultSpec();
    calls.push_back(Function(Kind::kRowNumber, {}, DataType::Int64(), s, DefaultFrame(s)));
    calls.push_back(Function(Kind::kLead, {C(kVs), Int64Lit(1), C(kVs)}, DataType::String(), s,
                             DefaultFrame(s)));
    ExpectMatches(input, calls);
  }
}

TEST_F(GpuWindowTest, PartitionsOfOneRowAndOneLargePartition) {
  TANDEM_REQUIRE_GPU();
  std::mt19937_64 rng(58);
  const Table input = TestTable({150000, 50000}, rng);
  const Spec singles{{C(kUnique)}, {{C(kO), true, false}}};
  const Spec whole{{}, {{C(kOi), true, false}, {C(kVs), false, true}}};
  const WindowFrame sliding = Frame(Unit::kRows, Bound::kPreceding, 100, Bound::kFollowing, 50);
  for (const Spec& s : {singles, whole}) {
    std::vector<WindowCall> calls = AggregateCalls(s, sliding);
    for (WindowCall& w : AggregateCalls(s, DefaultFrame(s))) calls.push_back(std::move(w));
    calls.push_back(Function(Kind::kRank, {}, DataType::Int64(), s, DefaultFrame(s)));
    calls.push_back(Function(Kind::kLag, {C(kVf)}, DataType::Float64(), s, DefaultFrame(s)));
    ExpectMatches(input, calls);
  }
}

TEST_F(GpuWindowTest, ErrorsAsOnTheCpu) {
  TANDEM_REQUIRE_GPU();
  std::mt19937_64 rng(59);
  const Table input = TestTable({300}, rng, 2);
  const Spec s = DefaultSpec();
  // SUM(int64) of values near INT64_MIN and +-5e11 overflows int64 in the big frames.
  WindowCall sum = Aggregate(AggregateKind::kSum, kOi, s, DefaultFrame(s));
  sum.name = "sum(oi)";
  ExpectMatches(input, {sum}, /*must_fail=*/true);
  WindowCall lag = Function(Kind::kLag, {C(kVs), MakeLiteral(Value::Null(DataType::Int64()))},
                            DataType::String(), s, DefaultFrame(s));
  ExpectMatches(input, {lag}, /*must_fail=*/true);
}

}  // namespace
}  // namespace tandem::gpu
