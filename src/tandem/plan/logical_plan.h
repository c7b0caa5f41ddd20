// The logical plan: a tree of PlanNodes that the binder builds, the optimizer rewrites and the
// executor runs (operator by operator; physical choices such as hash vs. sort are made by the
// executor and, later, the placement planner). Each node has an output Schema; expressions in a
// node refer to its input columns by position (see expr/expr.h). One struct with kind-specific
// fields keeps rewrites simple; only the fields of the node's kind are meaningful.
//
// Output columns per kind:
//   kScan      the source columns listed in scan_columns, in that order
//   kFilter, kSort, kLimit   the input's columns
//   kProject   one per expression
//   kAggregate group keys, then aggregates, then (with grouping sets) a grouping-id int64 whose
//              bit i is 1 when group key i is not part of the row's grouping set
//   kJoin      left columns then right columns; semi and anti joins: left columns only; mark
//              joins: left columns, then a boolean "mark" (see JoinType::kMark)
//   kSetOp     the left input's columns (names from the left)
//   kWindow    the input's columns, then one per window call
//   kExpand    one column per expression of a projection (every projection has the same types);
//              each input row gives one output row per projection (Spark's Expand, with which
//              Spark computes grouping sets, ROLLUP, CUBE and several DISTINCT aggregates)
//   kValues    the literal rows
//   kTransition  the input's columns, moved between host and device memory (see Device)
#pragma once

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "tandem/catalog/table_source.h"
#include "tandem/expr/aggregate.h"
#include "tandem/expr/expr.h"
#include "tandem/io/parquet/scan_predicate.h"

namespace tandem {

enum class PlanKind {
  kScan,
  kFilter,
  kProject,
  kAggregate,
  kJoin,
  kSort,
  kLimit,
  kSetOp,
  kWindow,
  kExpand,
  kValues,
  kTransition
};

// Where a node runs and where its output lives. The binder and optimizer leave every node on the
// CPU; the placement planner (placement/placement.h) chooses GPU nodes and inserts kTransition
// nodes wherever a node's input lives on the other device. A kTransition's device is where its
// output lives: kGpu copies host -> device, kCpu copies device -> host.
enum class Device { kCpu, kGpu };
const char* DeviceName(Device device);  // "cpu", "gpu"

// Why the placement planner put a node where it is, for explain.
struct PlacementNote {
  enum class Kind {
    kNone,         // not placed (the plan never went through the placement planner)
    kOnGpu,        // supported and chosen (or forced by tandem.sql.device=gpu)
    kUnsupported,  // cannot run on the GPU: `reason`
    kCostModel,    // could run on the GPU, the cost model kept it on the CPU
    kTransition,   // a transition inserted by the planner
  };
  Kind kind = Kind::kNone;
  std::string reason;      // kUnsupported: "window functions", "tandem.sql.device=cpu" ...
  double cpu_est_ms = -1;  // kCostModel: estimated query time with the node on the CPU (chosen)
  double gpu_est_ms = -1;  //   and the best estimate with the node on the GPU
  double est_bytes = -1;   // estimated output bytes (every placed node)

  // "on the GPU", "on the CPU because <reason>", "moved to the CPU by the cost model (cpu est
  // 1.20 ms, gpu est 3.40 ms)"; "" for kNone.
  std::string ToString() const;
};

// kMark keeps every left row once and adds a boolean "mark" column: TRUE when some right row
// matches (keys equal and condition TRUE), else FALSE; with null_aware (x IN (subquery)), key 0
// is the IN comparison and the mark is NULL instead of FALSE when, among the right rows that
// satisfy the other keys and the condition, one has a NULL key 0 or the left row's key 0 is NULL
// (SQL's three-valued IN). The other keys and the condition only select right rows (their NULLs
// mean "no match"), as correlation predicates do.
enum class JoinType { kInner, kLeft, kRight, kFull, kSemi, kAnti, kMark };

enum class SetOpKind { kUnion, kIntersect, kExcept };

struct PlanNode;
using PlanPtr = std::shared_ptr<PlanNode>;

struct PlanNode {
  PlanKind kind = PlanKind::kValues;
  std::vector<PlanPtr> children;
  Schema schema;  // output schema

  // kScan
  std::shared_ptr<TableSource> source;
  std::vector<int> scan_columns;                        // indexes into source->schema
  std::vector<parquet::ScanPredicate> scan_predicates;  // for row-group pruning only; the exact
                                                        // filter stays in a kFilter above
  // kFilter
  ExprPtr predicate;

  // kProject
  std::vector<ExprPtr> exprs;

  // kExpand: the projections, each as wide as the schema
  std::vector<std::vector<ExprPtr>> projections;

  // kAggregate
  std::vector<ExprPtr> group_keys;
  std::vector<AggregateCall> aggregates;
  std::vector<std::vector<int>> grouping_sets;  // indexes into group_keys; empty = plain GROUP BY

  // kJoin: equi-join keys (left_keys[i] over the left input, right_keys[i] over the right input)
  // and a residual condition over left ++ right columns (null = none). No keys and no
  // condition is a cross join. null_aware: NOT IN semantics for kAnti (a NULL key on either side
  // makes the NOT IN unknown) and IN semantics for kMark (see JoinType).
  JoinType join_type = JoinType::kInner;
  std::vector<ExprPtr> left_keys;
  std::vector<ExprPtr> right_keys;
  ExprPtr condition;
  bool null_aware = false;

  // kSort
  std::vector<SortKey> sort_keys;

  // kLimit: limit < 0 means none
  int64_t limit = -1;
  int64_t offset = 0;

  // kSetOp
  SetOpKind set_op = SetOpKind::kUnion;
  bool set_all = false;

  // kWindow
  std::vector<WindowCall> windows;

  // kValues
  std::vector<std::vector<Value>> rows;

  // Optimizer estimate of the output row count; -1 unknown.
  double estimated_rows = -1;

  // Placement (see Device): where the node runs and why.
  Device device = Device::kCpu;
  PlacementNote placement;

  // One line describing this node alone ("HashJoin INNER (l_orderkey = o_orderkey)").
  std::string Describe() const;
};

// Constructors that derive the output schema from the children.
PlanPtr MakeScan(std::shared_ptr<TableSource> source, std::vector<int> columns);
PlanPtr MakeFilter(PlanPtr child, ExprPtr predicate);
PlanPtr MakeProject(PlanPtr child, std::vector<ExprPtr> exprs, std::vector<std::string> names);
PlanPtr MakeAggregate(PlanPtr child, std::vector<ExprPtr> keys, std::vector<std::string> key_names,
                      std::vector<AggregateCall> aggregates,
                      std::vector<std::vector<int>> grouping_sets = {});
PlanPtr MakeJoin(PlanPtr left, PlanPtr right, JoinType type, std::vector<ExprPtr> left_keys,
                 std::vector<ExprPtr> right_keys, ExprPtr condition, bool null_aware = false);
PlanPtr MakeSort(PlanPtr child, std::vector<SortKey> keys);
PlanPtr MakeLimit(PlanPtr child, int64_t limit, int64_t offset);
PlanPtr MakeSetOp(PlanPtr left, PlanPtr right, SetOpKind op, bool all);
// UNION [ALL] of two or more inputs (a chain of unions is one node, so it adds one level of
// nesting, not one per branch); INTERSECT and EXCEPT take exactly two.
PlanPtr MakeSetOp(std::vector<PlanPtr> inputs, SetOpKind op, bool all);
PlanPtr MakeWindow(PlanPtr child, std::vector<WindowCall> windows);
// An Expand whose output columns are named `names`; the caller checks that every projection has
// the types of the first (a column is nullable when it is in any projection).
PlanPtr MakeExpand(PlanPtr child, std::vector<std::vector<ExprPtr>> projections,
                   std::vector<std::string> names);
PlanPtr MakeValues(Schema schema, std::vector<std::vector<Value>> rows);
// Moves `child`'s output to `to` (host -> device when kGpu, device -> host when kCpu).
PlanPtr MakeTransition(PlanPtr child, Device to);

// The whole tree, indented, one node a line (EXPLAIN without metrics).
std::string PlanToString(const PlanNode& root);

// The table sources the plan's scans read (the executor's and the session's cache decisions).
std::set<const TableSource*> ScannedSources(const PlanNode& root);

}  // namespace tandem
