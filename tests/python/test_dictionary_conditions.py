"""Conditions tested on Parquet dictionaries (io/parquet/row_conditions.h,
exec/cpu/scan_conditions.h): a filter's conjuncts on one column (strings, integers, doubles,
dates) are tested on each dictionary-encoded chunk's dictionary, rows are dropped by their codes
and only the rows kept are built. Each query runs through Tandem and DuckDB over the same files: one written with
dictionaries (data pages v1), one without, one whose dictionary overflows into PLAIN pages
(data pages v2), all with NULLs, so every path of the reader meets every condition. EXPLAIN
ANALYZE must show the dictionaries used where the conditions allow it, and not where they do not
(a cast that could fail, a function outside the safe list). Each case runs with row groups
decoded whole and in pieces (tandem.exec.cpu.scanPieceRows), which reads the condition columns as
codes first and gathers the kept rows when few are kept."""
import re

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from random_queries import compare_results, explain_text, run_duckdb, run_tandem

ROWS = 20_000
WORDS = ["AIR", "AIR REG", "MAIL", "SHIP", "TRUCK", "RAIL", "FOB", "a", "ab", "Ab", ""]


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    d = tmp_path_factory.mktemp("dictcond")
    rng = np.random.default_rng(11)
    t = d / "t"
    t.mkdir()
    for i, kind in enumerate(["dictionary", "plain", "overflow"]):
        mode = pa.array(rng.choice(WORDS, ROWS), mask=rng.random(ROWS) < 0.05)
        how = pa.array(rng.choice(["DELIVER IN PERSON", "NONE", "TAKE BACK RETURN"], ROWS))
        # Many distinct values: with a small dictionary page limit the writer falls back to
        # PLAIN pages part way through the chunk.
        note = pa.array([f"n{x}" for x in rng.integers(0, 6000, ROWS)],
                        mask=rng.random(ROWS) < 0.1)
        table = pa.table({
            "mode": mode, "how": how, "note": note,
            "v": rng.integers(0, 100, ROWS),
            "q": pa.array(rng.integers(0, 50, ROWS) / 2.0, mask=rng.random(ROWS) < 0.02),
            "d": pa.array(np.datetime64("2020-01-01") + rng.integers(0, 400, ROWS),
                          pa.date32()),
        })
        path = str(t / f"part-{i}.parquet")
        if kind == "dictionary":
            pq.write_table(table, path, row_group_size=4_000)
        elif kind == "plain":
            pq.write_table(table, path, row_group_size=4_000, use_dictionary=False)
        else:
            pq.write_table(table, path, row_group_size=7_000, dictionary_pagesize_limit=2_000,
                           data_page_version="2.0", data_page_size=4_096)
    k = pa.table({"v": np.arange(0, 100, 3), "w": np.arange(0, 100, 3) * 7})
    pq.write_table(k, str(d / "k.parquet"))
    return {"t": str(t), "k": str(d / "k.parquet")}


def duck(tables):
    con = duckdb.connect()
    for name, path in tables.items():
        glob = path + "/*.parquet" if not path.endswith(".parquet") else path
        con.execute(f"CREATE TABLE {name} AS SELECT * FROM read_parquet('{glob}')")
    return con


# (query, whether the dictionaries are used)
CASES = {
    "in_list_and_equality": (
        "SELECT mode, how, v, q FROM t WHERE mode IN ('AIR', 'AIR REG') "
        "AND how = 'DELIVER IN PERSON' AND v > 10", True),
    "no_row_kept": ("SELECT count(*) AS n, sum(v) AS s FROM t WHERE mode = 'B'", True),
    "every_row_kept": ("SELECT count(*) AS n, sum(v) AS s FROM t WHERE how <> 'x'", True),
    # TRUE for NULL: the rows with NULL stay.
    "is_null_or_like": ("SELECT mode, v FROM t WHERE mode IS NULL OR mode LIKE 'A%'", True),
    "coalesce": ("SELECT count(*) AS n, sum(v) AS s FROM t WHERE coalesce(mode, 'zz') = 'zz'", True),
    "not_and_ne": ("SELECT mode, how, v FROM t WHERE NOT (how = 'NONE') AND mode <> 'a'", True),
    "lower_and_case": (
        "SELECT mode, v FROM t WHERE lower(mode) = 'ab' "
        "AND CASE WHEN how = 'NONE' THEN false ELSE true END", True),
    "empty_string_and_range": ("SELECT mode, v FROM t WHERE mode >= '' AND mode < 'B'", True),
    # The overflowing column: dictionary pages first, then PLAIN ones (not read as codes).
    "column_with_plain_pages": (
        "SELECT note, v FROM t WHERE note IN ('n1', 'n2', 'n3') OR note IS NULL", True),
    "grouped": (
        "SELECT mode, count(*) AS n, sum(q) AS s FROM t WHERE how IN ('NONE', 'TAKE BACK RETURN') "
        "AND mode IS NOT NULL GROUP BY mode", True),
    # The filter runs inside a join's probe.
    "under_a_join_probe": (
        "SELECT t.mode, k.w, t.q FROM t JOIN k ON t.v = k.v WHERE t.mode = 'SHIP' AND t.q > 3", True),
    # Numbers and dates: a range's two bounds make one condition.
    "integer_range": ("SELECT mode, v, q FROM t WHERE v >= 10 AND v < 20", True),
    "double_with_nulls": (
        "SELECT count(*) AS n, sum(v) AS s FROM t WHERE q IS NULL OR q > 23.5", True),
    "date_range_and_string": (
        "SELECT mode, d, v FROM t WHERE d BETWEEN DATE '2020-03-01' AND DATE '2020-03-10' "
        "AND how = 'NONE'", True),
    # Most rows kept: the row groups go on whole, the filter drops the rest.
    "most_rows_kept": ("SELECT count(*) AS n, sum(q) AS s FROM t WHERE v > 3", True),
    # A cast could fail on a dictionary value no kept row holds: not tested on dictionaries.
    "cast_not_pushed": (
        "SELECT count(*) AS n FROM t WHERE mode = 'a' OR TRY_CAST(mode AS INTEGER) = 1", False),
    "length_not_pushed": ("SELECT count(*) AS n FROM t WHERE length(mode) = 2", False),
}


@pytest.mark.parametrize("pieces", [0, 1000])
@pytest.mark.parametrize("case", sorted(CASES))
def test_dictionary_conditions_match_duckdb(tables, case, pieces):
    sql, used = CASES[case]
    expected = run_duckdb(duck(tables), sql)
    conf = ("--conf", f"tandem.exec.cpu.scanPieceRows={pieces}")
    for threads in ("1", "3"):
        actual = run_tandem(sql, tables, extra_args=("--threads", threads) + conf)
        diff = compare_results(actual, expected)
        assert diff is None, f"{case}, {threads} threads, pieces of {pieces}: {diff}"
    plan = explain_text(sql, tables, analyze=True, extra_args=conf)
    m = re.search(r"tested on the dictionaries of (\d+) chunks: (\d+) rows dropped", plan)
    assert (m is not None) == used, plan
    # Where the conditions keep most rows (more than half; a quarter for numbers only), the row
    # groups go on whole: nothing is dropped before the filter.
    if m and case not in ("every_row_kept", "most_rows_kept", "grouped", "not_and_ne"):
        assert int(m.group(2)) > 0, plan


def test_the_setting_turns_dictionary_conditions_off(tables):
    sql, _ = CASES["in_list_and_equality"]
    off = ("--conf", "tandem.exec.dictionaryConditions=false")
    assert compare_results(run_tandem(sql, tables, extra_args=off),
                           run_duckdb(duck(tables), sql)) is None
    plan = explain_text(sql, tables, analyze=True, extra_args=off)
    assert "Scan t (parquet" in plan and "dictionaries" not in plan, plan
