"""GPU parts over slices of their input (ctest label gpu; without a usable CUDA device every case
is skipped with "skipped: no CUDA device").

A GPU part whose input comes from host memory (tables cached there, the CPU's rows), or from
Parquet files estimated to decode to more, and is larger than tandem.exec.gpu.chunkBytes runs
slice by slice (rows, or runs of row groups): its aggregation partially per slice, merged at the
end; a part with no aggregation hands each slice's rows to the host. A part that runs out of GPU
memory whole splits its input (a table cached in GPU memory is sliced there) before it runs on
the CPU. Every answer is DuckDB's; the Devices line and EXPLAIN ANALYZE say what was
sliced.
"""
import os
import re
import subprocess
import tempfile

import pytest

import test_tpch_queries as tpch
from random_queries import (TandemError, compare_results, format_rows, run_duckdb, run_tandem,
                            tandem_command)
from test_tpch_gpu import gpu_usable

DATA = "duckdb-sf0.1"


def needs_gpu():
    if not gpu_usable():
        pytest.skip("skipped: no CUDA device")


def run_script(prelude, sql, data_name=DATA, extra=()):
    """Runs `prelude` then `sql` in one process; returns (names, rows, stderr)."""
    tables, _ = tpch.dataset(data_name)
    with tempfile.NamedTemporaryFile("w", suffix=".sql", delete=False) as f:
        f.write(prelude + sql)
        path = f.name
    try:
        return run_tandem(None, tables, sql_file=path, extra_args=["--timing", *extra],
                          timeout=300)
    finally:
        os.unlink(path)


def cache(where, tables=tpch.TABLES):
    """Statements caching `tables` in host or GPU memory, then device=gpu."""
    device = "cpu" if where == "host" else "gpu"
    return (f"SET tandem.sql.device = {device};\n" +
            "".join(f"CACHE TABLE {t};\n" for t in tables) + "SET tandem.sql.device = gpu;\n")


def check(sql, prelude, order_by=None, limit=None, data_name=DATA):
    _, con = tpch.dataset(data_name)
    expected = run_duckdb(con, sql)
    try:
        actual = run_script(prelude, sql, data_name)
    except TandemError as e:
        pytest.fail(f"tandem failed: {e}")
    diff = compare_results(actual, expected, order_by, limit)
    assert not diff, (f"{diff}\n-- tandem:\n{format_rows(actual[0], actual[1])}\n-- duckdb:\n"
                      f"{format_rows(expected[0], expected[2])}")
    return actual[2]


def query(n):
    with open(tpch.query_path(n)) as f:
        return f.read()


def devices_lines(stderr):
    return [l for l in stderr.splitlines() if l.startswith("Devices:")]


@pytest.mark.parametrize("n", range(1, 23), ids=lambda n: f"q{n:02d}")
def test_tpch_over_tables_cached_in_host_memory_in_slices(n):
    # 1 MiB slices: lineitem's columns at SF0.1 arrive in tens of slices.
    needs_gpu()
    prelude = cache("host") + "SET tandem.exec.gpu.chunkBytes = '1m';\n"
    stderr = check(query(n), prelude, tpch.ORDER_BY[n], tpch.LIMIT.get(n))
    if n in (1, 6, 12):
        assert any("GPU input in slices" in l for l in devices_lines(stderr)), stderr


def explain_analyze(prelude, sql):
    """EXPLAIN ANALYZE of `sql` after `prelude`, in one process: its stdout."""
    tables, _ = tpch.dataset(DATA)
    with tempfile.NamedTemporaryFile("w", suffix=".sql", delete=False) as f:
        f.write(prelude + "EXPLAIN ANALYZE " + sql)
        path = f.name
    try:
        cmd = tandem_command() + ["sql", "-f", path]
        for t, p in tables.items():
            cmd += ["--table", f"{t}={p}"]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    finally:
        os.unlink(path)
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_explain_analyze_names_the_slices():
    needs_gpu()
    prelude = cache("host", ["lineitem"]) + "SET tandem.exec.gpu.chunkBytes = '1m';\n"
    out = explain_analyze(prelude, query(1))
    # Each slice's rows after the first were uploaded while the slice before ran (prefetch).
    m = re.search(r"HostToDevice \(in (\d+) slices; (\d+) made while the one before ran, "
                  r"[\d.]+ ms waited for them\)", out)
    assert m and int(m.group(1)) > 2 and int(m.group(2)) >= 1, out
    # The query was admitted to the GPU against its estimated peak (memory/admission.h).
    assert re.search(r"GPU admission: est\. peak \S+ \S+, \S+ \S+ reserved", out), out
    assert re.search(r"HashAggregate \(partial over \d+ slices of its input, \d+ partial rows "
                     r"merged on the (GPU|CPU)", out), out


@pytest.mark.parametrize("n", [1, 3, 18])
def test_slices_made_one_after_the_other_without_prefetch(n):
    # tandem.exec.gpu.prefetchSlices=false: no slice is made while another runs; same answers.
    needs_gpu()
    prelude = (cache("host") + "SET tandem.exec.gpu.chunkBytes = '1m';\n"
               "SET tandem.exec.gpu.prefetchSlices = false;\n")
    check(query(n), prelude, tpch.ORDER_BY[n], tpch.LIMIT.get(n))
    out = explain_analyze(prelude, query(n))
    assert re.search(r"HostToDevice \(in \d+ slices\)", out), out
    assert "made while the one before ran" not in out, out


@pytest.mark.parametrize("n", [1, 3, 9, 18])
@pytest.mark.parametrize("source", ["host", "files"])
def test_slices_made_ahead_under_random_allocation_failures(source, n):
    # An allocation failing in the slice made ahead, or in the running slice beside it: the
    # slice is made again alone, or the part splits further or runs on the CPU; same answers.
    needs_gpu()
    prelude = (cache("host") if source == "host" else "SET tandem.sql.device = gpu;\n") + (
        "SET tandem.exec.gpu.chunkBytes = '1m';\nSET tandem.test.injectOom = 'random:3';\n")
    check(query(n), prelude, tpch.ORDER_BY[n], tpch.LIMIT.get(n))


def test_row_groups_of_files_made_while_the_slice_before_runs():
    # Parquet files in slices of row groups: the next slice is read, decoded and uploaded on
    # another stream while the GPU runs the current one.
    needs_gpu()
    out = explain_analyze("SET tandem.sql.device = gpu;\nSET tandem.exec.gpu.chunkBytes = '1m';\n",
                          query(6))
    m = re.search(r"in (\d+) slices; the last one's counts; (\d+) made while the one before ran",
                  out)
    assert m and int(m.group(1)) > 2 and int(m.group(2)) >= 1, out


def test_a_part_without_aggregation_hands_each_slice_to_the_host():
    needs_gpu()
    sql = ("SELECT l_orderkey, l_linenumber, o_orderdate, l_quantity FROM lineitem, orders "
           "WHERE l_orderkey = o_orderkey AND l_quantity > 45 AND o_orderstatus = 'F'")
    prelude = cache("host", ["lineitem", "orders"]) + "SET tandem.exec.gpu.chunkBytes = '1m';\n"
    stderr = check(sql, prelude)
    assert any("GPU input in slices" in l for l in devices_lines(stderr)), stderr


def cached_gpu_bytes(tables):
    """Bytes the tables take cached in GPU memory (from CACHE TABLE's message)."""
    tables_map, _ = tpch.dataset(DATA)
    cmd = tandem_command() + ["sql", "-f", "-"]
    for t, p in tables_map.items():
        cmd += ["--table", f"{t}={p}"]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300,
                       input="SET tandem.sql.device = gpu;\n" +
                       "".join(f"CACHE TABLE {t};\n" for t in tables))
    assert r.returncode == 0, r.stderr
    units = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}
    found = re.findall(r"([0-9.]+) (B|KiB|MiB|GiB) in GPU memory", r.stdout + r.stderr)
    assert len(found) == len(tables), r.stdout + r.stderr
    return sum(float(v) * units[u] for v, u in found)


# Queries whose GPU part probes lineitem (its rows are what is sliced), and the tables they read.
READS = {1: ["lineitem"], 6: ["lineitem"], 19: ["lineitem", "part"]}


@pytest.mark.parametrize("n", sorted(READS))
def test_tables_cached_on_the_gpu_split_when_a_query_runs_out_of_memory_whole(n):
    # Only the tables the query reads are cached (no other table can move to host memory), and
    # the limits sit just above what they hold: some leave too little room for the query over
    # the whole of lineitem, not for its slices. Every limit gives DuckDB's answer; somewhere in
    # the sweep the part is split (ahead or after running out) rather than run on the CPU.
    needs_gpu()
    cached = READS[n]
    base = cached_gpu_bytes(cached)
    split_somewhere = False
    for headroom_mib in (2, 4, 8, 16, 32):
        limit = int(base) + (headroom_mib << 20)
        prelude = cache("gpu", cached) + f"SET \"tandem.memory.gpu.limit\" = {limit};\n"
        stderr = check(query(n), prelude, tpch.ORDER_BY[n], tpch.LIMIT.get(n))
        lines = devices_lines(stderr)
        # Split ahead (the part's estimated peak passed the room left) or after running out; a
        # part whose joins share a key (Q19's partkey) runs in hash partitions of it instead.
        split_somewhere |= any("GPU input in slices" in l or "GPU parts in hash partitions" in l
                               for l in lines[-1:])
    assert split_somewhere, "no limit made the query split its input"


@pytest.mark.parametrize("n", range(1, 23), ids=lambda n: f"q{n:02d}")
def test_tpch_from_files_in_slices_of_row_groups(n):
    # Scans estimated to decode to more than 1 MiB read their row groups slice by slice.
    needs_gpu()
    prelude = "SET tandem.sql.device = gpu;\nSET tandem.exec.gpu.chunkBytes = '1m';\n"
    stderr = check(query(n), prelude, tpch.ORDER_BY[n], tpch.LIMIT.get(n))
    if n in (1, 6):
        assert any("GPU input in slices" in l for l in devices_lines(stderr)), stderr


@pytest.mark.parametrize("n", sorted(READS))
def test_files_split_when_a_query_runs_out_of_gpu_memory_whole(n):
    # From Parquet files under small GPU limits: the part over lineitem is split into slices of
    # its row groups before it would run on the CPU, somewhere in the sweep; every answer right.
    needs_gpu()
    split_somewhere = False
    for limit in ("4m", "8m", "16m", "32m"):
        prelude = f"SET tandem.sql.device = gpu;\nSET \"tandem.memory.gpu.limit\" = '{limit}';\n"
        stderr = check(query(n), prelude, tpch.ORDER_BY[n], tpch.LIMIT.get(n))
        lines = devices_lines(stderr)
        # Split ahead (the part's estimated peak passed the room left) or after running out.
        split_somewhere |= any("GPU input in slices" in l for l in lines[-1:])
    assert split_somewhere, "no limit made the query split its input"


# Shapes TPC-H leaves out, over tables cached in host memory in 1 MiB slices: joins whose output
# is the union over slices of their left side (LEFT, ANTI, NOT IN, a mark join under CASE),
# aggregations over no rows, FILTER clauses, strings, booleans and decimal averages.
SHAPES = [
    "SELECT c_custkey % 7 AS k, count(o_orderkey) AS n, count(*) AS c FROM customer "
    "LEFT JOIN orders ON c_custkey = o_custkey AND o_totalprice > 100000 GROUP BY 1",
    "SELECT count(*) AS n, sum(c_acctbal) AS s FROM customer WHERE NOT EXISTS "
    "(SELECT 1 FROM orders WHERE o_custkey = c_custkey)",
    "SELECT count(*) AS n FROM part WHERE p_partkey NOT IN "
    "(SELECT ps_partkey FROM partsupp WHERE ps_availqty < 100)",
    "SELECT sum(neg) AS neg, count(*) AS n FROM (SELECT CASE WHEN o_custkey IN "
    "(SELECT c_custkey FROM customer WHERE c_acctbal < 0) THEN 1 ELSE 0 END AS neg "
    "FROM orders) x",
    "SELECT count(*) AS n, sum(l_quantity) AS q, avg(l_discount) AS d, min(l_comment) AS c "
    "FROM lineitem WHERE l_quantity < 0",
    "SELECT l_returnflag, count(*) FILTER (WHERE l_discount > 0.05) AS n, "
    "sum(l_quantity) FILTER (WHERE l_shipmode = 'AIR') AS q, avg(l_extendedprice) AS p, "
    "min(l_shipinstruct) AS lo, max(l_comment) AS hi, bool_and(l_tax < 0.08) AS t "
    "FROM lineitem GROUP BY l_returnflag",
    "SELECT l_linenumber, avg(l_quantity) AS q, avg(l_linenumber) AS n, sum(l_orderkey) AS s "
    "FROM lineitem GROUP BY l_linenumber",
]


@pytest.mark.parametrize("shape", range(len(SHAPES)))
def test_shapes_in_slices(shape):
    needs_gpu()
    prelude = cache("host") + "SET tandem.exec.gpu.chunkBytes = '1m';\n"
    check(SHAPES[shape], prelude)
