// AVG over a window of decimals whose sum times 10^(result scale - argument scale) passes 128
// bits while the average fits its type: a million rows of a 30-digit value averaged into
// decimal(36, 4) (Spark's type for avg of decimal(32, 0)). The window's average divided
// s * 10^4 in 128 bits and wrapped silently; it divides exactly now (types/decimal_core.h), as
// the grouped average does (the oracle here: the hash aggregation of the same rows).
#include <gtest/gtest.h>

#include <memory>

#include "tandem/column/column_builder.h"
#include "tandem/exec/cpu/operators.h"
#include "tandem/exec/exec_context.h"
#include "tandem/expr/aggregate.h"
#include "tandem/format/value_format.h"
#include "tandem/plan/logical_plan.h"
#include "tandem/types/decimal.h"

namespace tandem {
namespace {

TEST(WindowDecimalAvg, SumPast128BitsGivesTheGroupedAverage) {
  const DataType arg = DataType::Decimal(32, 0);
  const DataType result = DataType::Decimal(36, 4);
  int128_t value = 0;
  ASSERT_TRUE(decimal::Parse("123456789012345678901234567890", 32, 0, &value));
  constexpr int64_t kRows = 1000000;
  ColumnBuilder v(arg);
  for (int64_t i = 0; i < kRows; ++i) v.Append<int128_t>(value - (i % 3));
  Table t;
  t.schema.fields = {{"v", arg, false}};
  auto b = std::make_shared<Batch>();
  b->schema = t.schema;
  b->num_rows = kRows;
  b->columns = {v.Finish()};
  t.batches = {b};
  const ExprPtr col = MakeColumnRef(0, arg, false, "v");

  PlanNode window;
  window.kind = PlanKind::kWindow;
  window.schema = t.schema;
  WindowCall w;
  w.kind = WindowFunctionKind::kAggregate;
  w.aggregate = AggregateKind::kAvg;
  w.args = {col};
  w.type = result;
  w.name = "w";
  window.windows = {w};
  window.schema.fields.push_back({"w", result, true});
  ExecContext ctx;
  Result<Table> got = cpu::Window(window, t, ctx);
  ASSERT_TRUE(got.ok()) << got.status().ToString();

  AggregateCall a;
  a.kind = AggregateKind::kAvg;
  a.arg = col;
  a.type = result;
  a.name = "avg";
  PlanNode agg;
  agg.kind = PlanKind::kAggregate;
  agg.aggregates = {a};
  agg.schema.fields = {{"avg", result, true}};
  Result<Table> want = cpu::HashAggregate(agg, t, ctx);
  ASSERT_TRUE(want.ok()) << want.status().ToString();

  std::string want_text, got_text;
  format::AppendText(*want->batches[0]->columns[0], 0, &want_text);
  EXPECT_EQ(want_text, "123456789012345678901234567889.0000");
  for (int64_t row : {int64_t{0}, kRows - 1}) {
    int64_t r = row;
    for (const auto& batch : got->batches) {
      if (r < batch->num_rows) {
        got_text.clear();
        format::AppendText(*batch->columns[1], r, &got_text);
        break;
      }
      r -= batch->num_rows;
    }
    EXPECT_EQ(got_text, want_text) << "row " << row;
  }
}

}  // namespace
}  // namespace tandem
