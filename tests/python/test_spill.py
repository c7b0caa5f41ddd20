"""Spilling under tandem.memory.host.limit (exec/cpu/spilling_pipeline.h): a hash join whose
build side does not fit goes grace (both sides partitioned by key on disk, joined partition by
partition), an aggregation whose partial states do not fit is partitioned by group key on disk
and aggregated partition by partition, splitting a partition again when it still does not fit.

Each query runs with a limit far below what it holds unspilled; its answer must be DuckDB's,
EXPLAIN ANALYZE must say which operator spilled, and --timing must report the bytes spilled.
The spill files are unnamed (nothing is left in tandem.spill.dir, even while they are open),
and a spill directory that cannot be used is a one-line error naming it.
"""
import decimal
import os
import re
import subprocess

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from random_queries import compare_results, run_duckdb, run_tandem, tandem_command

pytestmark = pytest.mark.skipif(not tandem_command(), reason="TANDEM_BIN not set")

FACT_ROWS = 600_000
DIM_ROWS = 200_000
LIMIT = 6_000_000  # bytes; the unspilled runs below hold 10-60 MiB
THREADS = ["--conf", "tandem.sql.threads=2"]


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    d = tmp_path_factory.mktemp("spill")
    rng = np.random.default_rng(11)
    keys = pa.array(rng.integers(0, 260_000, FACT_ROWS), mask=rng.random(FACT_ROWS) < 0.05)
    cents = rng.integers(-10**6, 10**6, FACT_ROWS)
    fact = pa.table({
        "k": keys,
        "v": rng.integers(-1000, 1000, FACT_ROWS),
        "amt": pa.array([decimal.Decimal(int(c)).scaleb(-2) for c in cents], pa.decimal128(15, 2)),
        "s": [f"name-{x % 50_000:05d}" for x in rng.integers(0, 10**9, FACT_ROWS)],
    })
    ids = rng.permutation(DIM_ROWS)
    dim = pa.table({"id": ids, "name": [f"dim-{i:07d}-padding" for i in ids], "grp": ids % 13})
    paths = {"fact": str(d / "fact.parquet"), "dim": str(d / "dim.parquet")}
    pq.write_table(fact, paths["fact"], row_group_size=10_000)
    pq.write_table(dim, paths["dim"], row_group_size=5_000)
    return paths


def duck(tables):
    con = duckdb.connect()
    for name, path in tables.items():
        con.execute(f"CREATE VIEW {name} AS SELECT * FROM read_parquet('{path}')")
    return con


def limited(spill_dir, limit=LIMIT):
    return THREADS + ["--conf", f"tandem.memory.host.limit={limit}",
                      "--conf", f"tandem.spill.dir={spill_dir}"]


# (query, what EXPLAIN ANALYZE must show spilled)
CASES = {
    "inner_join_then_aggregate": (
        "SELECT d.grp, count(*) AS n, sum(f.v) AS s, sum(f.amt) AS a "
        "FROM fact f JOIN dim d ON f.k = d.id GROUP BY d.grp", "grace"),
    # The whole fact table on the left, so that the join is not built on it (see the test of
    # the flipped join); the output aggregated, as it cannot spill.
    "left_join_collected": (
        "SELECT count(*) AS n, sum(f.v) AS s, count(d.name) AS named, max(d.name) AS mx "
        "FROM fact f LEFT JOIN dim d ON f.k = d.id", "grace"),
    "semi_join": (
        "SELECT count(*) AS n, sum(v) AS s FROM fact WHERE k IN (SELECT id FROM dim WHERE grp < 9)",
        "grace"),
    "anti_join": (
        "SELECT count(*) AS n, sum(v) AS s FROM fact f "
        "WHERE NOT EXISTS (SELECT 1 FROM dim d WHERE d.id = f.k)", "grace"),
    "two_joins_on_string_and_int_keys": (
        "SELECT d.grp, count(*) AS n, sum(f.v) AS s FROM fact f JOIN dim d ON f.k = d.id "
        "JOIN dim e ON d.name = e.name WHERE e.grp <> 3 GROUP BY d.grp", "grace"),
    # Few groups in the output, many distinct (group, value) pairs in the states.
    "aggregate_many_states": (
        "SELECT count(*) AS groups, sum(c) AS c, sum(sv) AS sv, sum(a) AS a, count(mn) AS mn, "
        "sum(dv) AS dv FROM (SELECT k % 20000 AS g, count(*) AS c, sum(v) AS sv, avg(amt) AS a, "
        "min(s) AS mn, count(DISTINCT v % 100) AS dv FROM fact GROUP BY k % 20000) x",
        "partitioned on disk"),
    # No keys: partitioned by the DISTINCT argument (a value's rows in one partition), each
    # partition's partial row, then one merge (count, sum and avg of distinct values add up).
    "aggregate_global_distinct": (
        "SELECT count(DISTINCT k) AS dk, sum(DISTINCT k) AS sk, avg(DISTINCT k) AS ak, "
        "count(k) AS ck, avg(amt) AS aa, min(s) AS mn, max(v) AS mx, count(*) AS n "
        "FROM fact WHERE v > -500", "partitioned on disk"),
    "aggregate_global_distinct_strings": (
        "SELECT count(DISTINCT s) AS ds, sum(v) AS sv FROM fact", "partitioned on disk"),
    # DISTINCT calls on several arguments: the input partitioned by each in turn (the filtered
    # scan runs once per argument), the rows of each put side by side.
    "aggregate_global_distinct_several_arguments": (
        "SELECT count(DISTINCT k) AS dk, count(*) AS n, count(DISTINCT s) AS ds, sum(v) AS sv, "
        "sum(DISTINCT v) AS sdv, avg(DISTINCT k) AS adk, max(s) AS mx, "
        "count(DISTINCT amt) AS da FROM fact WHERE v <> 7",
        "in 4 passes over the input, one per DISTINCT argument"),
    "aggregate_filtered_string_keys": (
        "SELECT count(*) AS groups, sum(c) AS c, max(hi) AS hi, sum(sa) AS sa FROM (SELECT s, "
        "count(*) AS c, max(v) AS hi, sum(amt) AS sa FROM fact WHERE v <> 0 GROUP BY s) x",
        "partitioned on disk"),
}


@pytest.mark.parametrize("limited_run", [False, True])
def test_left_join_built_on_its_small_left_side(tables, tmp_path, limited_run):
    # A LEFT join whose left side is far smaller than its right is built on the left (the RIGHT
    # join with the roles swapped): left rows with NULL keys or no match come out with NULLs.
    sql = ("SELECT f.k, f.v, d.name, d.grp FROM fact f LEFT JOIN dim d ON f.k = d.id "
           "AND d.grp <> 4 WHERE f.v > 985")
    expected = run_duckdb(duck(tables), sql)
    args = limited(tmp_path) if limited_run else []
    actual = run_tandem(sql, tables, args)
    assert compare_results(actual[:2], expected) is None


@pytest.mark.parametrize("case", sorted(CASES))
def test_spilled_answers_equal_duckdb(tables, case, tmp_path):
    sql, spilled = CASES[case]
    expected = run_duckdb(duck(tables), sql)
    actual = run_tandem(sql, tables, limited(tmp_path) + ["--timing"])
    diff = compare_results(actual[:2], expected)
    assert diff is None, f"{case}: {diff}"
    assert re.search(r"^Spilled: [0-9.]+ (B|KiB|MiB|GiB) to tandem.spill.dir$", actual[2], re.M), (
        f"{case}: --timing did not report a spill:\n{actual[2]}")
    # Unnamed files: nothing is left behind.
    assert os.listdir(tmp_path) == []

    plan = explain_analyze(sql, tables, limited(tmp_path))
    assert spilled in plan and "spilled " in plan, plan


@pytest.mark.parametrize("case", sorted(CASES))
def test_unlimited_runs_do_not_spill(tables, case, tmp_path):
    sql, spilled = CASES[case]
    plan = explain_analyze(sql, tables, THREADS + ["--conf", f"tandem.spill.dir={tmp_path}"])
    assert spilled not in plan and "spilled " not in plan, plan


def explain_analyze(sql, tables, extra):
    cmd = tandem_command() + ["explain", sql, "--analyze"] + extra
    for name, path in tables.items():
        cmd += ["--table", f"{name}={path}"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def check_split_again(tables, tmp_path, sql, limit, split_note):
    """DuckDB's answer at `limit` bytes, with EXPLAIN ANALYZE saying partitions were split."""
    expected = run_duckdb(duck(tables), sql)
    actual = run_tandem(sql, tables, limited(tmp_path, limit))
    diff = compare_results(actual[:2], expected)
    assert diff is None, diff
    plan = explain_analyze(sql, tables, limited(tmp_path, limit))
    assert re.search(split_note + r": \d+ partitions, \d+ split again", plan), plan


def test_an_aggregation_partition_too_large_is_split_again(tables, tmp_path):
    # At 1.5 MB the partitions (sized from estimates that do not count the DISTINCT states) do
    # not fit and are split again.
    sql = ("SELECT count(*) AS groups, sum(c) AS c, sum(dv) AS dv, max(mn) AS mn FROM (SELECT k, "
           "s, count(*) AS c, count(DISTINCT v) AS dv, min(s) AS mn FROM fact GROUP BY k, s) x")
    check_split_again(tables, tmp_path, sql, 1_500_000, "partitioned on disk")


def test_an_unusable_spill_directory_is_a_one_line_error(tables, tmp_path):
    missing = tmp_path / "no" / "such" / "dir"
    cmd = tandem_command() + ["sql", CASES["aggregate_many_states"][0], "--table",
                              f"fact={tables['fact']}"] + limited(missing)
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode != 0
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert str(missing) in lines[0] and "tandem.spill.dir" in lines[0], lines[0]


def test_with_pipelines_off_the_limit_is_an_error_not_a_wrong_answer(tables, tmp_path):
    # The operator-at-a-time executor does not spill: it must fail cleanly.
    cmd = tandem_command() + ["sql", CASES["aggregate_many_states"][0], "--table",
                              f"fact={tables['fact']}", "--conf", "tandem.exec.pipelines=false"]
    proc = subprocess.run(cmd + limited(tmp_path), capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1, proc.stdout
    assert "tandem.memory.host.limit" in proc.stderr


SWEEP = {
    # The build side of the outer join is itself a join: collecting it runs out, and its pipeline
    # runs again straight into partitions (each attempt into fresh ones: a failed attempt's rows
    # must not stay behind).
    "join_of_a_join": (
        "SELECT count(*) AS n, sum(f.v) AS s, sum(x.grp) AS g, sum(length(x.name)) AS l "
        "FROM fact f JOIN (SELECT d.id, d.grp, e.name FROM dim d JOIN dim e ON d.id = e.id + 7) x "
        "ON f.k = x.id"),
    # The hash table fits and the rows it makes do not: the join goes grace then.
    "probe_output_outgrows": (
        "SELECT count(*) AS n, sum(f.v) AS s, sum(length(d.name)) AS l "
        "FROM fact f JOIN dim d ON f.k = d.id"),
}


@pytest.mark.parametrize("case", sorted(SWEEP))
def test_answers_hold_at_every_limit(tables, case, tmp_path):
    # A higher limit must never fail where a lower one passes, nor change the answer.
    sql = SWEEP[case]
    expected = run_duckdb(duck(tables), sql)
    for limit_mb in (6, 8, 10, 12, 16, 24):
        actual = run_tandem(sql, tables, limited(tmp_path, limit_mb * 1_000_000))
        diff = compare_results(actual[:2], expected)
        assert diff is None, f"{case} at {limit_mb} MB: {diff}"


def test_a_grace_partition_too_large_is_split_again(tables, tmp_path):
    # At 1 MB the partitions sized for the build side's string keys do not fit: each is split
    # again, both sides with another hash.
    sql = ("SELECT count(*) AS n, sum(d.grp) AS g FROM dim d JOIN dim e ON d.name = e.name "
           "WHERE e.grp <> 3")
    check_split_again(tables, tmp_path, sql, 1_000_000, "grace")


# Breakers whose whole input fits but whose work beside it does not (the output must fit: it is
# one table): (query, ORDER BY columns of the output, what EXPLAIN ANALYZE must show).
BREAKERS = {
    # The in-memory sort holds its input, a key item per row and its output at once; sorted runs
    # on disk merged hold the output and a block per run.
    "sort": ("SELECT k, v, s FROM fact WHERE v > 0 ORDER BY s DESC NULLS LAST, k NULLS FIRST, v",
             ["s", "k", "v"], "external: "),
    # Window calls sharing the PARTITION BY key s: partitions on disk by s, one at a time.
    "window": ("SELECT k, v, s, row_number() OVER (PARTITION BY s ORDER BY v, k) AS rn, "
               "sum(v) OVER (PARTITION BY s, k % 3 ORDER BY k) AS cs FROM fact WHERE v > 200",
               None, "partitioned on disk"),
    # Calls that share no PARTITION BY key: two steps, the second partitioned by its own key
    # after the first; the output columns in the query's order (the answers compare by name).
    "window_without_a_shared_key": (
        "SELECT k, v, s, sum(v) OVER (PARTITION BY k % 1000 ORDER BY v, s, k) AS ks, "
        "row_number() OVER (PARTITION BY s ORDER BY v, k) AS rn, "
        "count(*) OVER (PARTITION BY k % 1000, v % 7) AS kc FROM fact WHERE v > 400",
        None, "in 2 steps by their PARTITION BY keys, each partitioned on disk"),
    # No PARTITION BY: one partition of every row, sorted through disk and computed in chunks
    # that end where a peer group ends, each call carried from one chunk to the next.
    "window_one_partition_running_sum": (
        "SELECT k, v, s, sum(v) OVER (ORDER BY k, v) AS cs FROM fact WHERE v > 200", None,
        "one partition, in order"),
    "window_one_partition_ranks_and_running_aggregates": (
        "SELECT k, v, s, row_number() OVER w AS rn, rank() OVER w AS rk, "
        "dense_rank() OVER w AS dr, count(k) OVER w AS c, sum(amt) OVER w AS sa, "
        "min(k) OVER (ORDER BY s, v, k ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS mn, "
        "max(v) OVER w AS mx FROM fact WHERE v > 700 WINDOW w AS (ORDER BY s, v, k)", None,
        "one partition, in order"),
    # Peer groups larger than a chunk (a quarter of the rows each): a chunk grows to hold one.
    "window_one_partition_large_peer_groups": (
        "SELECT k, v, s, rank() OVER w AS rk, dense_rank() OVER w AS dr, sum(v) OVER w AS sv, "
        "count(*) OVER w AS c FROM fact WHERE v > 600 WINDOW w AS (ORDER BY v % 4 DESC)", None,
        "one partition, in order"),
    # LAG and LEAD reach into the chunks before and after.
    "window_one_partition_lag_lead": (
        "SELECT k, v, s, lag(v) OVER w AS pv, lead(v, 3, -1) OVER w AS nv, lag(s, 2) OVER w AS ps "
        "FROM fact WHERE v > 600 WINDOW w AS (ORDER BY s, v, k)", None, "one partition, in order"),
    # PERCENT_RANK and CUME_DIST from each row's peer group's place among all rows; NTILE from
    # the row's (its ORDER BY leaves ties only between rows that are equal anyway).
    "window_one_partition_ranks_among_all_rows": (
        "SELECT k, v, percent_rank() OVER w AS pr, cume_dist() OVER w AS cd FROM fact "
        "WHERE v > 300 WINDOW w AS (ORDER BY v % 50, s)", None, "one partition, in order"),
    "window_one_partition_ntile": (
        "SELECT k, v, s, ntile(7) OVER (ORDER BY s, k, v) AS nt FROM fact WHERE v > 300", None,
        "one partition, in order"),
    # FIRST_VALUE, LAST_VALUE and NTH_VALUE: rows picked out of the sorted input first (an
    # ORDER BY that leaves ties only between rows that are equal anyway).
    "window_one_partition_first_last_nth": (
        "SELECT k, v, first_value(s) OVER w AS f, last_value(v) OVER w AS l, "
        "nth_value(k, 5000) OVER w AS n5k, last_value(s) OVER (ORDER BY v % 50, s, k, v ROWS "
        "BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS la FROM fact WHERE v > 500 "
        "WINDOW w AS (ORDER BY v % 50, s, k, v)", None, "one partition, in order"),
    # Running AVG (RANGE, the default, and ROWS) of integers and decimals: sums and counts
    # carried from chunk to chunk.
    "window_one_partition_running_avg": (
        "SELECT k, v, avg(v) OVER w AS av, avg(amt) OVER (ORDER BY s, k, v, amt ROWS BETWEEN "
        "UNBOUNDED PRECEDING AND CURRENT ROW) AS aa FROM fact WHERE v > 500 "
        "WINDOW w AS (ORDER BY s, k, v, amt)", None,
        "one partition, in order"),
    # Sliding ROWS frames (moving aggregates, before and after the row): each chunk computed
    # with the rows kept from before it, the rows whose frames reach into it patched.
    "window_one_partition_sliding": (
        "SELECT k, avg(v) OVER (w ROWS BETWEEN 3 PRECEDING AND 2 FOLLOWING) AS ma, "
        "sum(v) OVER (w ROWS BETWEEN CURRENT ROW AND 100 FOLLOWING) AS ahead, "
        "min(k) OVER (w ROWS BETWEEN 10 PRECEDING AND 1 PRECEDING) AS mn, "
        "first_value(s) OVER (w ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS fs "
        "FROM fact WHERE v > 600 WINDOW w AS (ORDER BY s, k, v)", None,
        "one partition, in order"),
    # Aggregates over the whole partition next to a running one: computed first over every row.
    "window_one_partition_whole_aggregates": (
        "SELECT k, v, sum(v) OVER (ORDER BY k, v) AS cs, sum(v) OVER (ORDER BY k, v ROWS BETWEEN "
        "UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS total, avg(v) OVER (ORDER BY k, v RANGE "
        "BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS a FROM fact WHERE v > 100", None,
        "one partition, in order"),
}
BREAKER_LIMIT = 14_000_000  # the unspilled runs hold 25-30 MB; the outputs are 9-11 MB


@pytest.mark.parametrize("case", sorted(BREAKERS))
def test_sorts_and_windows_spill(tables, case, tmp_path):
    sql, order_by, spilled = BREAKERS[case]
    expected = run_duckdb(duck(tables), sql)
    actual = run_tandem(sql, tables, limited(tmp_path, BREAKER_LIMIT) + ["--timing"])
    diff = compare_results(actual[:2], expected, order_by=order_by)
    assert diff is None, f"{case}: {diff}"
    assert re.search(r"^Spilled: [0-9.]+ (B|KiB|MiB|GiB) to tandem.spill.dir$", actual[2], re.M)
    assert os.listdir(tmp_path) == []
    plan = explain_analyze(sql, tables, limited(tmp_path, BREAKER_LIMIT))
    assert spilled in plan and "spilled " in plan, plan
    unlimited = explain_analyze(sql, tables, THREADS + ["--conf", f"tandem.spill.dir={tmp_path}"])
    assert spilled not in unlimited and "spilled " not in unlimited, unlimited


def test_a_window_over_every_row_with_no_order_runs_in_chunks(tables, tmp_path):
    # Aggregates OVER (): one partition, nothing to sort; the whole input fits, the in-memory
    # Window's work beside it does not. Nothing goes to disk.
    sql = ("SELECT k, v, s, sum(v) OVER () AS total, count(k) OVER () AS c, max(s) OVER () AS ms, "
           "min(v) OVER () AS mn FROM fact WHERE v > 600")
    expected = run_duckdb(duck(tables), sql)
    actual = run_tandem(sql, tables, limited(tmp_path, BREAKER_LIMIT))
    assert compare_results(actual[:2], expected) is None
    plan = explain_analyze(sql, tables, limited(tmp_path, BREAKER_LIMIT))
    assert "Window (one partition, computed in chunks of" in plan, plan
    unlimited = explain_analyze(sql, tables, THREADS)
    assert "one partition" not in unlimited, unlimited


LONG_REACHES = {
    # A frame reaching 10 000 rows back: the chunks are made at least twice as long, and the rows
    # kept from before each chunk cost no more than it.
    "sliding": ("SELECT k, v, s, avg(v) OVER (ORDER BY k, v, s ROWS BETWEEN 10000 PRECEDING AND "
                "CURRENT ROW) AS cs, lag(v, 30000) OVER (ORDER BY k, v, s) AS far FROM fact "
                "WHERE v > 200"),
    # LAG keeps only its argument's last values and LEAD holds back its last rows: neither makes
    # the chunks longer (at 2 x 200 000 rows they did not fit).
    "lag_and_lead": ("SELECT count(x) AS n, sum(x) AS sx, sum(y) AS sy, sum(c) AS sc FROM (SELECT "
                     "lag(v, 200000) OVER w AS x, lead(v, 20000) OVER w AS y, count(*) OVER "
                     "(ORDER BY s, k, v RANGE BETWEEN CURRENT ROW AND CURRENT ROW) AS c FROM fact "
                     "WINDOW w AS (ORDER BY s, k, v)) t"),
}


@pytest.mark.parametrize("case", sorted(LONG_REACHES))
def test_long_reaches_over_one_partition_run_in_chunks(tables, tmp_path, case):
    sql = LONG_REACHES[case]
    expected = run_duckdb(duck(tables), sql)
    actual = run_tandem(sql, tables, limited(tmp_path, BREAKER_LIMIT))
    assert compare_results(actual[:2], expected) is None
    plan = explain_analyze(sql, tables, limited(tmp_path, BREAKER_LIMIT))
    assert "Window (one partition, in order" in plan, plan


@pytest.mark.parametrize("order", ["k", "amt DESC"])
def test_trailing_range_frames_over_one_partition_run_in_chunks(tables, tmp_path, order):
    # RANGE frames that end at the row's peers reach back by ORDER BY value: each chunk is
    # computed with the rows kept from before it whose value lies within the offset of its last.
    sql = (f"SELECT k, v, amt, sum(v) OVER (ORDER BY {order} RANGE BETWEEN 50 PRECEDING AND "
           f"CURRENT ROW) AS s50, count(*) OVER (ORDER BY {order} RANGE BETWEEN 200 PRECEDING "
           f"AND 1 PRECEDING) AS c200, max(v) OVER (ORDER BY {order} RANGE BETWEEN 5 PRECEDING "
           f"AND CURRENT ROW) AS m5 FROM fact WHERE v > 200")
    expected = run_duckdb(duck(tables), sql)
    actual = run_tandem(sql, tables, limited(tmp_path, BREAKER_LIMIT))
    assert compare_results(actual[:2], expected) is None
    plan = explain_analyze(sql, tables, limited(tmp_path, BREAKER_LIMIT))
    assert "Window (one partition, in order" in plan, plan
    # In memory too: a decimal key's boundary rows (amt - 200.00 exactly) once fell on the wrong
    # side when the keys were scaled to doubles.
    assert compare_results(run_tandem(sql, tables, THREADS)[:2], expected) is None


# A RANGE frame reaching ahead by value: its rows are those whose ORDER BY value lies within 100
# after the row's, however many they are, so its partition is needed whole.
# A frame from before the current row to the partition's end cannot be computed a chunk at a
# time (one reaching a fixed value ahead, or COUNT/SUM/AVG from the current row to the end, can:
# test_outputs_on_disk.py).
RANGE_FRAME = "avg(v) OVER (ORDER BY k RANGE BETWEEN 100 PRECEDING AND UNBOUNDED FOLLOWING)"


def test_a_window_that_needs_its_partition_whole_fails_cleanly(tables, tmp_path):
    # No PARTITION BY to split on, and a frame that cannot be computed in chunks: the limit is a
    # one-line error, not a wrong answer.
    sql = f"SELECT k, v, s, {RANGE_FRAME} AS cs FROM fact WHERE v > 200"
    cmd = tandem_command() + ["sql", sql, "--table", f"fact={tables['fact']}"]
    proc = subprocess.run(cmd + limited(tmp_path, BREAKER_LIMIT), capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 1, proc.stdout[:500]
    assert len(proc.stderr.strip().splitlines()) == 1 and "tandem.memory.host.limit" in proc.stderr


def run_with_output(tables, tmp_path, sql, limit, name="result.parquet"):
    """`tandem sql` writing sql's rows to an --output file (Parquet or CSV by its name) in a folder
    of its own, under the host limit: (the process, the folder, the file)."""
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    out = out_dir / name
    cmd = tandem_command() + ["sql", sql, "--output", str(out)]
    for name, path in tables.items():
        cmd += ["--table", f"{name}={path}"]
    proc = subprocess.run(cmd + limited(tmp_path, limit), capture_output=True, text=True,
                          timeout=300)
    return proc, out_dir, out


def written_result(tables, tmp_path, sql, limit, min_bytes):
    """The file run_with_output wrote (alone in its folder, larger than min_bytes, with DuckDB's
    row count), and a DuckDB connection over the tables."""
    proc, out_dir, out = run_with_output(tables, tmp_path, sql, limit)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert os.listdir(out_dir) == ["result.parquet"]
    written = pq.read_table(out)
    assert written.nbytes > min_bytes, written.nbytes
    con = duck(tables)
    assert written.num_rows == con.execute(f"SELECT count(*) FROM ({sql})").fetchone()[0]
    return written, out, con


def assert_same_rows(con, a, b):
    """The rows of relations a and b (SQL text) are the same multiset."""
    for x, y in [(a, b), (b, a)]:
        left = con.execute(f"SELECT count(*) FROM (SELECT * FROM {x} EXCEPT ALL "
                           f"SELECT * FROM {y})").fetchone()[0]
        assert left == 0, f"{left} rows of {x} are not in {y}"


def test_a_result_larger_than_the_limit_goes_straight_to_its_file(tables, tmp_path):
    # 28 MiB of joined rows under a 6 MB limit: the rows go to the Parquet --output as the
    # pipeline makes them (exec/cpu/result_file_sink.h), never whole in memory. The file holds
    # DuckDB's rows; nothing else is left in its folder.
    sql = ("SELECT f.k, f.v, f.s, f.amt, d.name FROM fact f JOIN dim d ON f.k = d.id "
           "WHERE f.v > -900")
    _, out, con = written_result(tables, tmp_path, sql, LIMIT, 4 * LIMIT)
    assert_same_rows(con, f"read_parquet('{out}')", f"({sql})")


def test_a_csv_result_larger_than_the_limit_goes_straight_to_its_file(tables, tmp_path):
    # The same for a CSV --output: the text goes out a megabyte at a time.
    sql = ("SELECT f.k, f.v, f.s, d.name FROM fact f JOIN dim d ON f.k = d.id "
           "WHERE f.v > -900")
    proc, out_dir, out = run_with_output(tables, tmp_path, sql, LIMIT, "result.csv")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert os.listdir(out_dir) == ["result.csv"]
    assert os.path.getsize(out) > 2 * LIMIT
    con = duck(tables)
    read = (f"read_csv('{out}', header = true, columns = {{'k': 'BIGINT', 'v': 'BIGINT', "
            f"'s': 'VARCHAR', 'name': 'VARCHAR'}})")
    assert_same_rows(con, read, f"({sql})")


def test_an_ordered_result_larger_than_the_limit_is_merged_into_its_file(tables, tmp_path):
    # ORDER BY: the rows (22 MiB) do not fit whole, so they are sorted through disk and merged
    # straight into the file, in order (the sort's input pipeline runs into the sorted runs: the
    # rows the sort still held at the pipeline's end once went missing there).
    sql = ("SELECT f.k, f.v, f.s, d.name FROM fact f JOIN dim d ON f.k = d.id "
           "ORDER BY f.s DESC, f.k, f.v")
    written, out, con = written_result(tables, tmp_path, sql, BREAKER_LIMIT, 1.5 * BREAKER_LIMIT)
    expected = con.execute(f"SELECT s, k, v FROM ({sql})").fetchall()
    got = list(zip(*(written.column(c).to_pylist() for c in ["s", "k", "v"])))
    assert got == expected  # (s, k, v) is unique but for rows that are equal anyway
    assert_same_rows(con, f"read_parquet('{out}')", f"({sql})")


def test_a_result_that_cannot_be_made_writes_nothing(tables, tmp_path):
    # A frame over one partition larger than the limit that cannot be computed in chunks: a
    # one-line error, and no file, not even a part of one.
    sql = f"SELECT f.k, f.v, f.s, d.name, {RANGE_FRAME} AS t FROM fact f JOIN dim d ON f.k = d.id"
    proc, out_dir, _ = run_with_output(tables, tmp_path, sql, LIMIT)
    assert proc.returncode == 1, proc.stdout[:500]
    assert len(proc.stderr.strip().splitlines()) == 1 and "tandem.memory.host.limit" in proc.stderr
    assert os.listdir(out_dir) == []


def print_to_stdout(tables, tmp_path, sql, limit, fmt):
    """`tandem sql` printing sql's rows to standard output (into a file) in format `fmt` under the
    host limit, with --timing: (the process, the file with what it printed)."""
    printed = tmp_path / f"printed.{fmt}"
    cmd = tandem_command() + ["sql", sql, "--format", fmt, "--timing"]
    for name, path in tables.items():
        cmd += ["--table", f"{name}={path}"]
    with open(printed, "w") as out:
        proc = subprocess.run(cmd + limited(tmp_path, limit), stdout=out, stderr=subprocess.PIPE,
                              text=True, timeout=300)
    return proc, printed


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "table"])
def test_a_result_larger_than_the_limit_prints_to_standard_output(tables, tmp_path, fmt):
    # 28 MiB of joined rows under a 6 MB limit, printed: the query runs out of memory holding its
    # result, runs again with its rows going to a spill file, and they are printed from there a
    # batch at a time (exec/cpu/spool_sink.h). Before, a one-line "limit reached" error.
    sql = ("SELECT f.k, f.v, f.s, d.name FROM fact f JOIN dim d ON f.k = d.id "
           "WHERE f.v > -900")
    proc, printed = print_to_stdout(tables, tmp_path, sql, LIMIT, fmt)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "rows going to a spill file" in proc.stderr, proc.stderr
    assert os.path.getsize(printed) > 2 * LIMIT
    con = duck(tables)
    if fmt == "table":
        # The footer counts every row printed.
        n = con.execute(f"SELECT count(*) FROM ({sql})").fetchone()[0]
        with open(printed, "rb") as f:
            f.seek(-200, os.SEEK_END)
            tail = f.read().decode()
        assert f"({n} rows)" in tail, tail
        return
    columns = "{'k': 'BIGINT', 'v': 'BIGINT', 's': 'VARCHAR', 'name': 'VARCHAR'}"
    read = (f"read_csv('{printed}', header = true, columns = {columns})" if fmt == "csv" else
            f"read_json('{printed}', format = 'newline_delimited', columns = {columns})")
    assert_same_rows(con, read, f"({sql})")


def test_an_ordered_result_larger_than_the_limit_prints_in_order(tables, tmp_path):
    # ORDER BY over rows that do not fit: sorted through disk, merged into the spill file in
    # order, printed in DuckDB's order.
    sql = ("SELECT f.k, f.v, f.s, d.name FROM fact f JOIN dim d ON f.k = d.id "
           "ORDER BY f.s DESC, f.k, f.v")
    proc, printed = print_to_stdout(tables, tmp_path, sql, BREAKER_LIMIT, "csv")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "rows going to a spill file" in proc.stderr, proc.stderr
    con = duck(tables)
    got = con.execute(f"SELECT s, k, v FROM read_csv('{printed}', header = true, columns = "
                      "{'k': 'BIGINT', 'v': 'BIGINT', 's': 'VARCHAR', 'name': 'VARCHAR'})"
                      ).fetchall()
    assert got == con.execute(f"SELECT s, k, v FROM ({sql})").fetchall()


def test_an_ordered_result_merges_in_blocks_its_budget_holds(tables, tmp_path):
    # Under 6 MB with 8 threads the runs are small and many; the last merge's output block was a
    # morsel's rows (131072, over 5 MB of copies) whatever the budget, and the query failed.
    # Its blocks are now a third of the merge's budget at most.
    sql = "SELECT k, v, s FROM fact ORDER BY s DESC, k, v, amt"
    printed = tmp_path / "printed.csv"
    cmd = tandem_command() + ["sql", sql, "--format", "csv", "--table", f"fact={tables['fact']}",
                              "--conf", f"tandem.memory.host.limit={LIMIT}",
                              "--conf", "tandem.sql.threads=8",
                              "--conf", f"tandem.spill.dir={tmp_path}"]
    with open(printed, "w") as out:
        proc = subprocess.run(cmd, stdout=out, stderr=subprocess.PIPE, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    con = duck(tables)
    got = con.execute(f"SELECT k, v, s FROM read_csv('{printed}', header = true, columns = "
                      "{'k': 'BIGINT', 'v': 'BIGINT', 's': 'VARCHAR'})").fetchall()
    assert got == con.execute(sql).fetchall()


def test_create_table_as_larger_than_the_limit(tables, tmp_path):
    # CREATE TABLE ... AS writes its rows as the query makes them, like --output: 28 MiB of
    # joined rows under a 6 MB limit; the new table then reads back as DuckDB's rows.
    query = ("SELECT f.k, f.v, f.s, f.amt, d.name FROM fact f JOIN dim d ON f.k = d.id "
             "WHERE f.v > -900")
    table_dir = tmp_path / "tables"
    table_dir.mkdir()
    script = (f"CREATE TABLE joined AS {query};\n"
              "SELECT count(*) AS n, sum(v) AS sv, sum(amt) AS sa, count(name) AS names, "
              "max(s) AS ms FROM joined")
    cmd = tandem_command() + ["sql", script, "--format", "jsonl", "--table-dir", str(table_dir)]
    for name, path in tables.items():
        cmd += ["--table", f"{name}={path}"]
    proc = subprocess.run(cmd + limited(tmp_path), capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert os.listdir(table_dir) == ["joined.parquet"]
    assert pq.read_table(table_dir / "joined.parquet").nbytes > 4 * LIMIT
    expected = run_duckdb(duck(tables), "SELECT count(*) AS n, sum(v) AS sv, sum(amt) AS sa, "
                          f"count(name) AS names, max(s) AS ms FROM ({query})")
    got = run_tandem("SELECT count(*) AS n, sum(v) AS sv, sum(amt) AS sa, count(name) AS names, "
                     "max(s) AS ms FROM joined", {"joined": str(table_dir / "joined.parquet")},
                     THREADS)
    assert compare_results(got[:2], expected) is None
