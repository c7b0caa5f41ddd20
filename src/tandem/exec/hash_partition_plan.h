// Which part of a GPU plan can run in hash partitions, and how: the GPU's answer to state that
// does not fit (a join's build side, an aggregation's groups), in the manner of a grace hash
// join, without spilling. The columns that equi-joins tie together (o_orderkey = l_orderkey in
// TPC-H Q18 and Q21) form a key class; the scans of tables cached on the GPU that carry a column
// of the class are split by a hash of that column, and the part runs once per partition over
// the rows of that partition: every join on the key and every aggregation grouped by it then
// sees only matching rows, so the part's output is the union of its outputs per partition.
// Subtrees without the key (a dimension joined by another column) are the same in every
// partition and run once. An aggregation above whose keys are not the key class (Q21's count by
// s_name) runs its partial aggregation per partition and one merge (split_aggregate.h).
//
// A node's output over the partitions is either replicated (the same rows in each) or
// partitioned (each row in one partition), with the output columns that still carry the key
// (none after a FULL join; both sides' after an INNER join on it). Joins with one side partitioned
// keep the rows of that side disjoint when every row of the other side can match there (INNER, and
// LEFT/SEMI/ANTI/MARK with the left side partitioned, RIGHT with the right); two partitioned sides
// must be joined on the key.
//
// Besides cached scans, a part's input from host memory (a HostToDevice transition: a table cached
// in host memory, the CPU's output) that carries a column of the class can be split too: it is
// uploaded whole once, as a replicated input would be, and cut on the GPU by the same hash, so a
// LEFT join whose left side comes from the host (TPC-H Q13's customer after it moved to host
// memory) still holds one partition at a time. Such inputs are split only in a plan that also
// splits a cached scan, and only where that plan splits as many bytes (the inputs it cuts
// counted) as the best plan without them (a split input joined off the key, or on the left of a
// RIGHT join, can rule out a class that only a replicated input allows).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tandem/plan/logical_plan.h"

namespace tandem {

struct HashPartitionHooks {
  // Whether the node runs in this GPU part (on the GPU, not a transition). A node that does not
  // is an input computed once, like a replicated subtree.
  std::function<bool(const PlanNode&)> runs_here;
  // Whether a scan's rows can be split in partitions (a table cached in GPU memory).
  std::function<bool(const PlanNode& scan)> can_split_scan;
  // Whether a HostToDevice transition's rows can be split in partitions (unset: none can).
  std::function<bool(const PlanNode& transition)> can_split_input;
  // Whether an aggregation over partitioned rows whose key is its child's column `child_key`
  // (-1: none) combines from partial aggregations (split_aggregate.h).
  std::function<bool(const PlanNode& aggregate, int child_key)> can_split_aggregate;
};

struct HashPartitionPlan {
  // The node run once per partition; its output is the union of those runs. When
  // `split_aggregate`, the top is an aggregation whose child is partitioned (its key the
  // child's column `child_key`, or -1): its partial aggregation runs per partition instead.
  const PlanNode* top = nullptr;
  bool split_aggregate = false;
  int child_key = -1;
  // The sources split in partitions (scans of cached tables, and HostToDevice transitions), each
  // with the output column that carries the key.
  std::vector<std::pair<const PlanNode*, int>> split_scans;
  // Subtrees whose output is the same in every partition (computed once, before the runs).
  std::vector<const PlanNode*> replicated;
  // The nodes that run once per partition (the top's subtree less the replicated ones).
  std::vector<const PlanNode*> per_partition;
  std::string key_name;  // the split scans' key column names, for EXPLAIN ANALYZE
};

// The hash partitioning of the GPU part whose root is `root`: the top is found walking down from
// it through Limit, Sort, Project, Filter and Window (which then run once over the union); of
// the key classes that partition something, the one whose split scans are largest (estimated
// bytes) wins. Nullopt when no class splits a scan under such a top. A plan splitting inputs from
// the host as well is preferred where it splits as many bytes, its inputs counted.
std::optional<HashPartitionPlan> PlanHashPartitions(const PlanNode& root,
                                                    const HashPartitionHooks& hooks);

}  // namespace tandem
