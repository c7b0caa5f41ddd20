// Expression constructors, traversal helpers and their text form for EXPLAIN.
#include "tandem/expr/expr.h"

#include "tandem/udf/function.h"

namespace tandem {
namespace {

const char* InfixOperator(const std::string& name) {
  static const std::pair<const char*, const char*> kOps[] = {
      {"add", "+"},    {"subtract", "-"}, {"multiply", "*"},  {"divide", "/"},
      {"modulo", "%"}, {"eq", "="},       {"ne", "<>"},       {"lt", "<"},
      {"le", "<="},    {"gt", ">"},       {"ge", ">="},       {"and", "AND"},
      {"or", "OR"},    {"like", "LIKE"},  {"ilike", "ILIKE"}, {"concat", "||"}};
  for (const auto& [fn, op] : kOps) {
    if (name == fn) return op;
  }
  return nullptr;
}

}  // namespace

std::string Expr::ToString() const {
  switch (kind) {
    case ExprKind::kColumnRef:
      if (!name.empty()) return outer_depth > 0 ? "outer." + name : name;
      return (outer_depth > 0 ? "outer.#" : "#") + std::to_string(column_index);
    case ExprKind::kLiteral:
      return literal.ToString();
    case ExprKind::kCall: {
      if (const char* op = InfixOperator(name); op && args.size() == 2) {
        return "(" + args[0]->ToString() + " " + op + " " + args[1]->ToString() + ")";
      }
      if (name == "not" && args.size() == 1) return "(NOT " + args[0]->ToString() + ")";
      if (name == "is_null" && args.size() == 1) return "(" + args[0]->ToString() + " IS NULL)";
      if (name == "is_not_null" && args.size() == 1) {
        return "(" + args[0]->ToString() + " IS NOT NULL)";
      }
      std::string s = name + "(";
      for (size_t i = 0; i < args.size(); ++i) s += (i ? ", " : "") + args[i]->ToString();
      return s + ")";
    }
    case ExprKind::kCast:
      return std::string(try_cast ? "TRY_CAST(" : "CAST(") + args[0]->ToString() + " AS " +
             type.ToString() + ")";
    case ExprKind::kCase: {
      std::string s = "CASE";
      const size_t pairs = (args.size() - (has_else ? 1 : 0)) / 2;
      for (size_t i = 0; i < pairs; ++i) {
        s += " WHEN " + args[2 * i]->ToString() + " THEN " + args[2 * i + 1]->ToString();
      }
      if (has_else) s += " ELSE " + args.back()->ToString();
      return s + " END";
    }
    case ExprKind::kInList: {
      std::string s = "(" + args[0]->ToString() + (negated ? " NOT IN (" : " IN (");
      for (size_t i = 1; i < args.size(); ++i) s += (i > 1 ? ", " : "") + args[i]->ToString();
      return s + "))";
    }
    case ExprKind::kSubquery: {
      static const char* kKinds[] = {"SCALAR", "EXISTS", "IN", "ANY", "ALL"};
      return std::string(negated ? "NOT " : "") + kKinds[static_cast<int>(subquery_kind)] +
             "(subquery)";
    }
  }
  return "?";
}

ExprPtr MakeColumnRef(int index, DataType type, bool nullable, std::string name) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::kColumnRef;
  e->column_index = index;
  e->type = type;
  e->nullable = nullable;
  e->name = std::move(name);
  return e;
}

ExprPtr MakeLiteral(Value value) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::kLiteral;
  e->type = value.type;
  e->nullable = value.is_null;
  e->literal = std::move(value);
  return e;
}

ExprPtr MakeCall(std::string function, std::vector<ExprPtr> args, DataType type, bool nullable) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::kCall;
  e->name = std::move(function);
  e->args = std::move(args);
  e->type = type;
  e->nullable = nullable;
  return e;
}

ExprPtr MakeCast(ExprPtr arg, DataType type, bool try_cast) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::kCast;
  e->type = type;
  e->nullable = arg->nullable || try_cast;
  e->pos = arg->pos;
  e->try_cast = try_cast;
  e->args.push_back(std::move(arg));
  return e;
}

bool IsConstant(const Expr& e) {
  if (e.kind == ExprKind::kColumnRef || e.kind == ExprKind::kSubquery) return false;
  if (e.udf && !e.udf->deterministic) return false;
  for (const auto& a : e.args) {
    if (!IsConstant(*a)) return false;
  }
  return true;
}

bool SameExpr(const Expr& a, const Expr& b) {
  if (&a == &b) return true;
  if (a.kind != b.kind || a.type != b.type || a.args.size() != b.args.size()) return false;
  switch (a.kind) {
    case ExprKind::kColumnRef:
      if (a.column_index != b.column_index || a.outer_depth != b.outer_depth) return false;
      break;
    case ExprKind::kLiteral:
      if (!(a.literal == b.literal) || a.name != b.name) return false;  // name: typeless NULL
      break;
    case ExprKind::kCall:
      if (a.name != b.name || a.udf != b.udf) return false;
      break;
    case ExprKind::kCast:
      if (a.try_cast != b.try_cast) return false;
      break;
    case ExprKind::kCase:
      if (a.has_else != b.has_else) return false;
      break;
    case ExprKind::kInList:
      if (a.negated != b.negated) return false;
      break;
    case ExprKind::kSubquery:
      return false;  // only itself (above)
  }
  for (size_t i = 0; i < a.args.size(); ++i) {
    if (!SameExpr(*a.args[i], *b.args[i])) return false;
  }
  return true;
}

bool HasNonDeterministicCall(const Expr& e) {
  if (e.udf && !e.udf->deterministic) return true;
  for (const auto& a : e.args) {
    if (HasNonDeterministicCall(*a)) return true;
  }
  return false;
}

void CollectColumns(const Expr& e, std::vector<int>* columns) {
  if (e.kind == ExprKind::kColumnRef && e.outer_depth == 0) columns->push_back(e.column_index);
  for (const auto& a : e.args) CollectColumns(*a, columns);
}

ExprPtr RemapColumns(const ExprPtr& e, const std::vector<int>& mapping) {
  if (!e) return e;
  auto copy = std::make_shared<Expr>(*e);
  if (copy->kind == ExprKind::kColumnRef && copy->outer_depth == 0) {
    copy->column_index = mapping.at(static_cast<size_t>(copy->column_index));
  }
  for (auto& a : copy->args) a = RemapColumns(a, mapping);
  return copy;
}

}  // namespace tandem
