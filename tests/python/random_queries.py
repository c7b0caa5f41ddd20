"""SQL oracle helpers for the TPC-H and differential tests, and the random query generator.

Part 1 (running and comparing): runs SQL through `tandem sql ... --format jsonl` and through
DuckDB, and compares the two results value by value:
  - exact numbers (integers, decimals) must be equal as Python Decimals; Tandem prints decimals
    as JSON strings with exactly `scale` digits, so "12.30" == Decimal("12.3");
  - where either side is a double, values agree to 1e-9 relative; where Tandem has a decimal of
    scale s and DuckDB a double (DuckDB's avg(decimal) and decimal / decimal are DOUBLE, Spark's
    rules that Tandem follows give a decimal rounded to s digits), they agree to half a unit in
    the s-th digit; NaN equals NaN, -0.0 equals 0.0;
  - strings and dates exactly;
  - row order exactly where ORDER BY fixes it: rows are grouped by their ORDER BY key, keys must
    match position by position and rows within a group of ties match as a multiset; a tie group
    cut by LIMIT is compared by its keys only; results without ORDER BY compare as multisets.
Part 2 (random queries): random tables (ints with duplicates and NULLs, int extremes, doubles
with NaN / -0.0 / +-inf, decimals, strings including empty and long ones, dates, empty tables)
written to Parquet with pyarrow, and random SELECTs whose semantics agree between DuckDB and
Spark SQL: no integer `/`, explicit NULLS FIRST/LAST, doubles that sum exactly (multiples of 1/4),
no arithmetic on the extreme-valued column.

Self-check without Tandem: `python random_queries.py sql [-f FILE | SQL] --table n=PATH ...
--format jsonl` emulates `tandem sql` with DuckDB; point TANDEM_SQL_CMD at it to test the harness.
"""
import datetime
import decimal
import glob
import json
import math
import os
import shlex
import subprocess
import sys
from decimal import Decimal

import duckdb

# ----------------------------------------------------------------------------------------------
# Running Tandem and DuckDB


class TandemError(Exception):
    """`tandem sql` failed: the exit status and its stderr."""


def tandem_command():
    """The command prefix that runs `tandem` (TANDEM_SQL_CMD overrides TANDEM_BIN)."""
    cmd = os.environ.get("TANDEM_SQL_CMD")
    if cmd:
        return shlex.split(cmd)
    binary = os.environ.get("TANDEM_BIN", "")
    return [binary] if binary else []


def duckdb_connect(threads=None):
    """A DuckDB connection with the tpch extension loaded (for dbgen) where it is installed;
    without it, a plain connection (enough for queries over Parquet files)."""
    con = duckdb.connect()
    con.execute("SET enable_progress_bar = false")
    if threads:
        con.execute(f"SET threads = {int(threads)}")
    try:
        import duckdb_extension_tpch  # noqa: F401  (only to find the extension file)
    except ImportError:
        return con
    base = os.path.dirname(duckdb_extension_tpch.__file__)
    found = glob.glob(os.path.join(base, "extensions", "*", "tpch.duckdb_extension"))
    if found:
        con.load_extension(found[0])
    return con


def split_statements(sql):
    """The statements of a script (the queries here have no ';' inside literals)."""
    lines = [ln for ln in sql.splitlines() if not ln.strip().startswith("--")]
    return [s.strip() for s in "\n".join(lines).split(";") if s.strip()]


def run_duckdb(con, sql):
    """Runs a script in DuckDB; returns (names, duckdb type strings, rows) of the last result."""
    result = None
    for statement in split_statements(sql):
        cur = con.execute(statement)
        if cur.description and not statement.lower().startswith(("create", "drop")):
            names = [d[0] for d in cur.description]
            types = [str(d[1]) for d in cur.description]
            result = (names, types, [tuple(r) for r in cur.fetchall()])
    return result


def explain_text(sql, tables, analyze=False, extra_args=()):
    """`tandem explain` (with --analyze: the query run, each node's metrics) of sql over tables
    (name -> path): its text; the command must succeed."""
    cmd = tandem_command() + ["explain", sql] + (["--analyze"] if analyze else [])
    for name, path in tables.items():
        cmd += ["--table", f"{name}={path}"]
    proc = subprocess.run(cmd + list(extra_args), capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def run_tandem(sql, tables, extra_args=(), timeout=600, sql_file=None):
    """Runs SQL text (or a file) through `tandem sql --format jsonl`.

    `tables` maps table names to Parquet paths. Returns (names, rows of JSON values); the names
    are empty when there are no rows (JSON lines carry no header)."""
    cmd = tandem_command() + ["sql"]
    cmd += ["-f", sql_file] if sql_file else [sql]
    for name, path in tables.items():
        cmd += ["--table", f"{name}={path}"]
    cmd += ["--format", "jsonl", *extra_args]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise TandemError(f"timed out after {timeout} s") from None
    if proc.returncode != 0:
        raise TandemError(f"exit {proc.returncode}: {proc.stderr.strip()[-2000:]}")
    names, rows = [], []
    for line in proc.stdout.splitlines():
        if not line.strip():
            continue
        pairs = json.loads(line, object_pairs_hook=lambda p: p)
        if not names:
            names = [k for k, _ in pairs]
        rows.append(tuple(v for _, v in pairs))
    return names, rows, proc.stderr


# ----------------------------------------------------------------------------------------------
# Canonical values and comparison

_SPECIAL_FLOATS = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}


def _kind(duck_type):
    t = duck_type.upper()
    if t.startswith("DECIMAL") or t in ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT",
                                         "UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT"):
        return "exact"
    if t in ("DOUBLE", "FLOAT", "REAL"):
        return "float"
    if t == "DATE":
        return "date"
    if t == "BOOLEAN":
        return "bool"
    return "text"


def canon_tandem(value, kind):
    """A Tandem JSON value as a Python value comparable with canon_duck's."""
    if value is None:
        return None
    if kind in ("exact", "float"):
        if isinstance(value, str):
            if value in _SPECIAL_FLOATS:
                return _SPECIAL_FLOATS[value]
            try:
                return Decimal(value)
            except decimal.InvalidOperation:
                return value
        if isinstance(value, bool):
            return value
        if isinstance(value, int):
            return Decimal(value)
        return float(value)
    return value


def canon_duck(value, kind):
    if value is None:
        return None
    if kind == "exact":
        return Decimal(value) if not isinstance(value, float) else value
    if kind == "float":
        return float(value)
    if kind == "date":
        return value.isoformat() if isinstance(value, datetime.date) else str(value)
    if kind in ("bool",):
        return value
    if isinstance(value, (datetime.datetime, datetime.time)):
        return value.isoformat()
    return value if isinstance(value, str) else str(value)


def values_equal(t, d):
    """Tandem value t equals DuckDB value d under the rules in the module comment."""
    if t is None or d is None:
        return t is None and d is None
    numeric = (int, float, Decimal)
    if isinstance(t, bool) or isinstance(d, bool):
        return t == d
    if isinstance(t, numeric) and isinstance(d, numeric):
        if isinstance(t, Decimal) and isinstance(d, Decimal):
            return t == d
        tf, df = float(t), float(d)
        if math.isnan(tf) or math.isnan(df):
            return math.isnan(tf) and math.isnan(df)
        if math.isinf(tf) or math.isinf(df):
            return tf == df
        tolerance = 1e-9 * max(abs(tf), abs(df))
        if isinstance(t, Decimal) and not isinstance(d, Decimal):
            exponent = t.as_tuple().exponent
            if isinstance(exponent, int) and exponent < 0:
                # Half a unit of the last digit, plus a few ulps: DuckDB's double may sit a
                # rounding error past the exact half (e.g. -4.4430625 vs Tandem's -4.443063).
                tolerance = max(tolerance, 0.5 * 10.0 ** exponent * (1 + 1e-9) +
                                1e-12 * max(abs(tf), abs(df)))
        return abs(tf - df) <= tolerance + 1e-300
    return t == d


def _sort_key(row):
    key = []
    for v in row:
        if v is None:
            key.append((0, 0))
        elif isinstance(v, (int, float, Decimal)) and not isinstance(v, bool):
            f = float(v)
            key.append((2, 0) if math.isnan(f) else (1, f))
        else:
            key.append((3, str(v)))
    return tuple(key)


def _rows_equal(a, b):
    return len(a) == len(b) and all(values_equal(x, y) for x, y in zip(a, b))


def _first_multiset_difference(t_rows, d_rows):
    ts, ds = sorted(t_rows, key=_sort_key), sorted(d_rows, key=_sort_key)
    for i, (a, b) in enumerate(zip(ts, ds)):
        if not _rows_equal(a, b):
            return f"sorted row {i}: tandem {a!r} != duckdb {b!r}"
    return None


def compare_results(tandem, duck, order_by=None, limit=None, offset=0):
    """Returns None when equal, else a message naming the first difference.

    tandem: (names, json rows) from run_tandem; duck: (names, types, rows) from run_duckdb;
    order_by: output column names that the query's ORDER BY sorts on (None: unordered);
    limit, offset: the query's LIMIT and OFFSET, if any (tie groups they cut compare by key)."""
    t_names, t_rows = tandem[0], tandem[1]
    d_names, d_types, d_rows = duck
    kinds = [_kind(t) for t in d_types]
    if len(t_rows) != len(d_rows):
        return f"{len(t_rows)} rows, duckdb has {len(d_rows)}"
    if t_rows and [n.lower() for n in t_names] != [n.lower() for n in d_names]:
        return f"columns {t_names}, duckdb has {d_names}"
    if t_rows and len(t_rows[0]) != len(d_names):
        return f"{len(t_rows[0])} columns, duckdb has {len(d_names)}"
    t_rows = [tuple(canon_tandem(v, k) for v, k in zip(r, kinds)) for r in t_rows]
    d_rows = [tuple(canon_duck(v, k) for v, k in zip(r, kinds)) for r in d_rows]
    if not order_by:
        return _first_multiset_difference(t_rows, d_rows)
    lowered = [n.lower() for n in d_names]
    key_cols = [lowered.index(c.lower()) for c in order_by]
    start = 0
    while start < len(d_rows):
        key = [d_rows[start][c] for c in key_cols]
        end = start + 1
        while end < len(d_rows) and _rows_equal([d_rows[end][c] for c in key_cols], key):
            end += 1
        for i in range(start, end):
            t_key = [t_rows[i][c] for c in key_cols]
            if not _rows_equal(t_key, key):
                return (f"row {i}: ORDER BY key {t_key!r} != duckdb {key!r} "
                        f"(tandem row {t_rows[i]!r}, duckdb row {d_rows[i]!r})")
        cut = (limit is not None and end == len(d_rows) == limit) or (offset and start == 0)
        if not cut:
            diff = _first_multiset_difference(t_rows[start:end], d_rows[start:end])
            if diff:
                return f"rows {start}..{end - 1} (ties on the ORDER BY key): {diff}"
        start = end
    return None


def format_rows(names, rows, limit=20):
    lines = [" | ".join(names)]
    lines += [" | ".join(repr(v) for v in r) for r in rows[:limit]]
    if len(rows) > limit:
        lines.append(f"... {len(rows) - limit} more rows")
    return "\n".join(lines)


# ----------------------------------------------------------------------------------------------
# Random tables

_WORDS = ["", "a", "A", "ab", "abc", "b", "ba", "z", "hello", "Hello", "x y", "a%b", "a_c",
          "0", "10", "9", "-", "long" * 80]


def random_table(rng, rows):
    """A dict of column lists; `id` is unique, `k` is a small key with duplicates and NULLs."""
    def maybe_null(v, p=0.15):
        return None if rng.random() < p else v
    specials = [math.nan, -0.0, 0.0, math.inf, -math.inf]
    cols = {"id": list(range(rows)), "k": [], "i": [], "e": [], "d": [], "m": [], "s": [], "dt": []}
    for _ in range(rows):
        cols["k"].append(maybe_null(rng.randint(0, 6)))
        cols["i"].append(maybe_null(rng.randint(-1000, 1000)))
        extremes = [-2**31, 2**31 - 1, 0, -1, 1, rng.randint(-99, 99)]
        cols["e"].append(maybe_null(rng.choice(extremes)))
        d = rng.choice(specials) if rng.random() < 0.15 else rng.randint(-4000, 4000) / 4
        cols["d"].append(maybe_null(d))
        cols["m"].append(maybe_null(Decimal(rng.randint(-99999, 99999)).scaleb(-2)))
        cols["s"].append(maybe_null(rng.choice(_WORDS)))
        days = rng.randint(0, 20000)
        cols["dt"].append(maybe_null(datetime.date(1970, 1, 1) + datetime.timedelta(days=days)))
    return cols


def write_table(cols, path):
    import pyarrow as pa
    import pyarrow.parquet as pq
    schema = pa.schema([("id", pa.int64()), ("k", pa.int32()), ("i", pa.int64()),
                        ("e", pa.int32()), ("d", pa.float64()), ("m", pa.decimal128(10, 2)),
                        ("s", pa.string()), ("dt", pa.date32())])
    table = pa.table({f.name: pa.array(cols[f.name], f.type) for f in schema}, schema=schema)
    pq.write_table(table, path, row_group_size=max(1, len(cols["id"]) // 3 or 1))


def make_tables(rng, directory, count=3):
    """Writes t0..t{count-1} as Parquet files; one may be empty. Returns {name: path}."""
    tables = {}
    for n in range(count):
        rows = 0 if rng.random() < 0.12 else rng.choice([1, 5, 30, 200])
        path = os.path.join(directory, f"t{n}.parquet")
        write_table(random_table(rng, rows), path)
        tables[f"t{n}"] = path
    return tables


# ----------------------------------------------------------------------------------------------
# Random queries. Each shape returns (sql, order_by column names or None, limit, offset).

_NUM_COLS = ["k", "i", "d", "m"]
_ALL_COLS = ["id", "k", "i", "e", "d", "m", "s", "dt"]


class QueryGenerator:
    def __init__(self, rng, tables):
        self.rng = rng
        self.tables = list(tables)

    def table(self):
        return self.rng.choice(self.tables)

    # -- expressions
    def literal_for(self, col):
        r = self.rng
        if col in ("k", "id"):
            return str(r.randint(-1, 7))
        if col == "i":
            return str(r.randint(-1000, 1000))
        if col == "e":
            return r.choice(["0", "-1", "2147483647", "-2147483648", "50"])
        if col == "d":
            if r.random() < 0.3:
                return r.choice(["0.0", "-0.0", "1.5", "-250.25", "cast('NaN' as double)",
                                 "cast('Infinity' as double)"])
            return f"{r.randint(-4000, 4000) / 4}"
        if col == "m":
            return f"{r.randint(-99999, 99999) / 100:.2f}"
        if col == "s":
            return "'" + r.choice(_WORDS[:-1]) + "'"
        return f"date '{datetime.date(1970, 1, 1) + datetime.timedelta(days=r.randint(0, 20000))}'"

    def predicate(self, alias="", depth=0):
        r = self.rng
        p = alias + "." if alias else ""
        col = r.choice(_ALL_COLS)
        choice = r.random()
        if depth < 2 and choice < 0.2:
            op = r.choice(["and", "or"])
            return f"({self.predicate(alias, depth + 1)} {op} {self.predicate(alias, depth + 1)})"
        if depth < 2 and choice < 0.25:
            return f"not ({self.predicate(alias, depth + 1)})"
        if choice < 0.35:
            return f"{p}{col} is {r.choice(['', 'not '])}null"
        if choice < 0.45 and col != "s":
            lo, hi = self.literal_for(col), self.literal_for(col)
            return f"{p}{col} between {lo} and {hi}"
        if choice < 0.55:
            items = ", ".join(self.literal_for(col) for _ in range(r.randint(1, 4)))
            if col not in ("s", "dt", "d") and r.random() < 0.3:
                items += ", null"
            return f"{p}{col} {r.choice(['', 'not '])}in ({items})"
        if choice < 0.62:
            pattern = r.choice(["a%", "%b", "%", "_", "a_", "%l%", "", "A%"])
            return f"{p}s {r.choice(['', 'not '])}like '{pattern}'"
        if choice < 0.7 and col in ("k", "i", "m"):
            op = r.choice(["<", ">", "="])
            return f"{p}{col} + {r.randint(-3, 3)} {op} {self.literal_for(col)}"
        op = r.choice(["=", "<>", "<", "<=", ">", ">="])
        return f"{p}{col} {op} {self.literal_for(col)}"

    def scalar_expr(self, alias=""):
        r = self.rng
        p = alias + "." if alias else ""
        forms = [f"{p}k + {r.randint(-5, 5)}", f"{p}i * {r.randint(-3, 3)}", f"{p}i - {p}k",
                 f"{p}m * 2", f"{p}m + 0.5", f"{p}d * 2", f"{p}d + 1", f"abs({p}i)",
                 f"coalesce({p}k, -1)", f"coalesce({p}s, 'none')", f"upper({p}s)",
                 f"lower({p}s)", f"length({p}s)", f"substring({p}s, 1, 2)",
                 f"case when {self.predicate(alias, 1)} then {p}i else {p}k end",
                 f"nullif({p}k, {r.randint(0, 6)})", f"{p}s || 'x'", f"{p}i % 7",
                 f"extract(year from {p}dt)", f"cast({p}dt + interval '1' month as date)",
                 f"{p}m > {self.literal_for('m')}"]
        return r.choice(forms)

    # -- query shapes
    def q_filter(self):
        t = self.table()
        exprs = [f"{self.scalar_expr()} as x{n}" for n in range(self.rng.randint(1, 3))]
        return (f"select id, {', '.join(exprs)} from {t} where {self.predicate()}", None, None, 0)

    def q_aggregate(self):
        r = self.rng
        t = self.table()
        keys = r.sample(["k", "s", "dt", "e", "d"], r.randint(0, 2))
        aggs = ["count(*) as n"]
        pool = ["count(i)", "count(distinct k)", "count(distinct s)", "count(distinct d)",
                "sum(i)", "sum(m)", "sum(k)", "min(i)", "max(i)", "min(s)", "max(s)",
                "min(dt)", "max(dt)", "min(d)", "max(d)", "sum(d)", "avg(i)", "avg(d)",
                "min(m)", "max(m)", "sum(e)", "avg(m)"]
        aggs += [f"{a} as a{n}" for n, a in enumerate(r.sample(pool, r.randint(1, 5)))]
        where = f" where {self.predicate()}" if r.random() < 0.5 else ""
        group = f" group by {', '.join(keys)}" if keys else ""
        having = " having count(*) > 1" if keys and r.random() < 0.3 else ""
        cols = ", ".join(keys + aggs)
        return (f"select {cols} from {t}{where}{group}{having}", None, None, 0)

    def q_join(self):
        r = self.rng
        a, b = self.table(), self.table()
        kind = r.choice(["inner join", "left join", "right join", "full join", "join"])
        on = "x.k = y.k"
        if r.random() < 0.3:
            on += " and x.s = y.s"
        if r.random() < 0.3:
            on += f" and {self.predicate('y', 1)}"
        where = f" where {self.predicate('x', 1)}" if r.random() < 0.4 else ""
        if r.random() < 0.4:
            return (f"select x.k, count(*) as n, sum(y.i) as si, max(x.s) as ms "
                    f"from {a} x {kind} {b} y on {on}{where} group by x.k", None, None, 0)
        return (f"select x.id as xid, y.id as yid, x.k, y.k as yk, x.i, y.s "
                f"from {a} x {kind} {b} y on {on}{where}", None, None, 0)

    def q_semi(self):
        r = self.rng
        a, b = self.table(), self.table()
        inner_pred = f" and {self.predicate('y', 1)}" if r.random() < 0.5 else ""
        form = r.choice(["exists", "not exists", "in", "not in", "scalar"])
        if form in ("exists", "not exists"):
            cond = f"{form} (select 1 from {b} y where y.k = x.k{inner_pred})"
        elif form in ("in", "not in"):
            col = r.choice(["k", "s"])
            cond = f"x.{col} {form} (select y.{col} from {b} y where true{inner_pred})"
        else:
            cond = f"x.i > (select avg(y.i) from {b} y where y.k = x.k)"
        return (f"select x.id, x.k, x.s from {a} x where {cond}", None, None, 0)

    def q_window(self):
        r = self.rng
        t = self.table()
        part = r.choice(["partition by k ", "partition by s ", ""])
        funcs = ["row_number() over (%s order by id)", "rank() over (%s order by i nulls first)",
                 "dense_rank() over (%s order by s nulls last)",
                 "lag(i) over (%s order by id)", "lead(s, 2) over (%s order by id)",
                 "sum(i) over (%s order by id rows between 1 preceding and current row)",
                 "sum(m) over (%s)", "count(*) over (%s order by k nulls first)",
                 "max(d) over (%s order by id rows between unbounded preceding and current row)",
                 "min(i) over (%s order by id rows between current row and 2 following)",
                 "first_value(i) over (%s order by id)",
                 "last_value(s) over (%s order by id rows between unbounded preceding and "
                 "unbounded following)",
                 "avg(d) over (%s order by id rows between 2 preceding and current row)",
                 "sum(k) over (%s order by i nulls last range between unbounded preceding and "
                 "current row)"]
        chosen = [f % part + f" as w{n}" for n, f in enumerate(r.sample(funcs, r.randint(1, 3)))]
        return (f"select id, k, i, {', '.join(chosen)} from {t}", None, None, 0)

    def q_setop(self):
        r = self.rng
        a, b = self.table(), self.table()
        op = r.choice(["union", "union all", "intersect", "except"])
        cols = r.choice(["k, s", "k", "s, dt", "i % 5 as r, k"])
        return (f"select {cols} from {a} where {self.predicate()} {op} "
                f"select {cols} from {b} where {self.predicate()}", None, None, 0)

    def q_order_limit(self):
        r = self.rng
        t = self.table()
        keys = r.sample(["k", "s", "dt", "i", "d", "m"], r.randint(1, 3))
        if r.random() < 0.5:
            keys.append("id")
        order = ", ".join(f"{c} {r.choice(['asc', 'desc'])} nulls {r.choice(['first', 'last'])}"
                          for c in keys)
        limit = r.choice([None, 1, 5, 20])
        offset = r.randint(1, 3) if limit and r.random() < 0.2 else 0
        cols = sorted(set(["id", "k", "s"] + keys), key=_ALL_COLS.index)
        sql = f"select {', '.join(cols)} from {t} order by {order}"
        if limit:
            sql += f" limit {limit}" + (f" offset {offset}" if offset else "")
        return (sql, keys, limit, offset)

    def q_cte(self):
        t = self.table()
        return (f"with c as (select k, count(*) as n, sum(i) as si from {t} group by k) "
                f"select x.id, c.n, c.si from {self.table()} x join c on x.k = c.k "
                f"where {self.predicate('x', 1)}", None, None, 0)

    def query(self):
        shape = self.rng.choice([self.q_filter, self.q_aggregate, self.q_join, self.q_semi,
                                 self.q_window, self.q_setop, self.q_order_limit, self.q_cte])
        return shape()


# ----------------------------------------------------------------------------------------------
# `tandem sql` emulated with DuckDB, to check the harness itself.


def _emulate_tandem_sql(argv):
    sql, tables, fmt = None, {}, "table"
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "-f":
            with open(argv[i + 1]) as f:
                sql = f.read()
            i += 2
        elif a == "--table":
            name, path = argv[i + 1].split("=", 1)
            tables[name] = path
            i += 2
        elif a == "--format":
            fmt = argv[i + 1]
            i += 2
        elif a == "--threads":
            i += 2
        elif a.startswith("--"):
            i += 1
        else:
            sql = a
            i += 1
    assert fmt == "jsonl"
    con = duckdb.connect()
    for name, path in tables.items():
        pattern = os.path.join(path, "*.parquet") if os.path.isdir(path) else path
        con.execute(f"create view {name} as select * from read_parquet('{pattern}')")
    names, _, rows = run_duckdb(con, sql)
    out = []
    for row in rows:
        fields = []
        for n, v in zip(names, row):
            if isinstance(v, Decimal) or isinstance(v, datetime.date):
                v = str(v)
            elif isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
                v = "NaN" if math.isnan(v) else ("Infinity" if v > 0 else "-Infinity")
            fields.append(f"{json.dumps(n)}:{json.dumps(v)}")
        out.append("{" + ",".join(fields) + "}")
    sys.stdout.write("".join(line + "\n" for line in out))


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "sql":
        _emulate_tandem_sql(sys.argv[2:])
    else:
        sys.exit("usage: random_queries.py sql [-f FILE | SQL] --table n=PATH --format jsonl")
