"""Eager aggregation (plan/aggregate_below_join.h): an aggregation over a LEFT or INNER join whose
right side has many rows per key aggregates the right side first. Each query runs through Tandem
and DuckDB over the same Parquet files; EXPLAIN must show where the rewrite applies (and where it
must not). The tables hold what makes the rewrite easy to get wrong: left rows that meet nothing,
duplicate left keys, NULL keys on both sides, NULL values, two-column keys."""
import decimal
import re

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from random_queries import compare_results, explain_text, run_duckdb, run_tandem

LEFT_ROWS = 3_000
RIGHT_ROWS = 60_000


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    d = tmp_path_factory.mktemp("eager")
    rng = np.random.default_rng(5)
    # Left keys 0..2499 with duplicates and NULLs; right keys 0..1999 (so some left rows meet
    # nothing), NULLs too.
    left = pa.table({
        "k": pa.array(rng.integers(0, 2500, LEFT_ROWS), mask=rng.random(LEFT_ROWS) < 0.03),
        "k2": rng.integers(0, 3, LEFT_ROWS),
        "g": rng.integers(0, 40, LEFT_ROWS),
        "v": rng.integers(-50, 50, LEFT_ROWS),
    })
    right = pa.table({
        "k": pa.array(rng.integers(0, 2000, RIGHT_ROWS), mask=rng.random(RIGHT_ROWS) < 0.02),
        "k2": rng.integers(0, 3, RIGHT_ROWS),
        "x": pa.array(rng.integers(-1000, 1000, RIGHT_ROWS), mask=rng.random(RIGHT_ROWS) < 0.1),
        "d": pa.array(rng.integers(-400, 400, RIGHT_ROWS) / 8.0, mask=rng.random(RIGHT_ROWS) < 0.1),
        "m": pa.array([None if c % 13 == 0 else decimal.Decimal(int(c)).scaleb(-2)
                       for c in rng.integers(-10**6, 10**6, RIGHT_ROWS)], pa.decimal128(12, 2)),
        "s": [f"s{x:05d}" for x in rng.integers(0, 50_000, RIGHT_ROWS)],
    })
    paths = {"l": str(d / "l.parquet"), "r": str(d / "r.parquet")}
    pq.write_table(left, paths["l"])
    pq.write_table(right, paths["r"])
    return paths


def duck(tables):
    con = duckdb.connect()
    for name, path in tables.items():
        con.execute(f"CREATE TABLE {name} AS SELECT * FROM read_parquet('{path}')")
    return con


AGGS = ("count(*) AS n, count(r.x) AS cx, sum(r.x) AS sx, sum(r.m) AS sm, sum(r.d) AS sd, "
        "min(r.d) AS mn, max(r.s) AS mx")
# (query, whether the right side is aggregated below the join)
CASES = {
    "q13_shape": ("SELECT l.k, count(r.x) AS c FROM l LEFT JOIN r ON l.k = r.k GROUP BY l.k", True),
    "left_by_non_key": (f"SELECT l.g, {AGGS} FROM l LEFT JOIN r ON l.k = r.k GROUP BY l.g", True),
    "inner_by_non_key": (f"SELECT l.g, {AGGS} FROM l JOIN r ON l.k = r.k GROUP BY l.g", True),
    "left_no_group_keys": (f"SELECT {AGGS} FROM l LEFT JOIN r ON l.k = r.k", True),
    "two_column_key": (
        f"SELECT l.g, l.k2, {AGGS} FROM l LEFT JOIN r ON l.k = r.k AND l.k2 = r.k2 "
        "GROUP BY l.g, l.k2", True),
    # A filter on the right side stays below the partial aggregation.
    "right_side_filter": (
        "SELECT l.g, count(*) AS n, sum(r.x) AS sx FROM l LEFT JOIN r ON l.k = r.k AND r.x > 0 "
        "GROUP BY l.g", True),
    # An aggregate of a left column counts each left row once per match: not rewritten.
    "left_column_aggregate": (
        "SELECT l.g, sum(l.v) AS sv, count(r.x) AS c FROM l LEFT JOIN r ON l.k = r.k GROUP BY l.g",
        False),
    # DISTINCT: partial distinct sets do not add up.
    "distinct": (
        "SELECT l.g, count(DISTINCT r.x) AS c FROM l JOIN r ON l.k = r.k GROUP BY l.g", False),
    # A join that keeps few of the right rows (4 % of the left rows pass): cheaper than
    # aggregating every right row first.
    "selective_join": (
        "SELECT l.g, count(r.x) AS c, sum(r.x) AS sx FROM l JOIN r ON l.k = r.k WHERE l.v > 45 "
        "GROUP BY l.g", False),
    # Grouped by a right column.
    "right_group_key": (
        "SELECT r.k2, count(*) AS n FROM l JOIN r ON l.k = r.k GROUP BY r.k2", False),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_aggregate_below_join_matches_duckdb(tables, case):
    sql, rewritten = CASES[case]
    expected = run_duckdb(duck(tables), sql)
    actual = run_tandem(sql, tables)
    diff = compare_results(actual, expected)
    assert diff is None, f"{case}: {diff}"
    plan = explain_text(sql, tables)
    # The partial aggregation groups the right side by its join key, below the join.
    below = re.search(r"^\w+ +Aggregate keys=\[k(, k2)?\]", plan, re.M) is not None
    assert below == rewritten, plan
