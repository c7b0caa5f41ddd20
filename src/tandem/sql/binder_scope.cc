// Name resolution (unqualified and qualified column names, correlation one level out, ambiguity
// and "did you mean" hints) and small expression utilities the binder files share.
#include <cctype>
#include <set>

#include "tandem/sql/binder_internal.h"

namespace tandem::sql::binder {

Result<ExprPtr> ResolveColumn(const Binder& b, const Scope& scope, const std::string& qualifier,
                              const std::string& name, int location) {
  const std::string lname = Lower(name);
  const std::string lqual = Lower(qualifier);
  bool qualifier_seen = qualifier.empty();
  int depth = 0;
  for (const Scope* s = &scope; s != nullptr; s = s->parent, ++depth) {
    std::vector<const ScopeColumn*> matches;
    for (const auto& c : s->columns) {
      if (!lqual.empty() && c.qualifier != lqual) continue;
      qualifier_seen = true;
      if (lqual.empty() && c.hidden) continue;
      if (Lower(c.name) == lname) matches.push_back(&c);
    }
    if (matches.size() > 1) {
      std::string list;
      for (size_t i = 0; i < matches.size(); ++i) {
        list += (i ? ", " : "") +
                (matches[i]->qualifier.empty() ? "" : matches[i]->qualifier + ".") +
                matches[i]->name;
      }
      return b.Error("column reference " + name + " is ambiguous (could be " + list + ")",
                     location);
    }
    if (matches.size() == 1) {
      if (depth > 1) {
        return b.Unsupported("correlated column " + name + " from a query two or more levels out",
                             location);
      }
      const ScopeColumn& c = *matches[0];
      auto e = MakeColumnRef(c.index, c.type, c.nullable, c.name);
      e->outer_depth = depth;
      e->pos = b.Pos(location);
      return e;
    }
  }
  if (!qualifier_seen) {
    std::vector<std::string> tables;
    for (const Scope* s = &scope; s != nullptr; s = s->parent) {
      for (const auto& c : s->columns) {
        if (!c.qualifier.empty()) tables.push_back(c.qualifier);
      }
    }
    const std::string hint = ClosestName(qualifier, tables);
    return b.Error("table " + qualifier + " not found in FROM" +
                       (hint.empty() ? "" : "; did you mean " + hint + "?"),
                   location);
  }
  std::vector<std::string> candidates;
  for (const Scope* s = &scope; s != nullptr; s = s->parent) {
    for (const auto& c : s->columns) {
      if (lqual.empty() || c.qualifier == lqual) candidates.push_back(c.name);
    }
  }
  const std::string full = qualifier.empty() ? name : qualifier + "." + name;
  const std::string hint = ClosestName(name, candidates);
  return b.Error(
      "column " + full + " not found" + (hint.empty() ? "" : "; did you mean " + hint + "?"),
      location);
}

bool IsUntypedNull(const Expr& e) {
  return e.kind == ExprKind::kLiteral && e.literal.is_null && e.name == "__untyped_null";
}

ExprPtr MakeUntypedNull() {
  auto e = MakeLiteral(Value::Null(DataType::Int32()));
  e->name = "__untyped_null";
  return e;
}

ExprPtr WithPos(ExprPtr e, const SourcePos& pos) {
  e->pos = pos;
  return e;
}

ExprPtr CastTo(const ExprPtr& e, const DataType& type) {
  if (IsUntypedNull(*e)) {
    auto lit = MakeLiteral(Value::Null(type));
    lit->pos = e->pos;
    return lit;
  }
  if (e->type == type) return e;
  return MakeCast(e, type);
}

Result<ExprPtr> RemapOuterRefsInExpr(const ExprPtr& e, int level, const OuterRefMap& map) {
  auto copy = std::make_shared<Expr>(*e);
  if (copy->kind == ExprKind::kColumnRef && copy->outer_depth == level) {
    TANDEM_ASSIGN_OR_RAISE(copy->column_index, map(*e));
  }
  for (auto& a : copy->args) {
    TANDEM_ASSIGN_OR_RAISE(a, RemapOuterRefsInExpr(a, level, map));
  }
  if (copy->kind == ExprKind::kSubquery && copy->subquery) {
    // The subquery plan is bound freshly for this expression; copy its nodes so that a shared
    // expression is never remapped twice.
    auto plan = std::make_shared<PlanNode>(*copy->subquery);
    TANDEM_RETURN_NOT_OK(RemapOuterRefs(*plan, level + 1, map));
    copy->subquery = plan;
  }
  return copy;
}

Status RemapOuterRefs(PlanNode& plan, int level, const OuterRefMap& map) {
  auto fix = [&](ExprPtr& e) -> Status {
    if (!e) return Status::OK();
    TANDEM_ASSIGN_OR_RAISE(e, RemapOuterRefsInExpr(e, level, map));
    return Status::OK();
  };
  TANDEM_RETURN_NOT_OK(fix(plan.predicate));
  for (auto& e : plan.exprs) TANDEM_RETURN_NOT_OK(fix(e));
  for (auto& e : plan.group_keys) TANDEM_RETURN_NOT_OK(fix(e));
  for (auto& a : plan.aggregates) {
    TANDEM_RETURN_NOT_OK(fix(a.arg));
    TANDEM_RETURN_NOT_OK(fix(a.filter));
  }
  for (auto& e : plan.left_keys) TANDEM_RETURN_NOT_OK(fix(e));
  for (auto& e : plan.right_keys) TANDEM_RETURN_NOT_OK(fix(e));
  TANDEM_RETURN_NOT_OK(fix(plan.condition));
  for (auto& k : plan.sort_keys) TANDEM_RETURN_NOT_OK(fix(k.expr));
  for (auto& w : plan.windows) {
    for (auto& e : w.args) TANDEM_RETURN_NOT_OK(fix(e));
    for (auto& e : w.partition_by) TANDEM_RETURN_NOT_OK(fix(e));
    for (auto& k : w.order_by) TANDEM_RETURN_NOT_OK(fix(k.expr));
  }
  for (auto& c : plan.children) {
    c = std::make_shared<PlanNode>(*c);
    TANDEM_RETURN_NOT_OK(RemapOuterRefs(*c, level, map));
  }
  return Status::OK();
}

const CteDef* FindCte(const CteList& list, const std::string& name) {
  for (const CteNode* node = list.get(); node; node = node->previous.get()) {
    if (node->def.name == name) return &node->def;
  }
  return nullptr;
}

std::vector<std::string> IdentifiersAt(const std::string& sql, int location) {
  std::vector<std::string> parts;
  if (location < 0) return parts;
  size_t i = static_cast<size_t>(location);
  while (i < sql.size()) {
    std::string part;
    if (sql[i] == '"') {
      for (++i; i < sql.size(); ++i) {
        if (sql[i] == '"') {
          if (i + 1 < sql.size() && sql[i + 1] == '"') {
            part.push_back('"');
            ++i;
            continue;
          }
          ++i;
          break;
        }
        part.push_back(sql[i]);
      }
    } else {
      while (i < sql.size() && (std::isalnum(static_cast<unsigned char>(sql[i])) || sql[i] == '_' ||
                                sql[i] == '$' || static_cast<unsigned char>(sql[i]) >= 0x80)) {
        part.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(sql[i]))));
        ++i;
      }
    }
    if (part.empty()) break;
    parts.push_back(std::move(part));
    if (i >= sql.size() || sql[i] != '.') break;
    ++i;
  }
  return parts;
}

}  // namespace tandem::sql::binder
