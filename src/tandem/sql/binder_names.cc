// Output column names for unaliased expressions: the expression's text as the user wrote it,
// formatted as DuckDB does where simple ("sum(l_quantity)", "count_star()", "(a + 1)").
#include "tandem/sql/binder_internal.h"

namespace tandem::sql::binder {
namespace {

std::string ListText(const Json& list, const char* sep = ", ") {
  std::string s;
  if (!list.is_array()) return s;
  for (size_t i = 0; i < list.size(); ++i) s += (i ? sep : "") + ExprText(list[i]);
  return s;
}

std::string ConstText(const Json& c) {
  if (c.contains("isnull")) return "NULL";
  if (c.contains("ival")) {
    const Json& v = Child(c, "ival");
    return std::to_string(v.is_object() ? Int(v, "ival", 0) : 0);
  }
  if (c.contains("fval")) return Str(Child(c, "fval"), "fval");
  if (c.contains("sval")) return "'" + Str(Child(c, "sval"), "sval") + "'";
  if (c.contains("boolval")) return Flag(Child(c, "boolval"), "boolval") ? "true" : "false";
  return "?";
}

std::string FuncName(const Json& names) {
  std::string n;
  if (names.is_array() && !names.empty()) n = StringValue(names.back());
  return Lower(n);
}

}  // namespace

std::string ExprText(const Json& node) {
  const std::string& tag = NodeTag(node);
  const Json& b = NodeBody(node);
  if (tag == "ColumnRef") {
    const Json& fields = Child(b, "fields");
    if (!fields.is_array() || fields.empty()) return "?";
    if (fields.back().contains("A_Star")) return "*";
    return StringValue(fields.back());
  }
  if (tag == "A_Const") return ConstText(b);
  if (tag == "FuncCall") {
    std::string name = FuncName(Child(b, "funcname"));
    if (Flag(b, "agg_star")) return name == "count" ? "count_star()" : name + "(*)";
    std::string s = name + "(" + (Flag(b, "agg_distinct") ? "DISTINCT " : "") +
                    ListText(Child(b, "args")) + ")";
    if (b.contains("over")) s += " OVER (...)";
    return s;
  }
  if (tag == "A_Expr") {
    const std::string kind = Str(b, "kind");
    std::string op;
    if (b.contains("name") && Child(b, "name").is_array() && !Child(b, "name").empty()) {
      op = StringValue(Child(b, "name").back());
    }
    if (kind == "AEXPR_OP") {
      if (!b.contains("lexpr")) return "(" + op + ExprText(Child(b, "rexpr")) + ")";
      return "(" + ExprText(Child(b, "lexpr")) + " " + op + " " + ExprText(Child(b, "rexpr")) + ")";
    }
    if (kind == "AEXPR_BETWEEN" || kind == "AEXPR_NOT_BETWEEN") {
      const Json& r = Child(Child(Child(b, "rexpr"), "List"), "items");
      return "(" + ExprText(Child(b, "lexpr")) +
             (kind == "AEXPR_BETWEEN" ? " BETWEEN " : " NOT BETWEEN ") +
             (r.size() == 2 ? ExprText(r[0]) + " AND " + ExprText(r[1]) : "?") + ")";
    }
    if (kind == "AEXPR_IN") {
      return "(" + ExprText(Child(b, "lexpr")) + (op == "=" ? " IN (" : " NOT IN (") +
             ListText(Child(Child(Child(b, "rexpr"), "List"), "items")) + "))";
    }
    if (kind == "AEXPR_LIKE" || kind == "AEXPR_ILIKE") {
      const bool neg = !op.empty() && op[0] == '!';
      return "(" + ExprText(Child(b, "lexpr")) + (neg ? " NOT" : "") +
             (kind == "AEXPR_LIKE" ? " LIKE " : " ILIKE ") + ExprText(Child(b, "rexpr")) + ")";
    }
    if (kind == "AEXPR_NULLIF") {
      return "nullif(" + ExprText(Child(b, "lexpr")) + ", " + ExprText(Child(b, "rexpr")) + ")";
    }
    return "(" + ExprText(Child(b, "lexpr")) + " " + op + " " + ExprText(Child(b, "rexpr")) + ")";
  }
  if (tag == "TypeCast") {
    std::string type;
    const Json& names = Child(Child(b, "typeName"), "names");
    if (names.is_array() && !names.empty()) type = Lower(StringValue(names.back()));
    if (type == "interval") return "INTERVAL " + ExprText(Child(b, "arg"));
    static const std::pair<const char*, const char*> kSqlNames[] = {
        {"int2", "SMALLINT"}, {"int4", "INTEGER"},    {"int8", "BIGINT"},    {"float4", "FLOAT"},
        {"float8", "DOUBLE"}, {"numeric", "DECIMAL"}, {"bpchar", "VARCHAR"}, {"bool", "BOOLEAN"}};
    std::string shown = type;
    for (auto& c : shown) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    for (const auto& [pg, sql] : kSqlNames) {
      if (type == pg) shown = sql;
    }
    return std::string(Flag(b, "tandem_try_cast") ? "TRY_CAST(" : "CAST(") +
           ExprText(Child(b, "arg")) + " AS " + shown + ")";
  }
  if (tag == "BoolExpr") {
    const std::string op = Str(b, "boolop");
    if (op == "NOT_EXPR") return "(NOT " + ListText(Child(b, "args")) + ")";
    return "(" + ListText(Child(b, "args"), op == "AND_EXPR" ? " AND " : " OR ") + ")";
  }
  if (tag == "NullTest") {
    return "(" + ExprText(Child(b, "arg")) +
           (Str(b, "nulltesttype") == "IS_NULL" ? " IS NULL)" : " IS NOT NULL)");
  }
  if (tag == "CaseExpr") {
    std::string s = "CASE";
    if (b.contains("arg")) s += " " + ExprText(Child(b, "arg"));
    for (const auto& w : Child(b, "args")) {
      const Json& cw = NodeBody(w);
      s += " WHEN " + ExprText(Child(cw, "expr")) + " THEN " + ExprText(Child(cw, "result"));
    }
    if (b.contains("defresult")) s += " ELSE " + ExprText(Child(b, "defresult"));
    return s + " END";
  }
  if (tag == "CoalesceExpr") return "coalesce(" + ListText(Child(b, "args")) + ")";
  if (tag == "SubLink") {
    const std::string t = Str(b, "subLinkType");
    if (t == "EXISTS_SUBLINK") return "EXISTS(SELECT ...)";
    if (t == "EXPR_SUBLINK") return "(SELECT ...)";
    return "(" + ExprText(Child(b, "testexpr")) + " IN (SELECT ...))";
  }
  if (tag == "GroupingFunc") return "GROUPING(" + ListText(Child(b, "args")) + ")";
  return "?column?";
}

}  // namespace tandem::sql::binder
