// Taking SQL executions apart (see execution_analysis.h).
#include "tandem/qualify/execution_analysis.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace tandem::qualify {
namespace {

// Relative work of one operator of a class, for splitting a stage's task time among its
// operators when the log has nothing finer.
double Weight(const JudgedNode& n) {
  const std::string& c = n.operator_class;
  if (c == "FileSourceScanExec") return 3;
  if (c.find("Join") != std::string::npos || c == "CartesianProductExec") return 3;
  if (c.find("Aggregate") != std::string::npos || c == "SortExec" || c == "WindowExec" ||
      c == "TakeOrderedAndProjectExec") {
    return 2;
  }
  if (c == "ArrowEvalPythonExec" || c == "BatchEvalPythonExec" || c == "MapInPandasExec" ||
      c == "FlatMapGroupsInPandasExec") {
    return 6;
  }
  if (c == "FilterExec" || c == "ProjectExec" || c == "ExpandExec") return 0.5;
  return 1;
}

bool IsPython(const JudgedNode& n) {
  return n.operator_class.find("Python") != std::string::npos ||
         n.operator_class.find("Pandas") != std::string::npos;
}

bool IsOperator(const JudgedNode& n) {
  return n.placement == Placement::kTandem || n.placement == Placement::kSpark;
}

// The nearest ancestor that is not a wrapper.
const JudgedNode* OperatorParent(const JudgedNode& n) {
  const JudgedNode* p = n.parent;
  while (p && p->placement == Placement::kWrapper) p = p->parent;
  return p;
}

double Metric(const Application& app, const PlanNode& node, const char* name) {
  for (const auto& m : node.metrics) {
    if (m.name == name) return MetricValue(app, m.accumulator);
  }
  return 0;
}

int64_t OutputRows(const Application& app, const PlanNode& node) {
  return static_cast<int64_t>(Metric(app, node, "number of output rows"));
}

// Rows into a node: its operator children's output rows (through wrappers and exchanges, whose
// own counts are Spark's shuffle records).
double InputRows(const Application& app, const JudgedNode& n) {
  double rows = 0;
  for (const JudgedNode* c : n.children) {
    const double r = OutputRows(app, *c->node);
    rows += r > 0 ? r : InputRows(app, *c);
  }
  return rows;
}

constexpr double kReducingRatio = 0.05;

// Names of the decimal columns the plan's scans read (from their ReadSchema).
void AddDecimalColumns(const PlanNode& n, std::set<std::string>* out) {
  auto schema = n.metadata.find("ReadSchema");
  if (schema != n.metadata.end()) {
    const std::string& t = schema->second;
    size_t at = t.find('<');
    while (at != std::string::npos && at + 1 < t.size()) {
      const size_t colon = t.find(':', at + 1);
      if (colon == std::string::npos) break;
      const std::string name = t.substr(at + 1, colon - at - 1);
      if (t.compare(colon + 1, 7, "decimal") == 0) out->insert(name);
      // The next field starts after the next comma outside parentheses.
      int depth = 0;
      size_t i = colon + 1;
      for (; i < t.size(); ++i) {
        if (t[i] == '(' || t[i] == '<') ++depth;
        if (t[i] == ')' || t[i] == '>') --depth;
        if (t[i] == ',' && depth == 0) break;
      }
      at = i < t.size() ? i : std::string::npos;
    }
  }
  for (const auto& c : n.children) AddDecimalColumns(*c, out);
}

std::set<std::string> DecimalColumns(const PlanNode& plan) {
  std::set<std::string> out;
  AddDecimalColumns(plan, &out);
  return out;
}

// Whether an aggregate's functions read a decimal column ("functions=[sum(l_quantity#47)]").
bool AggregatesDecimals(const PlanNode& n, const std::set<std::string>& decimals) {
  const size_t f = n.description.find("functions=[");
  if (f == std::string::npos) return false;
  const size_t end = n.description.find("], output=", f);
  const std::string fns = n.description.substr(f, end == std::string::npos ? end : end - f);
  for (size_t i = 0; i < fns.size(); ++i) {
    if (fns[i] != '#') continue;
    size_t b = i;
    while (b > 0 && (std::isalnum(static_cast<unsigned char>(fns[b - 1])) || fns[b - 1] == '_')) {
      --b;
    }
    if (b < i && decimals.count(fns.substr(b, i - b))) return true;
  }
  return false;
}

// Output rows over input rows of an aggregate (0 when unknown).
double ReductionRatio(const Application& app, const JudgedNode& n) {
  const double in = InputRows(app, n);
  return in > 0 ? double(OutputRows(app, *n.node)) / in : 0;
}

// Each stage's wall split among the stages running at the same time.
void ExclusiveTimes(std::vector<StageAnalysis>* stages) {
  std::vector<int64_t> points;
  for (const StageAnalysis& s : *stages) {
    if (s.stats->submitted_ms < 0 || s.stats->completed_ms < s.stats->submitted_ms) continue;
    points.push_back(s.stats->submitted_ms);
    points.push_back(s.stats->completed_ms);
  }
  std::sort(points.begin(), points.end());
  points.erase(std::unique(points.begin(), points.end()), points.end());
  for (size_t i = 0; i + 1 < points.size(); ++i) {
    const int64_t a = points[i], b = points[i + 1];
    std::vector<StageAnalysis*> active;
    for (StageAnalysis& s : *stages) {
      if (s.stats->submitted_ms <= a && s.stats->completed_ms >= b) active.push_back(&s);
    }
    for (StageAnalysis* s : active) s->exclusive_ms += double(b - a) / double(active.size());
  }
}

}  // namespace

double MetricValue(const Application& app, int64_t accumulator) {
  auto it = app.accumulator_values.find(accumulator);
  if (it == app.accumulator_values.end()) return 0;
  try {
    return std::stod(it->second);
  } catch (...) {
    return 0;
  }
}

std::vector<ExecutionAnalysis> AnalyzeExecutions(const Application& app) {
  std::map<int64_t, std::vector<const StageStats*>> stages_of_accumulator;
  for (const auto& [key, s] : app.stages) {
    for (int64_t a : s.accumulators) stages_of_accumulator[a].push_back(&s);
  }
  const std::string zone = app.Property("spark.sql.session.timeZone", "UTC");
  // Nested executions (the query a command such as INSERT or CREATE TABLE AS SELECT runs) are
  // part of their root: their plans and jobs join the root's.
  std::map<int64_t, std::vector<const SqlExecution*>> nested;
  for (const auto& [id, x] : app.executions) {
    if (x.root_id >= 0 && x.root_id != x.id && x.plan) nested[x.root_id].push_back(&x);
  }
  std::vector<ExecutionAnalysis> out;
  for (const auto& [id, x] : app.executions) {
    if (!x.plan || x.start_ms < 0 || x.end_ms < x.start_ms) continue;
    if (x.root_id >= 0 && x.root_id != x.id) continue;  // nested: part of its root
    ExecutionAnalysis a;
    a.execution = &x;
    a.measured_ms = double(x.end_ms - x.start_ms);
    a.failed = !x.error.empty();
    a.plan = JudgePlan(*x.plan, zone);
    std::set<std::string> decimals = DecimalColumns(*x.plan);
    std::vector<int64_t> jobs = x.jobs;
    for (const SqlExecution* n : nested[x.id]) {
      JudgedPlan inner = JudgePlan(*n->plan, zone);
      a.plan.nested_roots.push_back(inner.root);
      for (auto& node : inner.nodes) a.plan.nodes.push_back(std::move(node));
      a.plan.regions += inner.regions;
      const std::set<std::string> inner_decimals = DecimalColumns(*n->plan);
      decimals.insert(inner_decimals.begin(), inner_decimals.end());
      jobs.insert(jobs.end(), n->jobs.begin(), n->jobs.end());
      if (!n->error.empty()) a.failed = true;
    }
    for (const auto& n : a.plan.nodes) {
      if (n->node->name == "TandemExec") a.ran_in_tandem = true;
      if (n->placement == Placement::kTandem) ++a.tandem_nodes;
      if (n->placement == Placement::kSpark) {
        ++a.spark_nodes;
        ++a.spark_reasons[n->reason];
      }
    }
    // The execution's stages (every attempt), through its jobs.
    std::set<int64_t> stage_ids;
    for (int64_t j : jobs) {
      auto job = app.jobs.find(j);
      if (job == app.jobs.end()) continue;
      if (!job->second.succeeded) a.failed = true;
      stage_ids.insert(job->second.stages.begin(), job->second.stages.end());
    }
    std::map<const StageStats*, size_t> index;
    for (const auto& [key, s] : app.stages) {
      if (!stage_ids.count(key.first) || s.submitted_ms < 0 || s.tasks_ended == 0) continue;
      StageAnalysis sa;
      sa.stats = &s;
      sa.run_ms = double(s.run_ms);
      sa.shuffle_write_ms = double(s.shuffle_write_ns) / 1e6;
      sa.fetch_wait_ms = double(s.fetch_wait_ms);
      sa.compute_ms = std::max(0.0, sa.run_ms - sa.shuffle_write_ms - sa.fetch_wait_ms);
      sa.wall_ms = s.completed_ms >= s.submitted_ms ? double(s.completed_ms - s.submitted_ms) : 0;
      sa.parallelism = sa.wall_ms > 0 ? std::max(1.0, double(s.task_wall_ms) / sa.wall_ms) : 1;
      sa.input_scan = s.input_bytes > 0;
      index[&s] = a.stages.size();
      a.stages.push_back(sa);
    }
    // Operators to stages, by the accumulators of their metrics.
    for (const auto& n : a.plan.nodes) {
      if (!IsOperator(*n)) continue;
      std::set<const StageStats*> seen;
      for (const auto& m : n->node->metrics) {
        auto it = stages_of_accumulator.find(m.accumulator);
        if (it == stages_of_accumulator.end()) continue;
        for (const StageStats* s : it->second) {
          auto at = index.find(s);
          if (at == index.end() || !seen.insert(s).second) continue;
          a.stages[at->second].nodes.push_back(n.get());
        }
      }
    }
    for (StageAnalysis& s : a.stages) {
      double timed_tandem[5] = {0, 0, 0, 0, 0}, timed_python = 0, timed_all = 0;
      double all = 0, tandem = 0, python = 0;
      for (const JudgedNode* n : s.nodes) {
        const bool in_tandem = n->placement == Placement::kTandem;
        const char* metric = n->operator_class == "FileSourceScanExec" ? "scan time"
                             : n->operator_class.find("Aggregate") != std::string::npos
                                 ? "time in aggregation build"
                             : n->operator_class == "SortExec" ? "sort time"
                                                               : nullptr;
        int kind = n->operator_class == "FileSourceScanExec" ? 0
                   : n->operator_class == "SortExec"         ? 2
                                                             : 1;
        // An aggregate that keeps many of its input rows (a partial aggregate by a near-unique
        // key) does hash work Tandem speeds up less than one that reduces them to a few groups.
        if (kind == 1 && ReductionRatio(app, *n) > kReducingRatio) kind = 3;
        // Spark sums and averages decimals wider than 18 digits as BigDecimals; Tandem in
        // 128-bit integers: such aggregates gain the most.
        if (kind == 1 && AggregatesDecimals(*n->node, decimals)) kind = 4;
        double timed = metric ? Metric(app, *n->node, metric) : 0;
        if (IsPython(*n)) {
          timed = Metric(app, *n->node, "time to run Python workers") +
                  Metric(app, *n->node, "time to initialize Python workers");
          timed_python += timed;
        }
        if (timed > 0) {
          timed_all += timed;
          if (in_tandem) timed_tandem[kind] += timed;
        } else {
          const double w = Weight(*n);
          all += w;
          if (in_tandem) tandem += w;
          if (IsPython(*n)) python += w;
        }
        // Rows crossing between Tandem and a Spark operator (not an exchange: both engines
        // cross those alike).
        const JudgedNode* p = OperatorParent(*n);
        if (p && IsOperator(*p) && (p->placement == Placement::kTandem) != in_tandem) {
          s.rows_out_of_tandem += OutputRows(app, *n->node);
        }
      }
      // Spark's timers can overlap (a scan's time inside its pipeline's): never past compute.
      const double scale = timed_all > s.compute_ms && timed_all > 0 ? s.compute_ms / timed_all : 1;
      s.tandem_scan_ms = timed_tandem[0] * scale;
      s.tandem_aggregate_ms = timed_tandem[1] * scale;
      s.tandem_sort_ms = timed_tandem[2] * scale;
      s.tandem_wide_aggregate_ms = timed_tandem[3] * scale;
      s.tandem_decimal_aggregate_ms = timed_tandem[4] * scale;
      const double rest = std::max(0.0, s.compute_ms - timed_all * scale);
      s.tandem_other_ms = all > 0 ? rest * tandem / all : 0;
      s.python_ms = timed_python * scale + (all > 0 ? rest * python / all : 0);
      s.spark_ms = std::max(0.0, s.compute_ms - s.tandem_ms() - s.python_ms);
    }
    ExclusiveTimes(&a.stages);
    for (const StageAnalysis& s : a.stages) a.stage_ms += s.exclusive_ms;
    out.push_back(std::move(a));
  }
  return out;
}

}  // namespace tandem::qualify
