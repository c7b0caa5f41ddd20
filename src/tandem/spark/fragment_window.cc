// Spark's WindowExec and ExpandExec as Tandem plans (see fragment_window.h).
#include "tandem/spark/fragment_window.h"

#include <utility>

namespace tandem::spark {
namespace {

Status Unsupported(const std::string& why) { return Status::Unsupported(why); }

struct FunctionName {
  const char* name;
  WindowFunctionKind kind;
  AggregateKind aggregate;
};

constexpr FunctionName kFunctions[] = {
    {"row_number", WindowFunctionKind::kRowNumber, AggregateKind::kCountStar},
    {"rank", WindowFunctionKind::kRank, AggregateKind::kCountStar},
    {"dense_rank", WindowFunctionKind::kDenseRank, AggregateKind::kCountStar},
    {"percent_rank", WindowFunctionKind::kPercentRank, AggregateKind::kCountStar},
    {"cume_dist", WindowFunctionKind::kCumeDist, AggregateKind::kCountStar},
    {"ntile", WindowFunctionKind::kNtile, AggregateKind::kCountStar},
    {"lag", WindowFunctionKind::kLag, AggregateKind::kCountStar},
    {"lead", WindowFunctionKind::kLead, AggregateKind::kCountStar},
    {"first_value", WindowFunctionKind::kFirstValue, AggregateKind::kCountStar},
    {"last_value", WindowFunctionKind::kLastValue, AggregateKind::kCountStar},
    {"nth_value", WindowFunctionKind::kNthValue, AggregateKind::kCountStar},
    {"sum", WindowFunctionKind::kAggregate, AggregateKind::kSum},
    {"avg", WindowFunctionKind::kAggregate, AggregateKind::kAvg},
    {"count", WindowFunctionKind::kAggregate, AggregateKind::kCount},
    {"count_star", WindowFunctionKind::kAggregate, AggregateKind::kCountStar},
    {"min", WindowFunctionKind::kAggregate, AggregateKind::kMin},
    {"max", WindowFunctionKind::kAggregate, AggregateKind::kMax},
};

bool IsRanking(WindowFunctionKind k) {
  return k == WindowFunctionKind::kRowNumber || k == WindowFunctionKind::kRank ||
         k == WindowFunctionKind::kDenseRank || k == WindowFunctionKind::kNtile;
}

Result<WindowFrame::BoundKind> BoundFromJson(const Json& j, int64_t* offset,
                                             const std::string& where) {
  using BK = WindowFrame::BoundKind;
  TANDEM_ASSIGN_OR_RAISE(std::string bound, StringMember(j, "bound", where));
  if (bound == "unbounded_preceding") return BK::kUnboundedPreceding;
  if (bound == "unbounded_following") return BK::kUnboundedFollowing;
  if (bound == "current_row") return BK::kCurrentRow;
  if (bound != "preceding" && bound != "following") {
    return Status::Invalid("fragment " + where + ": unknown frame bound '" + bound + "'");
  }
  TANDEM_ASSIGN_OR_RAISE(*offset, IntMember(j, "offset", where));
  if (*offset < 0) return Status::Invalid("fragment " + where + ": a negative frame offset");
  return bound == "preceding" ? BK::kPreceding : BK::kFollowing;
}

Result<WindowFrame> FrameFromJson(const Json& j, bool has_order, const std::string& where) {
  WindowFrame f;
  f.has_order = has_order;
  TANDEM_ASSIGN_OR_RAISE(std::string unit, StringMember(j, "unit", where));
  if (unit != "rows" && unit != "range") {
    return Status::Invalid("fragment " + where + ": unknown frame unit '" + unit + "'");
  }
  f.unit = unit == "rows" ? WindowFrame::Unit::kRows : WindowFrame::Unit::kRange;
  TANDEM_ASSIGN_OR_RAISE(const Json* start, Member(j, "start", where));
  TANDEM_ASSIGN_OR_RAISE(const Json* end, Member(j, "end", where));
  TANDEM_ASSIGN_OR_RAISE(f.start, BoundFromJson(*start, &f.start_offset, where + ".start"));
  TANDEM_ASSIGN_OR_RAISE(f.end, BoundFromJson(*end, &f.end_offset, where + ".end"));
  return f;
}

// What Tandem would compute differently from Spark for this call, or "".
std::string SparkDifference(const WindowCall& call) {
  if (call.kind != WindowFunctionKind::kAggregate || call.args.empty()) return "";
  const DataType& in = call.args[0]->type;
  const bool sum_or_avg =
      call.aggregate == AggregateKind::kSum || call.aggregate == AggregateKind::kAvg;
  if (sum_or_avg && in.is_decimal() && in.precision > 28) {
    return "window sum/avg of decimal(" + std::to_string(in.precision) +
           ", ...): Spark caps the sum at precision 38 and checks it there";
  }
  if (call.aggregate == AggregateKind::kAvg && in.id == TypeId::kInt64) {
    return "window avg of bigint: Spark sums the values as doubles, which rounds";
  }
  return "";
}

Result<WindowCall> CallFromJson(const Json& j, const Schema& input,
                                const std::vector<ExprPtr>& partition_by,
                                const std::vector<SortKey>& order_by, const SparkSettings& settings,
                                const std::string& where) {
  TANDEM_ASSIGN_OR_RAISE(std::string fn, StringMember(j, "fn", where));
  const FunctionName* found = nullptr;
  for (const FunctionName& f : kFunctions) {
    if (fn == f.name) found = &f;
  }
  if (!found) return Unsupported("window function " + fn);
  WindowCall call;
  call.kind = found->kind;
  call.aggregate = found->aggregate;
  call.partition_by = partition_by;
  call.order_by = order_by;
  call.name = fn;
  TANDEM_ASSIGN_OR_RAISE(call.args, ExprList(j, "args", input, settings, where));
  if (call.kind == WindowFunctionKind::kAggregate) {
    const std::string mode = j.value("mode", settings.ansi ? "ansi" : "legacy");
    if (mode == "try") return Unsupported("try_sum / try_avg over a window");
    const bool star = call.aggregate == AggregateKind::kCountStar;
    if (call.args.size() != (star ? 0u : 1u)) {
      return Status::Invalid("fragment " + where + ": " + fn + " takes " + (star ? "0" : "1") +
                             " arguments");
    }
    TANDEM_ASSIGN_OR_RAISE(call.type,
                           star ? Result<DataType>(DataType::Int64())
                                : AggregateResultType(call.aggregate, call.args[0]->type));
    call.nullable =
        call.aggregate != AggregateKind::kCount && call.aggregate != AggregateKind::kCountStar;
  } else if (IsRanking(call.kind)) {
    call.type = DataType::Int64();
    call.nullable = false;
  } else if (call.kind == WindowFunctionKind::kPercentRank ||
             call.kind == WindowFunctionKind::kCumeDist) {
    call.type = DataType::Float64();
    call.nullable = false;
  } else {
    if (call.args.empty())
      return Status::Invalid("fragment " + where + ": " + fn + " needs a value");
    call.type = call.args[0]->type;
    call.nullable = true;
  }
  for (size_t i = 1; i < call.args.size(); ++i) {
    const bool is_default =
        i == 2 && (call.kind == WindowFunctionKind::kLag || call.kind == WindowFunctionKind::kLead);
    if (is_default) {
      if (call.args[i]->type != call.type) {
        return Unsupported(fn + " with a default of " + call.args[i]->type.ToString() +
                           " for values of " + call.type.ToString());
      }
    } else if (call.args[i]->kind != ExprKind::kLiteral || !call.args[i]->type.is_integer()) {
      return Unsupported(fn + " with an argument that is not an integer constant");
    }
  }
  if (call.kind == WindowFunctionKind::kNtile &&
      (call.args.size() != 1 || call.args[0]->kind != ExprKind::kLiteral ||
       !call.args[0]->type.is_integer())) {
    return Unsupported("ntile with a bucket count that is not an integer constant");
  }
  TANDEM_ASSIGN_OR_RAISE(const Json* frame, Member(j, "frame", where));
  TANDEM_ASSIGN_OR_RAISE(call.frame, FrameFromJson(*frame, !order_by.empty(), where + ".frame"));
  if (call.frame.unit == WindowFrame::Unit::kRange &&
      (call.frame.start == WindowFrame::BoundKind::kPreceding ||
       call.frame.start == WindowFrame::BoundKind::kFollowing ||
       call.frame.end == WindowFrame::BoundKind::kPreceding ||
       call.frame.end == WindowFrame::BoundKind::kFollowing) &&
      (order_by.size() != 1 || !order_by[0].expr->type.is_integer())) {
    return Unsupported("RANGE frames with offsets over anything but one integer ORDER BY key");
  }
  const std::string why = SparkDifference(call);
  if (!why.empty()) return Unsupported(why);
  return call;
}

}  // namespace

Result<PlanPtr> WindowFromJson(const Json& node, PlanPtr child, const SparkSettings& settings,
                               const std::string& where) {
  const Schema& in = child->schema;
  TANDEM_ASSIGN_OR_RAISE(std::vector<ExprPtr> partition_by,
                         ExprList(node, "partition_by", in, settings, where));
  TANDEM_ASSIGN_OR_RAISE(std::vector<SortKey> order_by,
                         SortKeys(node, "order_by", in, settings, where));
  TANDEM_ASSIGN_OR_RAISE(const Json* functions, Member(node, "functions", where));
  TANDEM_ASSIGN_OR_RAISE(const Json* output, Member(node, "output", where));
  TANDEM_ASSIGN_OR_RAISE(Schema declared, SchemaFromJson(*output, where + ".output"));
  if (!functions->is_array() || functions->empty()) {
    return Status::Invalid("fragment " + where + ": functions must be a nonempty list");
  }
  const int width = in.num_fields();
  if (declared.num_fields() != width + static_cast<int>(functions->size())) {
    return Status::Invalid("fragment " + where + ": the output must be the input's " +
                           std::to_string(width) + " columns and one per function");
  }
  std::vector<WindowCall> calls;
  for (size_t i = 0; i < functions->size(); ++i) {
    TANDEM_ASSIGN_OR_RAISE(WindowCall call,
                           CallFromJson((*functions)[i], in, partition_by, order_by, settings,
                                        where + ".functions[" + std::to_string(i) + "]"));
    calls.push_back(std::move(call));
  }
  PlanPtr window = MakeWindow(std::move(child), calls);
  // Spark's types: ranking functions are ints; every other type must be Tandem's already.
  std::vector<ExprPtr> exprs;
  std::vector<std::string> names;
  bool narrowed = false;
  for (int c = 0; c < window->schema.num_fields(); ++c) {
    const Field& f = window->schema.field(c);
    ExprPtr col = MakeColumnRef(c, f.type, f.nullable, f.name);
    const DataType& want = declared.field(c).type;
    if (c >= width && f.type != want) {
      const WindowCall& call = calls[static_cast<size_t>(c - width)];
      if (!IsRanking(call.kind) || want.id != TypeId::kInt32) {
        return Unsupported("Spark types window function " + call.name + " as " + want.ToString() +
                           ", Tandem as " + f.type.ToString());
      }
      col = MakeCast(std::move(col), want);
      narrowed = true;
    }
    exprs.push_back(std::move(col));
    names.push_back(f.name);
  }
  if (!narrowed) return window;
  return MakeProject(std::move(window), std::move(exprs), std::move(names));
}

Result<PlanPtr> ExpandFromJson(const Json& node, PlanPtr child, const SparkSettings& settings,
                               const std::string& where) {
  TANDEM_ASSIGN_OR_RAISE(const Json* list, Member(node, "projections", where));
  TANDEM_ASSIGN_OR_RAISE(const Json* output, Member(node, "output", where));
  TANDEM_ASSIGN_OR_RAISE(Schema declared, SchemaFromJson(*output, where + ".output"));
  if (!list->is_array() || list->empty()) {
    return Status::Invalid("fragment " + where + ": projections must be a nonempty list");
  }
  std::vector<std::vector<ExprPtr>> projections;
  for (size_t p = 0; p < list->size(); ++p) {
    const std::string at = where + ".projections[" + std::to_string(p) + "]";
    Json holder = {{"exprs", (*list)[p]}};
    TANDEM_ASSIGN_OR_RAISE(std::vector<ExprPtr> exprs,
                           ExprList(holder, "exprs", child->schema, settings, at));
    if (exprs.size() != static_cast<size_t>(declared.num_fields())) {
      return Status::Invalid("fragment " + at + ": " + std::to_string(exprs.size()) +
                             " expressions for " + std::to_string(declared.num_fields()) +
                             " output columns");
    }
    for (size_t c = 0; c < exprs.size(); ++c) {
      if (exprs[c]->type != declared.field(static_cast<int>(c)).type) {
        return Unsupported("Spark's Expand column " + declared.field(static_cast<int>(c)).name +
                           " is " + declared.field(static_cast<int>(c)).type.ToString() +
                           ", projection " + std::to_string(p + 1) + " makes " +
                           exprs[c]->type.ToString());
      }
    }
    projections.push_back(std::move(exprs));
  }
  std::vector<std::string> names;
  for (const Field& f : declared.fields) names.push_back(f.name);
  return MakeExpand(std::move(child), std::move(projections), std::move(names));
}

}  // namespace tandem::spark
