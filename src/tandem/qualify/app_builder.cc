// Event-log lines -> Application (see app_builder.h). Field names follow Spark's JsonProtocol
// (core events: "Stage ID", "Task Info", ...) and the SQL listener's case classes (camelCase:
// executionId, sparkPlanInfo, ...).
#include "tandem/qualify/app_builder.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace tandem::qualify {
namespace {

using Json = nlohmann::json;

constexpr const char* kSqlPrefix = "org.apache.spark.sql.execution.ui.";

int64_t Int(const Json& j, const char* key, int64_t fallback = -1) {
  auto it = j.find(key);
  if (it == j.end()) return fallback;
  if (it->is_number_integer()) return it->get<int64_t>();
  if (it->is_number()) return static_cast<int64_t>(it->get<double>());
  if (it->is_string()) {
    try {
      return std::stoll(it->get<std::string>());
    } catch (...) {
      return fallback;
    }
  }
  return fallback;
}

std::string Str(const Json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end()) return "";
  if (it->is_string()) return it->get<std::string>();
  if (it->is_null()) return "";
  return it->dump();
}

const Json& Child(const Json& j, const char* key) {
  static const Json kNull;
  auto it = j.find(key);
  return it == j.end() ? kNull : *it;
}

std::unique_ptr<PlanNode> PlanFromJson(const Json& j, int depth = 0) {
  auto node = std::make_unique<PlanNode>();
  if (!j.is_object() || depth > 10000) return node;
  node->name = Str(j, "nodeName");
  node->description = Str(j, "simpleString");
  const Json& metadata = Child(j, "metadata");
  if (metadata.is_object()) {
    for (const auto& [k, v] : metadata.items())
      node->metadata[k] = v.is_string() ? v.get<std::string>() : v.dump();
  }
  const Json& metrics = Child(j, "metrics");
  if (metrics.is_array()) {
    for (const Json& m : metrics) {
      node->metrics.push_back({Str(m, "name"), Int(m, "accumulatorId"), Str(m, "metricType")});
    }
  }
  const Json& children = Child(j, "children");
  if (children.is_array()) {
    for (const Json& c : children) node->children.push_back(PlanFromJson(c, depth + 1));
  }
  return node;
}

void Touch(Application* app, int64_t ms) {
  if (ms > app->last_event_ms) app->last_event_ms = ms;
}

StageStats& StageOf(Application* app, const Json& info) {
  const int64_t id = Int(info, "Stage ID");
  const int64_t attempt = Int(info, "Stage Attempt ID", 0);
  StageStats& s = app->stages[{id, attempt}];
  s.id = id;
  s.attempt = attempt;
  return s;
}

void StageInfo(Application* app, const Json& info) {
  StageStats& s = StageOf(app, info);
  if (s.name.empty()) s.name = Str(info, "Stage Name");
  const int64_t tasks = Int(info, "Number of Tasks", 0);
  if (tasks > 0) s.num_tasks = tasks;
  const Json& parents = Child(info, "Parent IDs");
  if (parents.is_array() && s.parents.empty()) {
    for (const Json& p : parents) {
      if (p.is_number_integer()) s.parents.push_back(p.get<int64_t>());
    }
  }
  const int64_t submitted = Int(info, "Submission Time");
  const int64_t completed = Int(info, "Completion Time");
  if (submitted >= 0) s.submitted_ms = submitted;
  if (completed >= 0) s.completed_ms = completed;
  Touch(app, completed);
  const std::string failure = Str(info, "Failure Reason");
  if (!failure.empty()) s.failure = failure;
  const Json& accumulables = Child(info, "Accumulables");
  if (accumulables.is_array()) {
    for (const Json& a : accumulables) {
      const int64_t id = Int(a, "ID");
      if (id < 0) continue;
      s.accumulators.insert(id);
      const Json& value = Child(a, "Value");
      if (!value.is_null())
        app->accumulator_values[id] = value.is_string() ? value.get<std::string>() : value.dump();
    }
  }
}

void TaskEnd(Application* app, const Json& e) {
  StageStats& s = app->stages[{Int(e, "Stage ID"), Int(e, "Stage Attempt ID", 0)}];
  s.id = Int(e, "Stage ID");
  s.attempt = Int(e, "Stage Attempt ID", 0);
  const Json& info = Child(e, "Task Info");
  const Json& m = Child(e, "Task Metrics");
  ++s.tasks_ended;
  const std::string reason = Str(Child(e, "Task End Reason"), "Reason");
  if (!reason.empty() && reason != "Success") ++s.tasks_failed;
  const int64_t launch = Int(info, "Launch Time");
  const int64_t finish = Int(info, "Finish Time");
  Touch(app, finish);
  if (launch >= 0 && (s.first_launch_ms < 0 || launch < s.first_launch_ms))
    s.first_launch_ms = launch;
  if (finish > s.last_finish_ms) s.last_finish_ms = finish;
  if (launch >= 0 && finish >= launch) {
    s.task_wall_ms += finish - launch;
    s.max_task_wall_ms = std::max(s.max_task_wall_ms, finish - launch);
  }
  const std::string executor = Str(info, "Executor ID");
  if (!executor.empty()) s.executors.insert(executor);
  const Json& task_accumulables = Child(info, "Accumulables");
  if (task_accumulables.is_array()) {
    for (const Json& a : task_accumulables) {
      const int64_t id = Int(a, "ID");
      if (id >= 0) s.accumulators.insert(id);
    }
  }
  if (!m.is_object()) return;
  s.run_ms += std::max<int64_t>(0, Int(m, "Executor Run Time", 0));
  s.cpu_ns += std::max<int64_t>(0, Int(m, "Executor CPU Time", 0));
  s.deserialize_ms += std::max<int64_t>(0, Int(m, "Executor Deserialize Time", 0));
  s.gc_ms += std::max<int64_t>(0, Int(m, "JVM GC Time", 0));
  s.spilled_bytes += std::max<int64_t>(0, Int(m, "Disk Bytes Spilled", 0));
  s.peak_memory_bytes = std::max(s.peak_memory_bytes, Int(m, "Peak Execution Memory", 0));
  const Json& in = Child(m, "Input Metrics");
  s.input_bytes += std::max<int64_t>(0, Int(in, "Bytes Read", 0));
  s.input_records += std::max<int64_t>(0, Int(in, "Records Read", 0));
  const Json& sr = Child(m, "Shuffle Read Metrics");
  s.shuffle_read_bytes += std::max<int64_t>(0, Int(sr, "Remote Bytes Read", 0)) +
                          std::max<int64_t>(0, Int(sr, "Local Bytes Read", 0));
  s.shuffle_read_records += std::max<int64_t>(0, Int(sr, "Total Records Read", 0));
  s.fetch_wait_ms += std::max<int64_t>(0, Int(sr, "Fetch Wait Time", 0));
  const Json& sw = Child(m, "Shuffle Write Metrics");
  s.shuffle_write_bytes += std::max<int64_t>(0, Int(sw, "Shuffle Bytes Written", 0));
  s.shuffle_write_records += std::max<int64_t>(0, Int(sw, "Shuffle Records Written", 0));
  s.shuffle_write_ns += std::max<int64_t>(0, Int(sw, "Shuffle Write Time", 0));
  const Json& out = Child(m, "Output Metrics");
  s.output_bytes += std::max<int64_t>(0, Int(out, "Bytes Written", 0));
}

void JobStart(Application* app, const Json& e) {
  Job& job = app->jobs[Int(e, "Job ID")];
  job.id = Int(e, "Job ID");
  job.submitted_ms = Int(e, "Submission Time");
  Touch(app, job.submitted_ms);
  const Json& props = Child(e, "Properties");
  job.execution = Int(props, "spark.sql.execution.id", -1);
  const Json& ids = Child(e, "Stage IDs");
  if (ids.is_array()) {
    for (const Json& id : ids) {
      if (id.is_number_integer()) job.stages.push_back(id.get<int64_t>());
    }
  }
  const Json& infos = Child(e, "Stage Infos");
  if (infos.is_array()) {
    for (const Json& info : infos) StageInfo(app, info);
  }
  if (job.execution >= 0) {
    auto it = app->executions.find(job.execution);
    if (it != app->executions.end()) it->second.jobs.push_back(job.id);
  }
}

void SqlStart(Application* app, const Json& e) {
  SqlExecution& x = app->executions[Int(e, "executionId")];
  x.id = Int(e, "executionId");
  x.root_id = Int(e, "rootExecutionId", -1);
  x.description = Str(e, "description");
  x.start_ms = Int(e, "time");
  Touch(app, x.start_ms);
  x.plan = PlanFromJson(Child(e, "sparkPlanInfo"));
  x.plan_versions = 1;
  x.final_plan = x.plan->description.find("isFinalPlan=true") != std::string::npos;
  // Jobs that started before (they refer to it by id) join it.
  for (const auto& [id, job] : app->jobs) {
    if (job.execution == x.id && std::find(x.jobs.begin(), x.jobs.end(), id) == x.jobs.end()) {
      x.jobs.push_back(id);
    }
  }
}

}  // namespace

void AppBuilder::Consume(const std::string& line) {
  ++app_.lines;
  if (line.empty()) return;
  Json e = Json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (e.is_discarded() || !e.is_object()) {
    ++app_.bad_lines;
    return;
  }
  std::string event = Str(e, "Event");
  if (event.rfind(kSqlPrefix, 0) == 0) event = event.substr(std::string(kSqlPrefix).size());
  Application* app = &app_;
  if (event == "SparkListenerTaskEnd") {
    TaskEnd(app, e);
  } else if (event == "SparkListenerStageSubmitted" || event == "SparkListenerStageCompleted") {
    StageInfo(app, Child(e, "Stage Info"));
  } else if (event == "SparkListenerJobStart") {
    JobStart(app, e);
  } else if (event == "SparkListenerJobEnd") {
    Job& job = app->jobs[Int(e, "Job ID")];
    job.id = Int(e, "Job ID");
    job.completed_ms = Int(e, "Completion Time");
    Touch(app, job.completed_ms);
    job.succeeded = Str(Child(e, "Job Result"), "Result") == "JobSucceeded";
  } else if (event == "SparkListenerSQLExecutionStart") {
    SqlStart(app, e);
  } else if (event == "SparkListenerSQLAdaptiveExecutionUpdate") {
    SqlExecution& x = app->executions[Int(e, "executionId")];
    x.id = Int(e, "executionId");
    x.plan = PlanFromJson(Child(e, "sparkPlanInfo"));
    ++x.plan_versions;
    x.final_plan = x.plan->description.find("isFinalPlan=true") != std::string::npos;
  } else if (event == "SparkListenerSQLExecutionEnd") {
    SqlExecution& x = app->executions[Int(e, "executionId")];
    x.id = Int(e, "executionId");
    x.end_ms = Int(e, "time");
    x.error = Str(e, "errorMessage");
    Touch(app, x.end_ms);
  } else if (event == "SparkListenerDriverAccumUpdates") {
    const Json& updates = Child(e, "accumUpdates");
    if (updates.is_array()) {
      for (const Json& u : updates) {
        if (u.is_array() && u.size() == 2 && u[0].is_number_integer()) {
          app->accumulator_values[u[0].get<int64_t>()] =
              u[1].is_string() ? u[1].get<std::string>() : u[1].dump();
        }
      }
    }
  } else if (event == "SparkListenerApplicationStart") {
    app->id = Str(e, "App ID");
    app->name = Str(e, "App Name");
    app->start_ms = Int(e, "Timestamp");
    Touch(app, app->start_ms);
  } else if (event == "SparkListenerApplicationEnd") {
    app->end_ms = Int(e, "Timestamp");
    Touch(app, app->end_ms);
  } else if (event == "SparkListenerLogStart") {
    app->spark_version = Str(e, "Spark Version");
  } else if (event == "SparkListenerEnvironmentUpdate") {
    const Json& props = Child(e, "Spark Properties");
    if (props.is_object()) {
      for (const auto& [k, v] : props.items())
        app->properties[k] = v.is_string() ? v.get<std::string>() : v.dump();
    } else if (props.is_array()) {  // some versions write [[key, value], ...]
      for (const Json& kv : props) {
        if (kv.is_array() && kv.size() == 2 && kv[0].is_string()) {
          app->properties[kv[0].get<std::string>()] =
              kv[1].is_string() ? kv[1].get<std::string>() : kv[1].dump();
        }
      }
    }
  } else if (event == "SparkListenerExecutorAdded") {
    Executor& x = app->executors[Str(e, "Executor ID")];
    x.id = Str(e, "Executor ID");
    x.added_ms = Int(e, "Timestamp");
    x.cores = Int(Child(e, "Executor Info"), "Total Cores", 0);
    Touch(app, x.added_ms);
  } else if (event == "SparkListenerExecutorRemoved") {
    Executor& x = app->executors[Str(e, "Executor ID")];
    x.id = Str(e, "Executor ID");
    x.removed_ms = Int(e, "Timestamp");
    Touch(app, x.removed_ms);
  }
}

Application AppBuilder::Finish(bool truncated) {
  app_.truncated = truncated;
  // Jobs of an execution whose start came after them, and executions that never ended.
  for (auto& [id, job] : app_.jobs) {
    if (job.execution < 0) continue;
    auto it = app_.executions.find(job.execution);
    if (it == app_.executions.end()) continue;
    auto& jobs = it->second.jobs;
    if (std::find(jobs.begin(), jobs.end(), id) == jobs.end()) jobs.push_back(id);
  }
  for (auto& [id, x] : app_.executions) std::sort(x.jobs.begin(), x.jobs.end());
  return std::move(app_);
}

bool Application::tandem_plugin() const {
  return Property("spark.plugins").find("dev.tandem.spark.TandemPlugin") != std::string::npos;
}

std::string Application::Property(const std::string& key, const std::string& fallback) const {
  auto it = properties.find(key);
  return it == properties.end() ? fallback : it->second;
}

}  // namespace tandem::qualify
