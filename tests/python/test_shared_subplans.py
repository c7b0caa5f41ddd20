"""Identical subplans of a query run once (exec/shared_subplans.h): a CTE or view read twice, a
join repeated under a HAVING subquery. The answers stay DuckDB's, EXPLAIN ANALYZE says which
occurrence reused the other's output, and subplans that differ in anything that decides their
rows (a constant, a column, a LIMIT's row budget) are never merged.
"""

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from random_queries import compare_results, explain_text, run_duckdb, run_tandem, tandem_command

pytestmark = pytest.mark.skipif(not tandem_command(), reason="TANDEM_BIN not set")


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    d = tmp_path_factory.mktemp("shared")
    rng = np.random.default_rng(11)
    n = 200_000
    fact = pa.table({"k": rng.integers(0, 1000, n), "g": rng.integers(0, 20, n),
                     "v": rng.integers(-500, 500, n), "x": rng.random(n)})
    dim = pa.table({"id": np.arange(1000), "grp": np.arange(1000) % 9})
    paths = {"fact": str(d / "fact.parquet"), "dim": str(d / "dim.parquet")}
    pq.write_table(fact, paths["fact"], row_group_size=50_000)
    pq.write_table(dim, paths["dim"])
    return paths


def check(tables, sql):
    con = duckdb.connect()
    for name, path in tables.items():
        con.execute(f"CREATE VIEW {name} AS SELECT * FROM read_parquet('{path}')")
    expected = run_duckdb(con, sql)
    diff = compare_results(run_tandem(sql, tables), expected)
    assert diff is None, f"{sql}: {diff}"


def explain_analyze(tables, sql):
    return explain_text(sql, tables, analyze=True)


TWICE = ("WITH r AS (SELECT k, sum(v) AS s FROM fact WHERE g < 10 GROUP BY k) "
         "SELECT k, s FROM r WHERE s = (SELECT max(s) FROM r)")
JOIN_TWICE = ("SELECT d.grp, sum(f.v) AS s FROM fact f JOIN dim d ON f.k = d.id GROUP BY d.grp "
              "HAVING sum(f.v) > (SELECT sum(f2.v) / 20 FROM fact f2 JOIN dim d2 "
              "ON f2.k = d2.id)")


@pytest.mark.parametrize("sql", [TWICE, JOIN_TWICE])
def test_a_repeated_subplan_runs_once_with_the_same_answer(tables, sql):
    check(tables, sql)
    if sql is TWICE:
        text = explain_analyze(tables, sql)
        assert "computed once for 2" in text, text


DIFFERENT = [
    # A constant differs.
    "SELECT a.k, a.s, b.s FROM (SELECT k, sum(v) AS s FROM fact WHERE g < 10 GROUP BY k) a "
    "JOIN (SELECT k, sum(v) AS s FROM fact WHERE g < 11 GROUP BY k) b ON a.k = b.k",
    # The aggregated column differs.
    "SELECT a.k, a.s, b.s FROM (SELECT k, sum(v) AS s FROM fact GROUP BY k) a "
    "JOIN (SELECT k, sum(g) AS s FROM fact GROUP BY k) b ON a.k = b.k",
    # DISTINCT differs.
    "SELECT a.k, a.c, b.c FROM (SELECT k, count(g) AS c FROM fact GROUP BY k) a "
    "JOIN (SELECT k, count(DISTINCT g) AS c FROM fact GROUP BY k) b ON a.k = b.k",
    # A double constant that differs past the printed digits.
    "SELECT count(*) AS n FROM (SELECT k FROM fact WHERE x < 0.1000000000000001 GROUP BY k) a "
    "JOIN (SELECT k FROM fact WHERE x < 0.1 GROUP BY k) b ON a.k = b.k",
]


@pytest.mark.parametrize("sql", DIFFERENT, ids=["constant", "column", "distinct", "double"])
def test_subplans_that_differ_are_not_merged(tables, sql):
    check(tables, sql)
    assert "computed once" not in explain_analyze(tables, sql)


def test_a_limit_below_one_occurrence_keeps_them_apart(tables):
    # The join under the LIMIT stops at its row budget; the other must make every row.
    sql = ("SELECT count(*) AS n FROM (SELECT f.k FROM fact f JOIN dim d ON f.k = d.id LIMIT 7) a "
           "UNION ALL SELECT count(*) FROM (SELECT f.k FROM fact f JOIN dim d ON f.k = d.id) b")
    check(tables, sql)
