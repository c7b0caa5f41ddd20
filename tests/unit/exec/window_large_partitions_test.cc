// Window partitions larger than memory (exec/cpu/window_large_partitions.h) against the in-memory
// Window over the same rows: 40 000 rows of which 85 % share one PARTITION BY key and the rest
// fall into small partitions (a NULL key among them), written to a spill file in a random order
// and walked under a 4 MiB host limit. The large partition goes in ordered chunks, its count
// over the whole partition read first; the small ones in groups in memory. Every row's values
// must be the in-memory Window's (the ORDER BY is unique within a partition). Calls whose ORDER
// BYs differ cannot be chunked: the large partition fails with the budget's error.
#include "tandem/exec/cpu/window_large_partitions.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

#include "tandem/column/column_builder.h"
#include "tandem/exec/cpu/operators.h"
#include "tandem/format/value_format.h"
#include "tandem/memory/host_memory.h"

namespace tandem {
namespace {

Schema InputSchema() {
  Schema s;
  s.fields = {{"id", DataType::Int64()},
              {"g", DataType::Int64()},
              {"o", DataType::Int64()},
              {"v", DataType::Int64()}};
  return s;
}

// `rows` rows in batches of 1000, in random order: id and o unique, g 0 for most rows.
Table Input(int64_t rows) {
  std::mt19937_64 rng(7);
  std::vector<int64_t> order(static_cast<size_t>(rows));
  for (int64_t i = 0; i < rows; ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), rng);
  Table t;
  t.schema = InputSchema();
  for (int64_t begin = 0; begin < rows; begin += 1000) {
    ColumnBuilder id(DataType::Int64()), g(DataType::Int64()), o(DataType::Int64()),
        v(DataType::Int64());
    const int64_t end = std::min(rows, begin + 1000);
    for (int64_t i = begin; i < end; ++i) {
      id.Append<int64_t>(i);
      const uint64_t pick = rng() % 100;
      if (pick < 85) {
        g.Append<int64_t>(0);
      } else if (pick < 87) {
        g.AppendNull();
      } else {
        g.Append<int64_t>(1 + static_cast<int64_t>(rng() % 300));
      }
      o.Append<int64_t>(order[i]);
      if (rng() % 9 == 0) {
        v.AppendNull();
      } else {
        v.Append<int64_t>(static_cast<int64_t>(rng() % 2001) - 1000);
      }
    }
    auto batch = std::make_shared<Batch>();
    batch->schema = t.schema;
    batch->num_rows = end - begin;
    batch->columns = {id.Finish(), g.Finish(), o.Finish(), v.Finish()};
    t.batches.push_back(std::move(batch));
  }
  return t;
}

ExprPtr Column(int i) {
  const Schema s = InputSchema();
  return MakeColumnRef(i, s.field(i).type, true, s.field(i).name);
}

WindowCall Call(const std::string& name, WindowFunctionKind kind, AggregateKind aggregate, int arg,
                int order_column) {
  WindowCall call;
  call.kind = kind;
  call.aggregate = aggregate;
  call.type = DataType::Int64();
  call.name = name;
  if (arg >= 0) call.args.push_back(Column(arg));
  call.partition_by.push_back(Column(1));
  if (order_column >= 0) call.order_by.push_back({Column(order_column), true, false});
  call.frame.has_order = order_column >= 0;
  if (order_column < 0) call.frame.end = WindowFrame::BoundKind::kUnboundedFollowing;
  return call;
}

// Each row's values as text, by id.
void AddRows(const Table& t, std::map<int64_t, std::string>* rows) {
  for (const BatchPtr& b : t.batches) {
    for (int64_t r = 0; r < b->num_rows; ++r) {
      std::string text;
      for (const ColumnPtr& c : b->columns) {
        format::AppendText(*c, r, &text);
        text += "|";
      }
      (*rows)[b->columns[0]->values_as<int64_t>()[r]] = text;
    }
  }
}

// The window over the input walked from a spill file under a 4 MiB limit.
Status RunLarge(const PlanNode& window, std::map<int64_t, std::string>* got, int* large) {
  std::unique_ptr<SpillFile> file;
  {
    const Table input = Input(40000);
    TANDEM_ASSIGN_OR_RAISE(file, SpillFile::Create(""));
    for (const BatchPtr& b : input.batches) TANDEM_RETURN_NOT_OK(file->Append(*b));
    TANDEM_RETURN_NOT_OK(file->FinishWriting());
  }
  const int64_t before = host_memory::Limit();
  host_memory::SetLimit(host_memory::InUse() + (int64_t{4} << 20));
  ExecContext ctx;
  int64_t spilled = 0;
  const Status st = cpu::WindowOverSortedRows(
      window, *file, ctx,
      [&](Table part) {
        AddRows(part, got);
        return Status::OK();
      },
      large, &spilled);
  host_memory::SetLimit(before);
  if (st.ok() && spilled <= 0) return Status::Internal("nothing spilled");
  return st;
}

TEST(WindowLargePartitions, WalkedInOrderGiveTheInMemoryWindowsValues) {
  using K = WindowFunctionKind;
  using A = AggregateKind;
  const PlanPtr window = MakeWindow(
      MakeValues(InputSchema(), {}),
      {Call("rn", K::kRowNumber, A::kCountStar, -1, 2), Call("cs", K::kAggregate, A::kSum, 3, 2),
       Call("lg", K::kLag, A::kCountStar, 3, 2), Call("c", K::kAggregate, A::kCountStar, -1, -1)});
  std::map<int64_t, std::string> want, got;
  {
    ExecContext ctx;
    Result<Table> expected = cpu::Window(*window, Input(40000), ctx);
    ASSERT_TRUE(expected.ok()) << expected.status().ToString();
    AddRows(*expected, &want);
  }
  int large = 0;
  const Status st = RunLarge(*window, &got, &large);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(large, 1);
  ASSERT_EQ(got.size(), want.size());
  for (const auto& [id, text] : want) EXPECT_EQ(got[id], text) << "id " << id;
}

TEST(WindowLargePartitions, CallsThatCannotBeChunkedFailWithTheBudgetsError) {
  using K = WindowFunctionKind;
  using A = AggregateKind;
  const PlanPtr window =
      MakeWindow(MakeValues(InputSchema(), {}), {Call("rn", K::kRowNumber, A::kCountStar, -1, 2),
                                                 Call("rv", K::kRowNumber, A::kCountStar, -1, 3)});
  std::map<int64_t, std::string> got;
  int large = 0;
  const Status st = RunLarge(*window, &got, &large);
  EXPECT_EQ(st.code(), StatusCode::kOutOfMemory) << st.ToString();
  EXPECT_NE(st.message().find("window partition larger than"), std::string::npos);
}

}  // namespace
}  // namespace tandem
