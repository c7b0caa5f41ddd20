// Row conditions from a filter's conjuncts (scan_conditions.h).
#include "tandem/exec/cpu/scan_conditions.h"

#include <map>
#include <set>
#include <string>

#include "tandem/column/take.h"
#include "tandem/expr/cpu/evaluate.h"
#include "tandem/plan/rewrite_util.h"

namespace tandem::cpu {
namespace {

// Built-in functions that give an answer for every value of their arguments' types: testing
// one on a dictionary value that no kept row holds cannot raise an error the query would not.
bool CannotFail(const std::string& name) {
  static const std::set<std::string> kSafe = {"eq",
                                              "ne",
                                              "lt",
                                              "le",
                                              "gt",
                                              "ge",
                                              "and",
                                              "or",
                                              "not",
                                              "is_null",
                                              "is_not_null",
                                              "is_distinct_from",
                                              "is_not_distinct_from",
                                              "like",
                                              "ilike",
                                              "starts_with",
                                              "ends_with",
                                              "contains",
                                              "coalesce",
                                              "ifnull",
                                              "nvl",
                                              "lower",
                                              "upper",
                                              "trim",
                                              "ltrim",
                                              "rtrim"};
  return kSafe.count(name) > 0;
}

bool SafeOnAnyValue(const Expr& e) {
  switch (e.kind) {
    case ExprKind::kColumnRef:
      return e.outer_depth == 0;
    case ExprKind::kLiteral:
      return true;
    case ExprKind::kCall:
      if (e.udf || !CannotFail(e.name)) return false;
      break;
    case ExprKind::kInList:
    case ExprKind::kCase:
      break;
    default:
      return false;
  }
  for (const ExprPtr& a : e.args) {
    if (!a || !SafeOnAnyValue(*a)) return false;
  }
  return true;
}

// One byte per value of `values`: whether `condition` (reading column 0) is TRUE for it.
Result<std::vector<uint8_t>> Keep(const Expr& condition, const Field& field,
                                  const ColumnPtr& values, EvalContext eval) {
  Batch batch;
  batch.schema.fields.push_back(field);
  batch.num_rows = values->length();
  batch.columns.push_back(values);
  TANDEM_ASSIGN_OR_RAISE(ColumnPtr result, Evaluate(condition, batch, eval));
  const int64_t n = values->length();
  if (result->length() != n || result->type().id != TypeId::kBool) {
    return Status::Internal("a row condition gave no boolean per value");
  }
  std::vector<uint8_t> keep(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    keep[static_cast<size_t>(i)] = result->IsValid(i) && result->GetBool(i) ? 1 : 0;
  }
  return keep;
}

}  // namespace

std::vector<parquet::RowCondition> RowConditionsFor(const Expr& predicate, const PlanNode& scan,
                                                    const EvalContext& eval) {
  std::vector<parquet::RowCondition> out;
  if (!scan.source || scan.kind != PlanKind::kScan) return out;
  // The conjuncts that can be tested alone, by the one column they read (a range's two bounds
  // become one condition).
  std::map<int, std::vector<ExprPtr>> by_column;
  for (const ExprPtr& conjunct : plan::SplitConjuncts(std::make_shared<Expr>(predicate))) {
    const std::vector<int> columns = plan::ColumnsOf(*conjunct);
    if (columns.size() != 1 || !SafeOnAnyValue(*conjunct)) continue;
    const int c = columns[0];
    if (c < 0 || c >= scan.schema.num_fields() || c >= static_cast<int>(scan.scan_columns.size()) ||
        scan.schema.field(c).type.id == TypeId::kBool) {
      continue;
    }
    by_column[c].push_back(conjunct);
  }
  for (const auto& [c, conjuncts] : by_column) {
    const ExprPtr conjunct = plan::CombineConjuncts(conjuncts);
    const Field field = scan.schema.field(c);
    std::vector<int> mapping(static_cast<size_t>(c) + 1, -1);
    mapping[static_cast<size_t>(c)] = 0;
    ExprPtr on_values = RemapColumns(conjunct, mapping);
    parquet::RowCondition condition;
    condition.column = scan.source->schema.field(scan.scan_columns[static_cast<size_t>(c)]).name;
    condition.keep = [on_values, field, eval](const ColumnPtr& values) {
      return Keep(*on_values, field, values, eval);
    };
    // Whether the condition holds for NULL (`x IS NULL`, COALESCE): tested on one NULL value.
    const ColumnPtr null_value = BroadcastValue(Value::Null(field.type), 1);
    auto null_kept = condition.keep(null_value);
    if (!null_kept.ok()) continue;
    condition.keep_null = (*null_kept)[0] != 0;
    out.push_back(std::move(condition));
  }
  return out;
}

std::string ConditionsNote(size_t conditions, const parquet::ReadStats& stats) {
  if (stats.chunks_as_codes == 0) return "";
  return ", " + std::to_string(conditions) + " condition(s) tested on the dictionaries of " +
         std::to_string(stats.chunks_as_codes) +
         " chunks: " + std::to_string(stats.rows_dropped_by_conditions) + " rows dropped";
}

}  // namespace tandem::cpu
