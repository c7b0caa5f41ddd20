// tandem qualify's pieces on hand-made events: the application folded from event lines (tasks
// into stages, AQE's last plan, jobs to executions, bad lines counted), plans judged with the
// plugin's table (names, functions, scan types, regions), and the wall-clock model's arithmetic.
#include <gtest/gtest.h>

#include "tandem/qualify/app_builder.h"
#include "tandem/qualify/execution_analysis.h"
#include "tandem/qualify/plan_support.h"
#include "tandem/qualify/wall_model.h"

namespace tandem::qualify {
namespace {

const char* kPlan =
    R"json({"nodeName":"AdaptiveSparkPlan","simpleString":"AdaptiveSparkPlan isFinalPlan=true","children":[
 {"nodeName":"WholeStageCodegen (2)","simpleString":"WholeStageCodegen (2)","children":[
  {"nodeName":"HashAggregate","simpleString":"HashAggregate(keys=[k#1], functions=[sum(v#2)])","metrics":[{"name":"number of output rows","accumulatorId":10,"metricType":"sum"}],"children":[
   {"nodeName":"InputAdapter","simpleString":"InputAdapter","children":[
    {"nodeName":"ShuffleQueryStage","simpleString":"ShuffleQueryStage 0","children":[
     {"nodeName":"Exchange","simpleString":"Exchange hashpartitioning(k#1, 4)","children":[
      {"nodeName":"WholeStageCodegen (1)","simpleString":"WholeStageCodegen (1)","children":[
       {"nodeName":"HashAggregate","simpleString":"HashAggregate(keys=[k#1], functions=[partial_sum(v#2)])","metrics":[{"name":"number of output rows","accumulatorId":11,"metricType":"sum"}],"children":[
        {"nodeName":"Project","simpleString":"Project [k#1, upper(s#3) AS v#2]","metrics":[],"children":[
         {"nodeName":"Scan parquet ","simpleString":"FileScan parquet [k#1,s#3]","metadata":{"ReadSchema":"struct<k:int,s:string>"},"metrics":[{"name":"number of output rows","accumulatorId":12,"metricType":"sum"}],"children":[]}
        ]}]}]}]}]}]}]}]}]})json";

std::string Event(const std::string& name, const std::string& body) {
  return "{\"Event\":\"" + name + "\"," + body + "}";
}

Application Build() {
  AppBuilder b;
  b.Consume(Event("SparkListenerLogStart", "\"Spark Version\":\"4.0.1\""));
  b.Consume(Event("SparkListenerApplicationStart",
                  "\"App Name\":\"t\",\"App ID\":\"app-1\",\"Timestamp\":1000"));
  b.Consume(Event("SparkListenerExecutorAdded",
                  "\"Timestamp\":1000,\"Executor ID\":\"driver\",\"Executor Info\":{\"Total "
                  "Cores\":2}"));
  b.Consume(Event("org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart",
                  "\"executionId\":0,\"description\":\"q\",\"time\":2000,\"sparkPlanInfo\":" +
                      std::string(kPlan)));
  b.Consume("this is not json");
  b.Consume(
      Event("SparkListenerJobStart",
            "\"Job ID\":0,\"Submission Time\":2100,\"Stage IDs\":[0,1],\"Stage "
            "Infos\":[{\"Stage ID\":0,\"Number of Tasks\":2},{\"Stage ID\":1,\"Number of "
            "Tasks\":1,\"Parent IDs\":[0]}],\"Properties\":{\"spark.sql.execution.id\":\"0\"}"));
  for (int t = 0; t < 2; ++t) {
    b.Consume(Event("SparkListenerTaskEnd",
                    "\"Stage ID\":0,\"Task Info\":{\"Launch Time\":2200,\"Finish Time\":3200,"
                    "\"Accumulables\":[{\"ID\":11},{\"ID\":12}]},\"Task Metrics\":{\"Executor Run "
                    "Time\":1000,\"Shuffle Write Metrics\":{\"Shuffle Write Time\":100000000}}"));
  }
  b.Consume(Event("SparkListenerStageCompleted",
                  "\"Stage Info\":{\"Stage ID\":0,\"Submission Time\":2100,\"Completion "
                  "Time\":3300,\"Accumulables\":[{\"ID\":12,\"Value\":\"1000\"},{\"ID\":11,"
                  "\"Value\":\"10\"}]}"));
  b.Consume(Event("SparkListenerTaskEnd",
                  "\"Stage ID\":1,\"Task Info\":{\"Launch Time\":3300,\"Finish Time\":3500,"
                  "\"Accumulables\":[{\"ID\":10}]},\"Task Metrics\":{\"Executor Run Time\":200}"));
  b.Consume(Event("SparkListenerStageCompleted",
                  "\"Stage Info\":{\"Stage ID\":1,\"Submission Time\":3300,\"Completion "
                  "Time\":3500,\"Accumulables\":[{\"ID\":10,\"Value\":\"4\"}]}"));
  b.Consume(
      Event("SparkListenerJobEnd",
            "\"Job ID\":0,\"Completion Time\":3500,\"Job Result\":{\"Result\":\"JobSucceeded\"}"));
  b.Consume(Event("org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionEnd",
                  "\"executionId\":0,\"time\":4000"));
  return b.Finish(false);
}

TEST(Qualify, EventsFoldIntoTheApplication) {
  const Application app = Build();
  EXPECT_EQ(app.id, "app-1");
  EXPECT_EQ(app.spark_version, "4.0.1");
  EXPECT_EQ(app.bad_lines, 1);
  ASSERT_EQ(app.executions.size(), 1u);
  const SqlExecution& x = app.executions.at(0);
  EXPECT_EQ(x.jobs, std::vector<int64_t>{0});
  EXPECT_TRUE(x.final_plan);
  const StageStats& s0 = app.stages.at({0, 0});
  EXPECT_EQ(s0.tasks_ended, 2);
  EXPECT_EQ(s0.run_ms, 2000);
  EXPECT_EQ(s0.shuffle_write_ns, 200000000);
  EXPECT_EQ(app.accumulator_values.at(12), "1000");
}

TEST(Qualify, PlansAreJudgedWithThePluginsTable) {
  const Application app = Build();
  const JudgedPlan plan = JudgePlan(*app.executions.at(0).plan, "UTC");
  int tandem = 0, spark = 0;
  std::string why;
  for (const auto& n : plan.nodes) {
    tandem += n->placement == Placement::kTandem;
    if (n->placement == Placement::kSpark) {
      ++spark;
      why = n->reason;
    }
  }
  // upper() keeps the Project in Spark; the scan and both aggregates run in Tandem.
  EXPECT_EQ(tandem, 3);
  EXPECT_EQ(spark, 1);
  EXPECT_NE(why.find("upper"), std::string::npos) << why;
  EXPECT_EQ(ExpressionNamesIn("(a#1 + b#2) AS x#3, isnotnull(c#4), CASE WHEN x THEN 1 END"),
            (std::vector<std::string>{"isnotnull", "CASE"}));
  PlanNode nested;
  nested.name = "Scan parquet ";
  nested.metadata["ReadSchema"] = "struct<a:int,b:array<int>>";
  EXPECT_EQ(JudgeNode(nested, "UTC").placement, Placement::kSpark);
  PlanNode hour;
  hour.name = "Project";
  hour.description = "Project [hour(ts#1, Some(Asia/Kathmandu)) AS h#2]";
  EXPECT_EQ(JudgeNode(hour, "UTC").placement, Placement::kTandem);
  EXPECT_EQ(JudgeNode(hour, "Asia/Kathmandu").placement, Placement::kSpark);
}

TEST(Qualify, TheModelMovesStageTimeByTheWorkTandemTakes) {
  const Application app = Build();
  const std::vector<ExecutionAnalysis> xs = AnalyzeExecutions(app);
  ASSERT_EQ(xs.size(), 1u);
  const ExecutionAnalysis& x = xs[0];
  EXPECT_EQ(x.measured_ms, 2000);
  ASSERT_EQ(x.stages.size(), 2u);
  TargetModel t;
  t.speedup = 4;
  t.task_fixed_ms = 0;
  t.row_crossing_ns = 0;
  t.stage_planning_ms = 0;
  t.error_p10 = -0.1;
  t.error_p90 = 0.1;
  const Prediction p = PredictExecution(x, t, 2);
  EXPECT_LT(p.predicted_ms, x.measured_ms);
  EXPECT_GT(p.predicted_ms, x.measured_ms - x.stage_ms);  // the driver's time stays
  EXPECT_NEAR(p.low_ms, p.predicted_ms / 1.1, 1e-6);      // predictions 10 % slow: truth below
  EXPECT_NEAR(p.high_ms, p.predicted_ms / 0.9, 1e-6);
  EXPECT_NEAR(p.speedup_low, x.measured_ms / p.high_ms, 1e-9);
  // With no speedup on Tandem's work the time stays as measured.
  t.speedup = 1;
  EXPECT_NEAR(PredictExecution(x, t, 2).predicted_ms, x.measured_ms, 1e-6);
  EXPECT_EQ(Category(1.4, 2.0, t), "recommended");
  EXPECT_EQ(Category(0.5, 0.9, t), "not recommended");
  EXPECT_EQ(Category(0.9, 1.5, t), "maybe");
  // An execution where nothing would run in Tandem is predicted unchanged, with no band.
  std::vector<ExecutionAnalysis> again = AnalyzeExecutions(app);
  ExecutionAnalysis& untouched = again[0];
  untouched.tandem_nodes = 0;
  for (StageAnalysis& s : untouched.stages) {
    s.tandem_scan_ms = s.tandem_aggregate_ms = s.tandem_wide_aggregate_ms = 0;
    s.tandem_decimal_aggregate_ms = s.tandem_sort_ms = s.tandem_other_ms = 0;
  }
  t.speedup = 4;
  const Prediction u = PredictExecution(untouched, t, 2);
  EXPECT_EQ(u.speedup_low, u.speedup_high);
  EXPECT_EQ(u.category, "not recommended");
  EXPECT_EQ(u.reasons.front(), "no operator would run in Tandem");
}

TEST(Qualify, BuiltInTargetsCarryTheirFittedFigures) {
  auto cpu = LoadTarget("cpu");
  ASSERT_TRUE(cpu.ok());
  EXPECT_FALSE(cpu->gpu);
  EXPECT_LT(cpu->error_p10, 0);
  EXPECT_GT(cpu->error_p90, 0);
  auto h200 = LoadTarget("h200");
  ASSERT_TRUE(h200.ok());
  EXPECT_TRUE(h200->gpu);
  EXPECT_GT(h200->aggregate_speedup, cpu->aggregate_speedup);
  EXPECT_FALSE(LoadTarget("/nonexistent/target.json").ok());
}

}  // namespace
}  // namespace tandem::qualify
