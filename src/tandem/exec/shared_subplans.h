// Identical subplans of one query run once. A view or a CTE read twice (TPC-H Q15's revenue0,
// once joined and once under max()), or a join repeated under a HAVING subquery (Q11), makes the
// plan hold two equal subtrees; the executor computes the first, keeps its output (tables are
// immutable and share their batches) and hands it to the other occurrences, then lets it go
// after the last one.
//
// Two subtrees are equal when their fingerprints are: every field that decides a node's output
// (expressions with column indexes and types, aggregate calls, join keys and type, the scan's
// source object, columns and pruning predicates, the row budget a LIMIT gave it). Only subtrees
// of scans, filters, projections, plain aggregations and joins that all run on the CPU are
// considered, only when they hold a join or an aggregation (the work worth saving) and no
// non-deterministic call, and only when their output is estimated small enough to keep.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>

#include "tandem/column/table.h"
#include "tandem/exec/exec_context.h"
#include "tandem/plan/logical_plan.h"

namespace tandem {

class SharedSubplans {
 public:
  SharedSubplans(const PlanNode& root, const ExecContext& ctx);

  // Whether the node is one occurrence of a subplan that occurs more than once.
  bool IsShared(const PlanNode* node) const { return key_.count(node) > 0; }
  // The output another occurrence computed, if any (the last use takes it out).
  std::optional<Table> Reuse(const PlanNode* node);
  // Keeps the output of the first occurrence for the others.
  void Keep(const PlanNode* node, const Table& out);
  // Occurrences of the node's subplan in the plan.
  int Occurrences(const PlanNode* node) const;
  // What the occurrences of one subplan share (null when the node's subplan occurs once).
  const std::string* KeyOf(const PlanNode* node) const {
    auto it = key_.find(node);
    return it == key_.end() ? nullptr : &it->second;
  }

 private:
  struct Entry {
    int occurrences = 0;
    // The occurrences that have had the output (one may ask again when its part of the plan
    // runs again, after running out of GPU memory: it counts once).
    std::set<const PlanNode*> served;
    std::optional<Table> output;
  };
  std::map<const PlanNode*, std::string> key_;
  std::map<std::string, Entry> entries_;
};

}  // namespace tandem
