// The SQL parser: statements and their offsets, syntax errors with line:column, and the
// offset-preserving rewrites of DuckDB/Spark spellings PostgreSQL's grammar lacks.
#include <gtest/gtest.h>

#include "tandem/sql/parser.h"

namespace tandem::sql {
namespace {

TEST(SqlParserTest, ParsesStatementsWithLocations) {
  auto r = ParseSql("SELECT 1;\nSELECT 2 FROM t");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_TRUE((*r)[0].tree.contains("SelectStmt"));
  EXPECT_EQ((*r)[0].location, 0);
  EXPECT_EQ((*r)[1].location, 9);
  EXPECT_TRUE(ParseSql("  ")->empty());
}

TEST(SqlParserTest, SyntaxErrorNamesLineAndColumn) {
  auto r = ParseSql("SELECT a,\n  b FORM t");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "syntax error at or near \"t\" (line 2:10)");
  auto r2 = ParseSql("SELECT (1");
  ASSERT_FALSE(r2.ok());
  EXPECT_NE(r2.status().message().find("syntax error at end of input"), std::string::npos);
}

TEST(SqlParserTest, PositionOfCountsLinesAndCharacters) {
  const std::string sql = "SELECT\n  é, x";
  EXPECT_EQ(PositionOf(sql, 0).ToString(), "1:1");
  EXPECT_EQ(PositionOf(sql, 9).ToString(), "2:3");
  EXPECT_EQ(PositionOf(sql, 13).ToString(), "2:6");  // é is two bytes, one column
  EXPECT_EQ(PositionOf(sql, 1000).line, 2);
}

TEST(SqlParserTest, TryCastIsMarked) {
  auto r = ParseSql("SELECT try_cast(a AS int), cast(b AS int) FROM t");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const auto& targets = (*r)[0].tree["SelectStmt"]["targetList"];
  EXPECT_TRUE(targets[0]["ResTarget"]["val"]["TypeCast"].value("tandem_try_cast", false));
  EXPECT_FALSE(targets[1]["ResTarget"]["val"]["TypeCast"].value("tandem_try_cast", false));
}

TEST(SqlParserTest, QuotedPathInFromBecomesName) {
  auto r = ParseSql("SELECT 'x' FROM 'dir/*.parquet' p, 'b.csv' WHERE a = 'dir'");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const auto& from = (*r)[0].tree["SelectStmt"]["fromClause"];
  EXPECT_EQ(from[0]["RangeVar"]["relname"], "dir/*.parquet");
  EXPECT_EQ(from[0]["RangeVar"]["location"], 16);
  EXPECT_EQ(from[1]["RangeVar"]["relname"], "b.csv");
  // Literals elsewhere stay strings.
  EXPECT_TRUE((*r)[0].tree["SelectStmt"]["targetList"][0]["ResTarget"]["val"].contains("A_Const"));
  // EXTRACT(... FROM x) and SUBSTRING(x FROM 'p') are not table positions.
  EXPECT_TRUE(ParseSql("SELECT substring('abc' FROM 2) FROM t").ok());
}

TEST(SqlParserTest, SettingNamesMayHoldReservedWords) {
  // LIMIT is reserved: the grammar refuses it in a dotted name, the rewrite reads it back.
  auto r = ParseSql(
      "SET tandem.memory.host.limit = '8g';\nRESET tandem.Memory.GPU.limit;\n"
      "SET LOCAL a.order.b TO 1;\nSET a.group.b = 2;\nSELECT 1 LIMIT 2");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->size(), 5u);
  EXPECT_EQ((*r)[0].tree["VariableSetStmt"]["name"], "tandem.memory.host.limit");
  EXPECT_EQ((*r)[1].tree["VariableSetStmt"]["name"], "tandem.memory.gpu.limit");
  // Names of one shape with different reserved words each keep their own.
  EXPECT_EQ((*r)[2].tree["VariableSetStmt"]["name"], "a.order.b");
  EXPECT_EQ((*r)[3].tree["VariableSetStmt"]["name"], "a.group.b");
  EXPECT_TRUE((*r)[4].tree["SelectStmt"].contains("limitCount"));
  // Positions after the name are the user's own.
  auto bad = ParseSql("SET tandem.memory.host.limit = '8g';\nSELECT FROM FROM");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "syntax error at or near \"FROM\" (line 2:13)");
  // A reserved word alone is the grammar's error, with the hint.
  auto alone = ParseSql("SET limit = 3");
  ASSERT_FALSE(alone.ok());
  EXPECT_NE(alone.status().message().find("written in double quotes"), std::string::npos)
      << alone.status().message();
}

TEST(SqlParserTest, IntervalSpellings) {
  // TPC-H's "interval '90' day (3)" and DuckDB's "INTERVAL 3 DAY".
  auto r = ParseSql(
      "SELECT date '1998-12-01' - interval '90' day (3), INTERVAL 3 DAY, "
      "CAST(x AS DOUBLE) FROM t");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const auto& targets = (*r)[0].tree["SelectStmt"]["targetList"];
  EXPECT_EQ(targets[1]["ResTarget"]["val"]["TypeCast"]["arg"]["A_Const"]["sval"]["sval"], "3");
  EXPECT_EQ(
      targets[2]["ResTarget"]["val"]["TypeCast"]["typeName"]["names"].back()["String"]["sval"],
      "float8");
}

// libpg_query's JSON drops integers <= 0; the parse tree must carry the parser's own values.
TEST(SqlParserTest, NegativeAndZeroIntegersKeepTheirValues) {
  auto r = ParseSql("SELECT -3, -(4), - /*c*/ 5, 0, 7 LIMIT -(1)");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const auto& select = (*r)[0].tree["SelectStmt"];
  std::vector<int64_t> values;
  for (const auto& target : select["targetList"]) {
    values.push_back(target["ResTarget"]["val"]["A_Const"]["ival"]["ival"].get<int64_t>());
  }
  EXPECT_EQ(values, (std::vector<int64_t>{-3, -4, -5, 0, 7}));
  EXPECT_EQ(select["limitCount"]["A_Const"]["ival"]["ival"].get<int64_t>(), -1);
}

TEST(SqlParserTest, InvalidUtf8IsNamedWithItsPlace) {
  auto r = ParseSql("SELECT 1,\n 'a\xff'");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "SQL text is not valid UTF-8: byte 0xFF at line 2:4");
}

TEST(SqlParserTest, PathsLongerThanAnIdentifierStayWhole) {
  const std::string path = "/" + std::string(100, 'd') + "/t.parquet";
  auto r = ParseSql("SELECT * FROM '" + path + "'");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const auto& from = (*r)[0].tree["SelectStmt"]["fromClause"][0]["RangeVar"];
  EXPECT_EQ(from["tandem_path"].get<std::string>(), path);
}

TEST(SqlParserTest, SourceIndexAgreesWithPositionOf) {
  const std::string sql = "SELECT 'ä',\n  x\n\n\tFROM t -- é\n" + std::string(300, 'y');
  const SourceIndex index(sql);
  for (int at = 0; at <= static_cast<int>(sql.size()) + 2; ++at) {
    EXPECT_EQ(index.PositionOf(at).ToString(), PositionOf(sql, at).ToString()) << at;
  }
}

TEST(SqlParserTest, RejectsNulByte) { EXPECT_FALSE(ParseSql(std::string("SELECT 1\0", 9)).ok()); }

}  // namespace
}  // namespace tandem::sql
