// Window calls: ROW_NUMBER, RANK, DENSE_RANK, PERCENT_RANK, CUME_DIST, NTILE, LAG, LEAD,
// FIRST_VALUE, LAST_VALUE, NTH_VALUE and aggregates OVER (PARTITION BY ... ORDER BY ...
// ROWS/RANGE frame), named windows (WINDOW w AS ...). Calls are collected into the query's
// Window node (built below the final Project) and replaced by placeholders.
#include "tandem/sql/binder_internal.h"

namespace tandem::sql::binder {
namespace {

// PostgreSQL's frameOptions bits (nodes/parsenodes.h).
enum FrameBits : int64_t {
  kNonDefault = 0x1,
  kRange = 0x2,
  kRows = 0x4,
  kGroups = 0x8,
  kStartUnboundedPreceding = 0x20,
  kEndUnboundedFollowing = 0x100,
  kStartCurrentRow = 0x200,
  kEndCurrentRow = 0x400,
  kStartOffsetPreceding = 0x800,
  kEndOffsetPreceding = 0x1000,
  kStartOffsetFollowing = 0x2000,
  kEndOffsetFollowing = 0x4000,
  kExclusions = 0x8000 | 0x10000 | 0x20000,
  kStartUnboundedFollowing = 0x80,
  kEndUnboundedPreceding = 0x40,
};

bool WindowKindOf(const std::string& name, WindowFunctionKind* kind) {
  static const std::pair<const char*, WindowFunctionKind> kNames[] = {
      {"row_number", WindowFunctionKind::kRowNumber},
      {"rank", WindowFunctionKind::kRank},
      {"dense_rank", WindowFunctionKind::kDenseRank},
      {"percent_rank", WindowFunctionKind::kPercentRank},
      {"cume_dist", WindowFunctionKind::kCumeDist},
      {"ntile", WindowFunctionKind::kNtile},
      {"lag", WindowFunctionKind::kLag},
      {"lead", WindowFunctionKind::kLead},
      {"first_value", WindowFunctionKind::kFirstValue},
      {"last_value", WindowFunctionKind::kLastValue},
      {"nth_value", WindowFunctionKind::kNthValue}};
  for (const auto& [n, k] : kNames) {
    if (name == n) {
      *kind = k;
      return true;
    }
  }
  return false;
}

}  // namespace

// Sort keys of ORDER BY items (window or query), with SQL's NULL defaults: NULLS LAST for ASC,
// NULLS FIRST for DESC (PostgreSQL and DuckDB; Spark differs with NULLS FIRST for ASC).
Status BindSortDirection(const Binder& b, const Json& sort_by, SortKey* key) {
  const std::string dir = Str(sort_by, "sortby_dir");
  if (dir == "SORTBY_USING") return b.Unsupported("ORDER BY ... USING", LocationOf(sort_by));
  key->ascending = dir != "SORTBY_DESC";
  const std::string nulls = Str(sort_by, "sortby_nulls");
  key->nulls_first =
      nulls == "SORTBY_NULLS_FIRST" || (nulls != "SORTBY_NULLS_LAST" && !key->ascending);
  return Status::OK();
}

Result<ExprPtr> Binder::BindWindowCall(const Json& call, const std::string& name,
                                       ExprContext& ctx) {
  const int loc = Int(call, "location", -1);
  if (!ctx.allow_windows || !ctx.state) {
    return Error("window functions are not allowed in " + std::string(ctx.clause), loc);
  }
  if (Flag(call, "agg_distinct")) return Unsupported("DISTINCT in window functions", loc);
  if (call.contains("agg_filter")) return Unsupported("FILTER in window functions", loc);
  QueryState& st = *ctx.state;
  // The window definition, merged with a named window it refers to.
  Json over = Child(call, "over");
  std::string ref_name = Str(over, "name");
  if (ref_name.empty()) ref_name = Str(over, "refname");
  if (!ref_name.empty()) {
    const Json* base = nullptr;
    if (st.window_clause) {
      for (const auto& w : *st.window_clause) {
        if (Str(NodeBody(w), "name") == ref_name) base = &NodeBody(w);
      }
    }
    if (!base) return Error("window " + ref_name + " is not defined", loc);
    Json merged = *base;
    for (const char* k : {"partitionClause", "orderClause"}) {
      if (over.contains(k)) merged[k] = over[k];
    }
    if (Int(over, "frameOptions", 0) & kNonDefault) {
      for (const char* k : {"frameOptions", "startOffset", "endOffset"}) {
        if (over.contains(k)) merged[k] = over[k];
      }
    }
    over = merged;
  }
  ExprContext inner = ctx;
  inner.allow_windows = false;
  inner.allow_subqueries = false;
  inner.clause = "window function arguments";
  WindowCall w;
  w.name = ExprText(Json{{"FuncCall", call}});
  for (const auto& p : Child(over, "partitionClause")) {
    TANDEM_ASSIGN_OR_RAISE(ExprPtr x, BindExpr(p, inner));
    w.partition_by.push_back(x);
  }
  for (const auto& o : Child(over, "orderClause")) {
    const Json& sb = NodeBody(o);
    SortKey key;
    TANDEM_ASSIGN_OR_RAISE(key.expr, BindExpr(Child(sb, "node"), inner));
    TANDEM_RETURN_NOT_OK(BindSortDirection(*this, sb, &key));
    w.order_by.push_back(key);
  }
  // Frame.
  const int64_t fo = Int(over, "frameOptions", 0);
  w.frame.has_order = !w.order_by.empty();
  if (!(fo & kNonDefault)) {
    w.frame.unit = WindowFrame::Unit::kRange;
    w.frame.start = WindowFrame::BoundKind::kUnboundedPreceding;
    w.frame.end = w.frame.has_order ? WindowFrame::BoundKind::kCurrentRow
                                    : WindowFrame::BoundKind::kUnboundedFollowing;
  } else {
    if (fo & kGroups) return Unsupported("GROUPS frames", loc);
    if (fo & kExclusions) return Unsupported("frame EXCLUDE clauses", loc);
    w.frame.unit = (fo & kRows) ? WindowFrame::Unit::kRows : WindowFrame::Unit::kRange;
    auto offset = [&](const char* key, int64_t* out) -> Status {
      const Json& n = Child(over, key);
      const bool integer_const =
          NodeTag(n) == "A_Const" && (NodeBody(n).contains("ival") || NodeBody(n).contains("fval"));
      if (!integer_const) {
        return Unsupported("window frame offsets other than integer constants", LocationOf(n));
      }
      TANDEM_ASSIGN_OR_RAISE(ExprPtr lit, BindConst(NodeBody(n)));
      const TypeId id = lit->type.id;
      if (id == TypeId::kDecimal && lit->type.scale == 0) {
        return Error("window frame offset " + ExprText(n) + " is out of range (at most " +
                         std::to_string(INT64_MAX) + ")",
                     LocationOf(n));
      }
      if (id != TypeId::kInt32 && id != TypeId::kInt64) {
        return Unsupported("window frame offsets other than integer constants", LocationOf(n));
      }
      *out = lit->literal.i64;
      if (*out < 0) return Error("window frame offset must not be negative", LocationOf(n));
      return Status::OK();
    };
    using BK = WindowFrame::BoundKind;
    if (fo & kStartUnboundedPreceding) {
      w.frame.start = BK::kUnboundedPreceding;
    } else if (fo & kStartCurrentRow) {
      w.frame.start = BK::kCurrentRow;
    } else if (fo & kStartOffsetPreceding) {
      w.frame.start = BK::kPreceding;
      TANDEM_RETURN_NOT_OK(offset("startOffset", &w.frame.start_offset));
    } else if (fo & kStartOffsetFollowing) {
      w.frame.start = BK::kFollowing;
      TANDEM_RETURN_NOT_OK(offset("startOffset", &w.frame.start_offset));
    } else {
      return Error("frame start cannot be UNBOUNDED FOLLOWING", Int(over, "location", loc));
    }
    if (fo & kEndUnboundedFollowing) {
      w.frame.end = BK::kUnboundedFollowing;
    } else if (fo & kEndCurrentRow) {
      w.frame.end = BK::kCurrentRow;
    } else if (fo & kEndOffsetPreceding) {
      w.frame.end = BK::kPreceding;
      TANDEM_RETURN_NOT_OK(offset("endOffset", &w.frame.end_offset));
    } else if (fo & kEndOffsetFollowing) {
      w.frame.end = BK::kFollowing;
      TANDEM_RETURN_NOT_OK(offset("endOffset", &w.frame.end_offset));
    } else {
      return Error("frame end cannot be UNBOUNDED PRECEDING", Int(over, "location", loc));
    }
    if (w.frame.unit == WindowFrame::Unit::kRange &&
        (w.frame.start == BK::kPreceding || w.frame.start == BK::kFollowing ||
         w.frame.end == BK::kPreceding || w.frame.end == BK::kFollowing) &&
        w.order_by.size() != 1) {
      return Error("RANGE with an offset needs exactly one ORDER BY column",
                   Int(over, "location", loc));
    }
  }
  // The function.
  std::vector<ExprPtr> args;
  for (const auto& a : Child(call, "args")) {
    TANDEM_ASSIGN_OR_RAISE(ExprPtr x, BindExpr(a, inner));
    args.push_back(x);
  }
  auto arity = [&](size_t lo, size_t hi) -> Status {
    if (args.size() < lo || args.size() > hi) {
      return Error("window function " + name + " takes " + std::to_string(lo) +
                       (hi > lo ? " to " + std::to_string(hi) : "") + " argument(s), got " +
                       std::to_string(args.size()),
                   loc);
    }
    return Status::OK();
  };
  auto integer_constant = [&](const ExprPtr& e, const char* what) -> Status {
    if (e->kind != ExprKind::kLiteral || !e->type.is_integer() || e->literal.is_null) {
      return ErrorAtPos(name + ": " + what + " must be an integer constant", e->pos);
    }
    return Status::OK();
  };
  WindowFunctionKind kind;
  AggregateKind agg;
  if (WindowKindOf(name, &kind)) {
    w.kind = kind;
    switch (kind) {
      case WindowFunctionKind::kRowNumber:
      case WindowFunctionKind::kRank:
      case WindowFunctionKind::kDenseRank:
        TANDEM_RETURN_NOT_OK(arity(0, 0));
        w.type = DataType::Int64();
        w.nullable = false;
        break;
      case WindowFunctionKind::kPercentRank:
      case WindowFunctionKind::kCumeDist:
        TANDEM_RETURN_NOT_OK(arity(0, 0));
        w.type = DataType::Float64();
        w.nullable = false;
        break;
      case WindowFunctionKind::kNtile:
        TANDEM_RETURN_NOT_OK(arity(1, 1));
        TANDEM_RETURN_NOT_OK(integer_constant(args[0], "the bucket count"));
        args[0] = CastTo(args[0], DataType::Int64());
        w.type = DataType::Int64();
        w.nullable = false;
        break;
      case WindowFunctionKind::kLag:
      case WindowFunctionKind::kLead:
        TANDEM_RETURN_NOT_OK(arity(1, 3));
        if (args.size() >= 2) {
          TANDEM_RETURN_NOT_OK(integer_constant(args[1], "the offset"));
          args[1] = CastTo(args[1], DataType::Int64());
        }
        if (args.size() == 3) {
          std::vector<ExprPtr> pair = {args[0], args[2]};
          TANDEM_RETURN_NOT_OK(Unify(&pair, loc, name.c_str()));
          args[0] = pair[0];
          args[2] = pair[1];
        }
        if (IsUntypedNull(*args[0])) args[0] = CastTo(args[0], DataType::Int32());
        w.type = args[0]->type;
        w.nullable = true;
        break;
      case WindowFunctionKind::kFirstValue:
      case WindowFunctionKind::kLastValue:
        TANDEM_RETURN_NOT_OK(arity(1, 1));
        if (IsUntypedNull(*args[0])) args[0] = CastTo(args[0], DataType::Int32());
        w.type = args[0]->type;
        w.nullable = true;
        break;
      case WindowFunctionKind::kNthValue:
        TANDEM_RETURN_NOT_OK(arity(2, 2));
        TANDEM_RETURN_NOT_OK(integer_constant(args[1], "n"));
        args[1] = CastTo(args[1], DataType::Int64());
        w.type = args[0]->type;
        w.nullable = true;
        break;
      case WindowFunctionKind::kAggregate:
        break;
    }
  } else if (LookupAggregate(name, &agg)) {
    w.kind = WindowFunctionKind::kAggregate;
    w.aggregate = agg;
    if (Flag(call, "agg_star")) {
      if (agg != AggregateKind::kCount) return Error(name + "(*) is not supported", loc);
      w.aggregate = AggregateKind::kCountStar;
      w.type = DataType::Int64();
    } else {
      TANDEM_RETURN_NOT_OK(arity(1, 1));
      if (IsUntypedNull(*args[0])) args[0] = CastTo(args[0], DataType::Int32());
      Result<DataType> t = AggregateResultType(agg, args[0]->type);
      if (!t.ok()) return Error(t.status().message(), loc);
      w.type = *t;
    }
    w.nullable =
        !(w.aggregate == AggregateKind::kCount || w.aggregate == AggregateKind::kCountStar);
  } else {
    return Error("unknown window function " + name, loc);
  }
  w.args = std::move(args);
  st.windows.push_back(std::move(w));
  auto ref = MakeColumnRef(static_cast<int>(st.windows.size() - 1), st.windows.back().type,
                           st.windows.back().nullable, st.windows.back().name);
  ref->outer_depth = kWindowSlot;
  ref->pos = Pos(loc);
  return ref;
}

}  // namespace tandem::sql::binder
