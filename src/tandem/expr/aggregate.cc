// Aggregate names and result types (Spark SQL's rules; see aggregate.h).
// aggregate.h uses Result without including status.h; include it first.
#include "tandem/common/status.h"
// (keep the order)
#include <algorithm>
#include <cstring>

#include "tandem/expr/aggregate.h"

namespace tandem {
namespace {

struct AggregateName {
  const char* name;
  AggregateKind kind;
};

constexpr AggregateName kNames[] = {
    {"count", AggregateKind::kCount},
    {"sum", AggregateKind::kSum},
    {"avg", AggregateKind::kAvg},
    {"mean", AggregateKind::kAvg},
    {"min", AggregateKind::kMin},
    {"max", AggregateKind::kMax},
    {"stddev", AggregateKind::kStddevSamp},
    {"stddev_samp", AggregateKind::kStddevSamp},
    {"stddev_pop", AggregateKind::kStddevPop},
    {"variance", AggregateKind::kVarSamp},
    {"var_samp", AggregateKind::kVarSamp},
    {"var_pop", AggregateKind::kVarPop},
    {"bool_and", AggregateKind::kBoolAnd},
    {"every", AggregateKind::kBoolAnd},
    {"bool_or", AggregateKind::kBoolOr},
    {"any_value", AggregateKind::kAnyValue},
    {"first", AggregateKind::kAnyValue},
};

bool IsNumeric(const DataType& t) { return t.is_integer() || t.is_floating() || t.is_decimal(); }

}  // namespace

bool LookupAggregate(const std::string& name, AggregateKind* kind) {
  for (const auto& n : kNames) {
    if (name == n.name) {
      *kind = n.kind;
      return true;
    }
  }
  return false;
}

Result<DataType> AggregateResultType(AggregateKind kind, const DataType& arg) {
  auto cannot = [&]() -> Result<DataType> {
    return Status::Invalid(std::string("cannot ") + AggregateKindName(kind) + " " + arg.ToString());
  };
  switch (kind) {
    case AggregateKind::kCountStar:
    case AggregateKind::kCount:
      return DataType::Int64();
    case AggregateKind::kSum:
      if (arg.is_decimal()) return DataType::Decimal(std::min(38, arg.precision + 10), arg.scale);
      if (arg.is_floating()) return DataType::Float64();
      if (arg.id == TypeId::kUInt64) return DataType::Decimal(30, 0);
      if (arg.is_integer()) return DataType::Int64();
      return cannot();
    case AggregateKind::kAvg:
      if (arg.is_decimal()) {
        return DataType::Decimal(std::min(38, arg.precision + 4), std::min(38, arg.scale + 4));
      }
      if (IsNumeric(arg)) return DataType::Float64();
      return cannot();
    case AggregateKind::kMin:
    case AggregateKind::kMax:
    case AggregateKind::kAnyValue:
      return arg;
    case AggregateKind::kStddevSamp:
    case AggregateKind::kStddevPop:
    case AggregateKind::kVarSamp:
    case AggregateKind::kVarPop:
      if (IsNumeric(arg)) return DataType::Float64();
      return cannot();
    case AggregateKind::kBoolAnd:
    case AggregateKind::kBoolOr:
      if (arg.id == TypeId::kBool) return DataType::Bool();
      return cannot();
  }
  return cannot();
}

const char* AggregateKindName(AggregateKind kind) {
  switch (kind) {
    case AggregateKind::kCountStar:
      return "count_star";
    case AggregateKind::kCount:
      return "count";
    case AggregateKind::kSum:
      return "sum";
    case AggregateKind::kAvg:
      return "avg";
    case AggregateKind::kMin:
      return "min";
    case AggregateKind::kMax:
      return "max";
    case AggregateKind::kStddevSamp:
      return "stddev_samp";
    case AggregateKind::kStddevPop:
      return "stddev_pop";
    case AggregateKind::kVarSamp:
      return "var_samp";
    case AggregateKind::kVarPop:
      return "var_pop";
    case AggregateKind::kBoolAnd:
      return "bool_and";
    case AggregateKind::kBoolOr:
      return "bool_or";
    case AggregateKind::kAnyValue:
      return "any_value";
  }
  return "?";
}

}  // namespace tandem
