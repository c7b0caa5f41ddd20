// Splitting an aggregation into partial and merge steps (see split_aggregate.h).
#include "tandem/exec/split_aggregate.h"

#include "tandem/expr/aggregate.h"

namespace tandem {
namespace {

ExprPtr Col(const Schema& s, int i) {
  const Field& f = s.field(i);
  return MakeColumnRef(i, f.type, f.nullable, f.name);
}

AggregateCall Call(AggregateKind kind, ExprPtr arg, ExprPtr filter, const std::string& name) {
  AggregateCall c;
  c.kind = kind;
  c.type = DataType::Int64();
  if (arg) {
    Result<DataType> t = AggregateResultType(kind, arg->type);
    if (t.ok()) c.type = *t;
  }
  c.nullable = kind != AggregateKind::kCount && kind != AggregateKind::kCountStar;
  c.arg = std::move(arg);
  c.filter = std::move(filter);
  c.name = name;
  return c;
}

// Whether `call` combines from partial results; `why` names what does not. A DISTINCT call
// combines when the chunks are partitions by its argument (`distinct_key`).
bool Combines(const AggregateCall& call, const Expr* distinct_key, std::string* why) {
  if (call.distinct && !(distinct_key && call.arg && SameExpr(*call.arg, *distinct_key))) {
    *why = std::string(AggregateKindName(call.kind)) + "(DISTINCT ...)";
    return false;
  }
  switch (call.kind) {
    case AggregateKind::kSum:
    case AggregateKind::kCountStar:
    case AggregateKind::kCount:
    case AggregateKind::kMin:
    case AggregateKind::kMax:
    case AggregateKind::kBoolAnd:
    case AggregateKind::kBoolOr:
    case AggregateKind::kAnyValue:
      return true;
    case AggregateKind::kAvg: {
      const DataType& arg = call.arg->type;
      const DataType& out = call.type;
      // A decimal average divides its exact sum at the result scale (never below the
      // argument's); numbers averaged as doubles divide an exact sum too.
      // Only where the result type is not capped at 38 digits: an average then always fits it.
      if (arg.is_decimal() && out.is_decimal() && out.scale >= arg.scale &&
          arg.precision + 4 <= 38) {
        return true;
      }
      if ((arg.is_integer() && arg.id != TypeId::kUInt64) || arg.is_floating()) {
        return out.id == TypeId::kFloat64;
      }
      *why = "avg of " + arg.ToString() + " as " + out.ToString();
      return false;
    }
    default:
      *why = AggregateKindName(call.kind);
      return false;
  }
}

// sum(arg) into decimal(38, scale of arg), checked against 128 bits only (a partial sum).
AggregateCall WideSum(const ExprPtr& arg, const ExprPtr& filter, const std::string& name) {
  AggregateCall c = Call(AggregateKind::kSum, arg, filter, name);
  c.type = DataType::Decimal(38, arg->type.is_decimal() ? arg->type.scale : 0);
  c.check_precision = false;
  return c;
}

// A placeholder input with `schema` (the merge's rows come from the chunks, not from it).
PlanPtr Placeholder(const Schema& schema) { return MakeValues(schema, {}); }

}  // namespace

std::optional<SplitAggregate> SplitForChunks(const PlanNode& aggregate, std::string* why,
                                             const Expr* distinct_key) {
  if (aggregate.kind != PlanKind::kAggregate || aggregate.children.size() != 1) {
    *why = "not an aggregation";
    return std::nullopt;
  }
  if (!aggregate.grouping_sets.empty()) {
    *why = "grouping sets";
    return std::nullopt;
  }
  for (const AggregateCall& a : aggregate.aggregates) {
    if (!Combines(a, distinct_key, why)) return std::nullopt;
  }
  const int nk = static_cast<int>(aggregate.group_keys.size());
  std::vector<std::string> key_names;
  for (int k = 0; k < nk; ++k) key_names.push_back(aggregate.schema.field(k).name);

  // Partial: per chunk, over the original input.
  std::vector<AggregateCall> partial_calls;
  for (size_t i = 0; i < aggregate.aggregates.size(); ++i) {
    const AggregateCall& a = aggregate.aggregates[i];
    const std::string name = "p" + std::to_string(i);
    const DataType& arg_type = a.arg ? a.arg->type : DataType::Int64();
    const bool exact_sum =
        a.kind == AggregateKind::kSum &&
        ((arg_type.is_integer() && arg_type.id != TypeId::kUInt64) || arg_type.is_decimal());
    if (a.kind != AggregateKind::kAvg && !exact_sum) {
      AggregateCall c = a;
      c.name = name;
      partial_calls.push_back(std::move(c));
      continue;
    }
    if (exact_sum) {
      // Summed into decimal(38, scale), the argument as it is (the devices' sums of narrow
      // values apply; a cast to decimal(38) would make every value 16 bytes), and cast back at
      // the end (an error if the total does not fit, as the one-pass sum's). The partial sums
      // are checked against 128 bits only, the merge against 38 digits: one slice's sum may
      // pass them where the whole's does not (values of both signs).
      partial_calls.push_back(WideSum(a.arg, a.filter, name));
      partial_calls.back().distinct = a.distinct;
      continue;
    }
    // avg(x): sum and count. An integer x is summed as decimal(38, 0): exact, as the one-pass
    // average's 128-bit sum is, so no chunk's sum overflows where the whole would not.
    if (a.arg->type.is_integer()) {
      partial_calls.push_back(WideSum(a.arg, a.filter, name + "_sum"));
    } else {
      AggregateCall sum = Call(AggregateKind::kSum, a.arg, a.filter, name + "_sum");
      sum.check_precision = false;  // the one-pass average checks only the average
      partial_calls.push_back(std::move(sum));
    }
    partial_calls.back().distinct = a.distinct;
    partial_calls.push_back(Call(AggregateKind::kCount, a.arg, a.filter, name + "_n"));
    partial_calls.back().distinct = a.distinct;
  }
  PlanPtr partial = std::make_shared<PlanNode>(aggregate);
  {
    PlanPtr shape =
        MakeAggregate(aggregate.children[0], aggregate.group_keys, key_names, partial_calls);
    partial->aggregates = shape->aggregates;
    partial->schema = shape->schema;
  }

  // Merge: over the partial rows, grouped by the keys (columns 0..nk-1).
  const Schema& ps = partial->schema;
  PlanPtr input = Placeholder(ps);
  std::vector<ExprPtr> merge_keys;
  for (int k = 0; k < nk; ++k) merge_keys.push_back(Col(ps, k));
  std::vector<AggregateCall> merge_calls;
  int c = nk;
  for (size_t i = 0; i < aggregate.aggregates.size(); ++i) {
    const AggregateCall& a = aggregate.aggregates[i];
    const std::string name = "m" + std::to_string(i);
    switch (a.kind) {
      case AggregateKind::kCountStar:
      case AggregateKind::kCount:
      case AggregateKind::kSum:
        merge_calls.push_back(Call(AggregateKind::kSum, Col(ps, c++), nullptr, name));
        break;
      case AggregateKind::kAvg:
        merge_calls.push_back(Call(AggregateKind::kSum, Col(ps, c++), nullptr, name + "_sum"));
        merge_calls.back().check_precision = false;  // as in the partial
        merge_calls.push_back(Call(AggregateKind::kSum, Col(ps, c++), nullptr, name + "_n"));
        break;
      default:
        merge_calls.push_back(Call(a.kind, Col(ps, c++), nullptr, name));
        break;
    }
  }
  PlanPtr merge = MakeAggregate(input, merge_keys, key_names, merge_calls);
  merge->device = aggregate.device;

  // Finish: the original columns in the original types.
  const Schema& ms = merge->schema;
  std::vector<ExprPtr> outputs;
  std::vector<std::string> names;
  for (int k = 0; k < nk; ++k) outputs.push_back(Col(ms, k));
  c = nk;
  for (const AggregateCall& a : aggregate.aggregates) {
    ExprPtr e;
    switch (a.kind) {
      case AggregateKind::kCountStar:
      case AggregateKind::kCount: {
        // Every group has at least one partial row; a global aggregation of no rows has one
        // partial row of 0 per chunk.
        e = MakeCall("coalesce", {Col(ms, c++), MakeLiteral(Value::Int64(0))}, DataType::Int64(),
                     false);
        break;
      }
      case AggregateKind::kSum: {
        ExprPtr sum = Col(ms, c++);
        e = sum->type == a.type ? sum : MakeCast(sum, a.type);
        break;
      }
      case AggregateKind::kAvg: {
        ExprPtr sum = Col(ms, c++);
        ExprPtr n = Col(ms, c++);
        if (a.type.is_decimal()) {
          e = MakeCall("spark_decimal_average", {sum, n, MakeLiteral(Value::Null(a.type))}, a.type,
                       true);
        } else {
          ExprPtr count =
              MakeCall("nullif", {MakeCast(n, DataType::Float64()), MakeLiteral(Value::Float64(0))},
                       DataType::Float64(), true);
          e = MakeCall("divide", {MakeCast(sum, DataType::Float64()), count}, DataType::Float64(),
                       true);
        }
        break;
      }
      default:
        e = Col(ms, c++);
        break;
    }
    outputs.push_back(std::move(e));
  }
  for (const Field& f : aggregate.schema.fields) names.push_back(f.name);
  PlanPtr finish = MakeProject(merge, outputs, names);
  finish->device = aggregate.device;
  for (int i = 0; i < aggregate.schema.num_fields(); ++i) {
    if (!(finish->schema.field(i).type == aggregate.schema.field(i).type)) {
      *why = "column " + aggregate.schema.field(i).name + " would come back as " +
             finish->schema.field(i).type.ToString();
      return std::nullopt;
    }
    // The original's nullability (a count is never NULL), not the expression's.
    finish->schema.fields[i].nullable = aggregate.schema.field(i).nullable;
  }
  return SplitAggregate{std::move(partial), std::move(merge), std::move(finish)};
}

}  // namespace tandem
