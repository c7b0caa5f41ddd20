// A SELECT core: FROM -> WHERE -> GROUP BY (expressions, ordinals, aliases; GROUPING SETS,
// ROLLUP, CUBE) -> aggregates -> HAVING -> windows -> SELECT list -> DISTINCT -> ORDER BY
// (ordinals, output names, or any expression: projected, sorted on, then dropped) -> LIMIT.
//
// Plan shape: Scan/Join... -> Filter(WHERE) -> Aggregate -> Filter(HAVING) -> Window ->
// Project(select list + hidden ORDER BY columns) -> Aggregate(DISTINCT) -> Sort ->
// Project(drop hidden) -> Limit.
#include <algorithm>

#include "tandem/sql/binder_internal.h"

namespace tandem::sql::binder {
namespace {

struct Target {
  const Json* node = nullptr;  // the expression, or null for a column from `*`
  ExprPtr expanded;            // column from `*`
  std::string name;            // output name
  bool has_alias = false;
  int location = -1;
};

// An integer constant in GROUP BY or ORDER BY is a position in the select list, also one too
// large for int64 (the parser keeps those as text): it is then out of range, and said so.
bool IsOrdinal(const Json& node, int64_t* n) {
  if (NodeTag(node) != "A_Const") return false;
  const Json& c = NodeBody(node);
  if (c.contains("ival")) {
    *n = Int(Child(c, "ival"), "ival", 0);
    return true;
  }
  if (!c.contains("fval")) return false;
  const std::string text = Str(Child(c, "fval"), "fval");
  const size_t digits = text.find_first_not_of('-');
  if (digits == std::string::npos ||
      text.find_first_not_of("0123456789", digits) != std::string::npos) {
    return false;
  }
  *n = digits > 0 ? INT64_MIN : INT64_MAX;
  return true;
}

// Whether projecting `exprs` named `names` gives back the input unchanged.
bool IsIdentityProjection(const PlanNode& input, const std::vector<ExprPtr>& exprs,
                          const std::vector<std::string>& names) {
  if (static_cast<int>(exprs.size()) != input.schema.num_fields()) return false;
  for (size_t i = 0; i < exprs.size(); ++i) {
    const Expr& e = *exprs[i];
    const Field& f = input.schema.field(static_cast<int>(i));
    if (e.kind != ExprKind::kColumnRef || e.outer_depth != 0 ||
        e.column_index != static_cast<int>(i) || e.type != f.type || names[i] != f.name) {
      return false;
    }
  }
  return true;
}

std::string SingleName(const Json& node) {
  if (NodeTag(node) != "ColumnRef") return "";
  const Json& fields = Child(NodeBody(node), "fields");
  if (!fields.is_array() || fields.size() != 1) return "";
  return StringValue(fields[0]);
}

class GroupByBinder {
 public:
  GroupByBinder(Binder& b, const Scope& scope, const std::vector<Target>& targets, QueryState* st)
      : b_(b), targets_(targets), st_(st) {
    ctx_.scope = &scope;
    ctx_.clause = "GROUP BY";
  }

  Status Bind(const Json& group) {
    std::vector<std::vector<int>> sets = {{}};
    bool has_sets = false;
    for (const auto& item : group) {
      std::vector<std::vector<int>> item_sets;
      if (NodeTag(item) == "GroupingSet") {
        has_sets = true;
        TANDEM_ASSIGN_OR_RAISE(item_sets, Expand(NodeBody(item)));
      } else {
        TANDEM_ASSIGN_OR_RAISE(int k, Key(item));
        item_sets = {{k}};
      }
      std::vector<std::vector<int>> product;
      for (const auto& a : sets) {
        for (const auto& c : item_sets) {
          std::vector<int> u = a;
          u.insert(u.end(), c.begin(), c.end());
          product.push_back(u);
        }
      }
      if (product.size() > 4096) return b_.Error("too many grouping sets", LocationOf(item));
      sets = std::move(product);
    }
    for (auto& s : sets) {
      std::sort(s.begin(), s.end());
      s.erase(std::unique(s.begin(), s.end()), s.end());
    }
    const bool plain = sets.size() == 1 && sets[0].size() == st_->group_keys.size();
    if (has_sets && !plain) st_->grouping_sets = sets;
    return Status::OK();
  }

 private:
  // Elements of ROLLUP/CUBE: each one key, or several for (a, b).
  Result<std::vector<std::vector<int>>> Elements(const Json& content) {
    std::vector<std::vector<int>> out;
    for (const auto& e : content) {
      std::vector<int> keys;
      if (NodeTag(e) == "RowExpr") {
        for (const auto& a : Child(NodeBody(e), "args")) {
          TANDEM_ASSIGN_OR_RAISE(int k, Key(a));
          keys.push_back(k);
        }
      } else {
        TANDEM_ASSIGN_OR_RAISE(int k, Key(e));
        keys.push_back(k);
      }
      out.push_back(keys);
    }
    return out;
  }

  Result<std::vector<std::vector<int>>> Expand(const Json& gs) {
    const std::string kind = Str(gs, "kind");
    const Json& content = Child(gs, "content");
    std::vector<std::vector<int>> sets;
    if (kind == "GROUPING_SET_EMPTY") return std::vector<std::vector<int>>{{}};
    if (kind == "GROUPING_SET_SETS") {
      for (const auto& e : content) {
        if (NodeTag(e) == "GroupingSet") {
          TANDEM_ASSIGN_OR_RAISE(auto inner, Expand(NodeBody(e)));
          sets.insert(sets.end(), inner.begin(), inner.end());
        } else {
          TANDEM_ASSIGN_OR_RAISE(auto elems, Elements(Json::array({e})));
          sets.push_back(elems[0]);
        }
      }
      return sets;
    }
    TANDEM_ASSIGN_OR_RAISE(auto elems, Elements(content));
    const size_t n = elems.size();
    if (kind == "GROUPING_SET_ROLLUP") {
      for (size_t len = n + 1; len-- > 0;) {
        std::vector<int> s;
        for (size_t i = 0; i < len; ++i) s.insert(s.end(), elems[i].begin(), elems[i].end());
        sets.push_back(s);
      }
      return sets;
    }
    if (kind == "GROUPING_SET_CUBE") {
      if (n > 12) return b_.Error("CUBE with more than 12 elements", Int(gs, "location", -1));
      for (uint32_t mask = (1u << n); mask-- > 0;) {
        std::vector<int> s;
        for (size_t i = 0; i < n; ++i) {
          if (mask & (1u << (n - 1 - i))) s.insert(s.end(), elems[i].begin(), elems[i].end());
        }
        sets.push_back(s);
      }
      return sets;
    }
    return b_.Unsupported("grouping set kind " + kind, Int(gs, "location", -1));
  }

  Result<int> Key(const Json& node) {
    ExprPtr e;
    std::string name;
    int64_t ordinal;
    if (IsOrdinal(node, &ordinal)) {
      if (ordinal < 1 || ordinal > static_cast<int64_t>(targets_.size())) {
        return b_.Error("GROUP BY position " + ExprText(node) + " is not in the select list",
                        LocationOf(node));
      }
      TANDEM_ASSIGN_OR_RAISE(e, TargetExpr(targets_[ordinal - 1]));
      name = targets_[ordinal - 1].name;
    } else {
      Result<ExprPtr> r = b_.BindExpr(node, ctx_);
      const std::string single = SingleName(node);
      if (!r.ok() && !single.empty()) {
        // Spark and DuckDB allow GROUP BY a select-list alias (input columns win).
        for (const auto& t : targets_) {
          if (t.has_alias && Lower(t.name) == Lower(single)) {
            r = TargetExpr(t);
            break;
          }
        }
      }
      if (!r.ok()) return r.status();
      e = *r;
      name = e->kind == ExprKind::kColumnRef ? e->name : ExprText(node);
    }
    for (size_t k = 0; k < st_->group_keys.size(); ++k) {
      if (SameExpr(*st_->group_keys[k], *e)) return static_cast<int>(k);
    }
    st_->group_keys.push_back(e);
    st_->group_key_names.push_back(name);
    return static_cast<int>(st_->group_keys.size() - 1);
  }

  Result<ExprPtr> TargetExpr(const Target& t) {
    if (t.expanded) return t.expanded;
    return b_.BindExpr(*t.node, ctx_);
  }

  Binder& b_;
  const std::vector<Target>& targets_;
  QueryState* st_;
  ExprContext ctx_;
};

}  // namespace

Result<PlanPtr> Binder::BindSelectCore(const Json& stmt, const Scope* outer) {
  const Json& distinct_clause = Child(stmt, "distinctClause");
  const bool distinct = distinct_clause.is_array();
  if (distinct) {
    for (const auto& d : distinct_clause) {
      if (!d.empty()) return Unsupported("DISTINCT ON", LocationOf(d));
    }
  }
  if (stmt.contains("intoClause"))
    return Unsupported("SELECT INTO", FirstLocation(Child(stmt, "intoClause")));
  if (stmt.contains("lockingClause"))
    return Unsupported("FOR UPDATE/SHARE", FirstLocation(Child(stmt, "lockingClause")));

  TANDEM_ASSIGN_OR_RAISE(BoundRelation from, BindFrom(Child(stmt, "fromClause"), outer));
  PlanPtr plan = from.plan;
  const Scope& scope = from.scope;

  if (stmt.contains("whereClause")) {
    ExprContext ctx;
    ctx.scope = &scope;
    ctx.clause = "WHERE";
    ctx.allow_subqueries = true;
    TANDEM_ASSIGN_OR_RAISE(ExprPtr pred,
                           BindBoolean(Child(stmt, "whereClause"), ctx, "WHERE condition"));
    plan = MakeFilter(plan, pred);
  }

  QueryState st;
  if (Child(stmt, "windowClause").is_array()) st.window_clause = &Child(stmt, "windowClause");

  // The select list, with * and t.* expanded.
  std::vector<Target> targets;
  for (const auto& rt : Child(stmt, "targetList")) {
    const Json& t = NodeBody(rt);
    const Json& val = Child(t, "val");
    const int loc = Int(t, "location", -1);
    const Json& fields = Child(NodeBody(val), "fields");
    if (NodeTag(val) == "ColumnRef" && fields.is_array() && !fields.empty() &&
        fields.back().contains("A_Star")) {
      std::vector<int> entries;
      if (fields.size() == 1) {
        entries = scope.star;
        if (entries.empty()) return Error("SELECT * with no tables", loc);
      } else if (fields.size() == 2) {
        const std::string q = Lower(StringValue(fields[0]));
        for (size_t i = 0; i < scope.columns.size(); ++i) {
          if (scope.columns[i].qualifier == q) entries.push_back(static_cast<int>(i));
        }
        if (entries.empty())
          return Error("table " + StringValue(fields[0]) + " not found in FROM", loc);
      } else {
        return Unsupported("schema-qualified *", loc);
      }
      for (int i : entries) {
        const ScopeColumn& c = scope.columns[i];
        Target tg;
        tg.expanded = MakeColumnRef(c.index, c.type, c.nullable, c.name);
        tg.expanded->pos = Pos(loc);
        tg.name = c.name;
        tg.location = loc;
        targets.push_back(tg);
      }
      continue;
    }
    Target tg;
    tg.node = &val;
    tg.has_alias = t.contains("name");
    tg.name = tg.has_alias ? Str(t, "name") : ExprText(val);
    tg.location = loc;
    targets.push_back(tg);
  }

  const Json& group = Child(stmt, "groupClause");
  if (group.is_array() && !group.empty()) {
    st.grouped = true;
    GroupByBinder gb(*this, scope, targets, &st);
    TANDEM_RETURN_NOT_OK(gb.Bind(group));
  }

  ExprContext sel;
  sel.scope = &scope;
  sel.clause = "SELECT";
  sel.state = &st;
  sel.allow_aggregates = sel.allow_windows = sel.allow_subqueries = true;
  std::vector<ExprPtr> exprs;
  std::vector<std::string> names;
  for (const auto& t : targets) {
    ExprPtr e = t.expanded;
    if (!e) {
      TANDEM_ASSIGN_OR_RAISE(e, BindExpr(*t.node, sel));
    }
    if (e->kind == ExprKind::kLiteral && e->name.rfind("__interval_", 0) == 0) {
      return Unsupported("INTERVAL values as results", t.location);
    }
    if (IsUntypedNull(*e)) e = CastTo(e, DataType::Int32());
    exprs.push_back(e);
    names.push_back(t.name);
  }
  const size_t visible = exprs.size();

  ExprPtr having;
  if (stmt.contains("havingClause")) {
    ExprContext hc = sel;
    hc.clause = "HAVING";
    hc.allow_windows = false;
    TANDEM_ASSIGN_OR_RAISE(having,
                           BindBoolean(Child(stmt, "havingClause"), hc, "HAVING condition"));
  }

  // ORDER BY: output ordinal, output name, or an expression (hidden column when new).
  std::vector<std::pair<size_t, SortKey>> order;
  for (const auto& sbn : Child(stmt, "sortClause")) {
    const Json& sb = NodeBody(sbn);
    const Json& node = Child(sb, "node");
    SortKey key;
    TANDEM_RETURN_NOT_OK(BindSortDirection(*this, sb, &key));
    int64_t ordinal;
    int idx = -1;
    if (IsOrdinal(node, &ordinal)) {
      if (ordinal < 1 || ordinal > static_cast<int64_t>(visible)) {
        return Error("ORDER BY position " + ExprText(node) + " is not in the select list",
                     LocationOf(node));
      }
      idx = static_cast<int>(ordinal - 1);
    } else if (const std::string single = SingleName(node); !single.empty()) {
      for (size_t i = 0; i < visible; ++i) {
        if (Lower(targets[i].name) != Lower(single)) continue;
        if (idx >= 0 && !SameExpr(*exprs[idx], *exprs[i])) {
          return Error("ORDER BY " + single + " is ambiguous", LocationOf(node));
        }
        if (idx < 0) idx = static_cast<int>(i);
      }
    }
    if (idx < 0) {
      ExprContext oc = sel;
      oc.clause = "ORDER BY";
      TANDEM_ASSIGN_OR_RAISE(ExprPtr e, BindExpr(node, oc));
      for (size_t i = 0; i < exprs.size() && idx < 0; ++i) {
        if (SameExpr(*exprs[i], *e)) idx = static_cast<int>(i);
      }
      if (idx < 0) {
        if (distinct) {
          return Error("for SELECT DISTINCT, ORDER BY expressions must appear in the select list",
                       LocationOf(node));
        }
        exprs.push_back(e);
        names.push_back(ExprText(node));
        idx = static_cast<int>(exprs.size() - 1);
      }
    }
    order.push_back({static_cast<size_t>(idx), key});
  }

  const bool aggregated = st.grouped || !st.aggregates.empty() || having != nullptr;
  if (aggregated) {
    plan = MakeAggregate(plan, st.group_keys, st.group_key_names, st.aggregates, st.grouping_sets);
    if (having) {
      TANDEM_ASSIGN_OR_RAISE(ExprPtr h, Finalize(having, st, true, -1));
      plan = MakeFilter(plan, h);
    }
  }
  const int window_base = plan->schema.num_fields();
  if (!st.windows.empty()) {
    std::vector<WindowCall> windows = st.windows;
    for (auto& w : windows) {
      for (auto& a : w.args) {
        TANDEM_ASSIGN_OR_RAISE(a, Finalize(a, st, aggregated, window_base));
      }
      for (auto& p : w.partition_by) {
        TANDEM_ASSIGN_OR_RAISE(p, Finalize(p, st, aggregated, window_base));
      }
      for (auto& k : w.order_by) {
        TANDEM_ASSIGN_OR_RAISE(k.expr, Finalize(k.expr, st, aggregated, window_base));
      }
    }
    plan = MakeWindow(plan, std::move(windows));
  }
  for (auto& e : exprs) {
    TANDEM_ASSIGN_OR_RAISE(e, Finalize(e, st, aggregated, window_base));
  }
  // `SELECT * FROM x` adds no node (a chain of such CTEs or subqueries stays shallow).
  if (!IsIdentityProjection(*plan, exprs, names)) plan = MakeProject(plan, exprs, names);

  if (distinct) {
    std::vector<ExprPtr> keys;
    for (int i = 0; i < plan->schema.num_fields(); ++i) {
      const Field& f = plan->schema.field(i);
      keys.push_back(MakeColumnRef(i, f.type, f.nullable, f.name));
    }
    plan = MakeAggregate(plan, keys, names, {});
  }
  if (!order.empty()) {
    std::vector<SortKey> keys;
    for (auto& [idx, key] : order) {
      const Field& f = plan->schema.field(static_cast<int>(idx));
      key.expr = MakeColumnRef(static_cast<int>(idx), f.type, f.nullable, f.name);
      keys.push_back(key);
    }
    plan = MakeSort(plan, keys);
  }
  if (exprs.size() > visible) {
    std::vector<ExprPtr> keep;
    std::vector<std::string> keep_names;
    for (size_t i = 0; i < visible; ++i) {
      const Field& f = plan->schema.field(static_cast<int>(i));
      keep.push_back(MakeColumnRef(static_cast<int>(i), f.type, f.nullable, f.name));
      keep_names.push_back(f.name);
    }
    plan = MakeProject(plan, keep, keep_names);
  }
  return ApplyLimit(stmt, plan);
}

Result<PlanPtr> Binder::ApplyLimit(const Json& stmt, PlanPtr plan) {
  if (Str(stmt, "limitOption") == "LIMIT_OPTION_WITH_TIES") {
    return Unsupported("FETCH ... WITH TIES", FirstLocation(Child(stmt, "limitCount")));
  }
  const Json& count = Child(stmt, "limitCount");
  const Json& offset = Child(stmt, "limitOffset");
  if (count.is_null() && offset.is_null()) return plan;
  auto value = [&](const Json& node, int64_t def, const char* what) -> Result<int64_t> {
    if (node.is_null()) return def;
    if (NodeTag(node) != "A_Const") {
      return Unsupported(std::string(what) + " other than an integer constant", LocationOf(node));
    }
    if (Flag(NodeBody(node), "isnull")) return def;
    TANDEM_ASSIGN_OR_RAISE(ExprPtr lit, BindConst(NodeBody(node)));
    if (!lit->type.is_integer()) {
      return Error(std::string(what) + " must be an integer", LocationOf(node));
    }
    if (lit->literal.i64 < 0) {
      return Error(std::string(what) + " must not be negative", LocationOf(node));
    }
    return lit->literal.i64;
  };
  TANDEM_ASSIGN_OR_RAISE(int64_t limit, value(count, -1, "LIMIT"));
  TANDEM_ASSIGN_OR_RAISE(int64_t skip, value(offset, 0, "OFFSET"));
  return MakeLimit(plan, limit, skip);
}

Result<PlanPtr> Binder::ApplyOutputOrder(const Json& stmt, PlanPtr plan) {
  const Json& sort = Child(stmt, "sortClause");
  if (sort.is_array() && !sort.empty()) {
    Scope scope;
    for (int i = 0; i < plan->schema.num_fields(); ++i) {
      const Field& f = plan->schema.field(i);
      scope.columns.push_back({"", f.name, f.type, f.nullable, i, false});
      scope.star.push_back(i);
    }
    ExprContext ctx;
    ctx.scope = &scope;
    ctx.clause = "ORDER BY";
    std::vector<SortKey> keys;
    for (const auto& sbn : sort) {
      const Json& sb = NodeBody(sbn);
      const Json& node = Child(sb, "node");
      SortKey key;
      TANDEM_RETURN_NOT_OK(BindSortDirection(*this, sb, &key));
      int64_t ordinal;
      if (IsOrdinal(node, &ordinal)) {
        if (ordinal < 1 || ordinal > plan->schema.num_fields()) {
          return Error("ORDER BY position " + ExprText(node) + " is not in the select list",
                       LocationOf(node));
        }
        const Field& f = plan->schema.field(static_cast<int>(ordinal - 1));
        key.expr = MakeColumnRef(static_cast<int>(ordinal - 1), f.type, f.nullable, f.name);
      } else {
        TANDEM_ASSIGN_OR_RAISE(key.expr, BindExpr(node, ctx));
      }
      keys.push_back(key);
    }
    plan = MakeSort(plan, keys);
  }
  return ApplyLimit(stmt, plan);
}

}  // namespace tandem::sql::binder
