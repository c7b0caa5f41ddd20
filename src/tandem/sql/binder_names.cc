// Output column names for unaliased expressions: the expression's text as the user wrote it,
// formatted as DuckDB does where simple ("sum(l_quantity)", "count_star()", "(a + 1)").
#include "tandem/sql/binder_internal.h"

namespace tandem::sql::binder {
namespace {

void AppendText(const Json& node, std::string* out);

void AppendList(const Json& list, std::string* out, const char* sep = ", ") {
  if (!list.is_array()) return;
  for (size_t i = 0; i < list.size(); ++i) {
    if (i) out->append(sep);
    AppendText(list[i], out);
  }
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

// Appends the text of `node`: one pass writing into one string, so a chain of 500,000 `+`
// costs its length, not its length squared.
void AppendText(const Json& node, std::string* out) {
  const std::string& tag = NodeTag(node);
  const Json& b = NodeBody(node);
  auto text = [out](const Json& n) { AppendText(n, out); };
  auto put = [out](const std::string& s) { out->append(s); };
  if (tag == "ColumnRef") {
    const Json& fields = Child(b, "fields");
    if (!fields.is_array() || fields.empty()) return put("?");
    if (fields.back().contains("A_Star")) return put("*");
    return put(StringValue(fields.back()));
  }
  if (tag == "A_Const") return put(ConstText(b));
  if (tag == "FuncCall") {
    const std::string name = FuncName(Child(b, "funcname"));
    if (Flag(b, "agg_star")) return put(name == "count" ? "count_star()" : name + "(*)");
    put(name + "(" + (Flag(b, "agg_distinct") ? "DISTINCT " : ""));
    AppendList(Child(b, "args"), out);
    put(")");
    if (b.contains("over")) put(" OVER (...)");
    return;
  }
  if (tag == "A_Expr") {
    const std::string kind = Str(b, "kind");
    std::string op;
    if (b.contains("name") && Child(b, "name").is_array() && !Child(b, "name").empty()) {
      op = StringValue(Child(b, "name").back());
    }
    if (kind == "AEXPR_OP" && !b.contains("lexpr")) {
      put("(" + op);
      text(Child(b, "rexpr"));
      return put(")");
    }
    if (kind == "AEXPR_BETWEEN" || kind == "AEXPR_NOT_BETWEEN") {
      const Json& r = Child(Child(Child(b, "rexpr"), "List"), "items");
      put("(");
      text(Child(b, "lexpr"));
      put(kind == "AEXPR_BETWEEN" ? " BETWEEN " : " NOT BETWEEN ");
      if (r.size() == 2) {
        text(r[0]);
        put(" AND ");
        text(r[1]);
      } else {
        put("?");
      }
      return put(")");
    }
    if (kind == "AEXPR_IN") {
      put("(");
      text(Child(b, "lexpr"));
      put(op == "=" ? " IN (" : " NOT IN (");
      AppendList(Child(Child(Child(b, "rexpr"), "List"), "items"), out);
      return put("))");
    }
    if (kind == "AEXPR_LIKE" || kind == "AEXPR_ILIKE") {
      const bool neg = !op.empty() && op[0] == '!';
      put("(");
      text(Child(b, "lexpr"));
      put(std::string(neg ? " NOT" : "") + (kind == "AEXPR_LIKE" ? " LIKE " : " ILIKE "));
      text(Child(b, "rexpr"));
      return put(")");
    }
    if (kind == "AEXPR_NULLIF") {
      put("nullif(");
      text(Child(b, "lexpr"));
      put(", ");
      text(Child(b, "rexpr"));
      return put(")");
    }
    put("(");
    text(Child(b, "lexpr"));
    put(" " + op + " ");
    text(Child(b, "rexpr"));
    return put(")");
  }
  if (tag == "TypeCast") {
    std::string type;
    const Json& names = Child(Child(b, "typeName"), "names");
    if (names.is_array() && !names.empty()) type = Lower(StringValue(names.back()));
    if (type == "interval") {
      put("INTERVAL ");
      return text(Child(b, "arg"));
    }
    static const std::pair<const char*, const char*> kSqlNames[] = {
        {"int2", "SMALLINT"}, {"int4", "INTEGER"},    {"int8", "BIGINT"},    {"float4", "FLOAT"},
        {"float8", "DOUBLE"}, {"numeric", "DECIMAL"}, {"bpchar", "VARCHAR"}, {"bool", "BOOLEAN"}};
    std::string shown = type;
    for (auto& c : shown) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    for (const auto& [pg, sql] : kSqlNames) {
      if (type == pg) shown = sql;
    }
    put(Flag(b, "tandem_try_cast") ? "TRY_CAST(" : "CAST(");
    text(Child(b, "arg"));
    return put(" AS " + shown + ")");
  }
  if (tag == "BoolExpr") {
    const std::string op = Str(b, "boolop");
    put(op == "NOT_EXPR" ? "(NOT " : "(");
    AppendList(Child(b, "args"), out,
               op == "NOT_EXPR"   ? ", "
               : op == "AND_EXPR" ? " AND "
                                  : " OR ");
    return put(")");
  }
  if (tag == "NullTest") {
    put("(");
    text(Child(b, "arg"));
    return put(Str(b, "nulltesttype") == "IS_NULL" ? " IS NULL)" : " IS NOT NULL)");
  }
  if (tag == "CaseExpr") {
    put("CASE");
    if (b.contains("arg")) {
      put(" ");
      text(Child(b, "arg"));
    }
    for (const auto& w : Child(b, "args")) {
      const Json& cw = NodeBody(w);
      put(" WHEN ");
      text(Child(cw, "expr"));
      put(" THEN ");
      text(Child(cw, "result"));
    }
    if (b.contains("defresult")) {
      put(" ELSE ");
      text(Child(b, "defresult"));
    }
    return put(" END");
  }
  if (tag == "CoalesceExpr") {
    put("coalesce(");
    AppendList(Child(b, "args"), out);
    return put(")");
  }
  if (tag == "SubLink") {
    const std::string t = Str(b, "subLinkType");
    if (t == "EXISTS_SUBLINK") return put("EXISTS(SELECT ...)");
    if (t == "EXPR_SUBLINK") return put("(SELECT ...)");
    put("(");
    text(Child(b, "testexpr"));
    return put(" IN (SELECT ...))");
  }
  if (tag == "GroupingFunc") {
    put("GROUPING(");
    AppendList(Child(b, "args"), out);
    return put(")");
  }
  put("?column?");
}

}  // namespace

std::string ExprText(const Json& node) {
  std::string out;
  AppendText(node, &out);
  return out;
}

}  // namespace tandem::sql::binder
