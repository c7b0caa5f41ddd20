// Builders shared by the aggregation unit tests: a column reference into a table's schema and an
// aggregate call with its result type given.
#pragma once

#include <string>
#include <utility>

#include "tandem/column/table.h"
#include "tandem/expr/aggregate.h"
#include "tandem/expr/expr.h"

namespace tandem::test {

inline ExprPtr Col(const Table& t, int i) {
  return MakeColumnRef(i, t.schema.field(i).type, true, t.schema.field(i).name);
}

inline AggregateCall Agg(AggregateKind kind, ExprPtr arg, DataType type, std::string name,
                         bool distinct = false, ExprPtr filter = nullptr) {
  AggregateCall a;
  a.kind = kind;
  a.arg = std::move(arg);
  a.type = type;
  a.nullable = kind != AggregateKind::kCount && kind != AggregateKind::kCountStar;
  a.name = std::move(name);
  a.distinct = distinct;
  a.filter = std::move(filter);
  return a;
}

}  // namespace tandem::test
