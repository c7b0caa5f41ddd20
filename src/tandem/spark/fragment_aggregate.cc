// Spark aggregation modes on Tandem's hash aggregate (see fragment_aggregate.h).
#include "tandem/spark/fragment_aggregate.h"

#include "tandem/expr/aggregate.h"

namespace tandem::spark {
namespace {

enum class Mode { kPartial, kFinal, kComplete };
enum class Fn { kSum, kAvg, kCount, kCountStar, kMin, kMax };

struct SparkAggregate {
  Fn fn;
  ExprPtr arg;           // partial and complete: over the child's output
  Schema out;            // the buffer fields (partial) or the result field
  int buffer_width = 1;  // Spark's buffer columns
};

Status Unsupported(const std::string& why) { return Status::Unsupported(why); }

Result<Fn> FnOf(const std::string& name) {
  if (name == "sum") return Fn::kSum;
  if (name == "avg") return Fn::kAvg;
  if (name == "count") return Fn::kCount;
  if (name == "count_star") return Fn::kCountStar;
  if (name == "min") return Fn::kMin;
  if (name == "max") return Fn::kMax;
  return Unsupported("aggregate function " + name);
}

ExprPtr Col(const Schema& s, int i) {
  const Field& f = s.field(i);
  return MakeColumnRef(i, f.type, f.nullable, f.name);
}

ExprPtr Zero(const DataType& t) {
  Value v;
  v.type = t;
  v.is_null = false;
  return MakeLiteral(v);  // 0, 0.0 or a decimal 0
}

ExprPtr Coalesce0(ExprPtr x) {
  const DataType t = x->type;
  return MakeCall("coalesce", {std::move(x), Zero(t)}, t, false);
}

AggregateCall MakeAgg(AggregateKind kind, ExprPtr arg, const std::string& name) {
  AggregateCall c;
  c.kind = kind;
  Result<DataType> type =
      arg ? AggregateResultType(kind, arg->type) : Result<DataType>(DataType::Int64());
  c.type = type.ok() ? *type : DataType::Int64();  // arguments are checked before
  c.nullable = kind != AggregateKind::kCount && kind != AggregateKind::kCountStar;
  c.arg = std::move(arg);
  c.name = name;
  return c;
}

// sum / count as Spark's average of type `result` (NULL for a count of 0): decimals exactly,
// rounding HALF_UP at the result scale (spark_decimal_average); doubles as sum / count.
Result<ExprPtr> Average(ExprPtr sum, ExprPtr count, const DataType& result) {
  if (result.is_decimal()) {
    if (!sum->type.is_decimal()) return Status::Internal("decimal average of a non-decimal sum");
    if (result.scale > 20) {
      return Unsupported("avg with a result scale above 20 (Spark rounds twice there)");
    }
    return MakeCall("spark_decimal_average",
                    {std::move(sum), std::move(count), MakeLiteral(Value::Null(result))}, result,
                    true);
  }
  if (result.id != TypeId::kFloat64) return Unsupported("avg as " + result.ToString());
  ExprPtr n = MakeCall(
      "nullif", {MakeCast(std::move(count), DataType::Float64()), MakeLiteral(Value::Float64(0))},
      DataType::Float64(), true);
  return MakeCall("divide", {std::move(sum), std::move(n)}, DataType::Float64(), true);
}

// The Tandem aggregates over the input rows that a partial or complete Spark aggregate needs.
Status AddInputAggregates(const SparkAggregate& a, size_t index,
                          std::vector<AggregateCall>* calls) {
  const std::string name = "a" + std::to_string(index);
  const DataType* t = a.arg ? &a.arg->type : nullptr;
  const bool numeric = t && (t->is_integer() || t->is_floating() || t->is_decimal());
  switch (a.fn) {
    case Fn::kSum:
      if (!numeric) return Unsupported("sum of " + (t ? t->ToString() : std::string("nothing")));
      calls->push_back(MakeAgg(AggregateKind::kSum, a.arg, name + "_sum"));
      if (t->is_decimal()) calls->push_back(MakeAgg(AggregateKind::kCount, a.arg, name + "_n"));
      return Status::OK();
    case Fn::kAvg: {
      if (!numeric) return Unsupported("avg of " + (t ? t->ToString() : std::string("nothing")));
      ExprPtr x = t->is_decimal() ? a.arg : MakeCast(a.arg, DataType::Float64());
      calls->push_back(MakeAgg(AggregateKind::kSum, x, name + "_sum"));
      calls->push_back(MakeAgg(AggregateKind::kCount, a.arg, name + "_n"));
      return Status::OK();
    }
    case Fn::kCount:
      calls->push_back(MakeAgg(AggregateKind::kCount, a.arg, name));
      return Status::OK();
    case Fn::kCountStar:
      calls->push_back(MakeAgg(AggregateKind::kCountStar, nullptr, name));
      return Status::OK();
    case Fn::kMin:
    case Fn::kMax:
      calls->push_back(
          MakeAgg(a.fn == Fn::kMin ? AggregateKind::kMin : AggregateKind::kMax, a.arg, name));
      return Status::OK();
  }
  return Status::OK();
}

// How many Tandem aggregates AddInputAggregates makes for `a`.
int InputAggregateCount(const SparkAggregate& a) {
  if (a.fn == Fn::kAvg) return 2;
  if (a.fn == Fn::kSum && a.arg && a.arg->type.is_decimal()) return 2;
  return 1;
}

// Spark's buffer columns of a partial aggregate, from its Tandem aggregates at column `c`.
std::vector<ExprPtr> Buffers(const SparkAggregate& a, const Schema& s, int c) {
  if (a.fn == Fn::kSum && a.arg->type.is_decimal()) {
    return {Coalesce0(Col(s, c)),
            MakeCall("eq", {Col(s, c + 1), MakeLiteral(Value::Int64(0))}, DataType::Bool(), false)};
  }
  if (a.fn == Fn::kAvg) return {Coalesce0(Col(s, c)), Col(s, c + 1)};
  return {Col(s, c)};
}

// Spark's result of a complete aggregate from its Tandem aggregates at column `c`.
Result<ExprPtr> CompleteResult(const SparkAggregate& a, const Schema& s, int c) {
  if (a.fn == Fn::kAvg) return Average(Col(s, c), Col(s, c + 1), a.out.field(0).type);
  return Col(s, c);  // a decimal sum's count (at c + 1) only feeds partial buffers
}

// The Tandem aggregates that merge a final aggregate's buffers starting at input column `b`.
Status AddMergeAggregates(const SparkAggregate& a, const Schema& in, int b, size_t index,
                          std::vector<AggregateCall>* calls) {
  const std::string name = "m" + std::to_string(index);
  auto sum_of = [&](int col, const char* suffix) {
    calls->push_back(MakeAgg(AggregateKind::kSum, Col(in, col), name + suffix));
  };
  switch (a.fn) {
    case Fn::kSum:
      sum_of(b, "_sum");
      if (a.buffer_width == 2) {
        calls->push_back(MakeAgg(AggregateKind::kBoolAnd, Col(in, b + 1), name + "_empty"));
      }
      return Status::OK();
    case Fn::kAvg:
      sum_of(b, "_sum");
      sum_of(b + 1, "_n");
      return Status::OK();
    case Fn::kCount:
    case Fn::kCountStar:
      sum_of(b, "");
      return Status::OK();
    case Fn::kMin:
    case Fn::kMax:
      calls->push_back(
          MakeAgg(a.fn == Fn::kMin ? AggregateKind::kMin : AggregateKind::kMax, Col(in, b), name));
      return Status::OK();
  }
  return Status::OK();
}

// Spark's result of a final aggregate from its merge aggregates at column `c`.
Result<ExprPtr> FinalResult(const SparkAggregate& a, const Schema& s, int c) {
  const DataType& result = a.out.field(0).type;
  switch (a.fn) {
    case Fn::kSum:
      if (a.buffer_width == 2) {
        // NULL when every buffer is empty, else the merged sum in the buffer's own type.
        auto e = std::make_shared<Expr>();
        e->kind = ExprKind::kCase;
        e->type = result;
        e->has_else = true;
        e->args = {Col(s, c + 1), MakeLiteral(Value::Null(result)), MakeCast(Col(s, c), result)};
        return ExprPtr(e);
      }
      return Col(s, c);
    case Fn::kAvg:
      return Average(Col(s, c), Col(s, c + 1), result);
    case Fn::kCount:
    case Fn::kCountStar:
      return Coalesce0(Col(s, c));
    case Fn::kMin:
    case Fn::kMax:
      return Col(s, c);
  }
  return Col(s, c);
}

int MergeAggregateCount(const SparkAggregate& a) {
  if (a.fn == Fn::kAvg) return 2;
  if (a.fn == Fn::kSum) return a.buffer_width;
  return 1;
}

Result<Mode> ModeOf(const Json& node, const std::string& where) {
  TANDEM_ASSIGN_OR_RAISE(std::string mode, StringMember(node, "mode", where));
  if (mode == "partial") return Mode::kPartial;
  if (mode == "final") return Mode::kFinal;
  if (mode == "complete") return Mode::kComplete;
  return Unsupported("aggregation mode " + mode);
}

Result<std::vector<SparkAggregate>> ParseAggregates(const Json& node, const Schema& child,
                                                    Mode mode, const SparkSettings& settings,
                                                    const std::string& where) {
  TANDEM_ASSIGN_OR_RAISE(const Json* list, Member(node, "aggregates", where));
  if (!list->is_array())
    return Status::Invalid("fragment " + where + ": aggregates must be a list");
  std::vector<SparkAggregate> out;
  for (size_t i = 0; i < list->size(); ++i) {
    const Json& j = (*list)[i];
    const std::string at = where + ".aggregates[" + std::to_string(i) + "]";
    SparkAggregate a;
    TANDEM_ASSIGN_OR_RAISE(std::string fn, StringMember(j, "fn", at));
    TANDEM_ASSIGN_OR_RAISE(a.fn, FnOf(fn));
    if (j.value("distinct", false)) return Unsupported(fn + "(DISTINCT ...)");
    if (j.contains("mode")) {
      // sum and avg carry Spark's eval mode. ANSI and LEGACY both run; an overflowing sum fails
      // the task in either (Spark's LEGACY would wrap a long or give NULL for a decimal).
      const std::string eval = j["mode"].is_string() ? j["mode"].get<std::string>() : "";
      if (eval == "try") return Unsupported("try_" + fn + " (TRY mode)");
      if (eval != "ansi" && eval != "legacy")
        return Unsupported(fn + " in eval mode " + j["mode"].dump());
    }
    if (j.contains("filter") && !j["filter"].is_null()) return Unsupported(fn + " with a FILTER");
    TANDEM_ASSIGN_OR_RAISE(const Json* out_json, Member(j, "output", at));
    TANDEM_ASSIGN_OR_RAISE(a.out, SchemaFromJson(*out_json, at + ".output"));
    if (mode != Mode::kFinal && a.fn != Fn::kCountStar) {
      TANDEM_ASSIGN_OR_RAISE(const Json* args, Member(j, "args", at));
      if (!args->is_array() || args->size() != 1) return Unsupported(fn + " of several arguments");
      TANDEM_ASSIGN_OR_RAISE(a.arg, ExprFromJson((*args)[0], child, settings, at + ".args[0]"));
    }
    out.push_back(std::move(a));
  }
  return out;
}

Status CheckTypes(const Schema& got, const std::vector<Field>& want, const std::string& what) {
  if (got.num_fields() != static_cast<int>(want.size())) {
    return Unsupported(what + ": Spark expects " + std::to_string(want.size()) +
                       " columns, Tandem makes " + std::to_string(got.num_fields()));
  }
  for (size_t i = 0; i < want.size(); ++i) {
    if (got.field(static_cast<int>(i)).type != want[i].type) {
      return Unsupported(what + ": Spark's " + want[i].name + " is " + want[i].type.ToString() +
                         ", Tandem's " + got.field(static_cast<int>(i)).type.ToString());
    }
  }
  return Status::OK();
}

}  // namespace

Result<PlanPtr> AggregateFromJson(const Json& node, PlanPtr child, const SparkSettings& settings,
                                  const std::string& where) {
  TANDEM_ASSIGN_OR_RAISE(Mode mode, ModeOf(node, where));
  const Schema& in = child->schema;
  TANDEM_ASSIGN_OR_RAISE(const Json* keys_json, Member(node, "keys", where));
  if (!keys_json->is_array()) return Status::Invalid("fragment " + where + ": keys must be a list");
  std::vector<ExprPtr> keys;
  std::vector<std::string> key_names;
  for (size_t i = 0; i < keys_json->size(); ++i) {
    TANDEM_ASSIGN_OR_RAISE(ExprPtr k, ExprFromJson((*keys_json)[i], in, settings,
                                                   where + ".keys[" + std::to_string(i) + "]"));
    keys.push_back(std::move(k));
    key_names.push_back("k" + std::to_string(i));
  }
  TANDEM_ASSIGN_OR_RAISE(std::vector<SparkAggregate> aggs,
                         ParseAggregates(node, in, mode, settings, where));
  const int nk = static_cast<int>(keys.size());
  std::vector<AggregateCall> calls;
  if (mode == Mode::kFinal) {
    // The input is keys ++ every aggregate's buffers, in order.
    int b = nk;
    for (size_t i = 0; i < aggs.size(); ++i) {
      SparkAggregate& a = aggs[i];
      a.buffer_width = a.fn == Fn::kAvg ? 2 : 1;
      if (a.fn == Fn::kSum && b < in.num_fields() && in.field(b).type.is_decimal())
        a.buffer_width = 2;
      if (b + a.buffer_width > in.num_fields()) {
        return Status::Invalid("fragment " + where + ": the input has too few buffer columns");
      }
      TANDEM_RETURN_NOT_OK(AddMergeAggregates(a, in, b, i, &calls));
      b += a.buffer_width;
    }
    if (b != in.num_fields()) {
      return Status::Invalid("fragment " + where + ": the input has " +
                             std::to_string(in.num_fields() - b) + " columns past the buffers");
    }
  } else {
    for (size_t i = 0; i < aggs.size(); ++i)
      TANDEM_RETURN_NOT_OK(AddInputAggregates(aggs[i], i, &calls));
  }
  PlanPtr agg = MakeAggregate(child, keys, key_names, calls);
  const Schema& s = agg->schema;
  std::vector<ExprPtr> outputs;
  std::vector<std::string> names;
  std::vector<Field> expected;
  for (int k = 0; k < nk; ++k) {
    outputs.push_back(Col(s, k));
    names.push_back(key_names[k]);
  }
  int c = nk;
  for (const SparkAggregate& a : aggs) {
    if (mode == Mode::kPartial) {
      for (ExprPtr& e : Buffers(a, s, c)) outputs.push_back(std::move(e));
      c += InputAggregateCount(a);
    } else if (mode == Mode::kComplete) {
      TANDEM_ASSIGN_OR_RAISE(ExprPtr e, CompleteResult(a, s, c));
      outputs.push_back(std::move(e));
      c += InputAggregateCount(a);
    } else {
      TANDEM_ASSIGN_OR_RAISE(ExprPtr e, FinalResult(a, s, c));
      outputs.push_back(std::move(e));
      c += MergeAggregateCount(a);
    }
    for (const Field& f : a.out.fields) expected.push_back(f);
  }
  while (names.size() < outputs.size()) names.push_back("b" + std::to_string(names.size()));
  PlanPtr project = MakeProject(agg, outputs, names);
  std::vector<Field> got_aggs(project->schema.fields.begin() + nk, project->schema.fields.end());
  TANDEM_RETURN_NOT_OK(CheckTypes(Schema{got_aggs}, expected, "aggregate buffers and results"));
  return project;
}

}  // namespace tandem::spark
