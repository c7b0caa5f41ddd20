// Greedy join ordering (see join_order.h).
#include "tandem/plan/join_order.h"

#include <algorithm>
#include <cstdint>
#include <limits>

#include "tandem/plan/cardinality.h"
#include "tandem/plan/prune_columns.h"
#include "tandem/plan/pushdown.h"
#include "tandem/plan/rewrite_util.h"

namespace tandem::plan {
namespace {

// Joins the greedy search may rearrange.
bool IsReorderable(const PlanNode& n) {
  return n.kind == PlanKind::kJoin && n.join_type == JoinType::kInner && !n.null_aware;
}

// What the search weighs a join by: its estimated rows, or (by_bytes) its rows times the bytes
// of the columns it carries, as pruning will leave them (`kept_of`).
struct Weighing {
  bool by_bytes = false;
  const KeptColumns* kept_of = nullptr;
};

// Estimated bytes of a row of `leaf` once pruned: the columns it keeps, else (not known) its
// whole schema. 1 when joins are weighed by rows.
double LeafRowBytes(const PlanNode& leaf, const Weighing& w) {
  if (!w.by_bytes) return 1;
  double bytes = 0;
  const auto kept = w.kept_of ? w.kept_of->find(&leaf) : KeptColumns::const_iterator{};
  if (w.kept_of && kept != w.kept_of->end()) {
    for (int c : kept->second) bytes += leaf.schema.field(c).type.estimated_bytes();
  } else {
    for (const Field& f : leaf.schema.fields) bytes += f.type.estimated_bytes();
  }
  return std::max(bytes, 1.0);
}

struct Region {
  std::vector<PlanPtr> leaves;
  std::vector<double> leaf_row_bytes;
  std::vector<int> offsets;    // first global column of each leaf
  std::vector<ExprPtr> preds;  // over all leaves' columns, in original order
  int width = 0;
};

PlanPtr Reorder(const PlanPtr& node, const Weighing& w);

void Flatten(const PlanPtr& node, const Weighing& w, Region* region) {
  if (!IsReorderable(*node)) {
    region->leaf_row_bytes.push_back(LeafRowBytes(*node, w));
    region->leaves.push_back(Reorder(node, w));
    region->offsets.push_back(region->width);
    region->width += node->schema.num_fields();
    return;
  }
  const int offset = region->width;
  Flatten(node->children[0], w, region);
  Flatten(node->children[1], w, region);
  for (const auto& c : JoinConjuncts(*node)) region->preds.push_back(ShiftColumns(c, offset));
}

struct Tree {
  PlanPtr plan;
  RelEstimate est;
  std::vector<int> cols;  // global column of each output column
  uint64_t mask = 0;      // leaves it contains
  double row_bytes = 1;   // estimated, as pruning will leave it
};

struct Pred {
  ExprPtr expr;  // global columns
  uint64_t mask = 0;
  bool applied = false;
};

ExprPtr ToLocal(const ExprPtr& e, const std::vector<int>& position) {
  return RewriteColumnRefs(e, [&](const Expr& ref) -> ExprPtr {
    if (ref.outer_depth != 0) return nullptr;
    auto c = std::make_shared<Expr>(ref);
    c->column_index = position.at(static_cast<size_t>(ref.column_index));
    return c;
  });
}

struct Candidate {
  std::vector<ExprPtr> left_keys, right_keys, rest;
  std::vector<size_t> preds;
  double rows = 0;
  double weight = 0;  // what the search minimizes (see Weighing)
};

// The join of trees a (left) and b (right) with the predicates they complete.
Candidate Evaluate(const Tree& a, const Tree& b, const std::vector<Pred>& preds, int width,
                   const Weighing& w) {
  Candidate c;
  std::vector<int> position(static_cast<size_t>(width), -1);
  for (size_t i = 0; i < a.cols.size(); ++i) position[a.cols[i]] = static_cast<int>(i);
  for (size_t i = 0; i < b.cols.size(); ++i) {
    position[b.cols[i]] = static_cast<int>(a.cols.size() + i);
  }
  const uint64_t both = a.mask | b.mask;
  std::vector<ExprPtr> conjuncts;
  for (size_t i = 0; i < preds.size(); ++i) {
    const Pred& p = preds[i];
    if (p.applied || p.mask == 0 || (p.mask & ~both) != 0) continue;
    if ((p.mask & a.mask) == 0 || (p.mask & b.mask) == 0) continue;
    conjuncts.push_back(ToLocal(p.expr, position));
    c.preds.push_back(i);
  }
  SplitJoinConjuncts(conjuncts, static_cast<int>(a.cols.size()), &c.left_keys, &c.right_keys,
                     &c.rest);
  c.rows = EstimateJoinRows(a.est, b.est, JoinType::kInner, c.left_keys, c.right_keys,
                            CombineConjuncts(c.rest));
  c.weight = w.by_bytes ? c.rows * (a.row_bytes + b.row_bytes) : c.rows;
  return c;
}

PlanPtr ReorderRegion(const PlanPtr& root, const Weighing& w) {
  Region region;
  Flatten(root, w, &region);
  const size_t n = region.leaves.size();
  if (n > 64) {
    std::vector<PlanPtr> children;
    for (const auto& c : root->children) children.push_back(Reorder(c, w));
    return WithChildren(*root, std::move(children));
  }
  std::vector<int> leaf_of(static_cast<size_t>(region.width));
  std::vector<Tree> trees;
  for (size_t i = 0; i < n; ++i) {
    Tree t;
    t.plan = region.leaves[i];
    t.est = EstimatePlan(*t.plan);
    t.mask = uint64_t{1} << i;
    t.row_bytes = region.leaf_row_bytes[i];
    for (int c = 0; c < t.plan->schema.num_fields(); ++c) {
      t.cols.push_back(region.offsets[i] + c);
      leaf_of[region.offsets[i] + c] = static_cast<int>(i);
    }
    trees.push_back(std::move(t));
  }
  std::vector<Pred> preds;
  for (const auto& e : region.preds) {
    Pred p{e, 0, false};
    for (int c : ColumnsOf(*e)) p.mask |= uint64_t{1} << leaf_of[c];
    preds.push_back(std::move(p));
  }
  // Predicates on a single input (rare after pushdown) filter that input first.
  for (size_t i = 0; i < n; ++i) {
    std::vector<ExprPtr> own;
    for (auto& p : preds) {
      if (!p.applied && p.mask == trees[i].mask) {
        own.push_back(ShiftColumns(p.expr, -region.offsets[i]));
        p.applied = true;
      }
    }
    if (!own.empty()) {
      trees[i].plan = MakeFilter(trees[i].plan, CombineConjuncts(own));
      trees[i].est = EstimatePlan(*trees[i].plan);
    }
  }
  while (trees.size() > 1) {
    size_t best_a = 0, best_b = 0;
    Candidate best;
    bool found = false, best_expands = false;
    for (size_t a = 0; a < trees.size(); ++a) {
      for (size_t b = a + 1; b < trees.size(); ++b) {
        Candidate c = Evaluate(trees[a], trees[b], preds, region.width, w);
        if (c.preds.empty()) continue;
        // A join that yields more rows than its larger input (many-to-many, such as
        // c_nationkey = s_nationkey) waits while joins that do not are left.
        const bool expands = c.rows > 1.001 * std::max(trees[a].est.rows, trees[b].est.rows);
        const bool better = !found || (best_expands && !expands) ||
                            (best_expands == expands && c.weight < best.weight);
        if (better) {
          found = true;
          best_expands = expands;
          best = std::move(c);
          best_a = a;
          best_b = b;
        }
      }
    }
    if (!found) {
      // No predicate connects any two inputs: cross the two smallest.
      best_a = 0;
      best_b = 1;
      for (size_t i = 0; i < trees.size(); ++i) {
        if (trees[i].est.rows < trees[best_a].est.rows) best_a = i;
      }
      if (best_b == best_a) best_b = 0;
      for (size_t i = 0; i < trees.size(); ++i) {
        if (i != best_a && trees[i].est.rows < trees[best_b].est.rows) best_b = i;
      }
    }
    // The larger input probes (left); the smaller one is the build side (right).
    size_t left = best_a, right = best_b;
    if (trees[left].est.rows < trees[right].est.rows) std::swap(left, right);
    Candidate c = Evaluate(trees[left], trees[right], preds, region.width, w);
    for (size_t i : c.preds) preds[i].applied = true;
    Tree t;
    t.plan = MakeJoin(trees[left].plan, trees[right].plan, JoinType::kInner, c.left_keys,
                      c.right_keys, CombineConjuncts(c.rest));
    t.est = EstimateNode(*t.plan, {trees[left].est, trees[right].est});
    t.plan->estimated_rows = t.est.rows;
    t.cols = trees[left].cols;
    t.cols.insert(t.cols.end(), trees[right].cols.begin(), trees[right].cols.end());
    t.mask = trees[left].mask | trees[right].mask;
    t.row_bytes = trees[left].row_bytes + trees[right].row_bytes;
    trees.erase(trees.begin() + static_cast<std::ptrdiff_t>(std::max(left, right)));
    trees.erase(trees.begin() + static_cast<std::ptrdiff_t>(std::min(left, right)));
    trees.push_back(std::move(t));
  }
  Tree& t = trees[0];
  std::vector<int> position(static_cast<size_t>(region.width), -1);
  for (size_t i = 0; i < t.cols.size(); ++i) position[t.cols[i]] = static_cast<int>(i);
  std::vector<ExprPtr> left_over;
  for (const auto& p : preds) {
    if (!p.applied) left_over.push_back(ToLocal(p.expr, position));
  }
  PlanPtr out = t.plan;
  if (!left_over.empty()) out = MakeFilter(out, CombineConjuncts(left_over));
  bool identity = true;
  for (size_t i = 0; i < t.cols.size(); ++i)
    identity = identity && t.cols[i] == static_cast<int>(i);
  if (!identity) {
    std::vector<int> cols;
    for (int g = 0; g < region.width; ++g) cols.push_back(position[g]);
    out = ProjectColumns(out, cols);
  }
  return out;
}

PlanPtr Reorder(const PlanPtr& node, const Weighing& w) {
  if (IsReorderable(*node)) return ReorderRegion(node, w);
  std::vector<PlanPtr> children;
  for (const auto& c : node->children) children.push_back(Reorder(c, w));
  return WithChildren(*node, std::move(children));
}

}  // namespace

PlanPtr ReorderJoins(const PlanPtr& plan, bool by_bytes) {
  Weighing w;
  w.by_bytes = by_bytes;
  KeptColumns kept_of;
  if (by_bytes) {
    kept_of = ColumnsEachNodeKeeps(plan);
    w.kept_of = &kept_of;
  }
  return ReduceAggregateInputs(Reorder(plan, w));
}

}  // namespace tandem::plan
