// The table of Spark operators and expressions (see support_table.h).
#include "tandem/spark/support_table.h"

#include "tandem/common/text.h"

namespace tandem::spark {
namespace {

constexpr SparkSupport kT = SparkSupport::kTranslated;
constexpr SparkSupport kB = SparkSupport::kBoundary;
constexpr SparkSupport kS = SparkSupport::kSpark;

constexpr const char* kMachinery = "exchanges, query stages and transitions stay in Spark";

}  // namespace

const std::vector<SparkOperatorEntry>& SparkOperators() {
  static const std::vector<SparkOperatorEntry> table = {
      {"FileSourceScanExec", "Scan parquet", kT, "", true},
      {"FilterExec", "Filter", kT, ""},
      {"ProjectExec", "Project", kT, ""},
      {"HashAggregateExec", "HashAggregate", kT, ""},
      {"ObjectHashAggregateExec", "ObjectHashAggregate", kT, ""},
      {"SortAggregateExec", "SortAggregate", kT, ""},
      {"BroadcastHashJoinExec", "BroadcastHashJoin", kT, ""},
      {"ShuffledHashJoinExec", "ShuffledHashJoin", kT, ""},
      {"SortMergeJoinExec", "SortMergeJoin", kT, ""},
      {"BroadcastNestedLoopJoinExec", "BroadcastNestedLoopJoin", kT, ""},
      {"CartesianProductExec", "CartesianProduct", kT, ""},
      {"SortExec", "Sort", kT, ""},
      {"TakeOrderedAndProjectExec", "TakeOrderedAndProject", kT, ""},
      {"GlobalLimitExec", "GlobalLimit", kT, ""},
      {"LocalLimitExec", "LocalLimit", kT, ""},
      {"CollectLimitExec", "CollectLimit", kT, ""},
      {"UnionExec", "Union", kT, ""},
      {"WindowExec", "Window", kT, ""},
      {"WindowGroupLimitExec", "WindowGroupLimit", kT, ""},
      {"ExpandExec", "Expand", kT, ""},
      // Spark's machinery between and around stages.
      {"ShuffleExchangeExec", "Exchange", kB, kMachinery},
      {"BroadcastExchangeExec", "BroadcastExchange", kB, kMachinery},
      {"ReusedExchangeExec", "ReusedExchange", kB, kMachinery},
      {"ShuffleQueryStageExec", "ShuffleQueryStage", kB, kMachinery},
      {"BroadcastQueryStageExec", "BroadcastQueryStage", kB, kMachinery},
      {"ResultQueryStageExec", "ResultQueryStage", kB, kMachinery},
      {"TableCacheQueryStageExec", "TableCacheQueryStage", kB, kMachinery},
      {"AQEShuffleReadExec", "AQEShuffleRead", kB, kMachinery},
      {"AdaptiveSparkPlanExec", "AdaptiveSparkPlan", kB, kMachinery},
      {"WholeStageCodegenExec", "WholeStageCodegen", kB, kMachinery, true},
      {"InputAdapter", "InputAdapter", kB, kMachinery},
      {"ColumnarToRowExec", "ColumnarToRow", kB, kMachinery},
      {"RowToColumnarExec", "RowToColumnar", kB, kMachinery},
      {"TandemExec", "TandemExec", kB, "already runs in Tandem"},
      {"EmptyRelationExec", "EmptyRelation", kB, "an empty relation has nothing to run"},
      {"CoalesceExec", "Coalesce", kB, "merging partitions is Spark's"},
      {"SubqueryBroadcastExec", "SubqueryBroadcast", kB, kMachinery},
      {"SubqueryExec", "Subquery", kB, kMachinery},
      {"ReusedSubqueryExec", "ReusedSubquery", kB, kMachinery},
      // Known to stay in Spark.
      {"ArrowEvalPythonExec", "ArrowEvalPython", kS, "a pandas UDF runs in Python"},
      {"BatchEvalPythonExec", "BatchEvalPython", kS, "a Python UDF runs in Python"},
      {"FlatMapGroupsInPandasExec", "FlatMapGroupsInPandas", kS,
       "grouped pandas code runs in "
       "Python"},
      {"MapInPandasExec", "MapInPandas", kS, "mapInPandas runs in Python"},
      {"GenerateExec", "Generate", kS, "generators (explode, ...) are not supported"},
      {"InMemoryTableScanExec", "InMemoryTableScan", kS,
       "Spark's cached tables are read by "
       "Spark"},
      {"LocalTableScanExec", "LocalTableScan", kS, "rows held by the driver are Spark's"},
      {"RangeExec", "Range", kS, "spark.range is Spark's"},
      {"SampleExec", "Sample", kS, "sampling is not supported"},
      {"DataWritingCommandExec", "Execute InsertIntoHadoopFsRelationCommand", kS,
       "writes stay in Spark", true},
      {"WriteFilesExec", "WriteFiles", kS, "writes stay in Spark"},
      {"ExecutedCommandExec", "Execute ", kS,
       "commands run on the driver (a query inside one is judged on its own)", true},
      {"CommandResultExec", "CommandResult", kS, "a command's result rows are Spark's"},
      {"BatchScanExec", "BatchScan", kS, "DataSource V2 scans are not supported"},
      {"FileSourceScanExec", "Scan", kS, "only Parquet files are read by Tandem", true},
  };
  return table;
}

const std::vector<SparkExpressionEntry>& SparkExpressions() {
  static const std::vector<SparkExpressionEntry> table = {
      {"AttributeReference", {}, kT, ""},
      {"BoundReference", {}, kT, ""},
      {"Literal", {}, kT, ""},
      {"Alias", {}, kT, ""},
      {"Cast", {"cast"}, kT, ""},
      {"Add", {"+"}, kT, ""},
      {"Subtract", {"-"}, kT, ""},
      {"Multiply", {"*"}, kT, ""},
      {"Divide", {"/"}, kT, ""},
      {"Remainder", {"%"}, kT, ""},
      {"UnaryMinus", {"negative"}, kT, ""},
      {"Abs", {"abs"}, kT, ""},
      {"EqualTo", {"="}, kT, ""},
      {"EqualNullSafe", {"<=>"}, kT, ""},
      {"LessThan", {"<"}, kT, ""},
      {"LessThanOrEqual", {"<="}, kT, ""},
      {"GreaterThan", {">"}, kT, ""},
      {"GreaterThanOrEqual", {">="}, kT, ""},
      {"And", {"and"}, kT, ""},
      {"Or", {"or"}, kT, ""},
      {"Not", {"not", "NOT"}, kT, ""},
      {"IsNull", {"isnull"}, kT, ""},
      {"IsNotNull", {"isnotnull"}, kT, ""},
      {"In", {"in"}, kT, ""},
      {"InSet", {"inset"}, kT, ""},
      {"CaseWhen", {"case"}, kT, ""},
      {"If", {"if"}, kT, ""},
      {"Coalesce", {"coalesce"}, kT, ""},
      {"Like", {"like"}, kT, ""},
      {"StartsWith", {"startswith"}, kT, ""},
      {"EndsWith", {"endswith"}, kT, ""},
      {"Contains", {"contains"}, kT, ""},
      {"Substring", {"substring"}, kT, ""},
      {"Length", {"length", "char_length", "character_length"}, kT, ""},
      {"Concat", {"concat"}, kT, ""},
      {"Year", {"year"}, kT, ""},
      {"Month", {"month"}, kT, ""},
      {"DayOfMonth", {"dayofmonth", "day"}, kT, ""},
      {"Quarter", {"quarter"}, kT, ""},
      {"DateAdd", {"date_add"}, kT, ""},
      {"DateSub", {"date_sub"}, kT, ""},
      {"DateDiff", {"datediff"}, kT, ""},
      {"KnownFloatingPointNormalized", {"knownfloatingpointnormalized"}, kT, ""},
      {"NormalizeNaNAndZero", {"normalizenanandzero"}, kT, ""},
      {"KnownNotNull", {"knownnotnull"}, kT, ""},
      {"UnscaledValue", {"unscaledvalue"}, kT, ""},
      {"MakeDecimal", {"makedecimal"}, kT, ""},
      {"CheckOverflow", {"checkoverflow"}, kT, ""},
      {"Sqrt", {"sqrt"}, kT, ""},
      {"Exp", {"exp"}, kT, ""},
      {"Log", {"ln", "log"}, kT, ""},
      {"Log10", {"log10"}, kT, ""},
      {"Log2", {"log2"}, kT, ""},
      {"Cbrt", {"cbrt"}, kT, ""},
      {"Pow", {"power", "pow"}, kT, ""},
      {"Floor", {"floor"}, kT, ""},
      {"Ceil", {"ceil", "ceiling"}, kT, ""},
      {"Round", {"round"}, kT, ""},
      {"Greatest", {"greatest"}, kT, ""},
      {"Least", {"least"}, kT, ""},
      {"StringTrim", {"trim"}, kT, ""},
      {"StringTrimLeft", {"ltrim"}, kT, ""},
      {"StringTrimRight", {"rtrim"}, kT, ""},
      {"StringReplace", {"replace"}, kT, ""},
      {"StringLPad", {"lpad"}, kT, ""},
      {"StringRPad", {"rpad"}, kT, ""},
      {"Reverse", {"reverse"}, kT, ""},
      {"StringRepeat", {"repeat"}, kT, ""},
      {"StringInstr", {"instr"}, kT, ""},
      {"DayOfWeek", {"dayofweek"}, kT, ""},
      {"DayOfYear", {"dayofyear"}, kT, ""},
      {"Hour", {"hour"}, kT, ""},
      {"Minute", {"minute"}, kT, ""},
      {"Second", {"second"}, kT, ""},
      {"TandemUdfExpression", {}, kT, ""},
      // Aggregate and window functions.
      {"Sum", {"sum", "partial_sum", "merge_sum"}, kT, ""},
      {"Average", {"avg", "partial_avg", "merge_avg"}, kT, ""},
      {"Count", {"count", "partial_count", "merge_count"}, kT, ""},
      {"Min", {"min", "partial_min", "merge_min"}, kT, ""},
      {"Max", {"max", "partial_max", "merge_max"}, kT, ""},
      {"First", {"first"}, kT, ""},
      {"Last", {"last"}, kT, ""},
      {"RowNumber", {"row_number"}, kT, ""},
      {"Rank", {"rank"}, kT, ""},
      {"DenseRank", {"dense_rank"}, kT, ""},
      {"PercentRank", {"percent_rank"}, kT, ""},
      {"CumeDist", {"cume_dist"}, kT, ""},
      {"NTile", {"ntile"}, kT, ""},
      {"Lag", {"lag"}, kT, ""},
      {"Lead", {"lead"}, kT, ""},
      {"NthValue", {"nth_value"}, kT, ""},
      // Known to stay in Spark.
      {"Upper", {"upper", "ucase"}, kS, "Tandem folds case only for ASCII and Latin-1"},
      {"Lower", {"lower", "lcase"}, kS, "Tandem folds case only for ASCII and Latin-1"},
      {"IsNaN", {"isnan"}, kS, "isnan is not supported"},
      {"Signum", {"signum", "sign"}, kS, "Spark's signum is a double, Tandem's sign an int"},
      {"PythonUDF", {"pythonudf"}, kS, "a Python UDF runs in Python"},
      {"ScalaUDF", {"udf"}, kS, "a Scala or Java UDF runs in the JVM"},
      {"ScalarSubquery",
       {"scalar-subquery", "subquery"},
       kS,
       "a scalar subquery's value comes from a separate Spark query"},
      {"Rand", {"rand"}, kS, "random numbers are Spark's"},
      {"RegExpReplace", {"regexp_replace"}, kS, "regular expressions are not supported"},
      {"RLike", {"rlike"}, kS, "regular expressions are not supported"},
      {"RegExpExtract", {"regexp_extract"}, kS, "regular expressions are not supported"},
      {"Murmur3Hash", {"hash"}, kS, "Spark's hash is not supported"},
      {"XxHash64", {"xxhash64"}, kS, "Spark's hash is not supported"},
      {"GetJsonObject", {"get_json_object"}, kS, "JSON functions are not supported"},
      {"Explode", {"explode"}, kS, "generators are not supported"},
      {"CollectList", {"collect_list"}, kS, "collect_list builds arrays, which Tandem lacks"},
      {"CollectSet", {"collect_set"}, kS, "collect_set builds arrays, which Tandem lacks"},
      {"StddevSamp", {"stddev_samp", "stddev"}, kS, "stddev is not translated yet"},
      {"VarianceSamp", {"var_samp", "variance"}, kS, "variance is not translated yet"},
      {"ApproximatePercentile",
       {"percentile_approx", "approx_percentile"},
       kS,
       "approximate percentiles are not supported"},
      {"HyperLogLogPlusPlus",
       {"approx_count_distinct"},
       kS,
       "approx_count_distinct is not supported"},
      {"DateFormatClass", {"date_format"}, kS, "date_format is not supported"},
      {"FromUnixTime", {"from_unixtime"}, kS, "from_unixtime depends on the session time zone"},
      {"UnixTimestamp", {"unix_timestamp"}, kS, "unix_timestamp is not supported"},
      {"Uuid", {"uuid"}, kS, "uuid is not deterministic"},
      {"MonotonicallyIncreasingID",
       {"monotonically_increasing_id"},
       kS,
       "monotonically_increasing_id depends on Spark's partitions"},
      {"SparkPartitionID",
       {"spark_partition_id"},
       kS,
       "spark_partition_id depends on Spark's partitions"},
  };
  return table;
}

const SparkOperatorEntry* FindOperatorShownAs(const std::string& node_name) {
  // Exact names first, then the longest matching prefix ("Scan parquet x" before "Scan").
  const SparkOperatorEntry* best = nullptr;
  size_t best_length = 0;
  for (const SparkOperatorEntry& e : SparkOperators()) {
    const std::string shown = e.shown_as;
    if (!e.prefix) {
      if (node_name == shown) return &e;
      continue;
    }
    if (node_name.rfind(shown, 0) == 0 && shown.size() > best_length) {
      best = &e;
      best_length = shown.size();
    }
  }
  return best;
}

const SparkExpressionEntry* FindExpressionShownAs(const std::string& name) {
  const std::string lower = AsciiLower(name);
  for (const SparkExpressionEntry& e : SparkExpressions()) {
    for (const char* shown : e.shown_as) {
      if (lower == AsciiLower(shown)) return &e;
    }
  }
  return nullptr;
}

namespace {

const char* SupportName(SparkSupport s) {
  switch (s) {
    case SparkSupport::kTranslated:
      return "translated";
    case SparkSupport::kBoundary:
      return "boundary";
    case SparkSupport::kSpark:
      return "spark";
  }
  return "spark";
}

}  // namespace

Json SupportTableJson() {
  Json operators = Json::array();
  for (const SparkOperatorEntry& e : SparkOperators()) {
    operators.push_back({{"class", e.spark_class},
                         {"shown_as", e.shown_as},
                         {"prefix", e.prefix},
                         {"support", SupportName(e.support)},
                         {"reason", e.reason}});
  }
  Json expressions = Json::array();
  for (const SparkExpressionEntry& e : SparkExpressions()) {
    Json shown = Json::array();
    for (const char* s : e.shown_as) shown.push_back(s);
    expressions.push_back({{"class", e.spark_class},
                           {"shown_as", shown},
                           {"support", SupportName(e.support)},
                           {"reason", e.reason}});
  }
  return Json{{"operators", operators}, {"expressions", expressions}};
}

}  // namespace tandem::spark
