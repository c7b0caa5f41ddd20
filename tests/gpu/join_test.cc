// GPU hash join against its CPU twin (cpu::HashJoin) on random data: every join type, one and
// several keys (int64, string, float64 with NaN / -0.0, date), NULL keys, duplicates, residual
// conditions, NOT IN (null-aware anti) and IN (null-aware mark), cross joins, empty sides, one
// row and a large join. Outputs are compared as multisets of row texts.
#include <algorithm>
#include <random>

#include "gpu_test_util.h"
#include "tandem/column/column_builder.h"
#include "tandem/column/take.h"
#include "tandem/exec/cpu/operators.h"
#include "tandem/exec/gpu/gpu_operators.h"

namespace tandem::gpu {
namespace {

// Columns: 0 k int64, 1 s string, 2 f float64 (NaN, +-0.0), 3 d date32, 4 v int32.
Table MakeSide(int64_t rows, int domain, int null_pct, uint64_t seed) {
  std::mt19937_64 rng(seed);
  Table t;
  t.schema.fields = {{"k", DataType::Int64()},
                     {"s", DataType::String()},
                     {"f", DataType::Float64()},
                     {"d", DataType::Date32()},
                     {"v", DataType::Int32()}};
  std::vector<ColumnBuilder> cols;
  for (const auto& f : t.schema.fields) cols.emplace_back(f.type);
  auto null = [&]() { return static_cast<int>(rng() % 100) < null_pct; };
  const double special[] = {NAN, -0.0, 0.0, 2.5};
  for (int64_t r = 0; r < rows; ++r) {
    if (null()) {
      cols[0].AppendNull();
    } else {
      cols[0].Append<int64_t>(static_cast<int64_t>(rng() % domain) - domain / 2);
    }
    if (null()) {
      cols[1].AppendNull();
    } else {
      cols[1].AppendString(rng() % 5 == 0 ? "" : "v" + std::to_string(rng() % 3));
    }
    if (null()) {
      cols[2].AppendNull();
    } else {
      cols[2].Append<double>(special[rng() % 4]);
    }
    cols[3].Append<int32_t>(static_cast<int32_t>(rng() % 3) + 18000);
    cols[4].Append<int32_t>(static_cast<int32_t>(rng() % 100));
  }
  auto batch = std::make_shared<Batch>();
  batch->schema = t.schema;
  batch->num_rows = rows;
  for (auto& c : cols) batch->columns.push_back(c.Finish());
  t.batches.push_back(batch);
  return t;
}

ExprPtr Col(const Table& t, int i, int offset = 0) {
  return MakeColumnRef(offset + i, t.schema.field(i).type, true, t.schema.field(i).name);
}

std::vector<std::string> RowStrings(const Table& t) {
  std::vector<std::string> out;
  for (const auto& b : t.batches) {
    for (int64_t i = 0; i < b->num_rows; ++i) {
      std::string s;
      for (const auto& c : b->columns) s += GetValue(*c, i).ToString() + "|";
      out.push_back(s);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

const char* TypeName(JoinType t) {
  switch (t) {
    case JoinType::kInner:
      return "inner";
    case JoinType::kLeft:
      return "left";
    case JoinType::kRight:
      return "right";
    case JoinType::kFull:
      return "full";
    case JoinType::kSemi:
      return "semi";
    case JoinType::kAnti:
      return "anti";
    case JoinType::kMark:
      return "mark";
  }
  return "?";
}

constexpr JoinType kAllTypes[] = {JoinType::kInner, JoinType::kLeft, JoinType::kRight,
                                  JoinType::kFull,  JoinType::kSemi, JoinType::kAnti,
                                  JoinType::kMark};

class GpuJoin : public ::testing::Test {
 protected:
  void SetUp() override {
    TANDEM_REQUIRE_GPU();
    auto s = Stream::Create();
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    stream_ = std::make_unique<Stream>(std::move(*s));
  }

  // keys: column indexes joined pairwise (same column on both sides).
  void Compare(const Table& left, const Table& right, JoinType type, const std::vector<int>& keys,
               bool with_condition, bool null_aware = false) {
    SCOPED_TRACE(std::string(TypeName(type)) + " keys " + ::testing::PrintToString(keys) +
                 (with_condition ? " with condition" : "") + (null_aware ? " null-aware" : "") +
                 " rows " + std::to_string(left.num_rows()) + " x " +
                 std::to_string(right.num_rows()));
    std::vector<ExprPtr> lk, rk;
    for (int k : keys) {
      lk.push_back(Col(left, k));
      rk.push_back(Col(right, k));
    }
    ExprPtr cond;
    if (with_condition) {  // l.v < r.v
      cond = MakeCall("lt", {Col(left, 4), Col(right, 4, left.schema.num_fields())},
                      DataType::Bool(), true);
    }
    auto node = MakeJoin(MakeValues(left.schema, {}), MakeValues(right.schema, {}), type, lk, rk,
                         cond, null_aware);
    ASSERT_EQ(JoinUnsupported(*node), "");
    ExecContext ctx;
    auto cpu = cpu::HashJoin(*node, left, right, ctx);
    ASSERT_TRUE(cpu.ok()) << cpu.status().ToString();
    auto dl = ToDevice(left, *stream_);
    auto dr = ToDevice(right, *stream_);
    ASSERT_TRUE(dl.ok() && dr.ok());
    GpuContext gctx;
    gctx.stream = stream_.get();
    auto out = HashJoin(*node, **dl, **dr, gctx);
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    auto gpu = ToHost(**out, *stream_);
    ASSERT_TRUE(gpu.ok()) << gpu.status().ToString();
    ASSERT_EQ(gpu->schema.num_fields(), node->schema.num_fields());
    const auto want = RowStrings(*cpu);
    const auto got = RowStrings(*gpu);
    ASSERT_EQ(want.size(), got.size());
    EXPECT_TRUE(want == got);
  }

  std::unique_ptr<Stream> stream_;
};

TEST_F(GpuJoin, EveryTypeKeysAndConditions) {
  TANDEM_REQUIRE_GPU();
  const Table left = MakeSide(3000, 200, 10, 1);
  const Table right = MakeSide(2000, 200, 10, 2);
  for (JoinType type : kAllTypes) {
    for (const auto& keys : std::vector<std::vector<int>>{{0}, {1}, {2}, {0, 1, 3}}) {
      for (bool cond : {false, true}) Compare(left, right, type, keys, cond);
    }
  }
}

TEST_F(GpuJoin, NotInAndIn) {
  TANDEM_REQUIRE_GPU();
  for (int null_pct : {0, 5}) {
    const Table left = MakeSide(2000, 100, null_pct, 3);
    const Table right = MakeSide(500, 100, null_pct, 4);
    Compare(left, right, JoinType::kAnti, {0}, false, true);
    Compare(left, right, JoinType::kAnti, {0}, true, true);
    Compare(left, right, JoinType::kAnti, {0, 1}, false, true);
    Compare(left, right, JoinType::kMark, {0}, false, true);
    Compare(left, right, JoinType::kMark, {1}, false, true);
  }
}

TEST_F(GpuJoin, EmptySidesAndOneRow) {
  TANDEM_REQUIRE_GPU();
  const Table some = MakeSide(300, 20, 10, 5);
  const Table empty = MakeSide(0, 20, 10, 6);
  const Table one = MakeSide(1, 1, 0, 7);
  for (JoinType type : kAllTypes) {
    for (bool cond : {false, true}) {
      Compare(some, empty, type, {0}, cond);
      Compare(empty, some, type, {0}, cond);
      Compare(empty, empty, type, {0}, cond);
      Compare(one, some, type, {0}, cond);
      Compare(some, one, type, {0}, cond);
    }
    Compare(some, empty, type, {0}, false, type == JoinType::kAnti || type == JoinType::kMark);
  }
}

TEST_F(GpuJoin, CrossJoinsWithoutKeys) {
  TANDEM_REQUIRE_GPU();
  const Table left = MakeSide(200, 20, 10, 8);
  const Table right = MakeSide(150, 20, 10, 9);
  for (JoinType type : kAllTypes) {
    for (bool cond : {false, true}) Compare(left, right, type, {}, cond);
  }
}

TEST_F(GpuJoin, SkewedAndLarge) {
  TANDEM_REQUIRE_GPU();
  // Every row has the same key: each probe row matches the whole build side.
  const Table left = MakeSide(2000, 1, 0, 10);
  const Table right = MakeSide(3000, 1, 0, 11);
  Compare(left, right, JoinType::kInner, {0}, false);
  Compare(left, right, JoinType::kFull, {0}, true);
  const Table big_left = MakeSide(2000000, 1500000, 2, 12);
  const Table big_right = MakeSide(1000000, 1500000, 2, 13);
  for (JoinType type : {JoinType::kInner, JoinType::kLeft, JoinType::kFull, JoinType::kAnti}) {
    Compare(big_left, big_right, type, {0}, false);
  }
}

}  // namespace
}  // namespace tandem::gpu
