// SharedSubplans: fingerprints of the candidate subtrees, counted over the plan.
#include "tandem/exec/shared_subplans.h"

#include <cstdio>
#include <cstring>
#include <iterator>
#include <vector>

namespace tandem {
namespace {

// Outputs above this many estimated rows are not kept (recomputing beats holding them).
constexpr double kMaxKeptRows = 4e6;

void AppendExpr(const Expr* e, std::string* out) {
  if (!e) {
    out->append("_");
    return;
  }
  out->append("(");
  out->append(std::to_string(static_cast<int>(e->kind)));
  out->append(":" + e->type.ToString() + (e->nullable ? "?" : "!"));
  switch (e->kind) {
    case ExprKind::kColumnRef:
      out->append("#" + std::to_string(e->column_index) + "^" + std::to_string(e->outer_depth));
      break;
    case ExprKind::kLiteral: {
      // The raw fields: a printed form may round doubles.
      const Value& v = e->literal;
      uint64_t bits = 0;
      std::memcpy(&bits, &v.f64, sizeof(bits));
      out->append("=" + v.type.ToString() + (v.is_null ? "N" : "") + ":" + std::to_string(v.i64) +
                  ":" + std::to_string(static_cast<int64_t>(v.i128 >> 64)) + "." +
                  std::to_string(static_cast<uint64_t>(v.i128)) + ":" + std::to_string(bits) + ":" +
                  std::to_string(v.str.size()) + ":" + v.str);
    } break;
    default:
      out->append(e->name);
      break;
  }
  if (e->try_cast) out->append("t");
  if (e->has_else) out->append("e");
  if (e->negated) out->append("n");
  if (e->udf) {
    char ptr[32];
    std::snprintf(ptr, sizeof(ptr), "@%p", static_cast<const void*>(e->udf.get()));
    out->append(ptr);
  }
  for (const auto& a : e->args) AppendExpr(a.get(), out);
  out->append(")");
}

void AppendExprs(const std::vector<ExprPtr>& exprs, std::string* out) {
  out->append("[");
  for (const auto& e : exprs) AppendExpr(e.get(), out);
  out->append("]");
}

bool Deterministic(const std::vector<ExprPtr>& exprs) {
  for (const auto& e : exprs) {
    if (e && HasNonDeterministicCall(*e)) return false;
  }
  return true;
}

struct Fingerprint {
  std::string text;  // empty: the subtree is not a candidate
  bool expensive = false;
};

class Fingerprinter {
 public:
  explicit Fingerprinter(const ExecContext& ctx) : ctx_(ctx) {}

  // Fingerprints every node of the tree (children first); returns the root's.
  Fingerprint Visit(const PlanNode& node) {
    std::vector<Fingerprint> children;
    bool all = true;
    bool expensive = false;
    for (const auto& c : node.children) {
      if (!c) return Fingerprint{};
      children.push_back(Visit(*c));
      all &= !children.back().text.empty();
      expensive |= children.back().expensive;
    }
    Fingerprint f;
    if (!all || node.device != Device::kCpu) return f;
    std::string s = std::to_string(static_cast<int>(node.kind)) + "{";
    std::vector<ExprPtr> exprs;  // the node's expressions, for the determinism check
    switch (node.kind) {
      case PlanKind::kScan: {
        if (!node.source) return f;
        char ptr[32];
        std::snprintf(ptr, sizeof(ptr), "%p", static_cast<const void*>(node.source.get()));
        s += ptr;
        for (int c : node.scan_columns) s += "," + std::to_string(c);
        // Pruning predicates decide which row groups are read: every value exactly (a double's
        // bits, a string's length and bytes), so that no two differ only past printed digits.
        for (const auto& p : node.scan_predicates) {
          s += "|" + std::to_string(p.column.size()) + ":" + p.column + ":" +
               std::to_string(static_cast<int>(p.op)) + ":" + std::to_string(p.value.index()) + ":";
          if (const auto* i = std::get_if<int64_t>(&p.value)) s += std::to_string(*i);
          if (const auto* d = std::get_if<double>(&p.value)) {
            uint64_t bits = 0;
            std::memcpy(&bits, d, sizeof(bits));
            s += std::to_string(bits);
          }
          if (const auto* t = std::get_if<std::string>(&p.value)) {
            s += std::to_string(t->size()) + ":" + *t;
          }
          if (const auto* w = std::get_if<__int128>(&p.value)) {
            s += std::to_string(static_cast<int64_t>(*w >> 64)) + "." +
                 std::to_string(static_cast<uint64_t>(*w));
          }
        }
        break;
      }
      case PlanKind::kFilter:
        AppendExpr(node.predicate.get(), &s);
        exprs.push_back(node.predicate);
        break;
      case PlanKind::kProject:
        AppendExprs(node.exprs, &s);
        exprs = node.exprs;
        break;
      case PlanKind::kAggregate:
        if (!node.grouping_sets.empty()) return f;
        AppendExprs(node.group_keys, &s);
        exprs = node.group_keys;
        for (const AggregateCall& a : node.aggregates) {
          s += "<" + std::to_string(static_cast<int>(a.kind)) + (a.distinct ? "d" : "") +
               a.type.ToString();
          AppendExpr(a.arg.get(), &s);
          AppendExpr(a.filter.get(), &s);
          s += ">";
          exprs.push_back(a.arg);
          exprs.push_back(a.filter);
        }
        expensive = true;
        break;
      case PlanKind::kJoin:
        s += std::to_string(static_cast<int>(node.join_type)) + (node.null_aware ? "n" : "");
        AppendExprs(node.left_keys, &s);
        AppendExprs(node.right_keys, &s);
        AppendExpr(node.condition.get(), &s);
        exprs = node.left_keys;
        exprs.insert(exprs.end(), node.right_keys.begin(), node.right_keys.end());
        exprs.push_back(node.condition);
        expensive = true;
        break;
      default:
        return f;
    }
    if (!Deterministic(exprs)) return f;
    for (const Field& field : node.schema.fields) s += ";" + field.type.ToString();
    s += "|budget " + std::to_string(ctx_.RowBudget(&node));
    for (const Fingerprint& c : children) s += c.text;
    s += "}";
    f.text = std::move(s);
    f.expensive = expensive;
    if (expensive && node.estimated_rows >= 0 && node.estimated_rows <= kMaxKeptRows) {
      found.emplace_back(&node, f.text);
    }
    return f;
  }

  std::vector<std::pair<const PlanNode*, std::string>> found;

 private:
  const ExecContext& ctx_;
};

}  // namespace

namespace {

// Registers the outermost occurrences only: inside a shared subtree, whose second occurrence is
// never run, nothing else needs keeping.
void MarkOutermost(const PlanNode& node, const std::map<const PlanNode*, std::string>& shared,
                   std::map<const PlanNode*, std::string>* key) {
  if (auto it = shared.find(&node); it != shared.end()) {
    (*key)[&node] = it->second;
    return;
  }
  for (const auto& c : node.children) {
    if (c) MarkOutermost(*c, shared, key);
  }
}

}  // namespace

SharedSubplans::SharedSubplans(const PlanNode& root, const ExecContext& ctx) {
  Fingerprinter fp(ctx);
  fp.Visit(root);
  std::map<std::string, int> count;
  for (const auto& [node, text] : fp.found) ++count[text];
  std::map<const PlanNode*, std::string> shared;
  for (const auto& [node, text] : fp.found) {
    if (count[text] >= 2) shared[node] = text;
  }
  MarkOutermost(root, shared, &key_);
  for (const auto& [node, text] : key_) ++entries_[text].occurrences;
  // A subplan whose other occurrences all lie inside shared subtrees runs once anyway.
  for (auto it = key_.begin(); it != key_.end();) {
    it = entries_[it->second].occurrences < 2 ? key_.erase(it) : std::next(it);
  }
}

std::optional<Table> SharedSubplans::Reuse(const PlanNode* node) {
  auto k = key_.find(node);
  if (k == key_.end()) return std::nullopt;
  Entry& e = entries_[k->second];
  if (!e.output) return std::nullopt;
  std::optional<Table> out = e.output;
  e.served.insert(node);
  if (static_cast<int>(e.served.size()) >= e.occurrences) e.output.reset();  // the last use
  return out;
}

void SharedSubplans::Keep(const PlanNode* node, const Table& out) {
  auto k = key_.find(node);
  if (k == key_.end()) return;
  Entry& e = entries_[k->second];
  if (e.output || e.served.count(node)) return;
  e.output = out;
  e.served.insert(node);
}

int SharedSubplans::Occurrences(const PlanNode* node) const {
  auto k = key_.find(node);
  if (k == key_.end()) return 0;
  return entries_.at(k->second).occurrences;
}

}  // namespace tandem
