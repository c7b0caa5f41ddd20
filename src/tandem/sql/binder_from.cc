// FROM: catalog tables, views (their SQL bound again as a subquery), CTEs, table functions
// read_parquet('glob') / read_csv('file'), quoted paths (FROM 'dir/*.parquet'), derived tables,
// and joins (INNER/LEFT/RIGHT/FULL/CROSS with ON, USING or NATURAL). A comma list becomes cross
// joins; the optimizer turns WHERE equalities into hash joins. Equalities in ON between the two
// sides become the join's keys; the rest stays as its residual condition.
#include "tandem/sql/binder_internal.h"
#include "tandem/sql/parser.h"

namespace tandem::sql::binder {
namespace {

// A scope for a relation's output columns under one qualifier.
Scope ScopeOf(const Schema& schema, const std::string& qualifier,
              const std::vector<std::string>& renames) {
  Scope s;
  for (int i = 0; i < schema.num_fields(); ++i) {
    const Field& f = schema.field(i);
    const std::string name = static_cast<size_t>(i) < renames.size() ? renames[i] : f.name;
    s.columns.push_back({Lower(qualifier), name, f.type, f.nullable, i, false});
    s.star.push_back(i);
  }
  return s;
}

std::vector<std::string> AliasColumns(const Json& alias) {
  std::vector<std::string> out;
  for (const auto& c : Child(alias, "colnames")) out.push_back(StringValue(c));
  return out;
}

bool LooksLikePath(const std::string& name) {
  return name.find_first_of("/*?.") != std::string::npos;
}

bool IsCsvPath(const std::string& path) {
  const std::string l = Lower(path);
  auto ends = [&](const char* suffix) {
    const std::string s(suffix);
    return l.size() >= s.size() && l.compare(l.size() - s.size(), s.size(), s) == 0;
  };
  return ends(".csv") || ends(".tsv") || ends(".csv.gz") || ends(".txt");
}

// Appends the right scope to the left one, shifting its indexes by the left width.
void AppendScope(Scope* left, const Scope& right, int offset) {
  const int base = static_cast<int>(left->columns.size());
  for (ScopeColumn c : right.columns) {
    c.index += offset;
    left->columns.push_back(c);
  }
  for (int s : right.star) left->star.push_back(base + s);
}

void SplitConjuncts(const ExprPtr& e, std::vector<ExprPtr>* out) {
  if (e->kind == ExprKind::kCall && e->name == "and" && e->args.size() == 2) {
    SplitConjuncts(e->args[0], out);
    SplitConjuncts(e->args[1], out);
  } else {
    out->push_back(e);
  }
}

bool HasOuterRefsOrSubqueries(const Expr& e) {
  if (e.kind == ExprKind::kSubquery) return true;
  if (e.kind == ExprKind::kColumnRef && e.outer_depth != 0) return true;
  for (const auto& a : e.args) {
    if (HasOuterRefsOrSubqueries(*a)) return true;
  }
  return false;
}

// 0: no columns, 1: only left columns, 2: only right columns, 3: both.
int Sides(const Expr& e, int left_width) {
  std::vector<int> cols;
  CollectColumns(e, &cols);
  int sides = 0;
  for (int c : cols) sides |= c < left_width ? 1 : 2;
  return sides;
}

}  // namespace

Result<BoundRelation> BindFromItem(Binder& b, const Json& node, const Scope* outer);

namespace {

Result<BoundRelation> BindFileSource(Binder& b, const std::string& name, const std::string& path,
                                     bool csv, const csv::CsvReadOptions& options, int loc) {
  Result<std::shared_ptr<TableSource>> src =
      csv ? TableSource::Csv(name, path, options) : TableSource::Parquet(name, path);
  if (!src.ok()) return b.Error(src.status().message(), loc);
  std::vector<int> cols;
  for (int i = 0; i < (*src)->schema.num_fields(); ++i) cols.push_back(i);
  BoundRelation r;
  r.plan = MakeScan(*src, cols);
  return r;
}

Result<BoundRelation> BindRangeVar(Binder& b, const Json& rv, const Scope* outer) {
  const int loc = Int(rv, "location", -1);
  // FROM 'path': the whole path (the identifier PostgreSQL made of it stops at 63 bytes).
  const std::string name = rv.contains("tandem_path") ? Str(rv, "tandem_path") : Str(rv, "relname");
  const Json& alias = Child(rv, "alias");
  const std::string qualifier = alias.is_object() ? Str(alias, "aliasname") : name;
  const std::vector<std::string> renames = AliasColumns(alias);
  BoundRelation r;
  if (rv.contains("schemaname") || rv.contains("catalogname")) {
    return b.Unsupported("schema-qualified table names", loc);
  }
  // CTEs shadow catalog names.
  if (const CteDef* cte = FindCte(b.ctes(), Lower(name))) {
    r.plan = cte->plan;
    std::vector<std::string> names = cte->column_names;
    for (size_t i = 0; i < renames.size() && i < names.size(); ++i) names[i] = renames[i];
    if (!renames.empty() && names.empty()) names = renames;
    if (names.size() > static_cast<size_t>(r.plan->schema.num_fields())) {
      return b.Error("CTE " + name + " has " + std::to_string(r.plan->schema.num_fields()) +
                         " columns but " + std::to_string(names.size()) + " names",
                     loc);
    }
    r.scope = ScopeOf(r.plan->schema, qualifier, names);
    return r;
  }
  if (auto table = b.catalog().FindTable(name)) {
    std::vector<int> cols;
    for (int i = 0; i < table->schema.num_fields(); ++i) cols.push_back(i);
    r.plan = MakeScan(table, cols);
  } else if (const std::string* view = b.catalog().FindView(name)) {
    TANDEM_ASSIGN_OR_RAISE(r.plan, BindView(b, name, *view, loc));
  } else if (LooksLikePath(name)) {
    TANDEM_ASSIGN_OR_RAISE(r, BindFileSource(b, name, name, IsCsvPath(name), {}, loc));
  } else {
    std::vector<std::string> candidates = b.catalog().Names();
    for (const CteNode* n = b.ctes().get(); n; n = n->previous.get()) {
      candidates.push_back(n->def.name);
    }
    const std::string hint = ClosestName(name, candidates);
    return b.Error(
        "table " + name + " not found" + (hint.empty() ? "" : "; did you mean " + hint + "?"), loc);
  }
  if (renames.size() > static_cast<size_t>(r.plan->schema.num_fields())) {
    return b.Error("table " + name + " has " + std::to_string(r.plan->schema.num_fields()) +
                       " columns but " + std::to_string(renames.size()) + " aliases",
                   loc);
  }
  r.scope = ScopeOf(r.plan->schema, qualifier, renames);
  return r;
}

Result<BoundRelation> BindRangeFunction(Binder& b, const Json& rf) {
  const Json& functions = Child(rf, "functions");
  if (Flag(rf, "lateral")) return b.Unsupported("LATERAL", FirstLocation(rf));
  if (!functions.is_array() || functions.size() != 1) {
    return b.Unsupported("ROWS FROM with several functions", FirstLocation(rf));
  }
  const Json& items = Child(Child(functions[0], "List"), "items");
  if (!items.is_array() || items.empty() || NodeTag(items[0]) != "FuncCall") {
    return b.Unsupported("this table function", FirstLocation(rf));
  }
  const Json& call = NodeBody(items[0]);
  const int loc = Int(call, "location", -1);
  if (Flag(rf, "ordinality")) return b.Unsupported("WITH ORDINALITY", loc);
  const Json& names = Child(call, "funcname");
  const std::string fn = Lower(names.is_array() && !names.empty() ? StringValue(names.back()) : "");
  const bool parquet = fn == "read_parquet" || fn == "parquet_scan";
  const bool csv = fn == "read_csv" || fn == "read_csv_auto";
  if (!parquet && !csv) {
    return b.Error("unknown table function " + fn + "; did you mean read_parquet or read_csv?",
                   loc);
  }
  const Json& args = Child(call, "args");
  if (!args.is_array() || args.empty() || NodeTag(args[0]) != "A_Const" ||
      !NodeBody(args[0]).contains("sval")) {
    return b.Error(fn + " takes a file path or glob as a string constant", loc);
  }
  const std::string path = Str(Child(NodeBody(args[0]), "sval"), "sval");
  csv::CsvReadOptions options;
  for (size_t i = 1; i < args.size(); ++i) {
    const Json& na = NodeBody(args[i]);
    if (NodeTag(args[i]) != "NamedArgExpr" || !csv) {
      return b.Unsupported(fn + " options", LocationOf(args[i]));
    }
    const std::string key = Lower(Str(na, "name"));
    const Json& value = Child(na, "arg");
    const Json& c = NodeBody(value);
    if (key == "header" && NodeTag(value) == "A_Const" && c.contains("boolval")) {
      options.header = Flag(Child(c, "boolval"), "boolval");
    } else if ((key == "delim" || key == "sep" || key == "delimiter") &&
               NodeTag(value) == "A_Const" && Str(Child(c, "sval"), "sval").size() == 1) {
      options.delimiter = Str(Child(c, "sval"), "sval")[0];
    } else {
      return b.Unsupported(fn + " option " + key, Int(na, "location", loc));
    }
  }
  TANDEM_ASSIGN_OR_RAISE(BoundRelation r, BindFileSource(b, path, path, csv, options, loc));
  const Json& alias = Child(rf, "alias");
  r.scope = ScopeOf(r.plan->schema, alias.is_object() ? Str(alias, "aliasname") : fn,
                    AliasColumns(alias));
  return r;
}

Result<BoundRelation> BindJoin(Binder& b, const Json& j, const Scope* outer) {
  TANDEM_ASSIGN_OR_RAISE(BoundRelation left, BindFromItem(b, Child(j, "larg"), outer));
  TANDEM_ASSIGN_OR_RAISE(BoundRelation right, BindFromItem(b, Child(j, "rarg"), outer));
  const std::string jt = Str(j, "jointype");
  JoinType type;
  if (jt == "JOIN_INNER") {
    type = JoinType::kInner;
  } else if (jt == "JOIN_LEFT") {
    type = JoinType::kLeft;
  } else if (jt == "JOIN_RIGHT") {
    type = JoinType::kRight;
  } else if (jt == "JOIN_FULL") {
    type = JoinType::kFull;
  } else {
    return b.Unsupported("join type " + jt, FirstLocation(Child(j, "rarg")));
  }
  const int nl = left.plan->schema.num_fields();
  Scope scope = left.scope;
  AppendScope(&scope, right.scope, nl);
  scope.parent = outer;
  // Outer joins make the other side's columns nullable.
  for (size_t i = 0; i < scope.columns.size(); ++i) {
    const bool is_left = i < left.scope.columns.size();
    if ((is_left && (type == JoinType::kRight || type == JoinType::kFull)) ||
        (!is_left && (type == JoinType::kLeft || type == JoinType::kFull))) {
      scope.columns[i].nullable = true;
    }
  }

  std::vector<ExprPtr> left_keys, right_keys, residual;
  // USING / NATURAL columns.
  std::vector<std::string> using_names;
  for (const auto& u : Child(j, "usingClause")) using_names.push_back(StringValue(u));
  if (Flag(j, "isNatural")) {
    for (int li : left.scope.star) {
      for (int ri : right.scope.star) {
        if (Lower(left.scope.columns[li].name) == Lower(right.scope.columns[ri].name)) {
          using_names.push_back(left.scope.columns[li].name);
        }
      }
    }
  }
  std::vector<std::pair<int, int>> using_pairs;  // scope entries (left, right)
  for (const auto& name : using_names) {
    int found[2] = {-1, -1};
    const Scope* sides[2] = {&left.scope, &right.scope};
    for (int s = 0; s < 2; ++s) {
      for (size_t i = 0; i < sides[s]->columns.size(); ++i) {
        const ScopeColumn& c = sides[s]->columns[i];
        if (c.hidden || Lower(c.name) != Lower(name)) continue;
        if (found[s] >= 0) {
          return b.Error("column " + name + " in USING is ambiguous on the " +
                             (s == 0 ? "left" : "right") + " side",
                         FirstLocation(Child(j, "rarg")));
        }
        found[s] = static_cast<int>(i);
      }
      if (found[s] < 0) {
        return b.Error("column " + name + " in USING is not on the " + (s == 0 ? "left" : "right") +
                           " side of the join",
                       -1);
      }
    }
    const ScopeColumn& lc = left.scope.columns[found[0]];
    const ScopeColumn& rc = right.scope.columns[found[1]];
    std::vector<ExprPtr> pair = {MakeColumnRef(lc.index, lc.type, lc.nullable, lc.name),
                                 MakeColumnRef(rc.index, rc.type, rc.nullable, rc.name)};
    TANDEM_RETURN_NOT_OK(b.Unify(&pair, FirstLocation(Child(j, "rarg")), "USING"));
    left_keys.push_back(pair[0]);
    right_keys.push_back(pair[1]);
    using_pairs.push_back({found[0], static_cast<int>(left.scope.columns.size()) + found[1]});
  }
  // ON.
  if (j.contains("quals")) {
    ExprContext ctx;
    ctx.scope = &scope;
    ctx.clause = "JOIN conditions";
    TANDEM_ASSIGN_OR_RAISE(ExprPtr cond, b.BindBoolean(Child(j, "quals"), ctx, "JOIN condition"));
    std::vector<ExprPtr> conjuncts;
    SplitConjuncts(cond, &conjuncts);
    std::vector<int> to_right(static_cast<size_t>(nl + right.plan->schema.num_fields()), 0);
    for (size_t i = 0; i < to_right.size(); ++i) to_right[i] = static_cast<int>(i) - nl;
    for (const auto& c : conjuncts) {
      if (c->kind == ExprKind::kCall && c->name == "eq" && c->args.size() == 2 &&
          !HasOuterRefsOrSubqueries(*c)) {
        const int s0 = Sides(*c->args[0], nl), s1 = Sides(*c->args[1], nl);
        if (s0 == 1 && s1 == 2) {
          left_keys.push_back(c->args[0]);
          right_keys.push_back(RemapColumns(c->args[1], to_right));
          continue;
        }
        if (s0 == 2 && s1 == 1) {
          left_keys.push_back(c->args[1]);
          right_keys.push_back(RemapColumns(c->args[0], to_right));
          continue;
        }
      }
      residual.push_back(c);
    }
  }
  ExprPtr condition;
  for (const auto& c : residual) {
    if (!condition) {
      condition = c;
    } else {
      TANDEM_ASSIGN_OR_RAISE(condition, b.Call("and", {condition, c}, -1));
    }
  }
  BoundRelation out;
  out.plan = MakeJoin(left.plan, right.plan, type, left_keys, right_keys, condition);
  out.scope = scope;
  if (!using_pairs.empty()) {
    // The merged USING column: the left copy (INNER, LEFT), the right copy (RIGHT), or
    // COALESCE of both (FULL), computed by a Project over the join.
    std::vector<int> merged;
    std::vector<ExprPtr> exprs;
    std::vector<std::string> names;
    const int width = out.plan->schema.num_fields();
    if (type == JoinType::kFull) {
      for (int i = 0; i < width; ++i) {
        const Field& f = out.plan->schema.field(i);
        exprs.push_back(MakeColumnRef(i, f.type, f.nullable, f.name));
        names.push_back(f.name);
      }
    }
    for (auto [l, r] : using_pairs) {
      ScopeColumn& lc = out.scope.columns[l];
      ScopeColumn& rc = out.scope.columns[r];
      if (type == JoinType::kFull) {
        std::vector<ExprPtr> pair = {MakeColumnRef(lc.index, lc.type, true, lc.name),
                                     MakeColumnRef(rc.index, rc.type, true, rc.name)};
        TANDEM_RETURN_NOT_OK(b.Unify(&pair, -1, "USING"));
        TANDEM_ASSIGN_OR_RAISE(ExprPtr co, b.Call("coalesce", pair, -1));
        exprs.push_back(co);
        names.push_back(lc.name);
        lc.hidden = rc.hidden = true;
        ScopeColumn m{"",   lc.name, co->type, co->nullable, static_cast<int>(exprs.size() - 1),
                      false};
        out.scope.columns.push_back(m);
        merged.push_back(static_cast<int>(out.scope.columns.size() - 1));
      } else if (type == JoinType::kRight) {
        lc.hidden = true;
        merged.push_back(r);
      } else {
        rc.hidden = true;
        merged.push_back(l);
      }
    }
    if (type == JoinType::kFull) out.plan = MakeProject(out.plan, exprs, names);
    std::vector<int> star = merged;
    for (int s : out.scope.star) {
      bool is_using = false;
      for (auto [l, r] : using_pairs) is_using |= (s == l || s == r);
      if (!is_using) star.push_back(s);
    }
    out.scope.star = star;
  }
  const Json& alias = Child(j, "alias");
  if (alias.is_object()) {
    for (auto& c : out.scope.columns) c.qualifier = Lower(Str(alias, "aliasname"));
  }
  return out;
}

}  // namespace

Result<BoundRelation> BindFromItem(Binder& b, const Json& node, const Scope* outer) {
  const std::string& tag = NodeTag(node);
  const Json& body = NodeBody(node);
  if (tag == "RangeVar") return BindRangeVar(b, body, outer);
  if (tag == "RangeFunction") return BindRangeFunction(b, body);
  if (tag == "JoinExpr") return BindJoin(b, body, outer);
  if (tag == "RangeSubselect") {
    if (Flag(body, "lateral")) return b.Unsupported("LATERAL subqueries", FirstLocation(body));
    BoundRelation r;
    TANDEM_ASSIGN_OR_RAISE(r.plan, b.BindSubqueryPlan(NodeBody(Child(body, "subquery")), outer));
    const Json& alias = Child(body, "alias");
    const std::vector<std::string> renames = AliasColumns(alias);
    if (renames.size() > static_cast<size_t>(r.plan->schema.num_fields())) {
      return b.Error("subquery has " + std::to_string(r.plan->schema.num_fields()) +
                         " columns but " + std::to_string(renames.size()) + " aliases",
                     FirstLocation(body));
    }
    r.scope = ScopeOf(r.plan->schema, alias.is_object() ? Str(alias, "aliasname") : "", renames);
    return r;
  }
  if (tag == "RangeTableSample") return b.Unsupported("TABLESAMPLE", LocationOf(node));
  return b.Unsupported("FROM item " + tag, LocationOf(node));
}

Result<BoundRelation> Binder::BindFrom(const Json& from_clause, const Scope* outer) {
  BoundRelation acc;
  bool first = true;
  for (const auto& item : from_clause) {
    TANDEM_ASSIGN_OR_RAISE(BoundRelation r, BindFromItem(*this, item, outer));
    if (first) {
      acc = std::move(r);
      first = false;
      continue;
    }
    const int nl = acc.plan->schema.num_fields();
    acc.plan = MakeJoin(acc.plan, r.plan, JoinType::kInner, {}, {}, nullptr);
    AppendScope(&acc.scope, r.scope, nl);
  }
  if (first) acc.plan = MakeValues(Schema{}, {{}});  // SELECT without FROM: one empty row
  acc.scope.parent = outer;
  return acc;
}

}  // namespace tandem::sql::binder
