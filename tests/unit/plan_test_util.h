// Helpers for the optimizer's unit tests: random in-memory int64 tables, expression builders,
// plan inspection, and running plans to a sorted list of row strings.
#pragma once

#include <algorithm>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "tandem/catalog/table_source.h"
#include "tandem/column/column_builder.h"
#include "tandem/column/take.h"
#include "tandem/exec/executor.h"
#include "tandem/plan/logical_plan.h"

namespace tandem::plantest {

using Cell = std::optional<int64_t>;
using Rows = std::vector<std::vector<Cell>>;

// Random rows: values in [0, max_value), NULL with probability null_rate.
inline Rows RandomRows(int ncols, int nrows, uint32_t seed, int max_value, double null_rate) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> value(0, max_value - 1);
  std::uniform_real_distribution<double> unit(0, 1);
  Rows rows(static_cast<size_t>(nrows));
  for (auto& r : rows) {
    for (int c = 0; c < ncols; ++c) {
      r.push_back(unit(rng) < null_rate ? Cell() : Cell(value(rng)));
    }
  }
  return rows;
}

inline std::shared_ptr<TableSource> MemoryTable(const std::string& name, const Rows& rows,
                                                int ncols) {
  auto table = std::make_shared<Table>();
  auto batch = std::make_shared<Batch>();
  for (int c = 0; c < ncols; ++c) {
    table->schema.fields.push_back({name + "_c" + std::to_string(c), DataType::Int64(), true});
    ColumnBuilder b(DataType::Int64());
    for (const auto& r : rows) {
      if (r[c]) {
        b.Append<int64_t>(*r[c]);
      } else {
        b.AppendNull();
      }
    }
    batch->columns.push_back(b.Finish());
  }
  batch->schema = table->schema;
  batch->num_rows = static_cast<int64_t>(rows.size());
  table->batches.push_back(batch);
  return TableSource::Memory(name, table);
}

inline PlanPtr ScanAll(const std::shared_ptr<TableSource>& t) {
  std::vector<int> cols;
  for (int i = 0; i < t->schema.num_fields(); ++i) cols.push_back(i);
  return MakeScan(t, cols);
}

inline ExprPtr Col(int i, const std::string& name = "") {
  return MakeColumnRef(i, DataType::Int64(), true, name);
}
inline ExprPtr Outer(int i, const std::string& name = "") {
  auto e = MakeColumnRef(i, DataType::Int64(), true, name);
  e->outer_depth = 1;
  return e;
}
inline ExprPtr Lit(int64_t v) { return MakeLiteral(Value::Int64(v)); }
inline ExprPtr Cmp(const std::string& op, ExprPtr a, ExprPtr b) {
  return MakeCall(op, {a, b}, DataType::Bool(), a->nullable || b->nullable);
}
inline ExprPtr And(ExprPtr a, ExprPtr b) { return Cmp("and", a, b); }
inline ExprPtr Or(ExprPtr a, ExprPtr b) { return Cmp("or", a, b); }
inline ExprPtr Add(ExprPtr a, ExprPtr b) {
  return MakeCall("add", {a, b}, DataType::Int64(), a->nullable || b->nullable);
}

inline ExprPtr Subquery(SubqueryKind kind, PlanPtr plan, bool negated = false,
                        ExprPtr lhs = nullptr) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::kSubquery;
  e->subquery_kind = kind;
  e->negated = negated;
  e->type = kind == SubqueryKind::kScalar ? plan->schema.field(0).type : DataType::Bool();
  e->nullable = true;
  e->subquery = std::move(plan);
  if (lhs) {
    e->args.push_back(lhs);
    e->name = "eq";
  }
  return e;
}

inline AggregateCall Agg(AggregateKind kind, ExprPtr arg, const std::string& name) {
  AggregateCall a;
  a.kind = kind;
  a.arg = std::move(arg);
  a.type = DataType::Int64();
  a.nullable = kind != AggregateKind::kCount && kind != AggregateKind::kCountStar;
  a.name = name;
  return a;
}

// Counts nodes matching `pred` in the tree.
inline int CountNodes(const PlanNode& n, const std::function<bool(const PlanNode&)>& pred) {
  int count = pred(n) ? 1 : 0;
  for (const auto& c : n.children) count += CountNodes(*c, pred);
  return count;
}

inline bool IsCrossJoin(const PlanNode& n) {
  return n.kind == PlanKind::kJoin && n.left_keys.empty() && !n.condition;
}

inline bool HasSubqueryExpr(const Expr& e) {
  if (e.kind == ExprKind::kSubquery) return true;
  for (const auto& a : e.args) {
    if (HasSubqueryExpr(*a)) return true;
  }
  return false;
}

// A table's rows, each as "v1|v2|..." (NULL as "NULL"), sorted.
inline std::vector<std::string> SortedRows(const Table& t) {
  std::vector<std::string> out;
  for (const auto& b : t.batches) {
    for (int64_t r = 0; r < b->num_rows; ++r) {
      std::string s;
      for (int c = 0; c < b->num_columns(); ++c) {
        s += (c ? "|" : "") + GetValue(*b->column(c), r).ToString();
      }
      out.push_back(std::move(s));
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Runs a plan; its rows as SortedRows gives them.
inline Result<std::vector<std::string>> RunSorted(const PlanPtr& plan) {
  ExecContext ctx;
  TANDEM_ASSIGN_OR_RAISE(Table t, Execute(*plan, ctx));
  return SortedRows(t);
}

inline std::string CellText(const Cell& c) { return c ? std::to_string(*c) : "NULL"; }

inline std::vector<std::string> Sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

}  // namespace tandem::plantest
