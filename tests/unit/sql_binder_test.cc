// The binder: plan shapes, types, output names and errors (with positions and hints) for SQL
// bound against a catalog of small in-memory tables.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>

#include "tandem/expr/function_registry.h"
#include "tandem/sql/binder.h"
#include "tandem/sql/parser.h"

namespace tandem::sql {
namespace {

std::shared_ptr<TableSource> MemoryTable(const std::string& name, std::vector<Field> fields) {
  auto t = std::make_shared<Table>();
  t->schema.fields = std::move(fields);
  return TableSource::Memory(name, t);
}

class SqlBinderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(catalog_
                    .AddTable("t",
                              MemoryTable("t", {{"a", DataType::Int32(), true},
                                                {"b", DataType::String(), true},
                                                {"c", DataType::Decimal(15, 2), false},
                                                {"d", DataType::Date32(), true}}),
                              false)
                    .ok());
    ASSERT_TRUE(catalog_
                    .AddTable("u",
                              MemoryTable("u", {{"a", DataType::Int64(), false},
                                                {"x", DataType::Float64(), true}}),
                              false)
                    .ok());
  }

  Result<PlanPtr> Bind(const std::string& sql) {
    TANDEM_ASSIGN_OR_RAISE(auto stmts, ParseSql(sql));
    if (stmts.size() != 1) return Status::Invalid("expected one statement");
    return BindSelect(stmts[0].tree["SelectStmt"], sql, catalog_);
  }

  PlanPtr BindOk(const std::string& sql) {
    auto r = Bind(sql);
    EXPECT_TRUE(r.ok()) << sql << "\n  -> " << r.status().ToString();
    return r.ok() ? *r : nullptr;
  }

  std::string BindError(const std::string& sql) {
    auto r = Bind(sql);
    EXPECT_FALSE(r.ok()) << sql << "\n  bound to:\n" << (r.ok() ? PlanToString(**r) : "");
    return r.ok() ? "" : r.status().message();
  }

  Catalog catalog_;
};

std::vector<std::string> Names(const PlanNode& p) {
  std::vector<std::string> n;
  for (const auto& f : p.schema.fields) n.push_back(f.name);
  return n;
}

const PlanNode* Find(const PlanNode& p, PlanKind kind) {
  if (p.kind == kind) return &p;
  for (const auto& c : p.children) {
    if (const PlanNode* f = Find(*c, kind)) return f;
  }
  return nullptr;
}

TEST_F(SqlBinderTest, SelectListNamesAndTypes) {
  PlanPtr p = BindOk(
      "SELECT a, b AS bee, a + 1, sum(c), count(*), 0.06, 3000000000, "
      "99999999999999999999, 'x', NULL FROM t GROUP BY a, b");
  ASSERT_TRUE(p);
  EXPECT_EQ(Names(*p),
            (std::vector<std::string>{"a", "bee", "(a + 1)", "sum(c)", "count_star()", "0.06",
                                      "3000000000", "99999999999999999999", "'x'", "NULL"}));
  const Schema& s = p->schema;
  EXPECT_EQ(s.field(2).type, DataType::Int32());
  EXPECT_EQ(s.field(3).type, DataType::Decimal(25, 2));  // Spark: sum(decimal(p,s)) -> p+10
  EXPECT_EQ(s.field(4).type, DataType::Int64());
  EXPECT_FALSE(s.field(4).nullable);
  EXPECT_EQ(s.field(5).type, DataType::Decimal(2, 2));
  EXPECT_EQ(s.field(6).type, DataType::Int64());
  EXPECT_EQ(s.field(7).type, DataType::Decimal(20, 0));
  EXPECT_EQ(s.field(8).type, DataType::String());
  ASSERT_EQ(p->kind, PlanKind::kProject);
  ASSERT_EQ(p->children[0]->kind, PlanKind::kAggregate);
  EXPECT_EQ(p->children[0]->group_keys.size(), 2u);
  EXPECT_EQ(p->children[0]->aggregates.size(), 2u);
}

TEST_F(SqlBinderTest, StarAndQualifiedStar) {
  PlanPtr p = BindOk("SELECT *, u.* FROM t, u");
  ASSERT_TRUE(p);
  EXPECT_EQ(Names(*p), (std::vector<std::string>{"a", "b", "c", "d", "a", "x", "a", "x"}));
  const PlanNode* j = Find(*p, PlanKind::kJoin);
  ASSERT_TRUE(j);
  EXPECT_TRUE(j->left_keys.empty());  // comma join: cross join, the optimizer plans it
  EXPECT_EQ(p->exprs[6]->column_index, 4);
}

TEST_F(SqlBinderTest, WhereKeepsConjunctOrderAndCastsLiterals) {
  PlanPtr p = BindOk("SELECT b FROM t WHERE d >= DATE '1994-01-01' AND a < 24 AND b LIKE 'x%'");
  ASSERT_TRUE(p);
  const PlanNode* f = Find(*p, PlanKind::kFilter);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->predicate->ToString(),
            "(((d >= DATE '1994-01-01') AND (a < 24)) AND (b LIKE 'x%'))");
}

TEST_F(SqlBinderTest, DateIntervalArithmetic) {
  PlanPtr p = BindOk(
      "SELECT d + INTERVAL '3' MONTH, d - interval '90' day (3), "
      "DATE '1998-12-01' - INTERVAL '1 year', d - d FROM t");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->exprs[0]->name, "add_interval_month");
  EXPECT_EQ(p->exprs[0]->args[1]->literal.i64, 3);
  EXPECT_EQ(p->exprs[1]->name, "add_interval_day");
  EXPECT_EQ(p->exprs[1]->args[1]->literal.i64, -90);
  EXPECT_EQ(p->exprs[2]->name, "add_interval_year");
  EXPECT_EQ(p->exprs[0]->type, DataType::Date32());
  EXPECT_EQ(p->exprs[3]->name, "subtract");
}

TEST_F(SqlBinderTest, SpecialSyntaxFunctions) {
  PlanPtr p = BindOk(
      "SELECT extract(year FROM d), substring(b FROM 1 FOR 2), "
      "position('x' IN b), trim(both 'x' FROM b), coalesce(a, 0), nullif(a, 1), "
      "CASE WHEN a > 1 THEN 'big' ELSE b END, CASE a WHEN 1 THEN 2 END, "
      "a IN (1, 2), a NOT BETWEEN 1 AND 3, CAST(a AS bigint), a::varchar, "
      "b IS NULL, a IS DISTINCT FROM 3 FROM t");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->exprs[0]->name, "extract_year");
  EXPECT_EQ(p->exprs[1]->name, "substring");
  EXPECT_EQ(p->exprs[2]->name, "strpos");
  EXPECT_EQ(p->exprs[2]->args[0]->ToString(), "b");
  EXPECT_EQ(p->exprs[3]->name, "trim");
  EXPECT_EQ(p->exprs[4]->name, "coalesce");
  EXPECT_FALSE(p->exprs[4]->nullable);
  EXPECT_EQ(p->exprs[6]->kind, ExprKind::kCase);
  EXPECT_EQ(p->exprs[6]->type, DataType::String());
  EXPECT_TRUE(p->exprs[7]->nullable);
  EXPECT_EQ(p->exprs[8]->kind, ExprKind::kInList);
  EXPECT_EQ(p->exprs[9]->name, "or");
  EXPECT_EQ(p->exprs[10]->kind, ExprKind::kCast);
  EXPECT_EQ(p->exprs[11]->type, DataType::String());
  EXPECT_FALSE(p->exprs[12]->nullable);
  EXPECT_EQ(p->exprs[13]->name, "is_distinct_from");
}

TEST_F(SqlBinderTest, CallArgumentsMatchResolvedTypes) {
  PlanPtr p = BindOk("SELECT t.a + c, t.a = x FROM t JOIN u ON t.a = u.a");
  ASSERT_TRUE(p);
  for (const auto& e : p->exprs) {
    Result<ResolvedFunction> f =
        ResolveScalarFunction(e->name, {e->args[0]->type, e->args[1]->type});
    ASSERT_TRUE(f.ok()) << e->ToString();
    EXPECT_EQ(f->arg_types[0], e->args[0]->type) << e->ToString();
    EXPECT_EQ(f->arg_types[1], e->args[1]->type) << e->ToString();
  }
  const PlanNode* j = Find(*p, PlanKind::kJoin);
  ASSERT_TRUE(j);
  ASSERT_EQ(j->left_keys.size(), 1u);  // ON equality between sides -> join keys
  EXPECT_EQ(j->right_keys[0]->ToString(), "a");
  EXPECT_EQ(j->right_keys[0]->column_index, 0);
  EXPECT_EQ(j->left_keys[0]->type, j->right_keys[0]->type);
}

TEST_F(SqlBinderTest, JoinsUsingAndNatural) {
  PlanPtr p = BindOk("SELECT * FROM t JOIN u USING (a)");
  ASSERT_TRUE(p);
  EXPECT_EQ(Names(*p), (std::vector<std::string>{"a", "b", "c", "d", "x"}));
  p = BindOk("SELECT a FROM t NATURAL FULL JOIN u");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->exprs[0]->type, DataType::Int64());  // COALESCE(t.a, u.a) in the common type
  p = BindOk("SELECT t.a, u.x FROM t LEFT JOIN u ON t.a = u.a AND u.x > 1.5");
  ASSERT_TRUE(p);
  const PlanNode* j = Find(*p, PlanKind::kJoin);
  EXPECT_EQ(j->join_type, JoinType::kLeft);
  EXPECT_TRUE(j->condition);
  EXPECT_TRUE(p->schema.field(1).nullable);
}

TEST_F(SqlBinderTest, GroupByOrdinalAliasAndHaving) {
  PlanPtr p = BindOk(
      "SELECT a % 10 AS k, count(*) FROM t GROUP BY k HAVING sum(c) > 5 "
      "ORDER BY 2 DESC, max(b)");
  ASSERT_TRUE(p);
  EXPECT_EQ(Names(*p), (std::vector<std::string>{"k", "count_star()"}));
  const PlanNode* agg = Find(*p, PlanKind::kAggregate);
  ASSERT_TRUE(agg);
  EXPECT_EQ(agg->aggregates.size(), 3u);  // count, sum (HAVING), max (ORDER BY)
  const PlanNode* sort = Find(*p, PlanKind::kSort);
  ASSERT_TRUE(sort);
  EXPECT_FALSE(sort->sort_keys[0].ascending);
  EXPECT_TRUE(sort->sort_keys[0].nulls_first);   // DESC -> NULLS FIRST
  EXPECT_FALSE(sort->sort_keys[1].nulls_first);  // ASC -> NULLS LAST
  EXPECT_EQ(sort->schema.num_fields(), 3);       // hidden max(b), dropped above
  EXPECT_TRUE(BindOk("SELECT a, count(*) FROM t GROUP BY 1"));
}

TEST_F(SqlBinderTest, GroupingSets) {
  PlanPtr p = BindOk("SELECT a, b, GROUPING(a), sum(c) FROM t GROUP BY ROLLUP (a, b)");
  ASSERT_TRUE(p);
  const PlanNode* agg = Find(*p, PlanKind::kAggregate);
  ASSERT_TRUE(agg);
  EXPECT_EQ(agg->grouping_sets, (std::vector<std::vector<int>>{{0, 1}, {0}, {}}));
  EXPECT_EQ(p->exprs[2]->kind, ExprKind::kCase);
  p = BindOk("SELECT a, b FROM t GROUP BY CUBE (a, b)");
  EXPECT_EQ(Find(*p, PlanKind::kAggregate)->grouping_sets.size(), 4u);
  p = BindOk("SELECT a FROM t GROUP BY GROUPING SETS ((a), ())");
  EXPECT_EQ(Find(*p, PlanKind::kAggregate)->grouping_sets.size(), 2u);
}

TEST_F(SqlBinderTest, DistinctAndAggregateOptions) {
  PlanPtr p = BindOk("SELECT DISTINCT a, b FROM t");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->kind, PlanKind::kAggregate);
  EXPECT_EQ(p->group_keys.size(), 2u);
  p = BindOk("SELECT count(DISTINCT b), sum(c) FILTER (WHERE a > 1) FROM t");
  ASSERT_TRUE(p);
  const PlanNode* agg = Find(*p, PlanKind::kAggregate);
  EXPECT_TRUE(agg->aggregates[0].distinct);
  EXPECT_TRUE(agg->aggregates[1].filter);
  EXPECT_TRUE(agg->group_keys.empty());
}

TEST_F(SqlBinderTest, WindowFunctions) {
  PlanPtr p = BindOk(
      "SELECT a, row_number() OVER (PARTITION BY b ORDER BY c DESC), "
      "sum(c) OVER (ORDER BY a ROWS BETWEEN 2 PRECEDING AND CURRENT ROW), "
      "lag(a, 1, 0) OVER w FROM t WINDOW w AS (ORDER BY d)");
  ASSERT_TRUE(p);
  ASSERT_EQ(p->kind, PlanKind::kProject);
  const PlanNode& w = *p->children[0];
  ASSERT_EQ(w.kind, PlanKind::kWindow);
  ASSERT_EQ(w.windows.size(), 3u);
  EXPECT_EQ(w.windows[0].kind, WindowFunctionKind::kRowNumber);
  EXPECT_EQ(w.windows[0].partition_by.size(), 1u);
  EXPECT_EQ(w.windows[1].frame.unit, WindowFrame::Unit::kRows);
  EXPECT_EQ(w.windows[1].frame.start, WindowFrame::BoundKind::kPreceding);
  EXPECT_EQ(w.windows[1].frame.start_offset, 2);
  EXPECT_EQ(w.windows[2].kind, WindowFunctionKind::kLag);
  EXPECT_EQ(w.windows[2].order_by.size(), 1u);
  EXPECT_EQ(p->exprs[1]->column_index, 4);  // after t's 4 columns
  // Windows over aggregates.
  p = BindOk("SELECT a, rank() OVER (ORDER BY sum(c)) FROM t GROUP BY a");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->children[0]->kind, PlanKind::kWindow);
  EXPECT_EQ(p->children[0]->children[0]->kind, PlanKind::kAggregate);
}

TEST_F(SqlBinderTest, SetOperationsUnifyTypes) {
  PlanPtr p = BindOk("SELECT a FROM t UNION ALL SELECT x FROM u ORDER BY 1 LIMIT 3 OFFSET 1");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->kind, PlanKind::kLimit);
  EXPECT_EQ(p->limit, 3);
  EXPECT_EQ(p->offset, 1);
  const PlanNode* s = Find(*p, PlanKind::kSetOp);
  ASSERT_TRUE(s);
  EXPECT_TRUE(s->set_all);
  EXPECT_EQ(s->schema.field(0).type, DataType::Float64());
  EXPECT_EQ(s->children[0]->kind, PlanKind::kProject);  // cast int32 -> float64
  p = BindOk("SELECT a FROM t INTERSECT SELECT a FROM u EXCEPT SELECT 1");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->set_op, SetOpKind::kExcept);
  EXPECT_NE(BindError("SELECT a, b FROM t UNION SELECT a FROM u").find("same number of columns"),
            std::string::npos);
}

TEST_F(SqlBinderTest, ValuesCtesAndDerivedTables) {
  PlanPtr p = BindOk("SELECT * FROM (VALUES (1, 'a'), (2, NULL)) v(n, s)");
  ASSERT_TRUE(p);
  EXPECT_EQ(Names(*p), (std::vector<std::string>{"n", "s"}));
  const PlanNode* v = Find(*p, PlanKind::kValues);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->rows.size(), 2u);
  EXPECT_TRUE(v->rows[1][1].is_null);
  EXPECT_EQ(v->rows[1][1].type, DataType::String());
  p = BindOk(
      "WITH c1 AS (SELECT a FROM t), c2(z) AS (SELECT a + 1 FROM c1) "
      "SELECT z, (SELECT count(*) FROM c1) FROM c2");
  ASSERT_TRUE(p);
  EXPECT_EQ(Names(*p)[0], "z");
  p = BindOk("SELECT s.k FROM (SELECT a AS k FROM t) AS s WHERE s.k > 1");
  ASSERT_TRUE(p);
  EXPECT_TRUE(BindOk("SELECT 1 + 2, 'x'"));
}

TEST_F(SqlBinderTest, ViewsAreBoundFromTheirSql) {
  ASSERT_TRUE(catalog_.AddView("v", "SELECT a AS va, b FROM t WHERE a > 0", false).ok());
  PlanPtr p = BindOk("SELECT va FROM v");
  ASSERT_TRUE(p);
  EXPECT_TRUE(Find(*p, PlanKind::kFilter));
  ASSERT_TRUE(catalog_.AddView("bad", "SELECT nope FROM t", false).ok());
  EXPECT_EQ(BindError("SELECT * FROM bad"),
            "view bad (used at line 1:15): column nope not found (line 1:8)");
}

TEST_F(SqlBinderTest, FileSources) {
  const auto dir = std::filesystem::temp_directory_path() / "tandem_binder_test";
  std::filesystem::create_directories(dir);
  const std::string csv = (dir / "small.csv").string();
  std::ofstream(csv) << "k,v\n1,hello\n2,world\n";
  PlanPtr p = BindOk("SELECT k, v FROM read_csv('" + csv + "')");
  ASSERT_TRUE(p);
  const PlanNode* scan = Find(*p, PlanKind::kScan);
  ASSERT_TRUE(scan);
  EXPECT_EQ(scan->source->kind, TableSource::Kind::kCsv);
  p = BindOk("SELECT * FROM '" + csv + "' f WHERE f.k = 1");
  ASSERT_TRUE(p);
  EXPECT_NE(BindError("SELECT * FROM read_parquet('/nonexistent/x*.parquet')").find("(line 1:15)"),
            std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_F(SqlBinderTest, Subqueries) {
  PlanPtr p = BindOk(
      "SELECT a FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.a = t.a) "
      "AND a NOT IN (SELECT a FROM u) AND c > (SELECT avg(x) FROM u) "
      "AND a > ALL (SELECT a FROM u)");
  ASSERT_TRUE(p);
  const PlanNode* f = Find(*p, PlanKind::kFilter);
  ASSERT_TRUE(f);
  std::vector<const Expr*> subs;
  std::function<void(const Expr&)> walk = [&](const Expr& e) {
    if (e.kind == ExprKind::kSubquery) subs.push_back(&e);
    for (const auto& a : e.args) walk(*a);
  };
  walk(*f->predicate);
  ASSERT_EQ(subs.size(), 4u);
  EXPECT_EQ(subs[0]->subquery_kind, SubqueryKind::kExists);
  EXPECT_EQ(subs[1]->subquery_kind, SubqueryKind::kIn);
  EXPECT_TRUE(subs[1]->negated);
  EXPECT_EQ(subs[1]->args[0]->type, DataType::Int64());  // t.a cast to u.a's int64
  EXPECT_EQ(subs[2]->subquery_kind, SubqueryKind::kScalar);
  EXPECT_EQ(subs[3]->subquery_kind, SubqueryKind::kAll);
  EXPECT_EQ(subs[3]->name, "gt");
  // The correlated t.a inside EXISTS: depth 1, index 0 of the Filter's input.
  const PlanNode* inner = Find(*subs[0]->subquery, PlanKind::kFilter);
  ASSERT_TRUE(inner);
  const Expr& eq = *inner->predicate;
  const Expr& outer_ref = *eq.args[1]->args[0];  // CAST(t.a AS int64)
  EXPECT_EQ(outer_ref.outer_depth, 1);
  EXPECT_EQ(outer_ref.column_index, 0);
  // Correlated subquery in the select list of an aggregated query reads the group key column.
  p = BindOk("SELECT b, (SELECT max(x) FROM u WHERE u.a > t.a) FROM t GROUP BY b, a");
  ASSERT_TRUE(p);
  const Expr& sq = *p->exprs[1];
  ASSERT_EQ(sq.kind, ExprKind::kSubquery);
  const PlanNode* sf = Find(*sq.subquery, PlanKind::kFilter);
  EXPECT_EQ(sf->predicate->args[1]->args[0]->column_index, 1);  // key #1 = t.a
  EXPECT_NE(BindError("SELECT a FROM t WHERE EXISTS (SELECT 1 FROM u WHERE EXISTS "
                      "(SELECT 1 FROM u AS w WHERE w.a = t.a))")
                .find("not supported yet: correlated column a"),
            std::string::npos);
}

TEST_F(SqlBinderTest, ErrorsNamePositionsAndHints) {
  EXPECT_EQ(BindError("SELECT aa FROM t"), "column aa not found (line 1:8); did you mean a?");
  EXPECT_EQ(BindError("SELECT a FROM tt"), "table tt not found (line 1:15); did you mean t?");
  EXPECT_EQ(BindError("SELECT a FROM t, u"),
            "column reference a is ambiguous (could be t.a, u.a) (line 1:8)");
  EXPECT_EQ(BindError("SELECT z.a FROM t"), "table z not found in FROM (line 1:8)");
  EXPECT_EQ(BindError("SELECT uper(b) FROM t"),
            "unknown function uper (line 1:8); did you mean upper?");
  EXPECT_EQ(BindError("SELECT a FROM t WHERE sum(a) > 1"),
            "aggregate functions are not allowed in WHERE (line 1:23)");
  EXPECT_EQ(BindError("SELECT a, sum(c) FROM t GROUP BY b"),
            "column a must appear in GROUP BY or be used in an aggregate function (line 1:8)");
  EXPECT_EQ(BindError("SELECT sum(sum(a)) FROM t"),
            "aggregate function calls cannot be nested (line 1:12)");
  EXPECT_EQ(BindError("SELECT a FROM t WHERE a = 'x' OR a"),
            "an OR operand must be boolean, got int32 (line 1:34)");
  EXPECT_EQ(BindError("SELECT DATE '1999-02-30'"), "invalid date '1999-02-30' (line 1:13)");
  EXPECT_EQ(BindError("SELECT a FROM t\nORDER BY 3"),
            "ORDER BY position 3 is not in the select list (line 2:10)");
  EXPECT_EQ(BindError("SELECT row_number() OVER () FROM t WHERE a > 0 GROUP BY "
                      "row_number() OVER ()"),
            "window functions are not allowed in GROUP BY (line 1:57)");
  EXPECT_EQ(BindError("SELECT a FROM t LIMIT a"),
            "not supported yet: LIMIT other than an integer constant (line 1:23)");
  // The registry's own message gets the position.
  const std::string m = BindError("SELECT substring(b) FROM t");
  EXPECT_NE(m.find("substring"), std::string::npos);
  EXPECT_NE(m.find("(line 1:8)"), std::string::npos);
  EXPECT_NE(BindError("SELECT CAST(d AS boolean) FROM t").find("cannot cast date32"),
            std::string::npos);
  EXPECT_NE(BindError("WITH RECURSIVE r AS (SELECT 1) SELECT * FROM r").find("not supported yet"),
            std::string::npos);
}

}  // namespace
}  // namespace tandem::sql
