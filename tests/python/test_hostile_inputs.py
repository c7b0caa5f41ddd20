"""Inputs a careless or hostile user gives `tandem`: deep and wide queries (an answer or the
documented error, never a signal, in time near-linear in the query's size), joins that would
produce billions of rows under a LIMIT or a count, pipes and FIFOs, devices, files with a byte-order
mark, invalid UTF-8, empty CSV files; and a differential test of signed and nested numeric
expressions against DuckDB.

TANDEM_BIN may be the AddressSanitizer build (scripts/test.sh asan runs the depth sweep so)."""
import os
import random
import resource
import subprocess
import time

import duckdb
import pytest

TANDEM = os.environ.get("TANDEM_BIN", "tandem")
DEPTH_ERROR = "the limit is tandem.sql.maxExpressionDepth"
PARSER_DEPTH_ERROR = "beyond any tandem.sql.maxExpressionDepth"


def run(args, timeout=300, memory=None, **kwargs):
    def limit():
        if memory:
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    return subprocess.run([TANDEM, *args], capture_output=True, text=True, timeout=timeout,
                          preexec_fn=limit, **kwargs)


def run_sql_file(tmp_path, sql, *extra, timeout=300):
    path = tmp_path / "q.sql"
    path.write_text(sql)
    start = time.monotonic()
    r = run(["sql", "-f", str(path), "--format", "csv", *extra], timeout=timeout)
    return r, time.monotonic() - start


# ---- the depth sweep ------------------------------------------------------------------------

def chain(op, n):
    return "SELECT " + op.join(["1"] * n)


SHAPES = {
    "plus": lambda n: chain("+", n),
    "concat": lambda n: "SELECT " + " || ".join(["'a'"] * n),
    "parens": lambda n: "SELECT " + "(" * n + "1" + ")" * n,
    "unary_minus": lambda n: "SELECT " + "-(" * n + "1" + ")" * n,
    "functions": lambda n: "SELECT " + "abs(" * n + "1" + ")" * n,
    "case": lambda n: "SELECT " + "CASE WHEN true THEN " * n + "1" + " END" * n,
    "subqueries": lambda n: "SELECT " + "(SELECT " * n + "1" + ")" * n,
    "derived_tables": lambda n: "SELECT * FROM " + "(SELECT * FROM " * n + "(SELECT 1 AS x) t" +
                                ") t" * n,
    "ctes": lambda n: "WITH " + ", ".join(
        f"c{i} AS (SELECT {'1 AS x' if i == 0 else 'x + 1 AS x FROM c' + str(i - 1)})"
        for i in range(n)) + f" SELECT * FROM c{n - 1}",
    # flat lists: one level however long
    "and": lambda n: "SELECT count(*) FROM (VALUES (1)) t(x) WHERE " +
                     " AND ".join(f"x <> {i + 2}" for i in range(n)),
    "or": lambda n: "SELECT count(*) FROM (VALUES (1)) t(x) WHERE " +
                    " OR ".join(f"x = {i + 1}" for i in range(n)),
    "in_list": lambda n: "SELECT count(*) FROM (VALUES (1)) t(x) WHERE x IN (" +
                         ", ".join(str(i) for i in range(n)) + ")",
    "union_all": lambda n: "SELECT count(*) FROM (" +
                           " UNION ALL ".join(f"SELECT {i}" for i in range(n)) + ") t",
    "columns": lambda n: "SELECT " + ", ".join(f"{i} AS c{i}" for i in range(n)),
}
FLAT = {"and", "or", "in_list", "union_all", "columns", "ctes"}
DEPTHS = [10, 500, 2000, 20000]


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_depth_sweep_ends_in_an_answer_or_the_documented_error(shape, tmp_path):
    for n in DEPTHS:
        r, _ = run_sql_file(tmp_path, SHAPES[shape](n))
        assert r.returncode in (0, 1), f"{shape} x{n}: killed by signal {-r.returncode}"
        if r.returncode == 1:
            assert DEPTH_ERROR in r.stderr or PARSER_DEPTH_ERROR in r.stderr, \
                f"{shape} x{n}: {r.stderr}"
            assert "(line " in r.stderr, r.stderr
            assert shape not in FLAT, f"{shape} x{n} is flat but was refused: {r.stderr}"
        elif n <= 500:
            assert r.stdout.strip(), f"{shape} x{n}: no output"


def test_a_megabyte_chain_is_refused_quickly(tmp_path):
    r, seconds = run_sql_file(tmp_path, chain("+", 500000))
    assert r.returncode == 1 and PARSER_DEPTH_ERROR in r.stderr, r.stderr
    assert seconds < 30, seconds


def test_the_depth_limit_is_a_setting(tmp_path):
    sql = SHAPES["functions"](1500)
    r, _ = run_sql_file(tmp_path, sql)
    assert r.returncode == 1 and DEPTH_ERROR in r.stderr, r.stderr
    r, _ = run_sql_file(tmp_path, sql, "--conf", "tandem.sql.maxExpressionDepth=3000")
    assert r.returncode == 0 and r.stdout.splitlines()[-1] == "1", r.stderr


# ---- time near-linear in the query's size ---------------------------------------------------

@pytest.mark.parametrize("shape", ["and", "or", "in_list", "columns", "ctes", "union_all"])
def test_planning_time_grows_near_linearly(shape, tmp_path):
    small, large = (400, 4000) if shape in ("ctes", "union_all") else (4000, 40000)
    run_sql_file(tmp_path, SHAPES[shape](small))  # warm the file cache
    timings = {}
    for n in (small, large):
        best = None
        for _ in range(2):
            r, seconds = run_sql_file(tmp_path, SHAPES[shape](n))
            assert r.returncode == 0, r.stderr
            best = seconds if best is None else min(best, seconds)
        timings[n] = best
    # Ten times the query: at most 25 times the time (quadratic would be 100), plus start-up.
    assert timings[large] < 25 * timings[small] + 1.0, timings


# ---- joins that would produce billions of rows ----------------------------------------------

@pytest.fixture(scope="module")
def tpch(tmp_path_factory):
    out = tmp_path_factory.mktemp("tpch") / "sf001"
    r = run(["datagen", "tpch", "--sf", "0.01", "--out", str(out)])
    assert r.returncode == 0, r.stderr
    return out


def tables(tpch):
    return ["--table", f"lineitem={tpch / 'lineitem'}", "--table", f"customer={tpch / 'customer'}",
            "--conf", "tandem.sql.device=cpu"]


def duck(tpch, sql):
    con = duckdb.connect()
    for t in ("lineitem", "customer"):
        con.execute(f"CREATE VIEW {t} AS SELECT * FROM read_parquet('{tpch / t}/*.parquet')")
    return con.execute(sql).fetchall()


@pytest.mark.parametrize("sql", [
    "SELECT * FROM lineitem a, lineitem b LIMIT 5",
    "SELECT * FROM customer a, customer b LIMIT 5",
    "SELECT a.l_orderkey FROM lineitem a JOIN lineitem b ON a.l_shipmode = b.l_shipmode LIMIT 7",
])
def test_a_limit_stops_an_exploding_join(sql, tpch):
    # 60,000 x 60,000 rows would need hundreds of gigabytes; 3 GiB of address space must do.
    r = run(["sql", sql, *tables(tpch), "--format", "csv"], memory=3 << 30, timeout=120)
    assert r.returncode == 0, r.stderr
    assert len(r.stdout.splitlines()) == int(sql.rsplit(" ", 1)[1]) + 1


def test_a_count_over_an_exploding_join_counts_by_key(tpch):
    sql = "SELECT count(*) FROM lineitem a JOIN lineitem b ON a.l_shipmode = b.l_shipmode"
    r = run(["sql", sql, *tables(tpch), "--format", "csv"], memory=3 << 30, timeout=120)
    assert r.returncode == 0, r.stderr
    assert int(r.stdout.splitlines()[1]) == duck(tpch, sql)[0][0]


def test_the_host_memory_limit_ends_a_query_that_outgrows_it(tpch):
    sql = ("SELECT count(*) FROM (SELECT a.l_orderkey + b.l_orderkey AS s FROM lineitem a, "
           "lineitem b WHERE a.l_shipmode = b.l_shipmode) t")
    r = run(["sql", sql, *tables(tpch), "--conf", "tandem.memory.host.limit=200m"],
            memory=3 << 30, timeout=120)
    assert r.returncode == 1, r.stderr
    assert "tandem.memory.host.limit" in r.stderr and len(r.stderr.splitlines()) == 1, r.stderr


# ---- files that are not plain files ---------------------------------------------------------

def test_a_pipe_is_read_once(tmp_path):
    read_fd, write_fd = os.pipe()
    os.write(write_fd, b"a,b\n1,2\n3,4\n")
    os.close(write_fd)
    r = run(["sql", f"SELECT sum(a), sum(b) FROM read_csv('/dev/fd/{read_fd}')", "--format",
             "csv"], pass_fds=(read_fd,))
    os.close(read_fd)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[1] == "4,6"


def test_parquet_from_standard_input(tpch):
    nation = next((tpch / "nation").glob("*.parquet"))
    with open(nation, "rb") as f:
        r = run(["cat", "/dev/stdin", "--format", "csv", "--limit", "2"], stdin=f)
    assert r.returncode == 0, r.stderr
    assert len(r.stdout.splitlines()) == 3


def test_a_fifo_without_a_writer_is_an_error_not_a_hang(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    r = run(["cat", str(fifo)], timeout=20)
    assert r.returncode == 1 and "FIFO needs its writer" in r.stderr, r.stderr


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/null"])
def test_a_device_is_refused_by_name(device):
    r = run(["cat", device], timeout=20)
    assert r.returncode == 1, r.stderr
    assert device in r.stderr and "character device" in r.stderr, r.stderr


def test_a_byte_order_mark_before_sql_is_skipped(tmp_path):
    path = tmp_path / "bom.sql"
    path.write_bytes(b"\xef\xbb\xbfSELECT 41 + 1 AS x")
    r = run(["sql", "-f", str(path), "--format", "csv"])
    assert r.returncode == 0 and r.stdout.splitlines() == ["x", "42"], r.stderr
    r = run(["sql", "-f", "-", "--format", "csv"], input="\ufeffSELECT 2 AS y")
    assert r.returncode == 0 and r.stdout.splitlines() == ["y", "2"], r.stderr


def test_invalid_utf8_in_sql_names_the_byte_and_place(tmp_path):
    path = tmp_path / "bad.sql"
    path.write_bytes(b"SELECT 1,\n  'a\xc3\x28'")
    r = run(["sql", "-f", str(path)])
    assert r.returncode == 1, r.stderr
    assert r.stderr.strip() == \
        "tandem: SQL text is not valid UTF-8: byte 0xC3 at line 2:5", r.stderr


def test_an_empty_csv_file_says_so(tmp_path):
    empty = tmp_path / "empty.csv"
    empty.write_bytes(b"")
    r = run(["sql", f"SELECT * FROM '{empty}'"])
    assert r.returncode == 1 and f"{empty}: the CSV file is empty" in r.stderr, r.stderr


def test_a_calibration_file_named_in_the_settings_must_exist(tmp_path):
    missing = tmp_path / "nope.json"
    r = run(["sql", "SELECT 1", "--conf", f"tandem.placement.calibrationFile={missing}"])
    assert r.returncode == 1 and f"calibration file {missing}" in r.stderr, r.stderr


def test_create_table_does_not_replace_a_file_from_an_earlier_session(tmp_path):
    r = run(["sql", "CREATE TABLE t AS SELECT 1 AS x", "--table-dir", str(tmp_path)])
    assert r.returncode == 0, r.stderr
    r = run(["sql", "CREATE TABLE t AS SELECT 2 AS x", "--table-dir", str(tmp_path)])
    assert r.returncode == 1 and "already exists" in r.stderr and "OR REPLACE" in r.stderr
    r = run(["sql", f"SELECT x FROM '{tmp_path / 't.parquet'}'", "--format", "csv"])
    assert r.stdout.splitlines()[1] == "1"


# ---- signed and nested numeric expressions against DuckDB -----------------------------------

class SignedExpressions:
    """Random integer expressions with unary minus and plus, nested parentheses, comments and
    line breaks between signs, over small literals (so nothing overflows)."""

    def __init__(self, rng):
        self.rng = rng

    def gap(self):
        return self.rng.choice(["", " ", "  ", "/*c*/", " /* - */ ", "\n", " -- x\n"])

    def literal(self):
        v = self.rng.choice([0, 1, 2, 3, 7, 10, 42, 99])
        return str(v) if self.rng.random() < 0.7 else f"({v})"

    def expr(self, depth):
        r = self.rng.random()
        if depth <= 0 or r < 0.25:
            return self.literal()
        if r < 0.55:
            sign = self.rng.choice(["-", "-", "+"])
            inner = self.expr(depth - 1)
            if self.rng.random() < 0.5:
                inner = f"({inner})"
            # `--` would start a comment: keep a space after a minus before another minus
            return f"{sign}{self.gap() or ' '}{inner}"
        op = self.rng.choice(["+", "-", "*"])
        left, right = self.expr(depth - 1), self.expr(depth - 1)
        if op == "*" and self.rng.random() < 0.5:
            right = f"({right})"
        return f"({left}{self.gap()} {op} {self.gap()}{right})"


def test_signed_expressions_match_duckdb(tmp_path):
    rng = random.Random(int(os.environ.get("TANDEM_SIGNED_SEED", "17")))
    gen = SignedExpressions(rng)
    exprs = [gen.expr(rng.randint(1, 5)) for _ in range(300)]
    con = duckdb.connect()
    # Every expression as a select item, a WHERE comparison, a CASE operand and an IN item.
    contexts = []
    for e in exprs:
        contexts.append(f"SELECT {e} AS v")
        contexts.append(f"SELECT count(*) AS v FROM (VALUES (-3), (0), (5)) t(k) WHERE k > {e}")
        contexts.append(f"SELECT CASE {e} WHEN -1 THEN 'm' WHEN 0 THEN 'z' ELSE 'o' END AS v")
        contexts.append(f"SELECT count(*) AS v FROM (VALUES (-3), (0), (5)) t(k) "
                        f"WHERE k IN ({e}, -({e}))")
    script = tmp_path / "signed.sql"
    # One script, one process: each statement prints a header line and its value.
    script.write_text(";\n".join(contexts) + ";\n")
    r = run(["sql", "-f", str(script), "--format", "csv"], timeout=600)
    assert r.returncode == 0, r.stderr
    got = [line for line in r.stdout.splitlines() if line != "v"]
    assert len(got) == len(contexts), (len(got), len(contexts))
    wrong = []
    for sql, value in zip(contexts, got):
        want = con.execute(sql).fetchall()[0][0]
        if str(want) != value:
            wrong.append(f"{sql!r}: tandem {value}, duckdb {want}")
    assert not wrong, f"{len(wrong)} of {len(contexts)} differ:\n" + "\n".join(wrong[:10])
