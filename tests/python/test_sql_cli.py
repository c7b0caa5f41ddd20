"""`tandem sql` and `tandem explain` end to end: results against DuckDB on the same files, the
output formats and files, scripts of several statements, exit codes and one-line errors; and
that tests/sql/*.test hold DuckDB's current answers."""
import json
import os
import re
import subprocess
import sys

import duckdb
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest

TANDEM = os.environ.get("TANDEM_BIN", "tandem")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def tandem(*args, stdin=None):
    return subprocess.run([TANDEM, *args], capture_output=True, text=True, input=stdin,
                          timeout=120)


@pytest.fixture()
def orders(tmp_path):
    table = pa.table({
        "o_id": pa.array([1, 2, 3, 4, 5, 6], pa.int64()),
        "o_cust": pa.array(["ann", "bob", "ann", None, "cid", "bob"]),
        "o_total": pa.array([10.5, 20.25, None, 7.0, 1.5, 3.0], pa.float64()),
    })
    path = tmp_path / "orders.parquet"
    pq.write_table(table, path)
    return path


QUERY = ("SELECT o_cust, count(*) AS n, sum(o_total) AS total FROM orders "
         "GROUP BY o_cust ORDER BY o_cust NULLS LAST")


def duck(query, orders):
    con = duckdb.connect()
    con.execute(f"CREATE VIEW orders AS SELECT * FROM read_parquet('{orders}')")
    return con.sql(query).fetchall()


def test_jsonl_matches_duckdb(orders):
    r = tandem("sql", QUERY, "--table", f"orders={orders}", "--format", "jsonl")
    assert r.returncode == 0, r.stderr
    got = [tuple(json.loads(line).values()) for line in r.stdout.splitlines()]
    assert got == duck(QUERY, orders)


def test_csv_and_parquet_outputs_match_duckdb(orders, tmp_path):
    want = duck(QUERY, orders)
    out_parquet = tmp_path / "result.parquet"
    r = tandem("sql", QUERY, "--table", f"orders={orders}", "--output", str(out_parquet))
    assert r.returncode == 0, r.stderr
    assert r.stdout == ""
    assert [tuple(row.values()) for row in pq.read_table(out_parquet).to_pylist()] == want
    out_csv = tmp_path / "result.csv"
    r = tandem("sql", QUERY, "--table", f"orders={orders}", "--output", str(out_csv))
    assert r.returncode == 0, r.stderr
    got = pacsv.read_csv(out_csv, convert_options=pacsv.ConvertOptions(
        strings_can_be_null=True)).to_pylist()
    assert [tuple(row.values()) for row in got] == want
    assert sorted(os.listdir(tmp_path)) == ["orders.parquet", "result.csv", "result.parquet"]


def test_table_format_prints_aligned_rows(orders):
    r = tandem("sql", QUERY, "--table", f"orders={orders}")
    assert r.returncode == 0, r.stderr
    assert "o_cust" in r.stdout and "(4 rows)" in r.stdout


def test_script_keeps_views_and_tables_between_statements(orders, tmp_path):
    script = tmp_path / "s.sql"
    script.write_text(
        "-- a script\n"
        "CREATE VIEW big AS SELECT * FROM orders WHERE o_total > 5;\n"
        "CREATE TABLE summary AS SELECT o_cust, sum(o_total) AS t FROM big GROUP BY o_cust;\n"
        "SET threads = 1;\n"
        "SELECT o_cust, t FROM summary ORDER BY o_cust NULLS LAST;\n")
    r = tandem("sql", "-f", str(script), "--table", f"orders={orders}", "--table-dir",
               str(tmp_path), "--format", "csv")
    assert r.returncode == 0, r.stderr
    want = duck("SELECT o_cust, sum(o_total) FROM orders WHERE o_total > 5 GROUP BY o_cust "
                "ORDER BY o_cust NULLS LAST", orders)
    lines = r.stdout.splitlines()
    assert lines[0] == "o_cust,t"
    assert [tuple(l.split(",")) for l in lines[1:]] == [(c or "", repr(t)) for c, t in want]
    assert (tmp_path / "summary.parquet").exists()


def test_error_position_is_relative_to_the_script(tmp_path, orders):
    script = tmp_path / "bad.sql"
    script.write_text("SELECT 1;\nSELECT 2;\nSELECT o_idd\nFROM orders;\n")
    r = tandem("sql", "-f", str(script), "--table", f"orders={orders}")
    assert r.returncode == 1
    assert r.stderr.count("\n") == 1 and r.stderr.startswith("tandem: ")
    assert "(line 3:8)" in r.stderr, r.stderr
    # the statements before the error ran and printed
    assert "(1 row)" in r.stdout


def test_syntax_error_is_one_line_with_position():
    r = tandem("sql", "SELECT FROM WHERE")
    assert r.returncode == 1
    assert r.stderr.startswith("tandem: ") and r.stderr.count("\n") == 1
    assert "(line 1:" in r.stderr


@pytest.mark.parametrize("args", [[], ["--format", "xml", "SELECT 1"], ["SELECT 1", "SELECT 2"],
                                  ["--threads", "-1", "SELECT 1"], ["--output", "x.txt", "SELECT 1"],
                                  ["-f", "a.sql", "SELECT 1"], ["--bogus", "SELECT 1"]])
def test_usage_errors_exit_2(args):
    r = tandem("sql", *args)
    assert r.returncode == 2, (args, r.stderr)


@pytest.mark.parametrize("command", ["sql", "explain", "cat", "meta", "datagen", "bench",
                                     "calibrate", "config"])
@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_every_command_prints_its_usage_on_help(command, flag):
    r = tandem(command, flag)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("usage: tandem " + command), r.stdout


def test_a_query_may_start_with_an_sql_comment(orders):
    # Not an option: it has whitespace; and the '=' inside is not an inline option value.
    query = "-- totals where o_id = 1\nSELECT o_total FROM orders WHERE o_id = 1"
    for command in ("sql", "explain"):
        r = tandem(command, query, "--table", f"orders={orders}")
        assert r.returncode == 0, (command, r.stderr)
    assert "10.5" in tandem("sql", query, "--table", f"orders={orders}").stdout


def test_missing_table_file_is_a_user_error():
    r = tandem("sql", "SELECT 1", "--table", "t=/no/such/file.parquet")
    assert r.returncode == 1 and r.stderr.startswith("tandem: ")


def test_ansi_switch_turns_division_by_zero_into_an_error():
    r = tandem("sql", "SELECT 1 / 0 AS q", "--format", "csv")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["q", ""]  # NULL, Spark's default
    r = tandem("sql", "SELECT 1 / 0 AS q", "--ansi")
    assert r.returncode == 1 and "division by zero" in r.stderr


def test_explain_prints_plan_with_estimates(orders):
    r = tandem("explain", "SELECT o_cust FROM orders WHERE o_id > 2", "--table",
               f"orders={orders}")
    assert r.returncode == 0, r.stderr
    assert "Scan orders" in r.stdout
    r = tandem("sql", "EXPLAIN ANALYZE SELECT count(*) FROM orders", "--table",
               f"orders={orders}")
    assert r.returncode == 0, r.stderr
    assert "Scan orders" in r.stdout and "Total:" in r.stdout
    # Operators that allocate report how far memory rose while they ran.
    r = tandem("sql", "EXPLAIN ANALYZE SELECT o_cust, count(*) AS n FROM orders GROUP BY o_cust "
               "ORDER BY n DESC", "--table", f"orders={orders}")
    assert r.returncode == 0, r.stderr
    assert re.search(r"HashAggregate[^\]]* on cpu: .*, peak \+[0-9.]+ [KMG]?i?B host(, [^\]]*)?\]", r.stdout), r.stdout


def test_sql_test_files_hold_duckdb_answers():
    r = subprocess.run([sys.executable, os.path.join(ROOT, "tests", "sql", "generate_expected.py"),
                        "--check"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr


def test_cache_table_that_host_memory_cannot_hold_stays_in_its_files(tmp_path):
    # CACHE TABLE is an optimisation: where the host budget refuses the table, the statement
    # says so and succeeds, and later queries read the file (answers checked against DuckDB).
    path = tmp_path / "t.csv"
    path.write_text("a,b\n" + "".join(f"{i},x{i}\n" for i in range(20000)))
    proc = tandem("sql", "SET tandem.sql.device = cpu; SET \"tandem.memory.host.limit\" = '4k'; "
                  "CACHE TABLE t; SET \"tandem.memory.host.limit\" = '0'; "
                  "SELECT count(*) AS n, sum(a) AS s FROM t", "--table", f"t={path}")
    assert proc.returncode == 0, proc.stderr
    assert "table t not cached (queries read it from its files): host memory limit" in proc.stdout
    expected = duckdb.sql(f"SELECT count(*), sum(a) FROM read_csv('{path}')").fetchone()
    row = proc.stdout.strip().splitlines()[-2]  # the table printer's last row, above "(1 row)"
    assert [c.strip() for c in row.split("|")] == [str(v) for v in expected], proc.stdout
    # In csv (and jsonl) stdout holds rows only: the warning goes to stderr, one line.
    proc = tandem("sql", "SET tandem.sql.device = cpu; SET \"tandem.memory.host.limit\" = '4k'; "
                  "CACHE TABLE t; SET \"tandem.memory.host.limit\" = '0'; "
                  "SELECT count(*) AS n, sum(a) AS s FROM t", "--table", f"t={path}",
                  "--format", "csv")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["n,s", ",".join(str(v) for v in expected)], proc.stdout
    assert proc.stderr.startswith("tandem: warning: table t not cached (queries read it from its "
                                  "files): host memory limit"), proc.stderr
    assert proc.stderr.count("\n") == 1, proc.stderr


def _mib(text, pattern):
    value, unit = re.search(pattern, text).groups()
    return float(value) * {"B": 1 / 2**20, "KiB": 1 / 1024, "MiB": 1, "GiB": 1024}[unit]


def test_a_query_out_of_host_memory_drops_cached_tables_it_does_not_read(tmp_path):
    # Tables cached in host memory count against tandem.memory.host.limit. A query that runs out
    # of it drops the cached tables it does not read (least recently used first) back to their
    # files and runs again, instead of failing; later queries read them from the files.
    t, u = tmp_path / "t.csv", tmp_path / "u.csv"
    t.write_text("a,b\n" + "".join(f"{i},xxxxxxxxxxxxxxxxxxxx{i}\n" for i in range(400000)))
    u.write_text("a,b\n" + "".join(f"{i},yy{(i * 7919) % 100000}\n" for i in range(100000)))
    window = ("SELECT count(*) AS n, sum(x) AS s "
              "FROM (SELECT a * row_number() OVER (ORDER BY b) AS x FROM u) q")
    tables = ["--table", f"t={t}", "--table", f"u={u}", "--timing"]
    alone = tandem("sql", "SET tandem.sql.device = cpu; " + window, *tables)
    assert alone.returncode == 0, alone.stderr
    needs = _mib(alone.stderr, r"Peak memory: host ([0-9.]+) (B|KiB|MiB|GiB)")
    cached = tandem("sql", "SET tandem.sql.device = cpu; CACHE TABLE t", *tables)
    holds = _mib(cached.stdout, r"cached table t \(400000 rows, ([0-9.]+) (B|KiB|MiB|GiB) in host")
    # Room for the cached table and a quarter of what the query needs: it cannot run beside it.
    limit = int((holds + needs / 4) * 2**20)
    proc = tandem("sql", f"SET tandem.sql.device = cpu; CACHE TABLE t; "
                  f"SET \"tandem.memory.host.limit\" = '{limit}'; {window}; "
                  "SELECT count(*) AS n, sum(a) AS s FROM t", *tables)
    assert proc.returncode == 0, proc.stderr
    assert ("out of host memory: dropped cached tables t from host memory (read from their files "
            "again) and ran again") in proc.stderr, proc.stderr
    con = duckdb.connect()
    con.execute(f"CREATE VIEW u AS SELECT * FROM read_csv('{u}')")
    con.execute(f"CREATE VIEW t AS SELECT * FROM read_csv('{t}')")
    rows = [line for line in proc.stdout.splitlines()
            if re.match(r"^ *[0-9]+ *\| *-?[0-9]+ *$", line)]
    got = [[int(c) for c in line.split("|")] for line in rows]
    assert got == [list(con.sql(window).fetchone()),
                   list(con.sql("SELECT count(*), sum(a) FROM t").fetchone())], proc.stdout
    # EXPLAIN ANALYZE runs the query the same way, and says what it dropped.
    proc = tandem("sql", f"SET tandem.sql.device = cpu; CACHE TABLE t; "
                  f"SET \"tandem.memory.host.limit\" = '{limit}'; EXPLAIN ANALYZE {window}",
                  *tables)
    assert proc.returncode == 0, proc.stderr
    assert ("Memory: out of host memory: dropped cached tables t from host memory (read from "
            "their files again) and ran again") in proc.stdout, proc.stdout
    assert "Total: 1 rows" in proc.stdout, proc.stdout


def _cache_t_in_part_and_query(path, divisor, queries):
    """Caches t (the Parquet file at `path`) under a host limit of 1/divisor of its size, then
    runs `queries` and EXPLAIN ANALYZE of each; checks the answers against DuckDB's (the first
    lines of the CSV output) and returns the process."""
    whole = tandem("sql", "SET tandem.sql.device = cpu; CACHE TABLE t", "--table", f"t={path}")
    assert whole.returncode == 0 and "cached table t (200000 rows" in whole.stdout, whole.stdout
    size = _mib(whole.stdout, r"cached table t \(200000 rows, ([0-9.]+) (B|KiB|MiB|GiB) in host")
    limit = int(size / divisor * 2**20)
    # One thread while caching: several decode pages at once, and their peak under so tight a
    # limit would decide by timing whether the table is cached in part or not at all.
    proc = tandem("sql", "SET tandem.sql.device = cpu; SET tandem.sql.threads = 1; "
                  f"SET \"tandem.memory.host.limit\" = '{limit}'; CACHE TABLE t; "
                  "SET \"tandem.memory.host.limit\" = '0'; SET tandem.sql.threads = 0; " +
                  "; ".join(queries + [f"EXPLAIN ANALYZE {q}" for q in queries]),
                  "--table", f"t={path}", "--format", "csv")
    assert proc.returncode == 0, proc.stderr
    con = duckdb.connect()
    con.execute(f"CREATE VIEW t AS SELECT * FROM read_parquet('{path}')")
    expected = []
    for q in queries:
        names = q.split(" FROM ")[0].replace("SELECT ", "").split(", ")
        expected += [",".join(c.split(" AS ")[1] for c in names),
                     ",".join("" if v is None else str(v) for v in con.sql(q).fetchone())]
    assert proc.stdout.splitlines()[:2 * len(queries)] == expected, proc.stdout
    return proc


def test_cache_table_too_large_whole_keeps_its_fixed_width_columns(tmp_path):
    # A Parquet table that host memory cannot hold whole keeps the columns that fit beside a
    # quarter of the budget left for queries, strings left in the files first: scans of cached
    # columns read memory, scans of the others read the file, and scans of both line the cached
    # columns up with the file's rows (answers: DuckDB's).
    path = tmp_path / "t.parquet"
    n = 200_000
    pq.write_table(pa.table({"a": pa.array(range(n), pa.int64()),
                             "b": pa.array([i % 1000 for i in range(n)], pa.int32()),
                             "s": [f"{i:08d}-" + "x" * 52 for i in range(n)]}),
                   path, row_group_size=5_000)
    queries = ["SELECT count(*) AS n, sum(a) AS sa, sum(b) AS sb FROM t WHERE b < 500",
               "SELECT count(*) AS n, max(s) AS m FROM t WHERE s > '00150000'",
               "SELECT count(*) AS n, max(s) AS m, sum(b) AS sb FROM t WHERE a % 7 = 3"]
    proc = _cache_t_in_part_and_query(path, 2, queries)
    assert re.match(r"tandem: warning: table t cached in part \(200000 rows, 2 of 3 columns, "
                    r"[0-9.]+ (B|KiB|MiB) in host memory\): s stays in its files \(scans read "
                    r"it from there\): whole, it decodes to about ", proc.stderr), \
        proc.stderr
    explained = proc.stdout.split("Total:")
    assert "Scan t (cached in host memory)" in explained[0], explained[0]
    assert re.search(r"Scan t \(parquet: .*, not from the cached table: it lacks s\) on cpu",
                     explained[1]), explained[1]
    assert re.search(r"Scan t \(cached in part in host memory; s from its files: parquet: 1 "
                     r"files, 40 row groups", explained[2]), explained[2]


def test_cache_table_in_part_tests_conditions_on_the_files_dictionaries(tmp_path):
    # A filter on a string column left in the files is tested on its chunks' dictionaries: where
    # it keeps at most an eighth of a row group's rows, only those get their cached columns
    # gathered, lined up with the file's rows; where it keeps more, the row group goes on whole
    # (answers: DuckDB's; the scan says how many rows the codes dropped).
    path = tmp_path / "t.parquet"
    n = 200_000
    # Long enough that the column must stay in the file too (16 values: dictionary pages).
    modes = [f"mode {k:02d} by carrier insured" for k in range(16)]
    pq.write_table(pa.table({"a": pa.array(range(n), pa.int64()),
                             "b": pa.array([(i * 7919) % 1000 for i in range(n)], pa.int32()),
                             "mode": [modes[i % 16] if i < 150_000 else modes[15]
                                      for i in range(n)],
                             "s": [f"{i:08d}-" + "x" * 52 for i in range(n)]}),
                   path, row_group_size=30_000)
    queries = ["SELECT count(*) AS n, sum(a) AS sa, sum(b) AS sb, min(mode) AS m FROM t "
               f"WHERE mode = '{modes[3]}' AND b < 700",
               "SELECT count(*) AS n, sum(a) AS sa FROM t WHERE mode IN "
               f"('{modes[0]}', '{modes[1]}', '{modes[2]}', '{modes[4]}')",
               "SELECT count(*) AS n, sum(b) AS sb FROM t WHERE mode = 'none'"]
    proc = _cache_t_in_part_and_query(path, 3, queries)
    assert "2 of 4 columns" in proc.stderr and "mode, s stay in its files" in proc.stderr, \
        proc.stderr
    explained = proc.stdout.split("Total:")
    scan = (r"Scan t \(cached in part in host memory; mode from its files: parquet: 1 files, 7 row "
            r"groups, .* read, [12] condition\(s\) tested on the dictionaries of [0-9]+ chunks: "
            r"{} rows dropped\)")
    assert re.search(scan.format("[1-9][0-9]*"), explained[0]), explained[0]
    # A quarter kept in the first five row groups: those go on whole; none in the last two.
    assert re.search(scan.format("50000"), explained[1]), explained[1]
    assert re.search(scan.format("200000"), explained[2]), explained[2]


def test_cache_table_refuses_a_parquet_table_early_from_its_projected_size(tmp_path):
    # Decoding stops once the rows read so far show that the table cannot fit: the message gives
    # the projection, the statement succeeds, and queries read the file (DuckDB's answer).
    path = tmp_path / "t.parquet"
    n = 200_000
    pq.write_table(pa.table({"a": list(range(n)), "s": [f"value-{i:08d}" for i in range(n)]}),
                   path, row_group_size=5_000)
    whole = tandem("sql", "SET tandem.sql.device = cpu; CACHE TABLE t", "--table", f"t={path}")
    assert whole.returncode == 0 and "cached table t (200000 rows" in whole.stdout, whole.stdout
    size = _mib(whole.stdout, r"cached table t \(200000 rows, ([0-9.]+) (B|KiB|MiB|GiB) in host")
    limit = int(size / 3 * 2**20)
    proc = tandem("sql", f"SET tandem.sql.device = cpu; SET \"tandem.memory.host.limit\" = "
                  f"'{limit}'; CACHE TABLE t; SET \"tandem.memory.host.limit\" = '0'; "
                  "SELECT count(*) AS n, sum(a) AS s FROM t", "--table", f"t={path}")
    assert proc.returncode == 0, proc.stderr
    m = re.search(r"table t not cached \(queries read it from its files\): it decodes to about "
                  r"([0-9.]+) (B|KiB|MiB|GiB) \(projected from its first ([0-9]+) rows\)",
                  proc.stdout)
    assert m, proc.stdout
    projected = float(m.group(1)) * {"B": 1 / 2**20, "KiB": 1 / 1024, "MiB": 1, "GiB": 1024}[
        m.group(2)]
    assert abs(projected - size) <= 0.1 * size, (projected, size)
    assert int(m.group(3)) < n // 2, "it should stop well before reading the whole table"
    expected = duckdb.sql(f"SELECT count(*), sum(a) FROM read_parquet('{path}')").fetchone()
    row = proc.stdout.strip().splitlines()[-2]
    assert [c.strip() for c in row.split("|")] == [str(v) for v in expected], proc.stdout
