// Spark plan fragments on the CPU: validation verdicts (supported nodes, reasons for the rest,
// each node judged alone), malformed documents, and execution: file splits by byte range,
// rows from Spark, partial and final aggregation over Spark's buffers (their split across two
// fragments gives what one query gives), joins, sorts and limits. The expected answers come from
// Tandem SQL over the same file; Spark's own answers are the pyspark tests' business.
#include "tandem/spark/fragment.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "fragment_test_util.h"
#include "tandem/format/value_format.h"
#include "tandem/spark/fragment_task.h"
#include "tandem/spark/unsafe_rows.h"
#include "tandem/sql/session.h"

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

std::vector<std::string> Sql(const std::string& query, const std::string& path) {
  sql::Session session;
  EXPECT_TRUE(session.RegisterTable("orders", path).ok());
  auto r = session.Execute(query);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? Rows(r->table) : std::vector<std::string>{};
}

Json Scan(int id) {
  return {
      {"op", "scan_parquet"}, {"id", id}, {"columns", OrdersFields()}, {"output", OrdersFields()}};
}

Json Splits(int id, const std::string& path, int64_t start, int64_t length) {
  return {
      {"splits", {{std::to_string(id), {{{"path", path}, {"start", start}, {"length", length}}}}}}};
}

class FragmentTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = TempDir("fragment");
    path_ = WriteOrders(dir_, 5000, 700);
    ASSERT_FALSE(path_.empty());
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  Result<Table> Run(const Json& doc, const Json& task,
                    const std::vector<std::pair<int, BatchPtr>>& inputs = {}) {
    TANDEM_ASSIGN_OR_RAISE(auto t, FragmentTask::Open(doc.dump(), task.dump(), Config()));
    for (const auto& [index, batch] : inputs) TANDEM_RETURN_NOT_OK(t->AddBatch(index, batch));
    TANDEM_RETURN_NOT_OK(t->Execute());
    return t->result();
  }

  std::filesystem::path dir_;
  std::string path_;
};

// Partial aggregate of sum(p), avg(q), count(*), count(q), min(d) by flag, over rows with k < 500.
Json PartialAggregate() {
  Json filter = {{"op", "filter"},
                 {"id", 2},
                 {"child", Scan(1)},
                 {"output", OrdersFields()},
                 {"condition", Call("lt", {Col(0, kI64), Lit(kI64, 500)}, kBool)}};
  const DataType sum_t = DataType::Decimal(25, 2);
  Json aggs = {
      {{"fn", "sum"}, {"args", {Col(2, kDec)}}, {"output", {F("sum", sum_t), F("isEmpty", kBool)}}},
      {{"fn", "avg"}, {"args", {Col(1, kDec)}}, {"output", {F("sum", sum_t), F("count", kI64)}}},
      {{"fn", "count_star"}, {"args", Json::array()}, {"output", {F("count", kI64)}}},
      {{"fn", "count"}, {"args", {Col(1, kDec)}}, {"output", {F("count", kI64)}}},
      {{"fn", "min"},
       {"args", {Col(4, DataType::Date32())}},
       {"output", {F("min", DataType::Date32())}}}};
  Json out = {
      F("flag", kStr),  F("sum", sum_t),  F("isEmpty", kBool), F("sum", sum_t),
      F("count", kI64), F("count", kI64), F("count", kI64),    F("min", DataType::Date32())};
  return {{"op", "aggregate"},  {"id", 3},         {"mode", "partial"}, {"keys", {Col(3, kStr)}},
          {"aggregates", aggs}, {"child", filter}, {"output", out}};
}

Json PartialOutput() { return PartialAggregate()["output"]; }

Json FinalAggregate() {
  const DataType sum_t = DataType::Decimal(25, 2);
  Json aggs = {{{"fn", "sum"}, {"output", {F("sum(p)", sum_t)}}},
               {{"fn", "avg"}, {"output", {F("avg(q)", DataType::Decimal(19, 6))}}},
               {{"fn", "count_star"}, {"output", {F("count(1)", kI64)}}},
               {{"fn", "count"}, {"output", {F("count(q)", kI64)}}},
               {{"fn", "min"}, {"output", {F("min(d)", DataType::Date32())}}}};
  Json input = {{"op", "input"}, {"id", 10}, {"index", 0}, {"output", PartialOutput()}};
  Json out = {F("flag", kStr),     F("sum(p)", sum_t),  F("avg(q)", DataType::Decimal(19, 6)),
              F("count(1)", kI64), F("count(q)", kI64), F("min(d)", DataType::Date32())};
  return {{"op", "aggregate"},  {"id", 11},       {"mode", "final"}, {"keys", {Col(0, kStr)}},
          {"aggregates", aggs}, {"child", input}, {"output", out}};
}

TEST_F(FragmentTest, EveryNodeOfASupportedFragmentIsSupported) {
  auto f = ParseFragment(Document(PartialAggregate()).dump());
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  const std::vector<NodeVerdict> v = ValidateFragment(*f);
  ASSERT_EQ(v.size(), 3u);
  for (const NodeVerdict& n : v) {
    EXPECT_TRUE(n.supported) << n.op << ": " << n.reason;
    EXPECT_EQ(n.device, "cpu");
  }
}

TEST_F(FragmentTest, UnsupportedNodesSayWhyAndTheirParentsAreStillJudged) {
  Json filter = {
      {"op", "filter"},
      {"id", 2},
      {"child", Scan(1)},
      {"output", OrdersFields()},
      {"condition", Call("eq", {Call("upper", {Col(3, kStr)}, kStr), Lit(kStr, "A")}, kBool)}};
  // Spark types k * 2 as decimal here: Tandem computes int64, so the project cannot run.
  Json project = {{"op", "project"},
                  {"id", 3},
                  {"child", filter},
                  {"exprs", {Call("multiply", {Col(0, kI64), Lit(kI64, 2)}, kDec, "ansi")}},
                  {"output", {F("x", kDec)}}};
  Json limit = {
      {"op", "limit"}, {"id", 4}, {"limit", 5}, {"child", project}, {"output", {F("x", kDec)}}};
  auto f = ParseFragment(Document(limit).dump());
  ASSERT_TRUE(f.ok());
  std::map<int64_t, NodeVerdict> by_id;
  for (const NodeVerdict& n : ValidateFragment(*f)) by_id[n.id] = n;
  EXPECT_TRUE(by_id[1].supported);
  EXPECT_FALSE(by_id[2].supported);
  EXPECT_NE(by_id[2].reason.find("upper"), std::string::npos) << by_id[2].reason;
  EXPECT_FALSE(by_id[3].supported);
  EXPECT_NE(by_id[3].reason.find("Tandem as int64"), std::string::npos) << by_id[3].reason;
  EXPECT_TRUE(by_id[4].supported) << by_id[4].reason;
}

TEST_F(FragmentTest, ModesAndCastsTandemCannotMatchAreReasons) {
  Json legacy = {{"op", "project"},
                 {"id", 2},
                 {"child", Scan(1)},
                 {"exprs", {Call("add", {Col(0, kI64), Lit(kI64, 1)}, kI64, "legacy")}},
                 {"output", {F("x", kI64)}}};
  // Spark's TRY mode (try_add) has no Tandem twin.
  legacy["exprs"][0]["mode"] = "try";
  auto f = ParseFragment(Document(legacy, Json::array(), "cpu", /*ansi=*/false).dump());
  ASSERT_TRUE(f.ok());
  auto v = ValidateFragment(*f);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_FALSE(v[1].supported);
  EXPECT_NE(v[1].reason.find("TRY mode"), std::string::npos) << v[1].reason;

  Json cast = {{"kind", "cast"}, {"arg", Col(3, kStr)}, {"type", Type(kI64)}, {"mode", "ansi"}};
  Json project = {{"op", "project"},
                  {"id", 2},
                  {"child", Scan(1)},
                  {"exprs", {cast}},
                  {"output", {F("x", kI64)}}};
  auto g = ParseFragment(Document(project).dump());
  ASSERT_TRUE(g.ok());
  v = ValidateFragment(*g);
  EXPECT_FALSE(v[1].supported);
  EXPECT_NE(v[1].reason.find("CAST(string AS int64)"), std::string::npos) << v[1].reason;
}

TEST_F(FragmentTest, MalformedDocumentsNameWhatIsWrong) {
  EXPECT_FALSE(ParseFragment("{").ok());
  EXPECT_FALSE(ParseFragment(R"({"format": "tandem-fragment", "version": 7})").ok());
  Json bad = Scan(1);
  bad["columns"][0]["type"] = {{"id", "interval"}};
  auto f = ParseFragment(Document(bad).dump());
  ASSERT_TRUE(f.ok());
  auto v = ValidateFragment(*f);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_FALSE(v[0].supported);
  EXPECT_NE(v[0].reason.find("unknown type id 'interval'"), std::string::npos) << v[0].reason;
}

// A stage's validation document lists every tree ("roots"): here a partial aggregate and its
// final twin over rows, a try_sum that has no Tandem twin, and a tree too malformed to walk; each
// is judged alone and the malformed one does not hide the others' verdicts.
TEST_F(FragmentTest, ValidationJudgesEveryRootOfAStage) {
  Json partial = PartialAggregate();
  Json twin = FinalAggregate();
  Json try_sum = PartialAggregate();
  try_sum["id"] = 20;
  try_sum["child"]["id"] = 21;
  try_sum["child"]["child"]["id"] = 22;
  try_sum["aggregates"][0]["mode"] = "try";
  Json broken = {{"op", "filter"}, {"id", 30}};
  Json doc = Document(partial, {{{"kind", "rows"}, {"schema", PartialOutput()}}});
  doc.erase("root");
  doc["roots"] = {partial, twin, try_sum, broken};
  auto f = ParseFragment(doc.dump());
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  std::map<int64_t, NodeVerdict> by_id;
  for (const NodeVerdict& n : ValidateFragment(*f)) by_id[n.id] = n;
  for (int64_t id : {1, 2, 3, 11, 21, 22})
    EXPECT_TRUE(by_id[id].supported) << id << by_id[id].reason;
  EXPECT_FALSE(by_id[20].supported);
  EXPECT_NE(by_id[20].reason.find("TRY mode"), std::string::npos) << by_id[20].reason;
  EXPECT_FALSE(by_id[30].supported);
  EXPECT_NE(by_id[30].reason.find("roots[3]"), std::string::npos) << by_id[30].reason;
  // A task runs one tree: roots are for validation only.
  EXPECT_FALSE(BuildFragmentPlan(*f, TaskData{}).ok());
}

TEST_F(FragmentTest, SplitsByByteRangeReadEveryRowGroupOnce) {
  const int64_t size = static_cast<int64_t>(std::filesystem::file_size(path_));
  Json count = {{"op", "aggregate"},
                {"id", 2},
                {"mode", "complete"},
                {"keys", Json::array()},
                {"aggregates",
                 {{{"fn", "count_star"}, {"output", {F("n", kI64, false)}}},
                  {{"fn", "sum"}, {"args", {Col(0, kI64)}}, {"output", {F("s", kI64)}}}}},
                {"child", Scan(1)},
                {"output", {F("n", kI64, false), F("s", kI64)}}};
  int64_t want_sum = 0;
  for (int64_t i = 0; i < 5000; ++i) want_sum += i / 7 + 1;
  for (int64_t cut : {int64_t{1}, size / 3, size / 2, size - 1}) {
    int64_t rows = 0, sum = 0;
    for (auto [start, length] : {std::pair<int64_t, int64_t>{0, cut}, {cut, size - cut}}) {
      auto t = Run(Document(count), Splits(1, path_, start, length));
      ASSERT_TRUE(t.ok()) << t.status().ToString();
      ASSERT_EQ(Rows(*t).size(), 1u);
      const Batch& b = *t->batches[0];
      rows += b.column(0)->Value<int64_t>(0);
      if (b.column(1)->IsValid(0)) sum += b.column(1)->Value<int64_t>(0);
    }
    EXPECT_EQ(rows, 5000) << "cut at " << cut;
    EXPECT_EQ(sum, want_sum) << "cut at " << cut;
  }
}

TEST_F(FragmentTest, PartialThenFinalEqualsOneAggregation) {
  const int64_t size = static_cast<int64_t>(std::filesystem::file_size(path_));
  // Two tasks' partial aggregates (two splits), then one final over both.
  std::vector<std::pair<int, BatchPtr>> buffers;
  for (auto [start, length] : {std::pair<int64_t, int64_t>{0, size / 2}, {size / 2, size}}) {
    auto t = Run(Document(PartialAggregate()), Splits(1, path_, start, length));
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    for (const BatchPtr& b : t->batches) buffers.push_back({0, b});
  }
  Json inputs = {{{"kind", "rows"}, {"schema", PartialOutput()}}};
  auto final = Run(Document(FinalAggregate(), inputs), Json::object(), buffers);
  ASSERT_TRUE(final.ok()) << final.status().ToString();
  // Tandem's avg of decimals rounds HALF_UP once at scale s + 4, as Spark's does here.
  EXPECT_EQ(Rows(*final),
            Sql("SELECT flag, sum(p), avg(q), count(*), count(q), min(d) FROM orders WHERE k < 500 "
                "GROUP BY flag",
                path_));
}

TEST_F(FragmentTest, EmptyGroupsKeepSparksBufferValues) {
  // A group whose q is always NULL: sum buffer 0 with isEmpty, count 0, avg NULL at the end.
  Json filter = {{"op", "filter"},
                 {"id", 2},
                 {"child", Scan(1)},
                 {"output", OrdersFields()},
                 {"condition", Call("is_null", {Col(1, kDec)}, kBool)}};
  Json partial = PartialAggregate();
  partial["child"] = filter;
  auto t = Run(Document(partial), Splits(1, path_, 0, -1));
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  ASSERT_FALSE(Rows(*t).empty());
  for (const std::string& row : Rows(*t)) {
    // flag | sum(p) isEmpty | sum(q) count(q) | count(*) | count(q) | min(d)
    std::vector<std::string> f;
    for (size_t at = 0, bar; at <= row.size(); at = bar + 1) {
      bar = row.find('|', at);
      if (bar == std::string::npos) bar = row.size();
      f.push_back(row.substr(at, bar - at));
    }
    ASSERT_EQ(f.size(), 8u) << row;
    EXPECT_EQ(f[2], "false") << row;  // p is never NULL
    EXPECT_EQ(f[3], "0.00") << row;   // avg(q)'s sum of no values is 0, not NULL
    EXPECT_EQ(f[4], "0") << row;
    EXPECT_EQ(f[6], "0") << row;
  }
  std::vector<std::pair<int, BatchPtr>> buffers;
  for (const BatchPtr& b : t->batches) buffers.push_back({0, b});
  Json inputs = {{{"kind", "rows"}, {"schema", PartialOutput()}}};
  auto final = Run(Document(FinalAggregate(), inputs), Json::object(), buffers);
  ASSERT_TRUE(final.ok()) << final.status().ToString();
  EXPECT_EQ(Rows(*final), Sql("SELECT flag, sum(p), avg(q), count(*), count(q), min(d) FROM orders "
                              "WHERE q IS NULL GROUP BY flag",
                              path_));
}

TEST_F(FragmentTest, RowsFromSparkJoinAndSort) {
  // Input 0: (k int64, name string) rows as Spark hands them; joined with the file on k.
  const Schema names{{{"k", kI64}, {"name", kStr}}};
  std::vector<std::vector<Value>> rows;
  for (int64_t k = 1; k <= 30; k += 3)
    rows.push_back({Value::Int64(k), Value::String("n" + std::to_string(k))});
  rows.push_back({Value::Null(kI64), Value::String("null key")});
  const std::string packed = EncodeUnsafeRows(names, rows);
  Json input = {
      {"op", "input"}, {"id", 5}, {"index", 0}, {"output", {F("k", kI64), F("name", kStr)}}};
  Json out = OrdersFields();
  out.push_back(F("k", kI64));
  out.push_back(F("name", kStr));
  Json join = {{"op", "join"},
               {"id", 6},
               {"type", "inner"},
               {"left", Scan(1)},
               {"right", input},
               {"left_keys", {Col(0, kI64)}},
               {"right_keys", {Col(0, kI64)}},
               {"condition", nullptr},
               {"output", out}};
  Json sorted = {{"op", "top_n"},
                 {"id", 7},
                 {"limit", 4},
                 {"offset", 1},
                 {"keys", {{{"expr", Col(2, kDec)}, {"ascending", false}, {"nulls_first", false}}}},
                 {"child", join},
                 {"output", out}};
  Json inputs = {{{"kind", "broadcast"}, {"schema", {F("k", kI64), F("name", kStr)}}}};
  auto t =
      FragmentTask::Open(Document(sorted, inputs).dump(), Splits(1, path_, 0, -1).dump(), Config());
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  ASSERT_TRUE((*t)->AddRows(0, reinterpret_cast<const uint8_t*>(packed.data()),
                            static_cast<int64_t>(packed.size()), static_cast<int64_t>(rows.size()))
                  .ok());
  ASSERT_TRUE((*t)->Execute().ok());
  const std::vector<std::string> got = Rows((*t)->result());
  EXPECT_EQ(got.size(), 4u);
  // The same through SQL over the file and a VALUES list.
  std::string values;
  for (int64_t k = 1; k <= 30; k += 3) {
    values += (values.empty() ? "" : ", ") +
              ("(" + std::to_string(k) + ", 'n" + std::to_string(k) + "')");
  }
  EXPECT_EQ(got, Sql("SELECT * FROM orders o JOIN (VALUES " + values +
                         ") v(k, name) ON o.k = v.k ORDER BY o.p DESC NULLS LAST LIMIT 4 OFFSET 1",
                     path_));
}

TEST_F(FragmentTest, LegacyModeWrapsIntegersAndNullsDecimalOverflow) {
  // Spark with ANSI off: INT64_MAX + k wraps; a decimal(38,0) product past 38 digits is NULL.
  const DataType d38 = DataType::Decimal(38, 0);
  Json big = Lit(d38, "99999999999999999999999999999999999999");
  Json project = {
      {"op", "project"},
      {"id", 2},
      {"child", Scan(1)},
      {"exprs",
       {Call("add", {Lit(kI64, INT64_MAX), Col(0, kI64)}, kI64, "legacy"),
        Call("multiply",
             {big,
              {{"kind", "cast"}, {"arg", Col(0, kI64)}, {"type", Type(d38)}, {"mode", "legacy"}}},
             d38, "legacy")}},
      {"output", {F("x", kI64), F("y", d38)}}};
  Json limit = {{"op", "limit"},
                {"id", 3},
                {"limit", 14},
                {"child", project},
                {"output", {F("x", kI64), F("y", d38)}}};
  auto t = Run(Document(limit, Json::array(), "cpu", /*ansi=*/false), Splits(1, path_, 0, -1));
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  for (const BatchPtr& b : t->batches) {
    for (int64_t r = 0; r < b->num_rows; ++r) {
      const int64_t k = (r / 7) + 1;  // the first rows' k
      EXPECT_EQ(b->column(0)->Value<int64_t>(r),
                static_cast<int64_t>(static_cast<uint64_t>(INT64_MAX) + static_cast<uint64_t>(k)));
      // 38 nines times k: still 38 digits for k = 1, past them (NULL) from k = 2.
      EXPECT_EQ(b->column(1)->IsNull(r), k >= 2) << "k = " << k;
    }
  }
  // The same fragment in ANSI mode fails on the overflow, as Spark does.
  Json ansi = limit;
  ansi["child"]["exprs"][0]["mode"] = "ansi";
  ansi["child"]["exprs"][1]["mode"] = "ansi";
  ansi["child"]["exprs"][1]["args"][1]["mode"] = "ansi";
  auto failed = Run(Document(ansi), Splits(1, path_, 0, -1));
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.status().message().find("overflow"), std::string::npos)
      << failed.status().ToString();
}

TEST_F(FragmentTest, CancelledTasksStop) {
  auto t = FragmentTask::Open(Document(PartialAggregate()).dump(), Splits(1, path_, 0, -1).dump(),
                              Config());
  ASSERT_TRUE(t.ok());
  (*t)->Cancel();
  const Status st = (*t)->Execute();
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("cancelled"), std::string::npos) << st.ToString();
}

TEST_F(FragmentTest, WindowFunctionsOverFramesAsSparkTypesThem) {
  // Spark's window node: ranking functions as ints, aggregates over RANGE and ROWS frames, lag
  // with Spark's typed NULL default; the answers of Tandem SQL's windows over the same file.
  Json out = OrdersFields();
  const DataType i32 = DataType::Int32();
  const DataType sum_t = DataType::Decimal(25, 2);
  for (const auto& [name, t] : std::vector<std::pair<std::string, DataType>>{
           {"rn", i32}, {"r", i32}, {"s", sum_t}, {"l", kDec}, {"c", kI64}, {"m", kDec}}) {
    out.push_back(F(name, t));
  }
  const Json growing = Frame("range", Bound("unbounded_preceding"), Bound("current_row"));
  const Json rows = Frame("rows", Bound("unbounded_preceding"), Bound("current_row"));
  Json window = {
      {"op", "window"},
      {"id", 2},
      {"child", Scan(1)},
      {"partition_by", {Col(3, kStr)}},
      {"order_by",
       {{{"expr", Col(0, kI64)}, {"ascending", true}, {"nulls_first", true}},
        {{"expr", Col(2, kDec)}, {"ascending", false}, {"nulls_first", false}}}},
      {"functions",
       {WindowFn("row_number", Json::array(), rows, F("rn", i32)),
        WindowFn("rank", Json::array(), rows, F("r", i32)),
        WindowFn("sum", {Col(2, kDec)}, growing, F("s", sum_t)),
        WindowFn("lag", {Col(1, kDec), Lit(DataType::Int32(), 1), Lit(kDec, nullptr)},
                 Frame("rows", Bound("preceding", 1), Bound("preceding", 1)), F("l", kDec)),
        WindowFn("count_star", Json::array(),
                 Frame("rows", Bound("preceding", 2), Bound("following", 1)), F("c", kI64)),
        WindowFn("min", {Col(1, kDec)}, growing, F("m", kDec))}},
      {"output", out}};
  window["functions"][2]["mode"] = "ansi";
  auto f = ParseFragment(Document(window).dump());
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  for (const NodeVerdict& n : ValidateFragment(*f)) EXPECT_TRUE(n.supported) << n.reason;
  auto got = Run(Document(window), Splits(1, path_, 0, -1));
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->schema.field(5).type, i32);
  const std::string spec = "PARTITION BY flag ORDER BY k ASC NULLS FIRST, p DESC NULLS LAST";
  EXPECT_EQ(Rows(*got), Sql("SELECT *, row_number() OVER (" + spec + "), rank() OVER (" + spec +
                                "), sum(p) OVER (" + spec + "), lag(q) OVER (" + spec +
                                "), count(*) OVER (" + spec +
                                " ROWS BETWEEN 2 PRECEDING AND 1 FOLLOWING), "
                                "min(q) OVER (" +
                                spec + ") FROM orders",
                            path_));

  // What Tandem would compute differently stays in Spark, with the reason.
  Json wide = window;
  wide["functions"] = {WindowFn("avg", {Col(0, kI64)}, growing, F("a", DataType::Float64()))};
  wide["functions"][0]["mode"] = "ansi";
  wide["output"] = OrdersFields();
  wide["output"].push_back(F("a", DataType::Float64()));
  auto g = ParseFragment(Document(wide).dump());
  ASSERT_TRUE(g.ok());
  const std::vector<NodeVerdict> v = ValidateFragment(*g);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_FALSE(v[1].supported);
  EXPECT_NE(v[1].reason.find("avg of bigint"), std::string::npos) << v[1].reason;
}

TEST_F(FragmentTest, ExpandGivesEveryRowOncePerProjection) {
  const DataType i64 = kI64;
  Json out = {F("k", i64), F("flag", kStr), F("spark_grouping_id", i64, false)};
  Json expand = {{"op", "expand"},
                 {"id", 2},
                 {"child", Scan(1)},
                 {"projections",
                  {{Col(0, i64), Col(3, kStr), Lit(i64, 0)},
                   {Col(0, i64), Lit(kStr, nullptr), Lit(i64, 1)},
                   {Lit(i64, nullptr), Lit(kStr, nullptr), Lit(i64, 3)}}},
                 {"output", out}};
  auto got = Run(Document(expand), Splits(1, path_, 0, -1));
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(Rows(*got), Sql("SELECT k, flag, 0 FROM orders UNION ALL SELECT k, CAST(NULL AS "
                            "VARCHAR), 1 FROM orders UNION ALL SELECT CAST(NULL AS BIGINT), "
                            "CAST(NULL AS VARCHAR), 3 FROM orders",
                            path_));
  // A projection whose types are not the output's is malformed for Spark, unsupported here.
  Json bad = expand;
  bad["projections"][1][2] = Lit(DataType::Int32(), 1);
  auto f = ParseFragment(Document(bad).dump());
  ASSERT_TRUE(f.ok());
  const std::vector<NodeVerdict> v = ValidateFragment(*f);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_FALSE(v[1].supported);
  EXPECT_NE(v[1].reason.find("projection 2"), std::string::npos) << v[1].reason;
}

TEST_F(FragmentTest, DistinctAggregatesThroughMergePhasesAndFilters) {
  // Spark's plan of SELECT flag, sum(p), count(DISTINCT k): partial by (flag, k), merge by
  // (flag, k), then by flag a merge of the sums with a partial count of the (now distinct) k,
  // and the final aggregate; here in one fragment, with a FILTER on a second count.
  const DataType sum_t = DataType::Decimal(25, 2);
  Json sum_buffers = {F("sum", sum_t), F("isEmpty", kBool)};
  Json by_key_out = {F("flag", kStr), F("k", kI64), F("sum", sum_t), F("isEmpty", kBool)};
  Json partial = {
      {"op", "aggregate"},
      {"id", 2},
      {"mode", "partial"},
      {"keys", {Col(3, kStr), Col(0, kI64)}},
      {"aggregates", {{{"fn", "sum"}, {"args", {Col(2, kDec)}}, {"output", sum_buffers}}}},
      {"child", Scan(1)},
      {"output", by_key_out}};
  Json merged = {{"op", "aggregate"},
                 {"id", 3},
                 {"mode", "partial"},
                 {"keys", {Col(0, kStr), Col(1, kI64)}},
                 {"aggregates",
                  {{{"fn", "sum"},
                    {"phase", "merge"},
                    {"args", {Col(2, sum_t), Col(3, kBool)}},
                    {"output", sum_buffers}}}},
                 {"child", partial},
                 {"output", by_key_out}};
  Json filter = Call("gt", {Col(1, kI64), Lit(kI64, 100)}, kBool);
  Json by_flag_out = {F("flag", kStr), F("sum", sum_t), F("isEmpty", kBool), F("count", kI64),
                      F("count", kI64)};
  Json mixed = {{"op", "aggregate"},
                {"id", 4},
                {"mode", "partial"},
                {"keys", {Col(0, kStr)}},
                {"aggregates",
                 {{{"fn", "sum"},
                   {"phase", "merge"},
                   {"args", {Col(2, sum_t), Col(3, kBool)}},
                   {"output", sum_buffers}},
                  {{"fn", "count"},
                   {"distinct", true},
                   {"args", {Col(1, kI64)}},
                   {"output", {F("count", kI64)}}},
                  {{"fn", "count"},
                   {"distinct", true},
                   {"filter", filter},
                   {"args", {Col(1, kI64)}},
                   {"output", {F("count", kI64)}}}}},
                {"child", merged},
                {"output", by_flag_out}};
  Json final = {{"op", "aggregate"},
                {"id", 5},
                {"mode", "final"},
                {"keys", {Col(0, kStr)}},
                {"aggregates",
                 {{{"fn", "sum"}, {"output", {F("s", sum_t)}}},
                  {{"fn", "count"}, {"distinct", true}, {"output", {F("n", kI64)}}},
                  {{"fn", "count"}, {"distinct", true}, {"output", {F("big", kI64)}}}}},
                {"child", mixed},
                {"output", {F("flag", kStr), F("s", sum_t), F("n", kI64), F("big", kI64)}}};
  auto got = Run(Document(final), Splits(1, path_, 0, -1));
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(Rows(*got), Sql("SELECT flag, sum(p), count(DISTINCT k), count(DISTINCT k) FILTER "
                            "(WHERE k > 100) FROM orders GROUP BY flag",
                            path_));
  // A FILTER where the input is buffers, and a DISTINCT aggregate merged, are Spark's only.
  Json bad = final;
  bad["aggregates"][1]["filter"] = filter;
  auto f = ParseFragment(Document(bad).dump());
  ASSERT_TRUE(f.ok());
  std::map<int64_t, NodeVerdict> by_id;
  for (const NodeVerdict& n : ValidateFragment(*f)) by_id[n.id] = n;
  EXPECT_FALSE(by_id[5].supported);
  EXPECT_NE(by_id[5].reason.find("FILTER outside its partial phase"), std::string::npos)
      << by_id[5].reason;
}

}  // namespace
}  // namespace tandem::spark
