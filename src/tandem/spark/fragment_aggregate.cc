// Spark aggregation modes on Tandem's hash aggregate (see fragment_aggregate.h).
#include "tandem/spark/fragment_aggregate.h"

#include "tandem/expr/aggregate.h"

namespace tandem::spark {
namespace {

enum class Mode { kPartial, kFinal, kComplete };
// What one aggregate of a node does (Spark's AggregateMode per aggregate expression): read the
// input (partial, complete) or buffers (merge = PartialMerge, final); output buffers (partial,
// merge) or the result (final, complete).
enum class Phase { kPartial, kMerge, kFinal, kComplete };
enum class Fn { kSum, kAvg, kCount, kCountStar, kMin, kMax };

struct SparkAggregate {
  Fn fn;
  Phase phase = Phase::kPartial;
  ExprPtr arg;            // partial and complete: over the child's output
  ExprPtr filter;         // partial and complete: FILTER (WHERE ...), or null
  int buffer_start = -1;  // merge and final: the first of its buffer columns in the input
  int buffer_width = 1;   // Spark's buffer columns
  Schema out;             // the buffer fields (partial, merge) or the result field
  bool reads_input() const { return phase == Phase::kPartial || phase == Phase::kComplete; }
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

// Spark's buffer columns of a PartialMerge aggregate from its merge aggregates at column `c`,
// in the buffers' own types (Tandem's sums widen).
std::vector<ExprPtr> MergedBuffers(const SparkAggregate& a, const Schema& s, int c) {
  std::vector<ExprPtr> out;
  switch (a.fn) {
    case Fn::kSum:
      out.push_back(a.buffer_width == 2 ? Coalesce0(Col(s, c)) : Col(s, c));
      if (a.buffer_width == 2) out.push_back(Col(s, c + 1));
      break;
    case Fn::kAvg:
      out = {Coalesce0(Col(s, c)), Coalesce0(Col(s, c + 1))};
      break;
    case Fn::kCount:
    case Fn::kCountStar:
      out.push_back(Coalesce0(Col(s, c)));
      break;
    case Fn::kMin:
    case Fn::kMax:
      out.push_back(Col(s, c));
      break;
  }
  for (size_t i = 0; i < out.size() && i < static_cast<size_t>(a.out.num_fields()); ++i) {
    const DataType& want = a.out.field(static_cast<int>(i)).type;
    if (out[i]->type != want) out[i] = MakeCast(std::move(out[i]), want);
  }
  return out;
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

Result<Phase> PhaseOf(const Json& j, Mode mode, const std::string& where) {
  if (!j.contains("phase")) {
    return mode == Mode::kPartial ? Phase::kPartial
           : mode == Mode::kFinal ? Phase::kFinal
                                  : Phase::kComplete;
  }
  TANDEM_ASSIGN_OR_RAISE(std::string phase, StringMember(j, "phase", where));
  if (phase == "partial") return Phase::kPartial;
  if (phase == "merge") return Phase::kMerge;
  if (phase == "final") return Phase::kFinal;
  if (phase == "complete") return Phase::kComplete;
  return Status::Invalid("fragment " + where + ": unknown phase '" + phase + "'");
}

// The buffer columns a merge or final aggregate names in "args" (column references, in order and
// adjacent); false when it names none (a final node's buffers follow its keys in order).
Result<bool> ExplicitBuffers(const Json& j, const Schema& child, const SparkSettings& settings,
                             const std::string& where, SparkAggregate* a) {
  if (!j.contains("args") || !j["args"].is_array() || j["args"].empty()) return false;
  const Json& args = j["args"];
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string at = where + ".args[" + std::to_string(i) + "]";
    TANDEM_ASSIGN_OR_RAISE(ExprPtr e, ExprFromJson(args[i], child, settings, at));
    if (e->kind != ExprKind::kColumnRef) {
      return Status::Invalid("fragment " + at + ": a buffer must be a column");
    }
    if (i == 0) a->buffer_start = e->column_index;
    if (e->column_index != a->buffer_start + static_cast<int>(i)) {
      return Unsupported("aggregation buffers that are not adjacent columns");
    }
  }
  a->buffer_width = static_cast<int>(args.size());
  return true;
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
    TANDEM_ASSIGN_OR_RAISE(a.phase, PhaseOf(j, mode, at));
    // Spark computes a DISTINCT aggregate over rows it has made distinct below (one partial and
    // merge aggregation grouped by the keys and the distinct values): in its partial and final
    // phases it is the plain aggregate over those rows.
    if (j.value("distinct", false) && a.phase != Phase::kPartial && a.phase != Phase::kFinal) {
      return Unsupported(fn + "(DISTINCT ...) outside Spark's partial and final phases");
    }
    // In LEGACY mode a buffer Spark made may hold NULL for a sum that overflowed; merging such
    // buffers into more buffers is left to Spark (a final Tandem half only follows Tandem's own
    // partial half, which fails on overflow instead).
    if (!settings.ansi && a.phase == Phase::kMerge && (a.fn == Fn::kSum || a.fn == Fn::kAvg)) {
      return Unsupported("merging " + fn + " buffers in Spark's LEGACY mode");
    }
    if (j.contains("mode")) {
      // sum and avg carry Spark's eval mode. ANSI and LEGACY both run; an overflowing sum fails
      // the task in either (Spark's LEGACY would wrap a long or give NULL for a decimal).
      const std::string eval = j["mode"].is_string() ? j["mode"].get<std::string>() : "";
      if (eval == "try") return Unsupported("try_" + fn + " (TRY mode)");
      if (eval != "ansi" && eval != "legacy")
        return Unsupported(fn + " in eval mode " + j["mode"].dump());
    }
    if (j.contains("filter") && !j["filter"].is_null()) {
      if (!a.reads_input()) return Unsupported(fn + " with a FILTER outside its partial phase");
      TANDEM_ASSIGN_OR_RAISE(a.filter, ExprFromJson(j["filter"], child, settings, at + ".filter"));
      if (a.filter->type.id != TypeId::kBool) return Unsupported("a FILTER that is not boolean");
    }
    TANDEM_ASSIGN_OR_RAISE(const Json* out_json, Member(j, "output", at));
    TANDEM_ASSIGN_OR_RAISE(a.out, SchemaFromJson(*out_json, at + ".output"));
    if (a.reads_input() && a.fn != Fn::kCountStar) {
      TANDEM_ASSIGN_OR_RAISE(const Json* args, Member(j, "args", at));
      if (!args->is_array() || args->size() != 1) return Unsupported(fn + " of several arguments");
      TANDEM_ASSIGN_OR_RAISE(a.arg, ExprFromJson((*args)[0], child, settings, at + ".args[0]"));
    } else if (!a.reads_input()) {
      TANDEM_ASSIGN_OR_RAISE(bool named, ExplicitBuffers(j, child, settings, at, &a));
      if (!named && a.phase == Phase::kMerge) {
        return Status::Invalid("fragment " + at + ": a merge aggregate names its buffers");
      }
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
  // Final aggregates that name no buffers read keys ++ every aggregate's buffers, in order.
  int b = nk;
  bool positional = false;
  for (size_t i = 0; i < aggs.size(); ++i) {
    SparkAggregate& a = aggs[i];
    if (a.reads_input()) {
      const size_t first = calls.size();
      TANDEM_RETURN_NOT_OK(AddInputAggregates(a, i, &calls));
      for (size_t c = first; c < calls.size(); ++c) calls[c].filter = a.filter;
      continue;
    }
    if (a.buffer_start < 0) {
      positional = true;
      a.buffer_start = b;
      a.buffer_width = a.fn == Fn::kAvg ? 2 : 1;
      if (a.fn == Fn::kSum && b < in.num_fields() && in.field(b).type.is_decimal())
        a.buffer_width = 2;
      b += a.buffer_width;
    }
    if (a.buffer_start + a.buffer_width > in.num_fields()) {
      return Status::Invalid("fragment " + where + ": the input has too few buffer columns");
    }
    TANDEM_RETURN_NOT_OK(AddMergeAggregates(a, in, a.buffer_start, i, &calls));
  }
  if (positional && b != in.num_fields()) {
    return Status::Invalid("fragment " + where + ": the input has " +
                           std::to_string(in.num_fields() - b) + " columns past the buffers");
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
    switch (a.phase) {
      case Phase::kPartial:
        for (ExprPtr& e : Buffers(a, s, c)) outputs.push_back(std::move(e));
        break;
      case Phase::kComplete: {
        TANDEM_ASSIGN_OR_RAISE(ExprPtr e, CompleteResult(a, s, c));
        outputs.push_back(std::move(e));
        break;
      }
      case Phase::kMerge:
        for (ExprPtr& e : MergedBuffers(a, s, c)) outputs.push_back(std::move(e));
        break;
      case Phase::kFinal: {
        TANDEM_ASSIGN_OR_RAISE(ExprPtr e, FinalResult(a, s, c));
        outputs.push_back(std::move(e));
        break;
      }
    }
    c += a.reads_input() ? InputAggregateCount(a) : MergeAggregateCount(a);
    for (const Field& f : a.out.fields) expected.push_back(f);
  }
  while (names.size() < outputs.size()) names.push_back("b" + std::to_string(names.size()));
  PlanPtr project = MakeProject(agg, outputs, names);
  std::vector<Field> got_aggs(project->schema.fields.begin() + nk, project->schema.fields.end());
  TANDEM_RETURN_NOT_OK(CheckTypes(Schema{got_aggs}, expected, "aggregate buffers and results"));
  return project;
}

}  // namespace tandem::spark
