// Whole queries: WITH (CTEs, bound again at each reference), set operations (UNION, INTERSECT,
// EXCEPT [ALL], columns brought to common types with casts), VALUES lists, views, and the
// public BindSelect entry point.
#include <set>

#include "tandem/sql/binder_internal.h"
#include "tandem/sql/parser.h"

namespace tandem::sql {
namespace binder {

Result<PlanPtr> Binder::BindQuery(const Json& stmt, const Scope* outer, CteList ctes) {
  DepthGuard depth;
  TANDEM_RETURN_NOT_OK(CheckDepth(stmt));
  ctes_ = std::move(ctes);
  const Json& with = Child(stmt, "withClause");
  if (with.is_object()) {
    if (Flag(with, "recursive")) return Unsupported("WITH RECURSIVE", Int(with, "location", -1));
    std::set<std::string> defined_here;
    for (const auto& c : Child(with, "ctes")) {
      const Json& body = NodeBody(c);
      CteDef d;
      d.name = Lower(Str(body, "ctename"));
      if (!defined_here.insert(d.name).second) {
        return Error("WITH query name " + d.name + " is used more than once",
                     Int(body, "location", -1));
      }
      const Json& q = Child(body, "ctequery");
      if (NodeTag(q) != "SelectStmt")
        return Unsupported("WITH containing data changes", Int(body, "location", -1));
      for (const auto& n : Child(body, "aliascolnames")) d.column_names.push_back(StringValue(n));
      Binder child(sql_, catalog_, options_, view_depth_, index_);
      TANDEM_ASSIGN_OR_RAISE(d.plan, child.BindQuery(NodeBody(q), nullptr, ctes_));
      ctes_ = std::make_shared<const CteNode>(CteNode{std::move(d), ctes_});
    }
  }
  const std::string op = Str(stmt, "op");
  if (!op.empty() && op != "SETOP_NONE") {
    TANDEM_ASSIGN_OR_RAISE(PlanPtr plan, BindSetOperation(stmt, outer));
    return ApplyOutputOrder(stmt, plan);
  }
  if (stmt.contains("valuesLists")) {
    TANDEM_ASSIGN_OR_RAISE(PlanPtr plan, BindValues(stmt));
    return ApplyOutputOrder(stmt, plan);
  }
  return BindSelectCore(stmt, outer);
}

namespace {

// The branches of a chain of one set operation: `A UNION ALL B UNION ALL C` parses as
// ((A UNION ALL B) UNION ALL C) and becomes the branches A, B, C of one node, without recursion.
// Only UNION chains are flattened (UNION and UNION ALL are associative, INTERSECT and EXCEPT
// stay binary), and a nested operation with its own ORDER BY, LIMIT or WITH stays a branch.
std::vector<const Json*> SetOperationBranches(const Json& stmt) {
  const std::string op = Str(stmt, "op");
  const bool all = Flag(stmt, "all");
  auto same_chain = [&](const Json& node) {
    return Str(node, "op") == op && Flag(node, "all") == all && !node.contains("sortClause") &&
           !node.contains("limitCount") && !node.contains("limitOffset") &&
           !node.contains("withClause");
  };
  std::vector<const Json*> branches;
  std::vector<const Json*> pending = {&Child(stmt, "rarg"), &Child(stmt, "larg")};
  while (!pending.empty()) {
    const Json* node = pending.back();
    pending.pop_back();
    if (op == "SETOP_UNION" && same_chain(*node)) {
      pending.push_back(&Child(*node, "rarg"));
      pending.push_back(&Child(*node, "larg"));
    } else {
      branches.push_back(node);
    }
  }
  return branches;
}

}  // namespace

Result<PlanPtr> Binder::BindSetOperation(const Json& stmt, const Scope* outer) {
  const std::string op = Str(stmt, "op");
  SetOpKind kind;
  const char* word;
  if (op == "SETOP_UNION") {
    kind = SetOpKind::kUnion;
    word = "UNION";
  } else if (op == "SETOP_INTERSECT") {
    kind = SetOpKind::kIntersect;
    word = "INTERSECT";
  } else if (op == "SETOP_EXCEPT") {
    kind = SetOpKind::kExcept;
    word = "EXCEPT";
  } else {
    return Unsupported("set operation " + op, -1);
  }
  const std::vector<const Json*> branches = SetOperationBranches(stmt);
  std::vector<PlanPtr> inputs;
  inputs.reserve(branches.size());
  for (const Json* branch : branches) {
    Binder bb(sql_, catalog_, options_, view_depth_, index_);
    TANDEM_ASSIGN_OR_RAISE(PlanPtr plan, bb.BindQuery(*branch, outer, ctes_));
    inputs.push_back(std::move(plan));
  }
  // Each column takes the common type of all branches (as folding the chain pairwise would).
  const int n = inputs[0]->schema.num_fields();
  std::vector<DataType> types;
  for (int i = 0; i < n; ++i) types.push_back(inputs[0]->schema.field(i).type);
  for (size_t k = 1; k < inputs.size(); ++k) {
    const int loc = FirstLocation(*branches[k]);
    const Schema& schema = inputs[k]->schema;
    if (schema.num_fields() != n) {
      return Error(std::string("each ") + word + " query must have the same number of columns (" +
                       std::to_string(n) + " and " + std::to_string(schema.num_fields()) + ")",
                   loc);
    }
    for (int i = 0; i < n; ++i) {
      Result<DataType> t = CommonSuperType(types[i], schema.field(i).type);
      if (!t.ok()) {
        return Error(std::string(word) + " column " + std::to_string(i + 1) + " has types " +
                         types[i].ToString() + " and " + schema.field(i).type.ToString() +
                         " with no common type",
                     loc);
      }
      types[i] = *t;
    }
  }
  for (PlanPtr& input : inputs) {
    std::vector<ExprPtr> exprs;
    std::vector<std::string> names;
    bool cast = false;
    for (int i = 0; i < n; ++i) {
      const Field& f = input->schema.field(i);
      exprs.push_back(CastTo(MakeColumnRef(i, f.type, f.nullable, f.name), types[i]));
      names.push_back(f.name);
      cast |= f.type != types[i];
    }
    if (cast) input = MakeProject(input, exprs, names);
  }
  return MakeSetOp(std::move(inputs), kind, Flag(stmt, "all"));
}

Result<PlanPtr> Binder::BindValues(const Json& stmt) {
  ExprContext ctx;
  ctx.clause = "VALUES";
  std::vector<std::vector<ExprPtr>> rows;
  size_t width = 0;
  for (const auto& list : Child(stmt, "valuesLists")) {
    std::vector<ExprPtr> row;
    const Json& items = Child(Child(list, "List"), "items");
    for (const auto& item : items) {
      TANDEM_ASSIGN_OR_RAISE(ExprPtr e, BindExpr(item, ctx));
      row.push_back(e);
    }
    if (rows.empty()) {
      width = row.size();
    } else if (row.size() != width) {
      return Error("VALUES lists must all be the same length",
                   items.empty() ? -1 : LocationOf(items[0]));
    }
    rows.push_back(std::move(row));
  }
  Schema schema;
  for (size_t c = 0; c < width; ++c) {
    std::vector<ExprPtr> column;
    for (const auto& r : rows) column.push_back(r[c]);
    TANDEM_RETURN_NOT_OK(
        Unify(&column, LocationOf(Child(Child(Child(stmt, "valuesLists")[0], "List"), "items")[c]),
              "VALUES"));
    bool nullable = false;
    for (size_t r = 0; r < rows.size(); ++r) {
      rows[r][c] = column[r];
      nullable |= column[r]->nullable;
    }
    schema.fields.push_back({"col" + std::to_string(c), column[0]->type, nullable});
  }
  bool all_literals = true;
  for (const auto& r : rows) {
    for (const auto& e : r) all_literals &= e->kind == ExprKind::kLiteral;
  }
  if (all_literals) {
    std::vector<std::vector<Value>> values;
    for (const auto& r : rows) {
      std::vector<Value> v;
      for (const auto& e : r) {
        Value x = e->literal;
        x.type = e->type;
        v.push_back(x);
      }
      values.push_back(std::move(v));
    }
    return MakeValues(schema, std::move(values));
  }
  // Computed cells: one Project per row over a single empty row, glued with UNION ALL.
  std::vector<std::string> names;
  for (const auto& f : schema.fields) names.push_back(f.name);
  std::vector<PlanPtr> branches;
  for (const auto& r : rows) branches.push_back(MakeProject(MakeValues(Schema{}, {{}}), r, names));
  if (branches.size() == 1) return branches[0];
  return MakeSetOp(std::move(branches), SetOpKind::kUnion, true);
}

Result<PlanPtr> BindView(Binder& b, const std::string& name, const std::string& sql, int loc) {
  if (b.view_depth() >= 32) return b.Error("view " + name + " refers to itself", loc);
  Result<std::vector<ParsedStatement>> parsed = ParseSql(sql);
  if (!parsed.ok()) return b.Error("view " + name + ": " + parsed.status().message(), loc);
  if (parsed->size() != 1 || NodeTag((*parsed)[0].tree) != "SelectStmt") {
    return b.Error("view " + name + " is not a single SELECT", loc);
  }
  Binder child(sql, b.catalog(), b.options(), b.view_depth() + 1);
  Result<PlanPtr> plan = child.BindQuery(NodeBody((*parsed)[0].tree), nullptr, nullptr);
  if (!plan.ok()) {
    return Status(plan.status().code(),
                  "view " + name +
                      (loc >= 0 ? " (used at line " + b.Pos(loc).ToString() + ")" : "") + ": " +
                      plan.status().message());
  }
  return plan;
}

}  // namespace binder

Result<PlanPtr> BindSelect(const nlohmann::json& stmt, const std::string& sql, Catalog& catalog,
                           const BindOptions& options) {
  try {
    const nlohmann::json& body = stmt.contains("SelectStmt") ? stmt["SelectStmt"] : stmt;
    binder::Binder b(sql, catalog, options);
    return b.BindQuery(body, nullptr, nullptr);
  } catch (const std::exception& e) {
    return Status::Internal(std::string("binder: unexpected parse tree: ") + e.what());
  }
}

}  // namespace tandem::sql
