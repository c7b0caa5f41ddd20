// Spark plan fragments on the GPU against their CPU twins: the same fragment documents the
// plugin sends (scans of file splits, filters, projections, partial and final aggregation over
// Spark's buffers, joins with rows from Spark, top-N, unions) run by FragmentTask with
// device=gpu and device=cpu must give the same rows; and device=gpu must really use the GPU.
// The GPU machine has no Java: this harness is how the plugin's fragments run there.
#include <gtest/gtest.h>

#include <algorithm>

#include "../unit/spark/fragment_test_util.h"
#include "gpu_test_util.h"
#include "tandem/format/value_format.h"
#include "tandem/spark/fragment_task.h"
#include "tandem/spark/unsafe_rows.h"

namespace tandem::spark {
namespace {

using namespace test;

const DataType kI64 = DataType::Int64();
const DataType kDec = DataType::Decimal(15, 2);
const DataType kBool = DataType::Bool();
const DataType kStr = DataType::String();

std::vector<std::string> Rows(const Table& t) {
  std::vector<std::string> rows;
  for (const BatchPtr& b : t.batches) {
    if (!b) continue;
    for (int64_t r = 0; r < b->num_rows; ++r) {
      std::string line;
      for (int c = 0; c < b->num_columns(); ++c) {
        if (c) line += "|";
        if (b->column(c)->IsNull(r)) {
          line += "NULL";
        } else {
          format::AppendText(*b->column(c), r, &line);
        }
      }
      rows.push_back(line);
    }
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

Json Scan(int id) {
  return {
      {"op", "scan_parquet"}, {"id", id}, {"columns", OrdersFields()}, {"output", OrdersFields()}};
}

class GpuSparkFragmentTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = TempDir("gpu_fragment");
    path_ = WriteOrders(dir_, 200000, 30000);
    ASSERT_FALSE(path_.empty());
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  Json Task(int64_t start, int64_t length) const {
    return {{"splits", {{"1", {{{"path", path_}, {"start", start}, {"length", length}}}}}}};
  }

  // Runs the fragment on `device`; the plan text lands in *plan.
  std::vector<std::string> Run(Json root, const std::string& device, Json inputs = Json::array(),
                               const std::string& rows = "", int64_t nrows = 0,
                               std::string* plan = nullptr, int* gpu_operators = nullptr) {
    // Splits only for fragments that scan (a final aggregate reads rows alone).
    const Json task =
        root.dump().find("scan_parquet") != std::string::npos ? Task(0, -1) : Json::object();
    auto t = FragmentTask::Open(Document(root, inputs, device).dump(), task.dump(), Config());
    EXPECT_TRUE(t.ok()) << t.status().ToString();
    if (!t.ok()) return {};
    if (!rows.empty()) {
      EXPECT_TRUE((*t)->AddRows(0, reinterpret_cast<const uint8_t*>(rows.data()),
                                static_cast<int64_t>(rows.size()), nrows)
                      .ok());
    }
    const Status st = (*t)->Execute();
    EXPECT_TRUE(st.ok()) << device << ": " << st.ToString();
    if (plan) *plan = (*t)->plan_text();
    if (gpu_operators) *gpu_operators = (*t)->gpu_operators();
    return Rows((*t)->result());
  }

  void ExpectTwins(const Json& root, Json inputs = Json::array(), const std::string& rows = "",
                   int64_t nrows = 0) {
    std::string gpu_plan;
    int on_gpu = 0;
    const auto gpu = Run(root, "gpu", inputs, rows, nrows, &gpu_plan, &on_gpu);
    const auto cpu = Run(root, "cpu", inputs, rows, nrows);
    EXPECT_FALSE(cpu.empty());
    EXPECT_EQ(gpu, cpu) << gpu_plan;
    EXPECT_GT(on_gpu, 0) << "nothing ran on the GPU:\n" << gpu_plan;
  }

  std::filesystem::path dir_;
  std::string path_;
};

Json Filter(Json child) {
  return {{"op", "filter"},
          {"id", 2},
          {"child", child},
          {"output", OrdersFields()},
          {"condition", Call("and",
                             {Call("lt", {Col(0, kI64), Lit(kI64, 20000)}, kBool),
                              Call("is_not_null", {Col(3, kStr)}, kBool)},
                             kBool)}};
}

TEST_F(GpuSparkFragmentTest, ScanFilterProject) {
  TANDEM_REQUIRE_GPU();
  const DataType prod = DataType::Decimal(31, 4);
  Json project = {{"op", "project"},
                  {"id", 3},
                  {"child", Filter(Scan(1))},
                  {"exprs",
                   {Col(0, kI64), Call("multiply", {Col(1, kDec), Col(2, kDec)}, prod, "ansi"),
                    Call("like", {Col(3, kStr), Lit(kStr, "%é%")}, kBool)}},
                  {"output", {F("k", kI64), F("x", prod), F("l", kBool)}}};
  ExpectTwins(project);
}

TEST_F(GpuSparkFragmentTest, PartialAndFinalAggregates) {
  TANDEM_REQUIRE_GPU();
  const DataType sum_t = DataType::Decimal(25, 2);
  Json aggs = {
      {{"fn", "sum"}, {"args", {Col(2, kDec)}}, {"output", {F("sum", sum_t), F("isEmpty", kBool)}}},
      {{"fn", "avg"}, {"args", {Col(1, kDec)}}, {"output", {F("sum", sum_t), F("count", kI64)}}},
      {{"fn", "count_star"}, {"args", Json::array()}, {"output", {F("count", kI64)}}},
      {{"fn", "max"}, {"args", {Col(0, kI64)}}, {"output", {F("max", kI64)}}}};
  Json out = {F("flag", kStr),  F("sum", sum_t),  F("isEmpty", kBool), F("sum", sum_t),
              F("count", kI64), F("count", kI64), F("max", kI64)};
  Json partial = {{"op", "aggregate"},  {"id", 3},
                  {"mode", "partial"},  {"keys", {Col(3, kStr)}},
                  {"aggregates", aggs}, {"child", Filter(Scan(1))},
                  {"output", out}};
  ExpectTwins(partial);

  Json finals = {{{"fn", "sum"}, {"output", {F("s", sum_t)}}},
                 {{"fn", "avg"}, {"output", {F("a", DataType::Decimal(19, 6))}}},
                 {{"fn", "count_star"}, {"output", {F("n", kI64)}}},
                 {{"fn", "max"}, {"output", {F("m", kI64)}}}};
  Json final = {{"op", "aggregate"},
                {"id", 11},
                {"mode", "final"},
                {"keys", {Col(0, kStr)}},
                {"aggregates", finals},
                {"child", {{"op", "input"}, {"id", 10}, {"index", 0}, {"output", out}}},
                {"output",
                 {F("flag", kStr), F("s", sum_t), F("a", DataType::Decimal(19, 6)), F("n", kI64),
                  F("m", kI64)}}};
  // The final half over rows as Spark hands them, made by the CPU's partial half.
  auto t = FragmentTask::Open(Document(partial, Json::array(), "cpu").dump(), Task(0, -1).dump(),
                              Config());
  ASSERT_TRUE(t.ok() && (*t)->Execute().ok());
  const Schema buffers{{{"flag", kStr},
                        {"sum", sum_t},
                        {"isEmpty", kBool},
                        {"sum", sum_t},
                        {"count", kI64},
                        {"count", kI64},
                        {"max", kI64}}};
  const std::vector<std::vector<Value>> rows = ValueRows((*t)->result());
  Json inputs = {{{"kind", "rows"}, {"schema", out}}};
  ExpectTwins(final, inputs, EncodeUnsafeRows(buffers, rows), static_cast<int64_t>(rows.size()));
}

TEST_F(GpuSparkFragmentTest, JoinWithBroadcastRowsAndTopN) {
  TANDEM_REQUIRE_GPU();
  const Schema names{{{"k", kI64}, {"name", kStr}}};
  std::vector<std::vector<Value>> rows;
  for (int64_t k = 1; k <= 20000; k += 7)
    rows.push_back({Value::Int64(k), Value::String("n" + std::to_string(k % 97))});
  Json input = {
      {"op", "input"}, {"id", 5}, {"index", 0}, {"output", {F("k", kI64), F("name", kStr)}}};
  Json out = OrdersFields();
  out.push_back(F("k", kI64));
  out.push_back(F("name", kStr));
  Json join = {{"op", "join"},
               {"id", 6},
               {"type", "inner"},
               {"left", Filter(Scan(1))},
               {"right", input},
               {"left_keys", {Col(0, kI64)}},
               {"right_keys", {Col(0, kI64)}},
               {"condition", nullptr},
               {"output", out}};
  Json top = {{"op", "top_n"},
              {"id", 7},
              {"limit", 50},
              {"offset", 0},
              {"keys",
               {{{"expr", Col(2, kDec)}, {"ascending", false}, {"nulls_first", false}},
                {{"expr", Col(0, kI64)}, {"ascending", true}, {"nulls_first", true}}}},
              {"child", join},
              {"output", out}};
  Json inputs = {{{"kind", "broadcast"}, {"schema", {F("k", kI64), F("name", kStr)}}}};
  ExpectTwins(top, inputs, EncodeUnsafeRows(names, rows), static_cast<int64_t>(rows.size()));
}

TEST_F(GpuSparkFragmentTest, ExpandUnderAPartialAggregate) {
  // ROLLUP(flag, k) as Spark plans it: an Expand of three projections, then a partial aggregate.
  TANDEM_REQUIRE_GPU();
  Json expanded = {F("k", kI64), F("flag", kStr), F("p", kDec), F("gid", kI64, false)};
  Json expand = {{"op", "expand"},
                 {"id", 3},
                 {"child", Filter(Scan(1))},
                 {"projections",
                  {{Col(0, kI64), Col(3, kStr), Col(2, kDec), Lit(kI64, 0)},
                   {Lit(kI64, nullptr), Col(3, kStr), Col(2, kDec), Lit(kI64, 1)},
                   {Lit(kI64, nullptr), Lit(kStr, nullptr), Col(2, kDec), Lit(kI64, 3)}}},
                 {"output", expanded}};
  ExpectTwins(expand);
  const DataType sum_t = DataType::Decimal(25, 2);
  Json partial = {
      {"op", "aggregate"},
      {"id", 4},
      {"mode", "partial"},
      {"keys", {Col(0, kI64), Col(1, kStr), Col(3, kI64)}},
      {"aggregates",
       {{{"fn", "sum"}, {"args", {Col(2, kDec)}}, {"output", {F("sum", sum_t), F("e", kBool)}}}}},
      {"child", expand},
      {"output", {F("k", kI64), F("flag", kStr), F("gid", kI64), F("sum", sum_t), F("e", kBool)}}};
  ExpectTwins(partial);
}

TEST_F(GpuSparkFragmentTest, WindowFunctions) {
  TANDEM_REQUIRE_GPU();
  const DataType i32 = DataType::Int32();
  Json out = OrdersFields();
  out.push_back(F("rn", i32));
  out.push_back(F("s", DataType::Decimal(25, 2)));
  out.push_back(F("l", kDec));
  Json window = {
      {"op", "window"},
      {"id", 3},
      {"child", Filter(Scan(1))},
      {"partition_by", {Col(3, kStr)}},
      {"order_by",
       {{{"expr", Col(0, kI64)}, {"ascending", true}, {"nulls_first", true}},
        {{"expr", Col(2, kDec)}, {"ascending", true}, {"nulls_first", true}}}},
      {"functions",
       {WindowFn("row_number", Json::array(),
                 Frame("rows", Bound("unbounded_preceding"), Bound("current_row")), F("rn", i32)),
        WindowFn("sum", {Col(2, kDec)}, Frame("rows", Bound("preceding", 3), Bound("current_row")),
                 F("s", DataType::Decimal(25, 2))),
        WindowFn("lead", {Col(1, kDec), Lit(i32, 2), Lit(kDec, nullptr)},
                 Frame("rows", Bound("following", 2), Bound("following", 2)), F("l", kDec))}},
      {"output", out}};
  window["functions"][1]["mode"] = "ansi";
  ExpectTwins(window);
}

}  // namespace
}  // namespace tandem::spark
