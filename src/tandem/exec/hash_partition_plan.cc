// Hash partitions of a GPU part (hash_partition_plan.h): key classes from the equi-joins, each
// node's partitioning under a class, the top and the inputs computed once.
#include "tandem/exec/hash_partition_plan.h"

#include <algorithm>
#include <map>
#include <set>

#include "tandem/plan/fusion.h"

namespace tandem {
namespace {

using Origin = std::pair<const PlanNode*, int>;  // a scan and one of its output columns

const Expr* PlainRef(const ExprPtr& e) {
  return e && e->kind == ExprKind::kColumnRef && e->outer_depth == 0 ? e.get() : nullptr;
}

int RefIndex(const ExprPtr& e) {
  const Expr* r = PlainRef(e);
  return r ? r->column_index : -1;
}

bool OutputHasRight(JoinType t) {
  return t != JoinType::kSemi && t != JoinType::kAnti && t != JoinType::kMark;
}

// The scan column whose values an output column of `node` copies, through filters, projections,
// aggregation keys and joins (NULL-extended or not: only the join pairs use it); with
// `inputs`, a transition's column is a source of its own too.
std::optional<Origin> OriginOf(const PlanNode& node, int col, bool inputs) {
  if (col < 0) return std::nullopt;
  switch (node.kind) {
    case PlanKind::kScan:
      return Origin{&node, col};
    case PlanKind::kTransition:
      if (!inputs) return std::nullopt;
      return Origin{&node, col};
    case PlanKind::kFilter:
    case PlanKind::kSort:
    case PlanKind::kLimit:
      return OriginOf(*node.children[0], col, inputs);
    case PlanKind::kProject:
      if (col >= static_cast<int>(node.exprs.size())) return std::nullopt;
      return OriginOf(*node.children[0], RefIndex(node.exprs[col]), inputs);
    case PlanKind::kAggregate:
      if (!node.grouping_sets.empty() || col >= static_cast<int>(node.group_keys.size())) {
        return std::nullopt;
      }
      return OriginOf(*node.children[0], RefIndex(node.group_keys[col]), inputs);
    case PlanKind::kJoin: {
      const int left_width = static_cast<int>(node.children[0]->schema.fields.size());
      if (col < left_width) return OriginOf(*node.children[0], col, inputs);
      if (!OutputHasRight(node.join_type)) return std::nullopt;
      return OriginOf(*node.children[1], col - left_width, inputs);
    }
    default:
      return std::nullopt;
  }
}

// The estimated bytes a plan splits: its cached scans and its inputs from the host.
double SplitBytes(const HashPartitionPlan& plan) {
  double bytes = 0;
  for (const auto& [source, _col] : plan.split_scans) {
    bytes += std::max(1.0, source->placement.est_bytes);
  }
  return bytes;
}

class Analysis {
 public:
  Analysis(const PlanNode& root, const HashPartitionHooks& hooks, bool split_inputs)
      : root_(root), hooks_(hooks), split_inputs_(split_inputs) {
    CollectClasses(root);
  }

  std::optional<HashPartitionPlan> Best() {
    std::optional<HashPartitionPlan> best;
    double best_bytes = 0;
    std::set<Origin> tried;
    for (const auto& [member, _] : parent_) {
      const Origin cls = Find(member);
      if (!tried.insert(cls).second) continue;
      cls_ = cls;
      states_.clear();
      std::optional<HashPartitionPlan> plan = PlanForClass();
      if (!plan) continue;
      const double bytes = SplitBytes(*plan);
      if (!best || bytes > best_bytes) {
        best = std::move(plan);
        best_bytes = bytes;
      }
    }
    return best;
  }

 private:
  enum class Kind { kReplicated, kPartitioned, kInvalid };
  struct State {
    Kind kind = Kind::kInvalid;
    // The output columns that carry the key (after an inner join on it, both sides' columns).
    std::vector<int> keys;
    bool HasKey(int col) const {
      return col >= 0 && std::find(keys.begin(), keys.end(), col) != keys.end();
    }
  };
  static State Replicated() { return {Kind::kReplicated, {}}; }
  static State Partitioned(std::vector<int> keys) { return {Kind::kPartitioned, std::move(keys)}; }
  static State Invalid() { return {Kind::kInvalid, {}}; }
  static std::vector<int> Shifted(const std::vector<int>& keys, int by) {
    std::vector<int> out;
    for (int k : keys) out.push_back(k + by);
    return out;
  }

  bool Valid(const PlanNode& node) const {
    if (!hooks_.runs_here(node)) return false;
    for (const auto& c : node.children) {
      if (!c) return false;
    }
    return true;
  }

  // --- key classes: union-find over scan columns tied by equi-join pairs of one type.
  Origin Find(Origin o) {
    auto it = parent_.find(o);
    if (it == parent_.end()) {
      parent_[o] = o;
      return o;
    }
    if (it->second == o) return o;
    const Origin top = Find(it->second);
    parent_[o] = top;
    return top;
  }

  void CollectClasses(const PlanNode& node) {
    if (!Valid(node)) return;
    if (node.kind == PlanKind::kJoin) {
      for (size_t i = 0; i < node.left_keys.size() && i < node.right_keys.size(); ++i) {
        const int l = RefIndex(node.left_keys[i]), r = RefIndex(node.right_keys[i]);
        if (l < 0 || r < 0 || !(node.left_keys[i]->type == node.right_keys[i]->type)) continue;
        std::optional<Origin> lo = OriginOf(*node.children[0], l, split_inputs_);
        std::optional<Origin> ro = OriginOf(*node.children[1], r, split_inputs_);
        if (lo && ro) parent_[Find(*lo)] = Find(*ro);
      }
    }
    for (const auto& c : node.children) CollectClasses(*c);
  }

  // --- partitioning of each node under the class cls_.
  State StateOf(const PlanNode& node) {
    auto it = states_.find(&node);
    if (it != states_.end()) return it->second;
    const State s = Compute(node);
    states_[&node] = s;
    return s;
  }

  State Compute(const PlanNode& node) {
    if (node.kind == PlanKind::kTransition) {
      const bool splits = split_inputs_ && hooks_.can_split_input && hooks_.can_split_input(node);
      return splits ? SourceState(node) : Replicated();
    }
    if (!Valid(node)) return Replicated();  // an input from elsewhere, computed once
    switch (node.kind) {
      case PlanKind::kScan:
        return hooks_.can_split_scan(node) ? SourceState(node) : Replicated();
      case PlanKind::kFilter:
        return StateOf(*node.children[0]);
      case PlanKind::kProject: {
        const State in = StateOf(*node.children[0]);
        if (in.kind != Kind::kPartitioned) return in;
        std::vector<int> keys;
        for (size_t i = 0; i < node.exprs.size(); ++i) {
          if (in.HasKey(RefIndex(node.exprs[i]))) keys.push_back(static_cast<int>(i));
        }
        return Partitioned(std::move(keys));
      }
      case PlanKind::kExpand: {
        const State in = StateOf(*node.children[0]);
        return in.kind == Kind::kPartitioned ? Partitioned({}) : in;  // the key may be nulled
      }
      case PlanKind::kAggregate: {
        const State in = StateOf(*node.children[0]);
        if (in.kind != Kind::kPartitioned) return in;
        if (!node.grouping_sets.empty()) return Invalid();
        std::vector<int> keys;
        for (size_t i = 0; i < node.group_keys.size(); ++i) {
          if (in.HasKey(RefIndex(node.group_keys[i]))) keys.push_back(static_cast<int>(i));
        }
        return keys.empty() ? Invalid() : Partitioned(std::move(keys));
      }
      case PlanKind::kWindow: {
        const State in = StateOf(*node.children[0]);
        if (in.kind != Kind::kPartitioned) return in;
        for (const WindowCall& w : node.windows) {
          const bool by_key = std::any_of(w.partition_by.begin(), w.partition_by.end(),
                                          [&](const ExprPtr& e) { return in.HasKey(RefIndex(e)); });
          if (!by_key) return Invalid();
        }
        return in;  // the input's columns first, then the calls'
      }
      case PlanKind::kJoin:
        return JoinState(node);
      default: {
        // Sort, Limit, set operations, values: only over the same rows in every partition.
        for (const auto& c : node.children) {
          if (StateOf(*c).kind != Kind::kReplicated) return Invalid();
        }
        return Replicated();
      }
    }
  }

  // A source that can be split (a cached scan, an input from the host): partitioned by its
  // column of the class.
  State SourceState(const PlanNode& source) {
    int key = -1, members = 0;
    for (int c = 0; c < static_cast<int>(source.schema.fields.size()); ++c) {
      const Origin o{&source, c};
      if (parent_.count(o) && Find(o) == cls_) {
        key = c;
        ++members;
      }
    }
    // Two columns of the class in one source would need both hashes to agree: not split.
    if (members != 1) return Replicated();
    return Partitioned({key});
  }

  State JoinState(const PlanNode& join) {
    const State l = StateOf(*join.children[0]);
    const State r = StateOf(*join.children[1]);
    if (l.kind == Kind::kInvalid || r.kind == Kind::kInvalid) return Invalid();
    const bool lp = l.kind == Kind::kPartitioned, rp = r.kind == Kind::kPartitioned;
    const int left_width = static_cast<int>(join.children[0]->schema.fields.size());
    const JoinType t = join.join_type;
    if (!lp && !rp) return Replicated();
    if (lp && !rp) {
      // Every row of the replicated right side is in each partition: each left row meets all
      // its matches there. RIGHT and FULL would repeat unmatched right rows.
      if (t == JoinType::kRight || t == JoinType::kFull) return Invalid();
      return l;
    }
    if (!lp && rp) {
      if (t == JoinType::kInner || t == JoinType::kRight) {
        return Partitioned(Shifted(r.keys, left_width));
      }
      return Invalid();  // left rows would come out of every partition
    }
    // Both partitioned: only a join on the key keeps matches in one partition. NOT IN (null
    // aware) also reads whether the whole right side has a NULL: not per partition.
    if (join.null_aware) return Invalid();
    bool on_key = false;
    for (size_t i = 0; i < join.left_keys.size() && i < join.right_keys.size(); ++i) {
      on_key = on_key ||
               (l.HasKey(RefIndex(join.left_keys[i])) && r.HasKey(RefIndex(join.right_keys[i])));
    }
    if (!on_key) return Invalid();
    switch (t) {
      case JoinType::kInner: {
        // Both sides' key columns hold the key in every output row.
        std::vector<int> keys = l.keys;
        for (int k : Shifted(r.keys, left_width)) keys.push_back(k);
        return Partitioned(std::move(keys));
      }
      case JoinType::kRight:
        return Partitioned(Shifted(r.keys, left_width));
      case JoinType::kFull:
        return Partitioned({});  // either side's key may be NULL-extended
      default:
        return l;  // LEFT (the right side's key may be NULL-extended), SEMI, ANTI, MARK
    }
  }

  // --- the top and the inputs for the current class.
  std::optional<HashPartitionPlan> PlanForClass() {
    HashPartitionPlan plan;
    const PlanNode* n = &root_;
    while (true) {
      if (!Valid(*n)) return std::nullopt;
      const State s = StateOf(*n);
      if (s.kind == Kind::kPartitioned) {
        plan.top = n;
        break;
      }
      if (n->kind == PlanKind::kAggregate && SplitTop(*n, &plan)) break;
      switch (n->kind) {
        case PlanKind::kLimit:
        case PlanKind::kSort:
        case PlanKind::kProject:
        case PlanKind::kFilter:
        case PlanKind::kWindow:
          n = n->children[0].get();
          continue;
        case PlanKind::kAggregate:  // one not split: maybe its input is
          // A Filter fused into the aggregation never runs alone: it cannot be the top.
          n = plan::IsFilteredAggregate(*n) ? n->children[0]->children[0].get()
                                            : n->children[0].get();
          continue;
        default:
          return std::nullopt;
      }
    }
    if (plan.split_aggregate) {
      plan.per_partition.push_back(plan.top);
      Collect(*plan.top->children[0], &plan);
    } else {
      Collect(*plan.top, &plan);
    }
    // Inputs from the host are split only beside a cached scan (alone, slices serve them).
    const bool splits_a_scan =
        std::any_of(plan.split_scans.begin(), plan.split_scans.end(),
                    [](const auto& s) { return s.first->kind == PlanKind::kScan; });
    if (!splits_a_scan) return std::nullopt;
    std::set<std::string> names;
    for (const auto& [scan, col] : plan.split_scans) names.insert(scan->schema.fields[col].name);
    for (const std::string& name : names) {
      plan.key_name += (plan.key_name.empty() ? "" : ", ") + name;
    }
    return plan;
  }

  // An aggregation over partitioned rows that combines from partial aggregations (DISTINCT
  // calls of a key column too): the top.
  bool SplitTop(const PlanNode& agg, HashPartitionPlan* plan) {
    const State in = StateOf(*agg.children[0]);
    if (in.kind != Kind::kPartitioned) return false;
    std::vector<int> choices = in.keys;
    choices.push_back(-1);
    for (int key : choices) {
      if (hooks_.can_split_aggregate(agg, key)) {
        plan->top = &agg;
        plan->split_aggregate = true;
        plan->child_key = key;
        return true;
      }
    }
    return false;
  }

  void Collect(const PlanNode& node, HashPartitionPlan* plan) {
    const State s = StateOf(node);
    if (s.kind != Kind::kPartitioned) {
      plan->replicated.push_back(&node);
      return;
    }
    plan->per_partition.push_back(&node);
    if (node.kind == PlanKind::kScan || node.kind == PlanKind::kTransition) {
      plan->split_scans.emplace_back(&node, s.keys.at(0));
      return;
    }
    for (const auto& c : node.children) Collect(*c, plan);
  }

  const PlanNode& root_;
  const HashPartitionHooks& hooks_;
  const bool split_inputs_;
  std::map<Origin, Origin> parent_;
  Origin cls_{nullptr, -1};
  std::map<const PlanNode*, State> states_;
};

}  // namespace

std::optional<HashPartitionPlan> PlanHashPartitions(const PlanNode& root,
                                                    const HashPartitionHooks& hooks) {
  std::optional<HashPartitionPlan> scans_only = Analysis(root, hooks, false).Best();
  if (!hooks.can_split_input) return scans_only;
  // Splitting inputs from the host as well can make a join of a split input with a replicated
  // one invalid (a RIGHT join, a join off the key), and so lose the class that split the most:
  // the plan with them wins only where it splits as many bytes, its inputs counted (TPC-H Q18
  // with lineitem in host memory: lineitem's rows cut by l_orderkey beside orders outweigh
  // customer and orders cut by the customer key with lineitem read whole by every partition).
  std::optional<HashPartitionPlan> with_inputs = Analysis(root, hooks, true).Best();
  if (!with_inputs) return scans_only;
  if (scans_only && SplitBytes(*scans_only) > SplitBytes(*with_inputs)) return scans_only;
  return with_inputs;
}

}  // namespace tandem
