// Set operations against a multiset oracle written here: UNION [ALL], INTERSECT [ALL], EXCEPT
// [ALL] with SQL bag semantics, NULLs equal to NULLs, strings, several batches, empty sides.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>

#include "tandem/column/column_builder.h"
#include "tandem/column/take.h"
#include "tandem/exec/cpu/operators.h"

namespace tandem {
namespace {

using Row = std::pair<std::optional<int64_t>, std::optional<std::string>>;

Schema TestSchema(const std::string& prefix) {
  Schema s;
  s.fields = {{prefix + "x", DataType::Int64()}, {prefix + "y", DataType::String()}};
  return s;
}

std::vector<Row> RandomRows(std::mt19937_64& rng, int n) {
  std::uniform_int_distribution<int> d(0, 5);
  std::vector<Row> rows;
  for (int i = 0; i < n; ++i) {
    Row r;
    if (d(rng) != 0) r.first = d(rng);
    if (d(rng) != 0)
      r.second = std::string(d(rng) % 3 == 0 ? "long-value-" : "v") + std::to_string(d(rng) % 2);
    rows.push_back(r);
  }
  return rows;
}

Table ToTable(const Schema& schema, const std::vector<Row>& rows, int batches) {
  Table t;
  t.schema = schema;
  const int n = static_cast<int>(rows.size());
  const int per = std::max(1, (n + batches - 1) / batches);
  for (int begin = 0; begin < n; begin += per) {
    const int end = std::min(n, begin + per);
    ColumnBuilder x(DataType::Int64()), y(DataType::String());
    for (int i = begin; i < end; ++i) {
      if (rows[i].first)
        x.Append<int64_t>(*rows[i].first);
      else
        x.AppendNull();
      if (rows[i].second)
        y.AppendString(*rows[i].second);
      else
        y.AppendNull();
    }
    auto b = std::make_shared<Batch>();
    b->schema = schema;
    b->num_rows = end - begin;
    b->columns = {x.Finish(), y.Finish()};
    t.batches.push_back(b);
  }
  return t;
}

std::vector<Row> TableRows(const Table& t) {
  std::vector<Row> rows;
  for (const auto& b : t.batches) {
    for (int64_t i = 0; i < b->num_rows; ++i) {
      Row r;
      if (b->columns[0]->IsValid(i)) r.first = b->columns[0]->Value<int64_t>(i);
      if (b->columns[1]->IsValid(i)) r.second = std::string(b->columns[1]->GetString(i));
      rows.push_back(r);
    }
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

std::vector<Row> Oracle(const std::vector<Row>& l, const std::vector<Row>& r, SetOpKind op,
                        bool all) {
  std::map<Row, std::pair<int64_t, int64_t>> counts;
  for (const Row& x : l) ++counts[x].first;
  for (const Row& x : r) ++counts[x].second;
  std::vector<Row> out;
  for (const auto& [row, c] : counts) {
    int64_t copies = 0;
    switch (op) {
      case SetOpKind::kUnion:
        copies = all ? c.first + c.second : 1;
        break;
      case SetOpKind::kIntersect:
        copies = all ? std::min(c.first, c.second) : (c.first > 0 && c.second > 0);
        break;
      case SetOpKind::kExcept:
        copies = all ? std::max<int64_t>(c.first - c.second, 0) : (c.first > 0 && c.second == 0);
        break;
    }
    for (int64_t i = 0; i < copies; ++i) out.push_back(row);
  }
  return out;
}

TEST(ExecSetOp, MatchesMultisetOracle) {
  std::mt19937_64 rng(9);
  for (auto [nl, nr] : std::vector<std::pair<int, int>>{{400, 300}, {0, 50}, {50, 0}, {0, 0}}) {
    const auto l = RandomRows(rng, nl), r = RandomRows(rng, nr);
    const Table lt = ToTable(TestSchema("l"), l, 3), rt = ToTable(TestSchema("r"), r, 2);
    for (SetOpKind op : {SetOpKind::kUnion, SetOpKind::kIntersect, SetOpKind::kExcept}) {
      for (bool all : {false, true}) {
        PlanNode node;
        node.kind = PlanKind::kSetOp;
        node.set_op = op;
        node.set_all = all;
        node.schema = TestSchema("l");
        ExecContext ctx;
        auto res = cpu::SetOperation(node, {lt, rt}, ctx);
        ASSERT_TRUE(res.ok()) << res.status().ToString();
        for (const auto& b : res->batches) {
          ASSERT_TRUE(b->Validate().ok());
          EXPECT_EQ(b->schema.field(0).name, "lx");
        }
        EXPECT_EQ(TableRows(*res), Oracle(l, r, op, all))
            << "op " << static_cast<int>(op) << " all " << all << " sizes " << nl << "," << nr;
      }
    }
  }
}

}  // namespace
}  // namespace tandem
