"""Out of GPU memory never ends a query (ctest label gpu; without a usable CUDA device every case
is skipped with "skipped: no CUDA device").

tandem.test.injectOom makes device allocations fail on purpose: the Nth of a query, or one in
eight at random; tandem.memory.gpu.limit bounds the pool far below the working set. Whatever
fails, the GPU part of the plan it is in runs again, split into slices of its input where it
can be (test_slices_gpu.py), else on the CPU, so the answers stay DuckDB's; EXPLAIN ANALYZE
marks the part; CACHE TABLE moves the least recently used cached tables to host memory, or keeps
the new one there, instead of failing.
"""
import os
import re
import subprocess

import pytest

import test_tpch_queries as tpch
from random_queries import tandem_command
from test_tpch_gpu import gpu_usable

DATA = "tandem-sf0.01"


def needs_gpu():
    if not gpu_usable():
        pytest.skip("skipped: no CUDA device")


def check_query(n, injection, data_name=DATA, extra=()):
    failure = tpch.check_query(data_name, n, ["--conf", "tandem.sql.device=gpu", "--conf",
                                              f"tandem.test.injectOom={injection}", *extra])
    assert failure is None, failure


# SF1 joins with TANDEM_TPCH_SF1=1, as in test_tpch_queries.py (scripts/device_run.sh sets it).
RANDOM_CASES = [(DATA, 1), (DATA, 2), ("duckdb-sf0.1", 1)]
if os.environ.get("TANDEM_TPCH_SF1") == "1":
    RANDOM_CASES.append(("duckdb-sf1", 3))


@pytest.mark.parametrize("n", range(1, 23), ids=lambda n: f"q{n:02d}")
@pytest.mark.parametrize("data_name, seed", RANDOM_CASES)
def test_tpch_with_random_allocation_failures(data_name, seed, n):
    needs_gpu()
    check_query(n, f"random:{seed}", data_name)


@pytest.mark.parametrize("n", range(1, 23), ids=lambda n: f"q{n:02d}")
def test_tpch_under_a_gpu_limit_below_the_working_set(n):
    # SF0.1: lineitem alone is about 60 MB on the GPU; 12 MiB holds a fraction of any query.
    needs_gpu()
    check_query(n, "off", "duckdb-sf0.1", ["--conf", "tandem.memory.gpu.limit=12m"])


@pytest.mark.parametrize("nth", list(range(1, 25)) + [40, 80])
@pytest.mark.parametrize("n", [1, 3, 9, 13, 18, 21])
def test_each_allocation_of_a_query_may_fail(n, nth):
    needs_gpu()
    check_query(n, str(nth))


def tandem(*args, stdin=None):
    return subprocess.run(tandem_command() + list(args), capture_output=True, text=True,
                          input=stdin, timeout=300)


def table_args():
    tables, _ = tpch.dataset(DATA)
    return [a for t, p in tables.items() for a in ("--table", f"{t}={p}")]


def test_explain_analyze_marks_the_part_that_ran_on_the_cpu():
    # A GPU limit of 1 KiB: every attempt fails, whole and in slices; the part runs on the CPU.
    needs_gpu()
    sql = ("EXPLAIN ANALYZE SELECT l_returnflag, sum(l_quantity) AS q FROM lineitem "
           "WHERE l_discount > 0.02 GROUP BY l_returnflag")
    r = tandem("sql", "--conf", "tandem.sql.device=gpu", "--conf", "tandem.memory.gpu.limit=1k",
               sql, *table_args())
    assert r.returncode == 0, r.stderr
    assert "ran on the CPU: GPU out of memory" in r.stdout, r.stdout
    # One injected failure: the part runs again in slices of its row groups, on the GPU.
    r = tandem("sql", "--conf", "tandem.sql.device=gpu", "--conf", "tandem.test.injectOom=1",
               sql, *table_args())
    assert r.returncode == 0, r.stderr
    assert "ran on the CPU" not in r.stdout, r.stdout
    assert re.search(r"HashAggregate \(partial over \d+ slices", r.stdout), r.stdout
    r = tandem("sql", "--conf", "tandem.sql.device=gpu", sql, *table_args())
    assert r.returncode == 0, r.stderr
    assert "ran on the CPU" not in r.stdout and " on gpu:" in r.stdout, r.stdout
    assert re.search(r"on gpu: .*, peak \+[0-9.]+ [KMG]?i?B GPU(, [^\]]*)?\]", r.stdout), r.stdout
    query = sql.replace("EXPLAIN ANALYZE ", "")
    r = tandem("sql", "--conf", "tandem.sql.device=gpu", "--conf", "tandem.memory.gpu.limit=1k",
               "--timing", query, *table_args())
    assert r.returncode == 0, r.stderr
    assert "out of GPU memory: 1 part(s) of the plan ran again on the CPU" in r.stderr, r.stderr
    r = tandem("sql", "--conf", "tandem.sql.device=gpu", "--conf", "tandem.test.injectOom=1",
               "--timing", query, *table_args())
    assert r.returncode == 0, r.stderr
    assert "1 after running out of GPU memory whole" in r.stderr, r.stderr


def run_script(script):
    """Runs a `tandem sql` script over the TPC-H tables; its result and its output lines."""
    r = tandem("sql", "-f", "-", *table_args(), stdin=script)
    assert r.returncode == 0, r.stderr
    return r, [l.strip() for l in r.stdout.splitlines()]


def cached_line(lines, table):
    return next(l for l in lines if l.startswith(f"cached table {table}"))


def duckdb_count(from_where):
    _, con = tpch.dataset(DATA)
    return con.execute(f"SELECT count(*) {from_where}").fetchone()[0]


def test_cache_table_moves_the_least_recently_used_table_to_host_memory():
    needs_gpu()
    script = ("SET tandem.sql.device = gpu;\n"
              "CACHE TABLE nation;\nCACHE TABLE region;\nCACHE TABLE orders;\n"
              "SELECT count(*) AS n FROM nation;\n"
              # region was used longest ago: the first failed copy moves it to host memory.
              "SET tandem.test.injectOom = 1;\nCACHE TABLE supplier;\n"
              # every copy fails: tables move, used longest ago first, until they held what
              # customer needs on the GPU, and customer stays on the host.
              "SET tandem.test.injectOom = 'random:3';\nCACHE TABLE customer;\n"
              "SET tandem.test.injectOom = off;\n"
              "SELECT count(*) AS n FROM region, nation WHERE r_regionkey = n_regionkey;\n"
              "SELECT count(*) AS n FROM customer, supplier WHERE c_nationkey = s_nationkey;\n")
    r, lines = run_script(script)
    supplier = cached_line(lines, "supplier")
    assert "in GPU memory; moved to host memory: region" in supplier, r.stdout
    customer = cached_line(lines, "customer")
    assert "in host memory" in customer or "moved to host memory" in customer, r.stdout
    joined = duckdb_count("FROM customer, supplier WHERE c_nationkey = s_nationkey")
    assert "25" in lines and str(joined) in lines, r.stdout


def test_cache_table_moves_nothing_for_a_table_the_gpu_cannot_hold():
    # lineitem is larger than the whole GPU limit: moving nation and region off the GPU cannot
    # make room for it, so they stay and lineitem is kept in host memory.
    needs_gpu()
    script = ("SET tandem.sql.device = gpu;\n"
              "CACHE TABLE nation;\nCACHE TABLE region;\n"
              "SET \"tandem.memory.gpu.limit\" = '1m';\nCACHE TABLE lineitem;\n"
              "SET \"tandem.memory.gpu.limit\" = 0;\n"
              "SELECT count(*) AS n FROM lineitem, nation, region "
              "WHERE l_suppkey % 25 = n_nationkey AND n_regionkey = r_regionkey;\n")
    r, lines = run_script(script)
    lineitem = cached_line(lines, "lineitem")
    assert "in host memory; kept in host memory: it takes" in lineitem, r.stdout
    assert "more than the GPU holds" in lineitem and "moved to host memory" not in lineitem, \
        r.stdout
    n = duckdb_count("FROM lineitem, nation, region "
                     "WHERE l_suppkey % 25 = n_nationkey AND n_regionkey = r_regionkey")
    assert str(n) in lines, r.stdout


def test_a_query_out_of_gpu_memory_moves_cached_tables_it_does_not_read():
    needs_gpu()
    script = ("SET tandem.sql.device = gpu;\n"
              "CACHE TABLE orders;\nCACHE TABLE lineitem;\nCACHE TABLE nation;\n"
              "SELECT count(*) AS n FROM lineitem;\n"
              # The query's first allocation fails, and its part neither splits in hash
              # partitions (no join) nor in slices (a window): orders (unused by it, and used
              # longest ago) moves to host memory and the query runs again on the GPU.
              "SET tandem.test.injectOom = 1;\n"
              "SELECT DISTINCT n_regionkey, count(*) OVER (PARTITION BY n_regionkey) AS n "
              "FROM nation ORDER BY n_regionkey;\n"
              "SET tandem.test.injectOom = off;\n"
              "SELECT count(*) AS n FROM orders;\n")
    r = tandem("sql", "--timing", "-f", "-", *table_args(), stdin=script)
    assert r.returncode == 0, r.stderr
    devices = [l for l in r.stderr.splitlines() if l.startswith("Devices:")]
    moved = [l for l in devices if "moved cached tables to host memory" in l]
    assert len(moved) == 1 and moved[0].endswith("on the GPU: orders"), r.stderr
    assert "ran again on the CPU" not in moved[0], r.stderr
    _, con = tpch.dataset(DATA)
    orders = con.execute("SELECT count(*) FROM orders").fetchone()[0]
    lines = [l.strip() for l in r.stdout.splitlines()]
    per_region = [l for l in lines if re.fullmatch(r"\d+\s*\|\s*5", l)]
    assert str(orders) in lines and len(per_region) == 5, r.stdout
