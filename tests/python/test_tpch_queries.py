"""The 22 TPC-H queries (tests/tpch/queries, the spec's text and validation parameters) through
`tandem sql -f qNN.sql --table ... --format jsonl`, against DuckDB on the same Parquet files.

Data sets (Parquet, one folder per table, cached under $TANDEM_BUILD_DIR/tpch-cache so repeated
runs reuse them):
  duckdb-sf0.01, duckdb-sf0.1   DuckDB's TPC-H generator (CALL dbgen) written with COPY
  tandem-sf0.01                 `tandem datagen tpch --sf 0.01`
  duckdb-sf1                    only with TANDEM_TPCH_SF1=1 (minutes on 2 cores)
Comparison rules: random_queries.compare_results (decimals and strings exact, doubles to 1e-9
relative, a Tandem decimal against a DuckDB double to half a unit of its last digit, row order
where ORDER BY fixes it, ties as multisets, tie groups cut by LIMIT by key only).
"""
import os
import re
import shutil
import subprocess
import time

import pytest

from random_queries import (TandemError, compare_results, duckdb_connect, format_rows,
                            run_duckdb, run_tandem, tandem_command)

HERE = os.path.dirname(os.path.abspath(__file__))
QUERY_DIR = os.path.join(HERE, "..", "tpch", "queries")
TABLES = ["part", "partsupp", "supplier", "customer", "orders", "lineitem", "nation", "region"]

# Output columns each query's ORDER BY sorts on (None: a single-row aggregate), and its LIMIT.
ORDER_BY = {
    1: ["l_returnflag", "l_linestatus"], 2: ["s_acctbal", "n_name", "s_name", "p_partkey"],
    3: ["revenue", "o_orderdate"], 4: ["o_orderpriority"], 5: ["revenue"], 6: None,
    7: ["supp_nation", "cust_nation", "l_year"], 8: ["o_year"], 9: ["nation", "o_year"],
    10: ["revenue"], 11: ["value"], 12: ["l_shipmode"], 13: ["custdist", "c_count"], 14: None,
    15: ["s_suppkey"], 16: ["supplier_cnt", "p_brand", "p_type", "p_size"], 17: None,
    18: ["o_totalprice", "o_orderdate"], 19: None, 20: ["s_name"], 21: ["numwait", "s_name"],
    22: ["cntrycode"],
}
LIMIT = {2: 100, 3: 10, 10: 20, 18: 100, 21: 100}

DATASETS = ["duckdb-sf0.01", "duckdb-sf0.1", "tandem-sf0.01"]
if os.environ.get("TANDEM_TPCH_SF1") == "1":
    DATASETS.append("duckdb-sf1")


def cache_root():
    build = os.environ.get("TANDEM_BUILD_DIR") or os.path.join(HERE, "..", "..", "build")
    return os.path.join(build, "tpch-cache")


def timeout_s(data_name):
    """Seconds one query may take: DuckDB needs well under a second for any of them up to SF1."""
    return 600 if data_name.endswith("-sf1") else 60


def query_path(n):
    return os.path.abspath(os.path.join(QUERY_DIR, f"q{n:02d}.sql"))


def make_duckdb_data(sf, out):
    """Writes DuckDB's dbgen tables at scale factor sf as out/<table>/part-0.parquet."""
    con = duckdb_connect()
    con.execute(f"CALL dbgen(sf={sf})")
    for t in TABLES:
        os.makedirs(os.path.join(out, t))
        con.execute(f"COPY {t} TO '{os.path.join(out, t, 'part-0.parquet')}' (FORMAT parquet)")


def make_tandem_data(sf, out):
    proc = subprocess.run(tandem_command() + ["datagen", "tpch", "--sf", str(sf), "--out", out],
                          capture_output=True, text=True, timeout=1800)
    assert proc.returncode == 0, f"tandem datagen failed: {proc.stderr}"


def dataset_dir(name):
    """The cached Parquet folder of a data set, made (atomically) when missing."""
    final = os.path.join(cache_root(), name)
    if os.path.isdir(final):
        return final
    generator, sf = name.split("-sf")
    if generator == "tandem" and not tandem_command():
        pytest.skip("TANDEM_BIN not set")
    tmp = f"{final}.tmp{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(os.path.dirname(final), exist_ok=True)
    (make_duckdb_data if generator == "duckdb" else make_tandem_data)(sf, tmp)
    try:
        os.rename(tmp, final)
    except OSError:  # another run made it first
        shutil.rmtree(tmp, ignore_errors=True)
    return final


_connections = {}


def dataset(name):
    """(table -> folder, a DuckDB connection with a view per table reading its Parquet files)."""
    if name not in _connections:
        root = dataset_dir(name)
        tables = {t: os.path.join(root, t) for t in TABLES}
        con = duckdb_connect()
        for t, path in tables.items():
            con.execute(f"CREATE VIEW {t} AS SELECT * FROM read_parquet('{path}/*.parquet')")
        _connections[name] = (tables, con)
    return _connections[name]


def check_query(data_name, n, extra_args=(), stderr=None, script=None):
    """Runs query n on both engines (Tandem with `extra_args`, and the file `script` in place of
    the query's own, which it must end with); returns None or the failure text. Tandem's
    standard error is appended to the list `stderr` when one is given."""
    tables, con = dataset(data_name)
    with open(query_path(n)) as f:
        sql = f.read()
    expected = run_duckdb(con, sql)
    started = time.perf_counter()
    where = f"Q{n:02d} on {data_name}" + (f" with {' '.join(extra_args)}" if extra_args else "")
    try:
        actual = run_tandem(sql, tables, sql_file=script or query_path(n),
                            extra_args=list(extra_args),
                            timeout=timeout_s(data_name))
    except TandemError as e:
        return f"{where}: tandem failed: {e}"
    if stderr is not None:
        stderr.append(actual[2])
    elapsed = time.perf_counter() - started
    diff = compare_results(actual, expected, ORDER_BY[n], LIMIT.get(n))
    if diff:
        return (f"{where}: {diff}\n-- tandem ({elapsed:.2f} s):\n"
                f"{format_rows(actual[0], actual[1])}\n-- duckdb:\n"
                f"{format_rows(expected[0], expected[2])}")
    return None


@pytest.mark.parametrize("n", range(1, 23), ids=lambda n: f"q{n:02d}")
@pytest.mark.parametrize("data_name", DATASETS)
def test_tpch_query(data_name, n):
    if not tandem_command():
        pytest.skip("TANDEM_BIN not set")
    failure = check_query(data_name, n)
    assert failure is None, failure


def test_queries_follow_the_spec_and_run_in_duckdb():
    """Each file is one of the spec's queries with its validation parameters and DuckDB runs it."""
    markers = {1: "'90' day", 2: "'%BRASS'", 3: "'BUILDING'", 4: "'1993-07-01'", 5: "'ASIA'",
               6: "0.06 - 0.01", 7: "'FRANCE'", 8: "'ECONOMY ANODIZED STEEL'", 9: "'%green%'",
               10: "'1993-10-01'", 11: "0.0001", 12: "('MAIL', 'SHIP')",
               13: "'%special%requests%'", 14: "'1995-09-01'", 15: "create view revenue0",
               16: "(49, 14, 23, 45, 19, 3, 36, 9)", 17: "'MED BOX'", 18: "> 300",
               19: "'Brand#34'", 20: "'forest%'", 21: "'SAUDI ARABIA'",
               22: "('13', '31', '23', '29', '30', '18', '17')"}
    _, con = dataset("duckdb-sf0.01")
    for n in range(1, 23):
        with open(query_path(n)) as f:
            sql = f.read()
        assert markers[n] in sql, f"q{n:02d}.sql lacks {markers[n]}"
        names, _, rows = run_duckdb(con, sql)
        for col in ORDER_BY[n] or []:
            assert col in names, f"q{n:02d}: ORDER BY column {col} not in {names}"
        assert n in (2, 3, 10, 18, 21) or len(rows) < 1000


@pytest.mark.parametrize("n", range(1, 23), ids=lambda n: f"q{n:02d}")
def test_tpch_query_one_operator_at_a_time(n):
    """The executor without pipelines (tandem.exec.pipelines=false: every operator over whole
    tables) gives the same answers."""
    if not tandem_command():
        pytest.skip("TANDEM_BIN not set")
    failure = check_query("duckdb-sf0.1", n, ["--conf", "tandem.exec.pipelines=false"])
    assert failure is None, failure


@pytest.mark.parametrize("n", range(1, 23), ids=lambda n: f"q{n:02d}")
def test_tpch_query_with_joins_ordered_by_enumeration(n):
    """Join order by dynamic programming over classes of equal columns
    (tandem.optimizer.joinOrder=dp) gives DuckDB's answers."""
    if not tandem_command():
        pytest.skip("TANDEM_BIN not set")
    failure = check_query("duckdb-sf0.1", n, ["--conf", "tandem.optimizer.joinOrder=dp"])
    assert failure is None, failure


def test_enumeration_joins_customer_with_its_nations_in_q05():
    """Q05 says c_nationkey = s_nationkey and s_nationkey = n_nationkey; under dp customer joins
    nation (and the region's filter) directly, before orders and lineitem, while greedy joins
    nation with supplier first."""
    if not tandem_command():
        pytest.skip("TANDEM_BIN not set")
    tables, _ = dataset("duckdb-sf0.1")
    with open(query_path(5)) as f:
        sql = "EXPLAIN " + f.read()
    plans = {}
    for order in ("dp", "greedy"):
        cmd = tandem_command() + ["sql", sql, "--conf", f"tandem.optimizer.joinOrder={order}"]
        for name, path in tables.items():
            cmd += ["--table", f"{name}={path}"]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        plans[order] = proc.stdout + proc.stderr
    assert "HashJoin INNER c_nationkey = n_nationkey" in plans["dp"], plans["dp"]
    assert "HashJoin INNER s_nationkey = n_nationkey" in plans["greedy"], plans["greedy"]


@pytest.mark.parametrize("n", range(1, 23), ids=lambda n: f"q{n:02d}")
def test_tpch_query_with_lineitem_cached_in_part(n, tmp_path):
    """lineitem cached in part (CACHE TABLE under a host limit it does not fit whole: l_tax,
    l_discount and its strings but l_returnflag stay in the files, as most of them do at SF100
    on a 125 GiB host): scans that read only cached columns read memory, the others line
    cached columns up with the files' rows (exec/cpu/scan_cached_part.h). DuckDB's files have
    row groups of another size than Tandem's pieces, so the two are cut at different rows."""
    if not tandem_command():
        pytest.skip("TANDEM_BIN not set")
    tables, _ = dataset("duckdb-sf0.1")
    with open(query_path(n)) as f:
        sql = f.read()
    # One thread while caching, so that what fits does not depend on how many pages several
    # threads decode at once under so tight a limit.
    prelude = ("SET tandem.sql.device = cpu; SET tandem.sql.threads = 1; "
               "SET \"tandem.memory.host.limit\" = '50m'; CACHE TABLE lineitem; "
               "SET \"tandem.memory.host.limit\" = '0'; SET tandem.sql.threads = 0;\n")
    script = tmp_path / f"q{n:02d}.sql"
    script.write_text(prelude + sql)
    stderr = []
    failure = check_query("duckdb-sf0.1", n, stderr=stderr, script=str(script))
    assert failure is None, failure
    assert re.search(r"table lineitem cached in part \(600572 rows, \d+ of 16 columns, [^)]*\): "
                     r"[^(]*l_tax, l_linestatus, l_shipinstruct, l_shipmode, "
                     r"l_comment stay in its files", stderr[0]), stderr[0]
    if n == 1:  # Q01 did line cached columns up with the files' rows (not read them all from there)
        cmd = tandem_command() + ["sql", prelude + "EXPLAIN ANALYZE " + sql]
        for name, path in tables.items():
            cmd += ["--table", f"{name}={path}"]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        assert re.search(r"Scan lineitem \(cached in part in host memory; [^;]*l_tax, "
                         r"l_linestatus from its files: parquet: ", proc.stdout), proc.stdout
