"""CPU pipelines (exec/cpu/pipeline.h): batches stream from a scan through filters, projections
and hash-join probes into an aggregation or the next breaker, with no whole table in between.

The answers are DuckDB's with pipelines on and off (tandem.exec.pipelines), over key layouts that
take the aggregation's different paths: keys sorted by range (direct indexing over the Parquet
statistics' range, wider than one table of the old limit), keys in no order, keys with NULLs,
and a statistics range the data does not keep. EXPLAIN ANALYZE names what ran in a pipeline, and
the peak host memory of a join pipeline stays far below the operator-at-a-time executor's.
"""
import re
import subprocess

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from random_queries import compare_results, run_duckdb, run_tandem, tandem_command

pytestmark = pytest.mark.skipif(not tandem_command(), reason="TANDEM_BIN not set")

ROWS = 400_000
PEAK = re.compile(r"Peak memory: host ([0-9.]+) (B|KiB|MiB|GiB)")
UNITS = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}


def write(path, **columns):
    pq.write_table(pa.table(columns), path, row_group_size=100_000)
    return str(path)


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    d = tmp_path_factory.mktemp("pipelines")
    rng = np.random.default_rng(7)
    sorted_keys = np.sort(rng.integers(0, 30_000_000, ROWS))  # a range 75x the rows
    shuffled = rng.permutation(sorted_keys)
    nulls = pa.array(rng.integers(0, 5_000, ROWS), mask=rng.random(ROWS) < 0.1)
    value = rng.integers(-1_000, 1_000, ROWS)
    t = {
        "sorted": write(d / "sorted.parquet", k=sorted_keys, v=value),
        "shuffled": write(d / "shuffled.parquet", k=shuffled, v=value),
        "nullkeys": write(d / "nullkeys.parquet", k=nulls, v=value),
        "dim": write(d / "dim.parquet", id=np.arange(5_000), grp=np.arange(5_000) % 7),
    }
    # Keys in [0, 1000) for the first row group and far outside for the rest: a range the
    # first row groups suggest and the later ones break.
    jump = np.concatenate([np.arange(100_000) % 1_000, 10**12 + np.arange(ROWS - 100_000)])
    t["jump"] = write(d / "jump.parquet", k=jump, v=value)
    # Keys in no order over a range 4x the rows, wider than the first index chunks: direct
    # indexing is chosen from the statistics and each worker hashes instead once its keys
    # spread thinly (GroupTable::kDirectSlotsPerGroup).
    spread_rows = 3 * ROWS
    t["spread"] = write(d / "spread.parquet", k=rng.integers(0, 4 * spread_rows, spread_rows),
                        v=rng.integers(-1_000, 1_000, spread_rows))
    return t


def duck(tables):
    con = duckdb.connect()
    for name, path in tables.items():
        con.execute(f"CREATE VIEW {name} AS SELECT * FROM read_parquet('{path}')")
    return con


def assert_as_duckdb(sql, tables, extra=()):
    expected = run_duckdb(duck(tables), sql)
    actual = run_tandem(sql, tables, list(extra))
    diff = compare_results(actual, expected)
    assert diff is None, f"{sql}: {diff}"


def explain_analyze(sql, tables, extra=()):
    cmd = tandem_command() + ["sql", *extra, "EXPLAIN ANALYZE " + sql]
    for name, path in tables.items():
        cmd += ["--table", f"{name}={path}"]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout


QUERIES = [
    "SELECT k, sum(v) AS s, count(*) AS n FROM {t} GROUP BY k",
    "SELECT k, sum(v) AS s FROM {t} WHERE v > 0 GROUP BY k HAVING count(*) > 1",
    "SELECT count(*) AS n, sum(s) AS total FROM (SELECT k, sum(v) AS s FROM {t} GROUP BY k) x",
]


@pytest.mark.parametrize("pipelines", ["true", "false"])
@pytest.mark.parametrize("table", ["sorted", "shuffled", "nullkeys", "jump", "spread"])
@pytest.mark.parametrize("query", range(len(QUERIES)))
def test_aggregations_over_every_key_layout(tables, table, query, pipelines):
    sql = QUERIES[query].format(t=table)
    expected = run_duckdb(duck(tables), sql)
    actual = run_tandem(sql, tables, ["--conf", f"tandem.exec.pipelines={pipelines}"])
    diff = compare_results(actual, expected)
    assert diff is None, f"{sql} (pipelines={pipelines}): {diff}"


JOIN_QUERY = ("SELECT d.grp, count(*) AS n, sum(f.v) AS s FROM shuffled f "
              "JOIN dim d ON f.k % 5000 = d.id WHERE f.v <> 3 GROUP BY d.grp")


@pytest.mark.parametrize("join", ["INNER", "LEFT", "SEMI", "ANTI"])
def test_join_kinds_probe_in_pipelines(tables, join):
    if join in ("SEMI", "ANTI"):
        word = "EXISTS" if join == "SEMI" else "NOT EXISTS"
        sql = (f"SELECT count(*) AS n, sum(v) AS s FROM nullkeys f WHERE {word} "
               "(SELECT 1 FROM dim d WHERE d.id = f.k AND d.grp < 3)")
    else:
        sql = (f"SELECT d.grp, count(*) AS n, sum(f.v) AS s FROM nullkeys f {join} JOIN dim d "
               "ON f.k = d.id AND d.grp < 5 GROUP BY d.grp")
    expected = run_duckdb(duck(tables), sql)
    actual = run_tandem(sql, tables)
    diff = compare_results(actual, expected)
    assert diff is None, f"{sql}: {diff}"


PRUNED_QUERIES = [
    # The rows that pass are copied only for the columns the projection reads (s is dropped).
    "SELECT k, v * 2 AS w FROM strs WHERE s NOT LIKE '%7%'",
    "SELECT k % 7 AS g, count(*) AS n, sum(length(t)) AS l FROM "
    "(SELECT k, t FROM strs WHERE s LIKE '%3%' AND v > 0) x GROUP BY k % 7",
    # Every row passes: the columns are shared, none is a placeholder.
    "SELECT k, t FROM strs WHERE v > -1000000",
    # The projection reads the filtered column itself.
    "SELECT s, length(t) AS l FROM strs WHERE s LIKE '1%'",
]


@pytest.mark.parametrize("query", range(len(PRUNED_QUERIES)))
def test_a_filter_copies_only_what_the_projection_reads(tables, tmp_path, query):
    rng = np.random.default_rng(11)
    n = 200_000
    keys = rng.integers(0, 1_000_000, n)
    strs = dict(tables, strs=write(tmp_path / "strs.parquet", k=keys,
                                   v=rng.integers(-1_000, 1_000, n),
                                   s=pa.array([f"{x}-{x * 7}" for x in keys]),
                                   t=pa.array([f"t{x % 977}" * (1 + x % 5) for x in keys])))
    assert_as_duckdb(PRUNED_QUERIES[query], strs)


DISTINCT_QUERIES = [
    # Enough groups (k % 60000) for the partitioned merge on several workers; string keys.
    "SELECT k % 60000 AS g, 's' || CAST(k % 7 AS VARCHAR) AS t, count(DISTINCT v) AS d, "
    "count(*) AS n FROM {t} GROUP BY k % 60000, 's' || CAST(k % 7 AS VARCHAR)",
    # DISTINCT next to plain aggregates, a FILTER clause, NULL arguments (nullkeys' k).
    "SELECT v % 100 AS g, count(DISTINCT k) AS dk, sum(DISTINCT v) AS sv, "
    "count(DISTINCT k) FILTER (WHERE v > 0) AS dkf, count(*) AS n FROM {t} GROUP BY v % 100",
    # Grouping sets: each set dedupes on its own groups.
    "SELECT k % 5000 AS a, v % 3 AS b, count(DISTINCT v) AS d FROM {t} "
    "GROUP BY ROLLUP (k % 5000, v % 3)",
]


@pytest.mark.parametrize("threads", ["1", "2"])
@pytest.mark.parametrize("table", ["shuffled", "nullkeys"])
@pytest.mark.parametrize("query", range(len(DISTINCT_QUERIES)))
def test_distinct_aggregates_keyed_by_group_ids(tables, table, query, threads):
    assert_as_duckdb(DISTINCT_QUERIES[query].format(t=table), tables,
                     ["--conf", f"tandem.sql.threads={threads}"])


FILTERED_PROBES = [
    # INNER and SEMI: the key bitmap over dim's ids combines with the Filter's rows.
    "SELECT d.grp, count(*) AS n, sum(f.v) AS s FROM shuffled f JOIN dim d ON f.k = d.id "
    "WHERE f.v > 100 GROUP BY d.grp",
    "SELECT count(*) AS n, sum(v) AS s FROM shuffled f WHERE f.v < -500 AND EXISTS "
    "(SELECT 1 FROM dim d WHERE d.id = f.k)",
    # LEFT and ANTI keep rows without a match: the Filter alone decides which go on.
    "SELECT count(*) AS n, count(d.id) AS matched, sum(f.v) AS s FROM nullkeys f "
    "LEFT JOIN dim d ON f.k = d.id WHERE f.v % 3 = 0",
    "SELECT count(*) AS n, sum(v) AS s FROM nullkeys f WHERE f.v > 0 AND NOT EXISTS "
    "(SELECT 1 FROM dim d WHERE d.id = f.k AND d.grp < 3)",
    # Two keys: the bitmap over the first one (NULLs among them), the second an expression.
    "SELECT d.grp, count(*) AS n, sum(f.v) AS s FROM nullkeys f JOIN dim d "
    "ON f.k = d.id AND (f.v % 7 + 7) % 7 = d.grp WHERE f.v > 0 GROUP BY d.grp",
    "SELECT d.grp, count(*) AS n, sum(f.v) AS s FROM nullkeys f JOIN dim d "
    "ON f.k = d.id AND (f.v % 7 + 7) % 7 = d.grp GROUP BY d.grp",
]


@pytest.mark.parametrize("query", range(len(FILTERED_PROBES)))
def test_a_filter_below_a_probe_runs_inside_it(tables, query):
    assert_as_duckdb(FILTERED_PROBES[query], tables)


def test_a_probe_key_is_computed_only_for_the_rows_the_filter_keeps(tables, tmp_path):
    # CAST(s AS BIGINT) fails under ANSI on the rows the Filter drops: a key expression is
    # evaluated after the Filter's rows are taken, never over the whole batch.
    n = 50_000
    rng = np.random.default_rng(2)
    ids = rng.integers(0, 5_000, n)
    s = pa.array([f"x{i}" if i % 10 == 0 else str(i) for i in ids])
    t = dict(tables, mixed=write(tmp_path / "mixed.parquet", s=s, v=rng.integers(0, 100, n)))
    sql = ("SELECT d.grp, count(*) AS n FROM mixed m JOIN dim d ON CAST(m.s AS BIGINT) = d.id "
           "WHERE m.s NOT LIKE 'x%' GROUP BY d.grp")
    assert_as_duckdb(sql, t, ["--ansi"])
    # The same with the cast as the second of two keys.
    assert_as_duckdb("SELECT d.grp, count(*) AS n FROM mixed m JOIN dim d "
                     "ON m.v = d.grp AND CAST(m.s AS BIGINT) = d.id "
                     "WHERE m.s NOT LIKE 'x%' GROUP BY d.grp", t, ["--ansi"])
    text = explain_analyze(sql, t, ["--ansi"])
    kept = int(np.count_nonzero(ids % 10 != 0))
    assert f"Filter (in HashJoin probe) on cpu: {kept} rows" in text, text


FLIPPED = [
    "SELECT count(*) AS n, sum(d.grp) AS g FROM dimn d WHERE EXISTS "
    "(SELECT 1 FROM nullkeys f WHERE f.k = d.id AND f.v > 0)",
    # ANTI keeps the left rows whose key is NULL.
    "SELECT count(*) AS n, sum(d.grp) AS g FROM dimn d WHERE NOT EXISTS "
    "(SELECT 1 FROM nullkeys f WHERE f.k = d.id AND f.v > 500)",
    # A residual condition between the sides (TPC-H Q21's l_suppkey <> l_suppkey).
    "SELECT count(*) AS n, sum(d.grp) AS g FROM dimn d WHERE EXISTS "
    "(SELECT 1 FROM nullkeys f WHERE f.k = d.id AND f.v % 7 <> d.grp)",
    "SELECT count(*) AS n, sum(d.grp) AS g FROM dimn d WHERE NOT EXISTS "
    "(SELECT 1 FROM nullkeys f WHERE f.k = d.id AND f.v % 7 = d.grp)",
    # Right keys over a range 5000x the left one: the left keys' bitmap drops most right rows
    # before they are hashed (key_bitmap.h), with and without a residual condition.
    "SELECT count(*) AS n, sum(d.grp) AS g FROM dimn d WHERE EXISTS "
    "(SELECT 1 FROM shuffled f WHERE f.k = d.id AND f.v % 7 <> d.grp)",
    "SELECT count(*) AS n, sum(d.grp) AS g FROM dimn d WHERE NOT EXISTS "
    "(SELECT 1 FROM shuffled f WHERE f.k = d.id)",
    # LEFT: the pairs go straight into the aggregation above (TPC-H Q13's shape, but for an
    # aggregate of a left column, without which the right side is counted below the join:
    # test_aggregate_below_join.py), the left rows without a match (NULL keys among them) come
    # last with NULLs.
    "SELECT c, count(*) AS n FROM (SELECT d.id, count(f.v) + max(d.grp) AS c FROM dimn d "
    "LEFT JOIN nullkeys f ON f.k = d.id AND f.v > -500 GROUP BY d.id) x GROUP BY c",
    "SELECT d.grp, count(*) AS n, count(f.k) AS m, sum(f.v) AS s FROM dimn d LEFT JOIN nullkeys f "
    "ON f.k = d.id AND f.v % 7 <> d.grp GROUP BY d.grp",
    # LEFT with no aggregation above: its rows are collected.
    "SELECT d.id, d.grp, f.v FROM dimn d LEFT JOIN nullkeys f ON f.k = d.id AND f.v > 0",
]


@pytest.fixture(scope="module")
def with_dimn(tables, tmp_path_factory):
    d = tmp_path_factory.mktemp("dimn")
    ids = pa.array(np.arange(6_000), mask=np.arange(6_000) % 50 == 0)  # NULL keys on the left
    return dict(tables, dimn=write(d / "dimn.parquet", id=ids, grp=np.arange(6_000) % 7))


@pytest.mark.parametrize("query", range(len(FLIPPED)))
def test_a_small_left_side_takes_the_large_right_side_streamed(with_dimn, query):
    # SEMI, ANTI and LEFT joins built on their small left side: the right side streams from its
    # scan into the left side's hash table, never whole in memory.
    sql = FLIPPED[query]
    assert_as_duckdb(sql, with_dimn)
    text = explain_analyze(sql, with_dimn)
    joined = re.search(r"HashJoin \(built on the left, the right side streamed in\)"
                       r"( into its aggregation|, the key bitmap dropped (\d+) of (\d+) right "
                       r"rows)? on cpu", text)
    assert joined, text
    if "shuffled" in sql:
        # Every right row reaches the join (no filter on that side); with keys over 0-30M
        # against left keys below 6000, the bitmap drops nearly all of them before hashing.
        dropped, total = int(joined.group(2)), int(joined.group(3))
        assert total == ROWS and dropped > 0.99 * total, text


def test_explain_analyze_names_the_pipeline(tables):
    cmd = tandem_command() + ["sql", "EXPLAIN ANALYZE " + JOIN_QUERY]
    for name, path in tables.items():
        cmd += ["--table", f"{name}={path}"]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "HashAggregate (pipeline sink) on cpu" in text, text
    assert "HashJoin (probe pipelined) on cpu" in text, text
    assert re.search(r"Scan shuffled \(parquet[^\]]* on cpu: 400000 rows", text), text


def peak_host_bytes(sql, tables, pipelines):
    _, _, stderr = run_tandem(sql, tables, ["--timing", "--conf",
                                            f"tandem.exec.pipelines={pipelines}"])
    m = PEAK.search(stderr)
    assert m, stderr
    return float(m.group(1)) * UNITS[m.group(2)]


def test_a_join_pipeline_holds_no_intermediate_table(tables, tmp_path):
    rows = 3_000_000
    rng = np.random.default_rng(3)
    big = dict(tables, shuffled=write(tmp_path / "big.parquet", k=rng.integers(0, 10**9, rows),
                                      v=rng.integers(-1_000, 1_000, rows)))
    on = peak_host_bytes(JOIN_QUERY, big, "true")
    off = peak_host_bytes(JOIN_QUERY, big, "false")
    # Off: the scan's, the filter's and the join's outputs are whole tables (48, 48 and 96 MB);
    # on: the row groups being decoded and a few batches per thread.
    assert on * 3 < off, (on, off)
    print(f"peak host memory: pipelines {on / 2**20:.1f} MiB, whole tables {off / 2**20:.1f} MiB")


@pytest.fixture(scope="module")
def keyed(tmp_path_factory):
    d = tmp_path_factory.mktemp("keyed")
    rng = np.random.default_rng(5)
    n = 300_000
    days = rng.integers(-20_000, 20_000, n).astype("int32")
    fact = pa.table({
        "k32": pa.array(rng.integers(-1_000_000, 1_000_000, n).astype("int32"),
                        mask=rng.random(n) < 0.05),
        "k8": rng.integers(-128, 128, n).astype("int8"),
        "day": pa.array(days, type=pa.int32()).cast(pa.date32()),
        "v": rng.integers(0, 100, n),
    })
    picks = rng.integers(-1_000_000, 1_000_000, 300).astype("int32")
    small = pa.table({
        "id32": pa.array(picks, mask=np.arange(300) == 7),  # one NULL build key
        "id8": (np.arange(300) % 40 - 20).astype("int8"),
        "dday": pa.array(rng.choice(days, 300), type=pa.int32()).cast(pa.date32()),
        "w": np.arange(300),
    })
    paths = {"fact": str(d / "fact.parquet"), "small": str(d / "small.parquet")}
    pq.write_table(fact, paths["fact"], row_group_size=60_000)
    pq.write_table(small, paths["small"])
    return paths


KEYED_QUERIES = [
    "SELECT count(*) AS n, sum(f.v + s.w) AS t FROM fact f JOIN small s ON f.k32 = s.id32",
    "SELECT count(*) AS n, sum(v) AS t FROM fact f WHERE EXISTS "
    "(SELECT 1 FROM small s WHERE s.id32 = f.k32)",
    "SELECT count(*) AS n, sum(f.v) AS t FROM fact f JOIN small s ON f.k8 = s.id8",
    "SELECT count(*) AS n, sum(f.v) AS t FROM fact f JOIN small s ON f.day = s.dday",
    "SELECT count(*) AS n FROM fact f WHERE f.k32 IN (SELECT id32 FROM small WHERE w < 50)",
    "SELECT count(*) AS n FROM fact f LEFT JOIN small s ON f.k32 = s.id32 WHERE s.w IS NULL",
]


@pytest.fixture(scope="module")
def wide(tmp_path_factory):
    # Build keys spread thinly over a range wider than 2^24 (at most 128 values per key, so a
    # bitmap still filters the probe): probe keys that mostly miss, and keys that all hit (the
    # bitmap then stops being tried after 16 batches).
    d = tmp_path_factory.mktemp("wide")
    rng = np.random.default_rng(9)
    n, m = 1_000_000, 300_000
    ids = rng.permutation(np.arange(m, dtype=np.int64) * 100 + 7)
    dim = pa.table({"id": pa.array(ids, mask=np.arange(m) == 11), "g": ids % 17})
    fact = pa.table({
        "sparse": pa.array(rng.integers(-500, 30_000_500, n), mask=rng.random(n) < 0.02),
        "dense": rng.choice(ids, n),
        "v": rng.integers(0, 1000, n),
    })
    paths = {"fact": str(d / "fact.parquet"), "dim": str(d / "dim.parquet")}
    pq.write_table(fact, paths["fact"], row_group_size=50_000)
    pq.write_table(dim, paths["dim"])
    return paths


WIDE_QUERIES = [
    "SELECT count(*) AS n, sum(f.v + d.g) AS t FROM fact f JOIN dim d ON f.sparse = d.id",
    "SELECT count(*) AS n, sum(v) AS t FROM fact f WHERE f.sparse IN (SELECT id FROM dim)",
    "SELECT count(*) AS n, sum(f.v * d.g) AS t FROM fact f JOIN dim d ON f.dense = d.id",
    "SELECT d.g, count(*) AS n FROM fact f JOIN dim d ON f.sparse = d.id + 1 GROUP BY d.g",
]


@pytest.mark.parametrize("data, query", [("keyed", q) for q in range(len(KEYED_QUERIES))] +
                         [("wide", q) for q in range(len(WIDE_QUERIES))])
def test_probe_filters_of_integer_keys(request, data, query):
    """Joins whose build side is a set of integer keys (the probe drops rows outside the build
    keys' bitmap before hashing): signed, 8-bit and date keys, NULLs on both sides (keyed); keys
    spread thinly over a range wider than 2^24 (wide)."""
    tables = request.getfixturevalue(data)
    sql = (KEYED_QUERIES if data == "keyed" else WIDE_QUERIES)[query]
    expected = run_duckdb(duck(tables), sql)
    diff = compare_results(run_tandem(sql, tables), expected)
    assert diff is None, f"{sql}: {diff}"


@pytest.mark.parametrize("rows", [1024, 4096, 131072])
def test_the_cpu_batch_size_is_a_setting(tables, rows):
    # tandem.exec.cpu.batchRows cuts each 100,000-row row group into pieces of that many rows
    # (at most) on their way through the pipeline; the answer does not change.
    extra = ["--conf", f"tandem.exec.cpu.batchRows={rows}", "--conf", "tandem.sql.threads=2"]
    assert_as_duckdb(JOIN_QUERY, tables, extra)
    text = explain_analyze(JOIN_QUERY, tables, extra)
    m = re.search(r"Scan shuffled \(parquet[^\]]* on cpu: 400000 rows, (\d+) batches", text)
    assert m, text
    assert int(m.group(1)) == 4 * -(-100_000 // rows), text


@pytest.mark.parametrize("rows", [4096, 65536])
def test_scans_decode_row_groups_in_pieces_when_asked(tables, rows):
    # tandem.exec.cpu.scanPieceRows decodes each row group on one thread in pieces of that many
    # rows, every piece going through the pipeline before the next is decoded; the answer does
    # not change, and the scan says it read in pieces.
    extra = ["--conf", f"tandem.exec.cpu.scanPieceRows={rows}", "--conf", "tandem.sql.threads=2"]
    assert_as_duckdb(JOIN_QUERY, tables, extra)
    text = explain_analyze(JOIN_QUERY, tables, extra)
    assert f"row groups in pieces of {rows} rows" in text, text
