"""Differential test: random queries over random tables (random_queries.py), run by Tandem and by
DuckDB on the same Parquet files, results compared value by value (multisets unless ORDER BY fixes
the order). CI runs a fixed seed; any seed by hand:
    TANDEM_DIFF_SEED=123 TANDEM_DIFF_N=500 pytest tests/python/test_differential.py
A mismatch prints the query and both results; every failure of a run is listed, not just the first.
"""
import os
import random
import time

import duckdb
import pyarrow.parquet as pq
import pytest

from random_queries import (QueryGenerator, TandemError, compare_results, format_rows,
                            make_tables, run_duckdb, run_tandem, tandem_command)

SEED = int(os.environ.get("TANDEM_DIFF_SEED", "20240607"))
COUNT = int(os.environ.get("TANDEM_DIFF_N", "800"))
QUERIES_PER_TABLE_SET = 10
TIME_BUDGET_S = float(os.environ.get("TANDEM_DIFF_BUDGET_S", "50"))


def run_differential(seed, count, workdir, budget_s=None):
    """Returns (queries run, failures as text, queries DuckDB rejected)."""
    rng = random.Random(seed)
    failures, rejected, ran = [], [], 0
    started = time.monotonic()
    tables, con, gen = None, None, None
    for n in range(count):
        if budget_s is not None and time.monotonic() - started > budget_s:
            break
        if n % QUERIES_PER_TABLE_SET == 0:
            directory = os.path.join(workdir, f"set{n // QUERIES_PER_TABLE_SET}")
            os.makedirs(directory, exist_ok=True)
            tables = make_tables(rng, directory)
            con = duckdb.connect()
            for name, path in tables.items():
                # DuckDB gets its own copy of each table, not the Parquet file: its row-group
                # pruning on Parquet min/max drops NaN rows (writers leave NaN out of the
                # statistics), e.g. `d between 276.75 and cast('NaN' as double)` misses rows.
                con.register("arrow_source", pq.read_table(path))
                con.execute(f"CREATE TABLE {name} AS SELECT * FROM arrow_source")
                con.unregister("arrow_source")
            gen = QueryGenerator(rng, tables)
        sql, order_by, limit, offset = gen.query()
        try:
            expected = run_duckdb(con, sql)
        except duckdb.Error as e:
            rejected.append(f"{sql}\n  duckdb: {e}")
            continue
        ran += 1
        where = f"query {n} (seed {seed}, tables in {os.path.dirname(tables['t0'])})"
        try:
            actual = run_tandem(sql, tables, timeout=60)
        except TandemError as e:
            failures.append(f"{where}: {sql}\n  tandem failed: {e}")
            continue
        diff = compare_results(actual, expected, order_by, limit, offset)
        if diff:
            failures.append(f"{where}: {sql}\n  {diff}\n-- tandem:\n"
                            f"{format_rows(actual[0], actual[1])}\n-- duckdb:\n"
                            f"{format_rows(expected[0], expected[2])}")
    return ran, failures, rejected


def test_random_queries_match_duckdb(tmp_path):
    if not tandem_command():
        pytest.skip("TANDEM_BIN not set")
    ran, failures, rejected = run_differential(SEED, COUNT, str(tmp_path), TIME_BUDGET_S)
    assert not rejected, "the generator made SQL that DuckDB rejects:\n" + "\n".join(rejected[:5])
    assert ran >= min(COUNT, 20), f"only {ran} queries ran within {TIME_BUDGET_S} s"
    if failures:
        summary = "\n".join(f.splitlines()[0][:300] + "\n    " + f.splitlines()[1][:300]
                             for f in failures)
        pytest.fail(f"{len(failures)} of {ran} queries differ (seed {SEED}):\n{summary}\n\n"
                    "The first ones in full:\n\n" + "\n\n".join(failures[:5]), pytrace=False)


def test_generator_is_deterministic(tmp_path):
    """The same seed gives the same tables and queries, so a failing seed can be replayed."""
    def queries(sub):
        rng = random.Random(SEED)
        directory = tmp_path / sub
        directory.mkdir()
        gen = QueryGenerator(rng, make_tables(rng, str(directory)))
        return [gen.query() for _ in range(30)]
    assert queries("a") == queries("b")
