// The join graph of a region of inner joins, as join ordering (join_order.h) sees it: its inputs
// (leaves), the predicates between them over global column numbers (leaf i's columns start at
// offsets[i]), and the classes of columns that equality predicates make equal.
//
// Equal columns: `a = b` and `b = c` over plain columns of one type imply `a = c`, so inputs
// holding a and c may join directly (TPC-H Q05: c_nationkey = s_nationkey and s_nationkey =
// n_nationkey let customer join nation, and the region's filter, before orders and lineitem).
// Such equalities are kept as classes instead of predicates: a join of two subtrees gets one key
// for each class with a column on both sides, and every member of a class inside a subtree is
// then equal by induction. Floating-point columns stay plain predicates (their equality need not
// be transitive), and a class with two columns of one input is not formed (that input would need
// a filter the graph does not carry), so its predicates stay plain too.
#pragma once

#include <cstdint>
#include <vector>

#include "tandem/plan/cardinality.h"
#include "tandem/plan/logical_plan.h"

namespace tandem::plan {

// A subtree of joined inputs: its plan, estimate, and where its columns came from.
struct JoinTree {
  PlanPtr plan;
  RelEstimate est;
  std::vector<int> cols;  // global column of each output column
  uint64_t mask = 0;      // leaves it contains
  double row_bytes = 1;   // estimated bytes per row, as pruning will leave it
};

struct JoinPredicate {
  ExprPtr expr;       // over global columns
  uint64_t mask = 0;  // leaves it reads
  size_t order = 0;   // its place among the region's conjuncts
};

struct EqualColumns {
  std::vector<ExprPtr> members;  // column references over global columns
  std::vector<uint64_t> member_leaf;
  uint64_t mask = 0;  // leaves holding a member
  size_t order = 0;   // the place of its first equality among the region's conjuncts
};

struct JoinGraph {
  int width = 0;                     // global columns
  std::vector<int> leaf_of;          // per global column
  std::vector<int> offsets;          // first global column of each leaf
  std::vector<JoinPredicate> preds;  // not folded into classes; mask 0: reads no column
  std::vector<EqualColumns> classes;
};

// The graph of `conjuncts` (global columns) over leaves with `offsets` and `widths`. With
// `use_classes` false, every conjunct stays a predicate.
JoinGraph BuildJoinGraph(const std::vector<ExprPtr>& conjuncts, const std::vector<int>& offsets,
                         const std::vector<int>& widths, bool use_classes);

// Whether a join of subtrees with leaves `a` and `b` (disjoint) has a predicate or a class
// joining them.
bool Connected(const JoinGraph& graph, uint64_t a, uint64_t b);

// The join of `left` (probe) and `right` (build) with every predicate the two complete and one
// key per class they share; `rows`: its estimated output.
struct JoinCandidate {
  std::vector<ExprPtr> left_keys, right_keys, rest;
  double rows = 0;
};
JoinCandidate EvaluateJoin(const JoinTree& left, const JoinTree& right, const JoinGraph& graph);

// What ordering minimizes per join: its estimated rows, or (by_bytes) its rows times the bytes
// of the columns both sides carry.
double JoinWeight(const JoinCandidate& c, const JoinTree& a, const JoinTree& b, bool by_bytes);

// The hash join of `a` and `b`, the one with more estimated rows probing (left).
JoinTree JoinTrees(const JoinTree& a, const JoinTree& b, const JoinGraph& graph);

}  // namespace tandem::plan
