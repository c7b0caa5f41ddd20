// Greedy join ordering (see join_order.h).
#include "tandem/plan/join_order.h"

#include <algorithm>
#include <cstdint>
#include <limits>

#include "tandem/plan/cardinality.h"
#include "tandem/plan/join_enumeration.h"
#include "tandem/plan/join_graph.h"
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
  bool enumerate = false;  // join_enumeration.h where it applies, else greedy
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

// Greedy (GOO): join the connected pair whose join weighs least, until one tree is left.
JoinTree JoinGreedily(std::vector<JoinTree> trees, const JoinGraph& graph, bool by_bytes) {
  while (trees.size() > 1) {
    size_t best_a = 0, best_b = 0;
    double best_weight = 0;
    bool found = false, best_expands = false;
    for (size_t a = 0; a < trees.size(); ++a) {
      for (size_t b = a + 1; b < trees.size(); ++b) {
        if (!Connected(graph, trees[a].mask, trees[b].mask)) continue;
        const JoinCandidate c = EvaluateJoin(trees[a], trees[b], graph);
        // A join that yields more rows than its larger input (many-to-many, such as
        // c_nationkey = s_nationkey) waits while joins that do not are left.
        const bool expands = c.rows > 1.001 * std::max(trees[a].est.rows, trees[b].est.rows);
        const double weight = JoinWeight(c, trees[a], trees[b], by_bytes);
        const bool better = !found || (best_expands && !expands) ||
                            (best_expands == expands && weight < best_weight);
        if (better) {
          found = true;
          best_expands = expands;
          best_weight = weight;
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
    JoinTree t = JoinTrees(trees[best_a], trees[best_b], graph);
    trees.erase(trees.begin() + static_cast<std::ptrdiff_t>(std::max(best_a, best_b)));
    trees.erase(trees.begin() + static_cast<std::ptrdiff_t>(std::min(best_a, best_b)));
    trees.push_back(std::move(t));
  }
  return std::move(trees[0]);
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
  std::vector<int> widths;
  std::vector<JoinTree> trees;
  for (size_t i = 0; i < n; ++i) {
    JoinTree t;
    t.plan = region.leaves[i];
    t.est = EstimatePlan(*t.plan);
    t.mask = uint64_t{1} << i;
    t.row_bytes = region.leaf_row_bytes[i];
    for (int c = 0; c < t.plan->schema.num_fields(); ++c) t.cols.push_back(region.offsets[i] + c);
    widths.push_back(t.plan->schema.num_fields());
    trees.push_back(std::move(t));
  }
  JoinGraph graph = BuildJoinGraph(region.preds, region.offsets, widths, w.enumerate);
  // Predicates on a single input (rare after pushdown) filter that input first.
  for (size_t i = 0; i < n; ++i) {
    std::vector<ExprPtr> own;
    for (auto p = graph.preds.begin(); p != graph.preds.end();) {
      if (p->mask != trees[i].mask) {
        ++p;
        continue;
      }
      own.push_back(ShiftColumns(p->expr, -region.offsets[i]));
      p = graph.preds.erase(p);
    }
    if (!own.empty()) {
      trees[i].plan = MakeFilter(trees[i].plan, CombineConjuncts(own));
      trees[i].est = EstimatePlan(*trees[i].plan);
    }
  }
  JoinTree t;
  if (!w.enumerate || !EnumerateJoins(trees, graph, w.by_bytes, &t)) {
    t = JoinGreedily(std::move(trees), graph, w.by_bytes);
  }
  std::vector<int> position(static_cast<size_t>(region.width), -1);
  for (size_t i = 0; i < t.cols.size(); ++i) position[t.cols[i]] = static_cast<int>(i);
  // Predicates that read no column were in no join.
  std::vector<ExprPtr> left_over;
  for (const auto& p : graph.preds) {
    if (p.mask == 0) left_over.push_back(p.expr);
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

PlanPtr ReorderJoins(const PlanPtr& plan, bool by_bytes, bool enumerate) {
  Weighing w;
  w.by_bytes = by_bytes;
  w.enumerate = enumerate;
  KeptColumns kept_of;
  if (by_bytes) {
    kept_of = ColumnsEachNodeKeeps(plan);
    w.kept_of = &kept_of;
  }
  return ReduceAggregateInputs(Reorder(plan, w));
}

}  // namespace tandem::plan
