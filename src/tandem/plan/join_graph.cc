// The join graph of a region of inner joins (see join_graph.h).
#include "tandem/plan/join_graph.h"

#include <algorithm>
#include <numeric>
#include <utility>

#include "tandem/plan/rewrite_util.h"

namespace tandem::plan {
namespace {

// Whether `e` is `column = column` over two plain columns of this query level and one type
// whose equality is transitive.
bool IsColumnEquality(const Expr& e) {
  if (e.kind != ExprKind::kCall || e.name != "eq" || e.args.size() != 2) return false;
  for (const auto& arg : e.args) {
    if (arg->kind != ExprKind::kColumnRef || arg->outer_depth != 0) return false;
  }
  return e.args[0]->type == e.args[1]->type && !e.args[0]->type.is_floating();
}

int Find(std::vector<int>& parent, int x) {
  while (parent[x] != x) x = parent[x] = parent[parent[x]];
  return x;
}

// The first member of `k` inside the leaves `mask`, or null.
const ExprPtr* MemberIn(const EqualColumns& k, uint64_t mask) {
  for (size_t i = 0; i < k.members.size(); ++i) {
    if (k.member_leaf[i] & mask) return &k.members[i];
  }
  return nullptr;
}

}  // namespace

JoinGraph BuildJoinGraph(const std::vector<ExprPtr>& conjuncts, const std::vector<int>& offsets,
                         const std::vector<int>& widths, bool use_classes) {
  JoinGraph g;
  g.offsets = offsets;
  for (size_t i = 0; i < widths.size(); ++i) {
    g.leaf_of.insert(g.leaf_of.end(), static_cast<size_t>(widths[i]), static_cast<int>(i));
  }
  g.width = static_cast<int>(g.leaf_of.size());
  auto leaf_bit = [&](int column) { return uint64_t{1} << g.leaf_of[column]; };
  auto mask_of = [&](const Expr& e) {
    uint64_t mask = 0;
    for (int c : ColumnsOf(e)) mask |= leaf_bit(c);
    return mask;
  };

  // Union the columns of equalities between two inputs.
  std::vector<int> parent(static_cast<size_t>(g.width));
  std::iota(parent.begin(), parent.end(), 0);
  std::vector<bool> equality(conjuncts.size(), false);
  for (size_t i = 0; i < conjuncts.size() && use_classes; ++i) {
    const Expr& e = *conjuncts[i];
    if (!IsColumnEquality(e)) continue;
    const int a = e.args[0]->column_index, b = e.args[1]->column_index;
    if (g.leaf_of[a] == g.leaf_of[b]) continue;
    equality[i] = true;
    parent[Find(parent, a)] = Find(parent, b);
  }
  // One class per root, its members in the order the conjuncts name them; a class with two
  // members in one input gives its equalities back as predicates.
  std::vector<int> class_of_root(static_cast<size_t>(g.width), -1);
  std::vector<bool> broken;
  std::vector<std::vector<size_t>> class_conjuncts;
  for (size_t i = 0; i < conjuncts.size(); ++i) {
    if (!equality[i]) continue;
    const int root = Find(parent, conjuncts[i]->args[0]->column_index);
    int& k = class_of_root[root];
    if (k < 0) {
      k = static_cast<int>(g.classes.size());
      g.classes.emplace_back();
      g.classes.back().order = i;
      broken.push_back(false);
      class_conjuncts.emplace_back();
    }
    class_conjuncts[k].push_back(i);
    EqualColumns& cls = g.classes[k];
    for (const auto& arg : conjuncts[i]->args) {
      const bool known = std::any_of(cls.members.begin(), cls.members.end(), [&](const ExprPtr& m) {
        return m->column_index == arg->column_index;
      });
      if (known) continue;
      const uint64_t bit = leaf_bit(arg->column_index);
      if (cls.mask & bit) broken[k] = true;
      cls.members.push_back(arg);
      cls.member_leaf.push_back(bit);
      cls.mask |= bit;
    }
  }
  std::vector<EqualColumns> kept;
  for (size_t k = 0; k < g.classes.size(); ++k) {
    if (!broken[k]) {
      kept.push_back(std::move(g.classes[k]));
      continue;
    }
    for (size_t i : class_conjuncts[k]) equality[i] = false;
  }
  g.classes = std::move(kept);
  for (size_t i = 0; i < conjuncts.size(); ++i) {
    if (!equality[i]) g.preds.push_back({conjuncts[i], mask_of(*conjuncts[i]), i});
  }
  return g;
}

bool Connected(const JoinGraph& graph, uint64_t a, uint64_t b) {
  const uint64_t both = a | b;
  for (const auto& p : graph.preds) {
    if (p.mask != 0 && (p.mask & ~both) == 0 && (p.mask & a) && (p.mask & b)) return true;
  }
  for (const auto& k : graph.classes) {
    if ((k.mask & a) && (k.mask & b)) return true;
  }
  return false;
}

JoinCandidate EvaluateJoin(const JoinTree& left, const JoinTree& right, const JoinGraph& graph) {
  std::vector<int> position(static_cast<size_t>(graph.width), -1);
  for (size_t i = 0; i < left.cols.size(); ++i) position[left.cols[i]] = static_cast<int>(i);
  for (size_t i = 0; i < right.cols.size(); ++i) {
    position[right.cols[i]] = static_cast<int>(left.cols.size() + i);
  }
  const uint64_t both = left.mask | right.mask;
  // In the order the query wrote them, so that keys keep the order they had as written (the plans
  // of the greedy order stay exactly what they were before classes).
  std::vector<std::pair<size_t, ExprPtr>> ordered;
  for (const auto& k : graph.classes) {
    const ExprPtr* l = MemberIn(k, left.mask);
    const ExprPtr* r = MemberIn(k, right.mask);
    if (!l || !r) continue;
    ordered.emplace_back(
        k.order, MakeBoolCall("eq", {RemapColumns(*l, position), RemapColumns(*r, position)}));
  }
  for (const auto& p : graph.preds) {
    if (p.mask == 0 || (p.mask & ~both) != 0) continue;
    if ((p.mask & left.mask) == 0 || (p.mask & right.mask) == 0) continue;
    ordered.emplace_back(p.order, RemapColumns(p.expr, position));
  }
  std::sort(ordered.begin(), ordered.end(),
            [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<ExprPtr> conjuncts;
  for (auto& o : ordered) conjuncts.push_back(std::move(o.second));
  JoinCandidate c;
  SplitJoinConjuncts(conjuncts, static_cast<int>(left.cols.size()), &c.left_keys, &c.right_keys,
                     &c.rest);
  c.rows = EstimateJoinRows(left.est, right.est, JoinType::kInner, c.left_keys, c.right_keys,
                            CombineConjuncts(c.rest));
  return c;
}

double JoinWeight(const JoinCandidate& c, const JoinTree& a, const JoinTree& b, bool by_bytes) {
  return by_bytes ? c.rows * (a.row_bytes + b.row_bytes) : c.rows;
}

JoinTree JoinTrees(const JoinTree& a, const JoinTree& b, const JoinGraph& graph) {
  const bool a_probes = a.est.rows >= b.est.rows;
  const JoinTree& left = a_probes ? a : b;
  const JoinTree& right = a_probes ? b : a;
  JoinCandidate c = EvaluateJoin(left, right, graph);
  JoinTree t;
  t.plan = MakeJoin(left.plan, right.plan, JoinType::kInner, c.left_keys, c.right_keys,
                    CombineConjuncts(c.rest));
  t.est = EstimateNode(*t.plan, {left.est, right.est});
  t.plan->estimated_rows = t.est.rows;
  t.cols = left.cols;
  t.cols.insert(t.cols.end(), right.cols.begin(), right.cols.end());
  t.mask = left.mask | right.mask;
  t.row_bytes = left.row_bytes + right.row_bytes;
  return t;
}

}  // namespace tandem::plan
