// GPU set operations against their CPU twin (cpu::SetOperation): UNION, INTERSECT and EXCEPT,
// each with and without ALL, over random tables of every type with NULLs, NaN, -0.0, infinities,
// many duplicates (few distinct values, so rows repeat on both sides and ALL counts matter) and
// strings with shared prefixes and zero bytes; empty sides, one-row sides, string-only rows and a
// large input. UNION ALL must match the CPU row for row; the other operations define no order,
// so both results are sorted by every column (cpu::Sort) before a bit-exact comparison, which
// also checks that each distinct row is represented by the same row as on the CPU (e.g. 0.0 vs
// -0.0 when both occur).
#include <random>

#include "column_test_util.h"
#include "gpu_test_util.h"
#include "tandem/exec/cpu/operators.h"
#include "tandem/exec/gpu/gpu_operators_more.h"

namespace tandem::gpu {
namespace {

using testing::AllTypes;
using testing::ExpectTablesEqual;
using testing::RandomTable;

Schema SchemaOf(const std::vector<DataType>& types) {
  Schema s;
  for (size_t i = 0; i < types.size(); ++i) s.fields.push_back({"c" + std::to_string(i), types[i]});
  return s;
}

struct Op {
  SetOpKind kind;
  bool all;
};

const Op kAllOps[] = {{SetOpKind::kUnion, true},     {SetOpKind::kUnion, false},
                      {SetOpKind::kIntersect, true}, {SetOpKind::kIntersect, false},
                      {SetOpKind::kExcept, true},    {SetOpKind::kExcept, false}};

std::string OpName(const Op& op) {
  const char* names[] = {"UNION", "INTERSECT", "EXCEPT"};
  return std::string(names[static_cast<int>(op.kind)]) + (op.all ? " ALL" : "");
}

class GpuSetOperationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = Stream::Create();
    if (s.ok()) stream_ = std::move(*s);
    ctx_.stream = &stream_;
  }

  // Rows sorted by every column (stable), to compare results whose order is not defined.
  static Table Canonical(const Table& t) {
    std::vector<SortKey> keys;
    for (int c = 0; c < t.schema.num_fields(); ++c) {
      keys.push_back({MakeColumnRef(c, t.schema.field(c).type, true), true, false});
    }
    auto sort = MakeSort(MakeValues(t.schema, {}), std::move(keys));
    ExecContext cpu_ctx;
    auto sorted = cpu::Sort(*sort, t, cpu_ctx);
    EXPECT_TRUE(sorted.ok()) << sorted.status().ToString();
    return sorted.ok() ? *sorted : Table{};
  }

  void ExpectMatches(const Table& left, const Table& right, const Op& op) {
    SCOPED_TRACE(OpName(op) + ", " + std::to_string(left.num_rows()) + " x " +
                 std::to_string(right.num_rows()) + " rows");
    auto node =
        MakeSetOp(MakeValues(left.schema, {}), MakeValues(right.schema, {}), op.kind, op.all);
    ExecContext cpu_ctx;
    auto expected = cpu::SetOperation(*node, {left, right}, cpu_ctx);
    ASSERT_TRUE(expected.ok()) << expected.status().ToString();
    auto dl = ToDevice(left, stream_);
    auto dr = ToDevice(right, stream_);
    ASSERT_TRUE(dl.ok() && dr.ok());
    auto result = SetOperation(*node, **dl, **dr, ctx_);
    ASSERT_TRUE(result.ok()) << result.status().ToString();
    ASSERT_EQ((*result)->schema.num_fields(), node->schema.num_fields());
    auto actual = ToHost(**result, stream_);
    ASSERT_TRUE(actual.ok()) << actual.status().ToString();
    if (op.kind == SetOpKind::kUnion && op.all) {
      ExpectTablesEqual(*expected, *actual);  // left rows, then right rows, as the CPU
    } else {
      ExpectTablesEqual(Canonical(*expected), Canonical(*actual));
    }
  }

  void ExpectAllOpsMatch(const Table& left, const Table& right) {
    for (const Op& op : kAllOps) ExpectMatches(left, right, op);
  }

  Stream stream_;
  GpuContext ctx_;
};

TEST_F(GpuSetOperationTest, EveryTypeWithDuplicatesNullsAndSpecialFloats) {
  TANDEM_REQUIRE_GPU();
  std::mt19937_64 rng(41);
  // One column at a time: few distinct values make many equal rows across the sides.
  for (const DataType& t : AllTypes()) {
    SCOPED_TRACE(t.ToString());
    const Schema s = SchemaOf({t});
    const Table left = RandomTable(s, {300, 77}, rng, 0.1, 12);
    const Table right = RandomTable(s, {250}, rng, 0.1, 12);
    ExpectAllOpsMatch(left, right);
  }
}

TEST_F(GpuSetOperationTest, AllTypesInOneRow) {
  TANDEM_REQUIRE_GPU();
  std::mt19937_64 rng(42);
  const Schema s = SchemaOf(AllTypes());
  // Two distinct values per column: wide rows still repeat, and differ in single columns.
  const Table left = RandomTable(s, {600, 200}, rng, 0.05, 2);
  const Table right = RandomTable(s, {500}, rng, 0.05, 2);
  ExpectAllOpsMatch(left, right);
  ExpectAllOpsMatch(left, left);  // every row on both sides
}

TEST_F(GpuSetOperationTest, StringsIntsAndFloatsMixed) {
  TANDEM_REQUIRE_GPU();
  std::mt19937_64 rng(43);
  const Schema s = SchemaOf({DataType::String(), DataType::Float64(), DataType::Int32(),
                             DataType::Binary(), DataType::Float32()});
  const Table left = RandomTable(s, {1000, 24}, rng, 0.2, 4);
  const Table right = RandomTable(s, {999}, rng, 0.2, 4);
  ExpectAllOpsMatch(left, right);
  ExpectAllOpsMatch(right, left);
}

TEST_F(GpuSetOperationTest, EmptyAndOneRowSides) {
  TANDEM_REQUIRE_GPU();
  std::mt19937_64 rng(44);
  const Schema s = SchemaOf(
      {DataType::Int64(), DataType::String(), DataType::Float64(), DataType::Decimal(30, 4)});
  const Table empty = RandomTable(s, {}, rng, 0.2, 5);
  const Table empty_batch = RandomTable(s, {0}, rng, 0.2, 5);
  const Table one = RandomTable(s, {1}, rng, 0.0, 5);
  const Table some = RandomTable(s, {40}, rng, 0.2, 3);
  ExpectAllOpsMatch(empty, empty);
  ExpectAllOpsMatch(empty, some);
  ExpectAllOpsMatch(some, empty_batch);
  ExpectAllOpsMatch(one, one);
  ExpectAllOpsMatch(one, some);
  ExpectAllOpsMatch(some, one);
  ExpectAllOpsMatch(one, empty);
}

TEST_F(GpuSetOperationTest, ZeroAndNegativeZeroAndNaNsAreOneValue) {
  TANDEM_REQUIRE_GPU();
  const Schema s = SchemaOf({DataType::Float64()});
  auto make = [&](const std::vector<double>& values, const std::vector<bool>& nulls) {
    ColumnBuilder b(DataType::Float64(), static_cast<int64_t>(values.size()));
    for (size_t i = 0; i < values.size(); ++i) {
      if (nulls[i]) {
        b.AppendNull();
      } else {
        b.Append<double>(values[i]);
      }
    }
    auto batch = std::make_shared<Batch>();
    batch->schema = s;
    batch->num_rows = static_cast<int64_t>(values.size());
    batch->columns.push_back(b.Finish());
    Table t;
    t.schema = s;
    t.batches.push_back(batch);
    return t;
  };
  const Table left =
      make({-0.0, NAN, 0.0, 1.0, 0.0, -NAN}, {false, false, false, false, true, false});
  const Table right = make({0.0, -NAN, 2.0, 0.0}, {false, false, false, true});
  ExpectAllOpsMatch(left, right);
  ExpectAllOpsMatch(right, left);
}

// A UNION chain is one node of several inputs; the executor folds it pairwise on the GPU. The
// fold must give what the CPU's n-ary union gives.
TEST_F(GpuSetOperationTest, UnionOfSeveralInputsFoldsPairwise) {
  TANDEM_REQUIRE_GPU();
  std::mt19937_64 rng(43);
  const Schema s = SchemaOf({DataType::Int32(), DataType::String(), DataType::Float64()});
  std::vector<Table> inputs;
  for (int k = 0; k < 4; ++k) inputs.push_back(RandomTable(s, {300, 20}, rng, 0.1, 6));
  for (bool all : {true, false}) {
    std::vector<PlanPtr> leaves;
    for (const Table& t : inputs) leaves.push_back(MakeValues(t.schema, {}));
    auto node = MakeSetOp(leaves, SetOpKind::kUnion, all);
    ExecContext cpu_ctx;
    auto expected = cpu::SetOperation(*node, inputs, cpu_ctx);
    ASSERT_TRUE(expected.ok()) << expected.status().ToString();
    auto acc = ToDevice(inputs[0], stream_);
    ASSERT_TRUE(acc.ok());
    DeviceBatchPtr folded = *acc;
    for (size_t k = 1; k < inputs.size(); ++k) {
      auto next = ToDevice(inputs[k], stream_);
      ASSERT_TRUE(next.ok());
      auto r = SetOperation(*node, *folded, **next, ctx_);
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      folded = *r;
    }
    auto actual = ToHost(*folded, stream_);
    ASSERT_TRUE(actual.ok()) << actual.status().ToString();
    ExpectTablesEqual(Canonical(*expected), Canonical(*actual));
  }
}

TEST_F(GpuSetOperationTest, LargeInput) {
  TANDEM_REQUIRE_GPU();
  std::mt19937_64 rng(45);
  const Schema s = SchemaOf({DataType::Int32(), DataType::Int64(), DataType::String()});
  const Table left = RandomTable(s, {100000, 50000}, rng, 0.01, 60);
  const Table right = RandomTable(s, {120000}, rng, 0.01, 60);
  ExpectAllOpsMatch(left, right);
}

}  // namespace
}  // namespace tandem::gpu
