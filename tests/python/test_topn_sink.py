"""ORDER BY ... LIMIT as the sink of the pipeline below it (exec/cpu/topn_sink.h): each batch keeps
its first n + m rows, the candidates are cut back as they accumulate, and TopN runs over what is
left, so the input is never a whole table. A Limit over projections over a Sort (ORDER BY a column
the SELECT list does not show) goes below the projections first (plan/limit_below_project.h), so
that it is a TopN too. Before, the TopN's input was collected whole: lineitem at SF1 ordered by
price, LIMIT 5, held 647 MiB of host memory, and failed under a 28 MiB limit.

Every case runs unlimited and under a 6 MB host limit (16 MB for the one that keeps 40000 rows;
the input collected whole is 10-40 MB), against DuckDB's rows in DuckDB's order (ties that the LIMIT cuts compare by key).
"""
import re

import pytest

from random_queries import compare_results, run_duckdb, run_tandem, tandem_command
from test_spill import LIMIT, THREADS, duck, explain_analyze, limited, tables  # noqa: F401

pytestmark = pytest.mark.skipif(not tandem_command(), reason="TANDEM_BIN not set")

# (query, ORDER BY output columns, LIMIT, OFFSET)
CASES = {
    "largest_values": (
        "SELECT k, v, s, amt FROM fact ORDER BY v DESC, k, s, amt LIMIT 7", ["v", "k", "s", "amt"],
        7, 0),
    "with_offset": (
        "SELECT k, v, s, amt FROM fact ORDER BY amt, k, v, s LIMIT 5 OFFSET 1000",
        ["amt", "k", "v", "s"], 5, 1000),
    "nulls_first_and_strings": (
        "SELECT k, s, v, amt FROM fact ORDER BY k NULLS FIRST, s DESC, v, amt LIMIT 20",
        ["k", "s", "v", "amt"], 20, 0),
    "filtered": (
        "SELECT k, v, s, amt FROM fact WHERE v > 900 ORDER BY s, k, v, amt LIMIT 25",
        ["s", "k", "v", "amt"], 25, 0),
    # The candidates pass four times the limit and are cut back while the scan goes on.
    "candidates_cut_back": (
        "SELECT k, v, s, amt FROM fact ORDER BY s DESC, v, k, amt LIMIT 40000",
        ["s", "v", "k", "amt"], 40000, 0),
    # Sorted on columns the SELECT list does not show: the Limit goes below the projection.
    "sorted_on_hidden_columns": (
        "SELECT s, upper(s) AS u FROM fact ORDER BY v, k, amt, s LIMIT 10", None, 10, 0),
    "over_a_join": (
        "SELECT f.k, f.v, d.name FROM fact f JOIN dim d ON f.k = d.id "
        "ORDER BY d.name DESC, f.v, f.k LIMIT 12", ["name", "v", "k"], 12, 0),
    # Over an aggregation whose groups do not fit under the limit: read from disk.
    "over_groups": (
        "SELECT k, s, sum(v) AS sv FROM fact GROUP BY k, s ORDER BY sv DESC, k, s LIMIT 10",
        ["sv", "k", "s"], 10, 0),
    # The rows to keep (half a million with the offset) do not fit as candidates under the
    # limit: an external sort merged into the Limit's range of rows.
    "large_offset": (
        "SELECT k, v, s FROM fact ORDER BY s DESC, k, v, amt LIMIT 4 OFFSET 500000",
        ["s", "k", "v"], 4, 500000),
    "limit_zero": ("SELECT k, v FROM fact ORDER BY v LIMIT 0", ["v"], 0, 0),
    "limit_above_the_rows": (
        "SELECT k, v, s, amt FROM fact WHERE v = 17 ORDER BY k, s, amt LIMIT 100000",
        ["k", "s", "amt"], 100000, 0),
}


@pytest.mark.parametrize("limited_run", [False, True], ids=["unlimited", "limited"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_topn_equals_duckdb(tables, case, limited_run, tmp_path):
    sql, order_by, limit, offset = CASES[case]
    expected = run_duckdb(duck(tables), sql)
    # 40000 kept rows take about 2.7 MB, their candidates up to four times that: 16 MB (the
    # input collected whole is about 40 MB).
    budget = 16_000_000 if case == "candidates_cut_back" else LIMIT
    args = limited(tmp_path, budget) if limited_run else THREADS
    actual = run_tandem(sql, tables, args)
    if order_by is None:
        # Ordered on hidden columns with no ties among them: the exact rows, in order.
        assert [tuple(r) for r in actual[1]] == [tuple(r) for r in expected[2]], case
        return
    diff = compare_results(actual[:2], expected, order_by=order_by, limit=limit, offset=offset)
    assert diff is None, f"{case}: {diff}"


def test_a_large_offset_under_the_limit_sorts_through_disk(tables, tmp_path):
    plan = explain_analyze(CASES["large_offset"][0], tables, limited(tmp_path))
    assert "Limit (over an external sort: the TopN's rows did not fit)" in plan, plan
    assert "sorted runs on disk" in plan, plan


def test_explain_analyze_names_the_pipeline_sink(tables, tmp_path):
    plan = explain_analyze(CASES["sorted_on_hidden_columns"][0], tables, THREADS)
    assert "TopN (pipeline sink)" in plan, plan
    # The projection runs above the TopN, over its 10 rows.
    assert re.search(r"Project .*\n\s+Limit 10", plan), plan
