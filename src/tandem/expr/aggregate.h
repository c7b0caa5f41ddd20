// Aggregate and window function calls as the logical plan carries them, and their result types
// (Spark SQL's rules: sum(int*) -> int64, sum(decimal(p,s)) -> decimal(min(38,p+10),s),
// avg(decimal(p,s)) -> decimal(min(38,p+4), min(38,s+4)), avg(int*/float*) -> float64,
// count -> int64 (never NULL), stddev/variance -> float64).
#pragma once

#include <string>
#include <vector>

#include "tandem/common/status.h"
#include "tandem/expr/expr.h"

namespace tandem {

enum class AggregateKind {
  kCountStar,
  kCount,
  kSum,
  kAvg,
  kMin,
  kMax,
  kStddevSamp,
  kStddevPop,
  kVarSamp,
  kVarPop,
  kBoolAnd,
  kBoolOr,
  kAnyValue,  // any value of the group (used by decorrelation and DISTINCT rewrites)
};

struct AggregateCall {
  AggregateKind kind = AggregateKind::kCountStar;
  ExprPtr arg;            // over the aggregate's input; null for count(*)
  bool distinct = false;  // COUNT(DISTINCT x), SUM(DISTINCT x) ...
  ExprPtr filter;         // FILTER (WHERE ...), or null
  DataType type;          // result type
  bool nullable = true;   // false for counts
  std::string name;       // output column name ("sum(l_quantity)")
  // False for the partial sums of an aggregation cut into slices (exec/split_aggregate.h): such
  // a sum is checked against 128 bits only, not against its precision; the merge checks the
  // total (one slice's sum may pass 38 digits where the whole's does not).
  bool check_precision = true;
};

// Looks an aggregate up by SQL name ("count", "sum", "avg", "min", "max", "stddev",
// "stddev_samp", "stddev_pop", "variance", "var_samp", "var_pop", "bool_and", "bool_or",
// "every", "any_value"); false if `name` is not an aggregate.
bool LookupAggregate(const std::string& name, AggregateKind* kind);
// Result type for an argument type, or an error ("cannot sum string").
Result<DataType> AggregateResultType(AggregateKind kind, const DataType& arg);
const char* AggregateKindName(AggregateKind kind);

enum class WindowFunctionKind {
  kRowNumber,
  kRank,
  kDenseRank,
  kPercentRank,
  kCumeDist,
  kNtile,
  kLag,
  kLead,
  kFirstValue,
  kLastValue,
  kNthValue,
  kAggregate,  // SUM/AVG/MIN/MAX/COUNT ... OVER (...): `aggregate` says which
};

struct SortKey {
  ExprPtr expr;
  bool ascending = true;
  bool nulls_first = false;  // SQL default: NULLS LAST for ASC, NULLS FIRST for DESC
};

struct WindowFrame {
  enum class Unit { kRows, kRange };
  enum class BoundKind {
    kUnboundedPreceding,
    kPreceding,
    kCurrentRow,
    kFollowing,
    kUnboundedFollowing
  };
  Unit unit = Unit::kRange;
  BoundKind start = BoundKind::kUnboundedPreceding;
  BoundKind end = BoundKind::kCurrentRow;  // SQL default frame with ORDER BY
  int64_t start_offset = 0;                // for kPreceding / kFollowing
  int64_t end_offset = 0;
  bool has_order = false;  // without ORDER BY the default frame is the whole partition
};

struct WindowCall {
  WindowFunctionKind kind = WindowFunctionKind::kRowNumber;
  AggregateKind aggregate = AggregateKind::kCountStar;  // for kAggregate
  std::vector<ExprPtr> args;  // lag/lead: value, offset?, default?; ntile: n
  std::vector<ExprPtr> partition_by;
  std::vector<SortKey> order_by;
  WindowFrame frame;
  DataType type;
  bool nullable = true;
  std::string name;
};

}  // namespace tandem
