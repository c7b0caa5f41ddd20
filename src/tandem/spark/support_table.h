// The one list of what Tandem takes over from Spark: the Spark physical operators and expression
// classes the plugin translates into fragments, the operators that are Spark's machinery between
// stages, and the operators and expressions known to stay in Spark, with the reason. The plugin
// reads it from its jar (generated from this table at build time by `tandem spark support
// --json`) to decide what to translate; `tandem qualify` reads it to judge the plans of event
// logs; `tandem spark support` prints it for people. What a translated node then needs (types,
// eval modes, function arguments) is the engine's validation (fragment.h), shared the same way.
//
// Names: `spark_class` is the class's simple name (FilterExec, IsNotNull); `shown_as` is how the
// node or expression appears in Spark's plan strings and event logs (Filter, isnotnull, +):
// operators by nodeName (a prefix for scans), expressions by their function name or operator,
// matched without regard to case.
#pragma once

#include <string>
#include <vector>

#include "tandem/spark/fragment_json.h"

namespace tandem::spark {

enum class SparkSupport {
  kTranslated,  // the plugin translates it; the engine's validation has the last word
  kBoundary,    // Spark's machinery (exchanges, query stages, codegen): never converted
  kSpark,       // stays in Spark, because `reason`
};

struct SparkOperatorEntry {
  const char* spark_class;
  const char* shown_as;  // nodeName in event logs (a prefix when `prefix`)
  SparkSupport support;
  const char* reason;  // kSpark: why; else ""
  bool prefix = false;
};

struct SparkExpressionEntry {
  const char* spark_class;
  std::vector<const char*> shown_as;  // function names or operators in plan strings
  SparkSupport support;
  const char* reason;
};

const std::vector<SparkOperatorEntry>& SparkOperators();
const std::vector<SparkExpressionEntry>& SparkExpressions();

// The entry of an event log's nodeName ("Filter", "Scan parquet tpch.lineitem"), or null.
const SparkOperatorEntry* FindOperatorShownAs(const std::string& node_name);
// The entry of a function name or operator in a plan string ("isnotnull", "upper", "+"), or null.
const SparkExpressionEntry* FindExpressionShownAs(const std::string& name);

// {"operators": [{"class", "shown_as", "support", "reason"}], "expressions": [...]}: what the
// plugin's jar carries.
Json SupportTableJson();

}  // namespace tandem::spark
