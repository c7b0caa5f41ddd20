// Judging event-log plans with the plugin's table (see plan_support.h).
#include "tandem/qualify/plan_support.h"

#include <cctype>
#include <functional>
#include <set>

#include "tandem/common/text.h"

namespace tandem::qualify {
namespace {

// Words that look like calls in plan strings but are syntax, types or machinery of a translated
// node (a window's frame, a cast's target type, a scan's file index).
const std::set<std::string>& NeutralNames() {
  static const std::set<std::string> names = {
      "windowspecdefinition",
      "specifiedwindowframe",
      "unboundedpreceding$",
      "unboundedfollowing$",
      "currentrow$",
      "rowframe",
      "rangeframe",
      "decimal",
      "struct",
      "array",
      "map",
      "varchar",
      "char",
      "inmemoryfileindex",
      "hashpartitioning",
      "rangepartitioning",
      "singlepartition",
      "roundrobinpartitioning",
      "keys",
      "functions",
      "output",
      "orderby",
      "limit",
      "plan_id",
      "distinct",
      "when",
      "then",
      "else",
      "end",
      "as",
      "and",
      "or",
      "not",
      "asc",
      "desc",
      "nulls",
      "first",
      "last",
      "dynamicpruningexpression",
      "dynamicpruning",
      "bloom_filter_agg",
      "might_contain",
      "some",  // a time zone argument: Some(Asia/Kathmandu)
  };
  return names;
}

bool IdentChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$';
}

bool SubstantialClass(const std::string& cls) {
  static const std::set<std::string> substantial = {
      "FileSourceScanExec", "HashAggregateExec",           "ObjectHashAggregateExec",
      "SortAggregateExec",  "BroadcastHashJoinExec",       "ShuffledHashJoinExec",
      "SortMergeJoinExec",  "BroadcastNestedLoopJoinExec", "CartesianProductExec",
      "SortExec",           "TakeOrderedAndProjectExec",   "WindowExec",
  };
  return substantial.count(cls) > 0;
}

// Types Tandem does not carry, in a scan's ReadSchema ("struct<a:int,b:array<int>>").
std::string UnsupportedReadType(const std::string& schema) {
  std::string inner = schema;
  if (inner.rfind("struct<", 0) == 0) inner = inner.substr(7);
  for (const char* t : {"array<", "map<", "struct<", "interval", "variant", "void"}) {
    if (inner.find(t) != std::string::npos) {
      std::string name = t;
      if (name.back() == '<') name.pop_back();
      return "its columns include " + name + " values, which Tandem does not carry";
    }
  }
  return "";
}

bool UtcZone(const std::string& zone) {
  return zone.empty() || zone == "UTC" || zone == "Etc/UTC" || zone == "Z" || zone == "+00:00" ||
         zone == "GMT" || zone == "Etc/GMT";
}

}  // namespace

std::vector<std::string> ExpressionNamesIn(const std::string& text) {
  std::vector<std::string> out;
  const size_t n = text.size();
  if (text.find("scalar-subquery#") != std::string::npos) out.push_back("scalar-subquery");
  for (size_t i = 0; i < n;) {
    if (!IdentChar(text[i]) || (i > 0 && (IdentChar(text[i - 1]) || text[i - 1] == '#'))) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < n && IdentChar(text[j])) ++j;
    const std::string word = text.substr(i, j - i);
    if (j < n && text[j] == '(' && !std::isdigit(static_cast<unsigned char>(word[0]))) {
      out.push_back(word);
    } else if (word == "CASE" || word == "RLIKE" || word == "INSET" || word == "LIKE" ||
               (word == "IN" && j + 1 < n && text[j] == ' ' && text[j + 1] == '(')) {
      out.push_back(word);
    }
    i = j;
  }
  return out;
}

JudgedNode JudgeNode(const PlanNode& node, const std::string& session_time_zone) {
  JudgedNode j;
  j.node = &node;
  const std::string name = node.name;
  // Codegen wrappers, and the transitions Spark inserts after planning (under the plugin the
  // operators on both sides of a ColumnarToRow over a scan are one fragment).
  if (name.rfind("WholeStageCodegen", 0) == 0 || name == "InputAdapter" ||
      name == "ColumnarToRow" || name == "RowToColumnar") {
    j.placement = Placement::kWrapper;
    return j;
  }
  const spark::SparkOperatorEntry* op = spark::FindOperatorShownAs(name);
  if (!op) {
    j.reason = "operator " + name + " is not known to Tandem";
    return j;
  }
  j.operator_class = op->spark_class;
  if (op->support == spark::SparkSupport::kBoundary) {
    j.placement = Placement::kBoundary;
    return j;
  }
  if (op->support == spark::SparkSupport::kSpark) {
    j.reason = std::string(op->spark_class) + ": " + op->reason;
    return j;
  }
  j.substantial = SubstantialClass(j.operator_class);
  if (j.operator_class == "FileSourceScanExec") {
    auto schema = node.metadata.find("ReadSchema");
    std::string why = schema == node.metadata.end() ? "" : UnsupportedReadType(schema->second);
    if (!why.empty()) {
      j.reason = "the Parquet scan: " + why;
      return j;
    }
    j.placement = Placement::kTandem;
    return j;
  }
  // The node's own name opens its description ("HashAggregate(keys=...", "Filter (...").
  std::string text = node.description;
  if (text.rfind(name, 0) == 0) text = text.substr(name.size());
  for (const std::string& fn : ExpressionNamesIn(text)) {
    const std::string lower = AsciiLower(fn);
    if (NeutralNames().count(lower)) continue;
    const spark::SparkExpressionEntry* e = spark::FindExpressionShownAs(lower);
    if (!e) {
      j.reason = "function " + fn + " is not known to Tandem";
      return j;
    }
    if (e->support == spark::SparkSupport::kSpark) {
      j.reason = fn + ": " + e->reason;
      return j;
    }
    const bool time_of_day = lower == "hour" || lower == "minute" || lower == "second";
    if (time_of_day && !UtcZone(session_time_zone)) {
      j.reason = fn + " depends on the session time zone " + session_time_zone + " (UTC only)";
      return j;
    }
  }
  j.placement = Placement::kTandem;
  return j;
}

JudgedPlan JudgePlan(const PlanNode& plan, const std::string& session_time_zone) {
  JudgedPlan out;
  // An empty relation (AQE found no rows) shows the logical plan it replaced: its nodes are not
  // operators, but the query stages that ran before (LogicalQueryStage) hold physical plans.
  std::function<JudgedNode*(const PlanNode&, JudgedNode*, bool)> walk =
      [&](const PlanNode& n, JudgedNode* parent, bool logical) {
        JudgedNode judged;
        if (logical) {
          judged.node = &n;
          judged.placement = Placement::kWrapper;
        } else {
          judged = JudgeNode(n, session_time_zone);
        }
        out.nodes.push_back(std::make_unique<JudgedNode>(std::move(judged)));
        JudgedNode* j = out.nodes.back().get();
        j->parent = parent;
        const bool below_logical =
            (logical || n.name == "EmptyRelation") && n.name != "LogicalQueryStage";
        for (const auto& c : n.children) j->children.push_back(walk(*c, j, below_logical));
        return j;
      };
  out.root = walk(plan, nullptr, false);
  // Regions: Tandem nodes connected directly or through wrappers.
  std::function<void(JudgedNode*, int)> assign = [&](JudgedNode* n, int region) {
    if (n->placement == Placement::kTandem) {
      if (region < 0) region = out.regions++;
      n->region = region;
    } else if (n->placement != Placement::kWrapper) {
      region = -1;
    }
    for (JudgedNode* c : n->children) assign(c, region);
  };
  assign(out.root, -1);
  // A region without substantial work would only add transitions: it stays in Spark.
  std::vector<bool> worth(static_cast<size_t>(out.regions), false);
  for (const auto& n : out.nodes) {
    if (n->region >= 0 && n->substantial) worth[static_cast<size_t>(n->region)] = true;
  }
  for (const auto& n : out.nodes) {
    if (n->region >= 0 && !worth[static_cast<size_t>(n->region)]) {
      n->placement = Placement::kSpark;
      n->reason =
          "it would only add row/columnar transitions: its Tandem part has no scan, "
          "aggregate, join or sort";
      n->region = -1;
    }
  }
  return out;
}

const char* PlacementName(Placement p) {
  switch (p) {
    case Placement::kTandem:
      return "tandem";
    case Placement::kSpark:
      return "spark";
    case Placement::kBoundary:
      return "boundary";
    case Placement::kWrapper:
      return "wrapper";
  }
  return "spark";
}

}  // namespace tandem::qualify
