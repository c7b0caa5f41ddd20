"""TPC-H benchmark: the 22 queries (tests/tpch/queries) on Tandem's CPU path against DuckDB, on the
same Parquet files with the same thread count, alternating in one run.

Data: `tandem datagen tpch --sf SF` output (data/tpch-sf1 by default; made if missing).
Per query: one warm-up run of each engine (whose results are also compared, the "check" column),
then --reps rounds of (Tandem, DuckDB). In each round a fresh `tandem sql` process runs the query
twice, so that Tandem is measured like DuckDB: in a process that has run it before. Times:
  tandem   the second run's `Time: X ms` lines (`tandem sql --timing`, summed over the query's
           statements: parse, bind, optimize, execute; excludes process start, table registration
           and printing the result)
  cold     the first run in the fresh process (heap and page tables not yet warm)
  wall     the whole `tandem sql` process, start to exit (both runs)
  duckdb   con.execute(...).fetchall() for every statement, in this Python process (warm from the
           warm-up and earlier rounds), over views that read the Parquet files directly
           (read_parquet), SET threads = the same count
The ratio is tandem / duckdb on the per-query medians (below 1: Tandem faster); the sum and
geomean are over the queries both engines ran.
    bench/tpch_bench.py [--sf 1] [--data DIR] [--reps 3] [--threads N] [--tandem BIN]
                        [--queries 1,3,5] [--out bench/results/tpch_sf1_cpu.md]
"""
import argparse
import datetime
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "python"))

import duckdb  # noqa: E402

from machine import cpu_model  # noqa: E402
from random_queries import compare_results, run_duckdb  # noqa: E402

TABLES = ["part", "partsupp", "supplier", "customer", "orders", "lineitem", "nation", "region"]
QUERY_DIR = os.path.join(ROOT, "tests", "tpch", "queries")
ORDER_BY_LIMIT = None  # filled from the TPC-H test's tables on first use


def query_meta():
    global ORDER_BY_LIMIT
    if ORDER_BY_LIMIT is None:
        import test_tpch_queries as t
        ORDER_BY_LIMIT = (t.ORDER_BY, t.LIMIT)
    return ORDER_BY_LIMIT


def run_tandem(binary, query_file, data, threads, timeout, statements=None):
    """Returns (engine ms per run, wall ms, stdout) or raises RuntimeError with the error line.
    With `statements` (the query file's statement count) the per-statement times are summed per
    run of the file, else the list has one total."""
    cmd = [binary, "sql", "-f", query_file, "--threads", str(threads), "--timing",
           "--format", "jsonl"]
    for t in TABLES:
        cmd += ["--table", f"{t}={os.path.join(data, t)}"]
    started = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    wall = (time.perf_counter() - started) * 1000
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr.strip().splitlines()[-1] if proc.stderr.strip()
                           else f"exit {proc.returncode}")
    times = [float(m) for m in re.findall(r"^Time: ([0-9.]+) ms$", proc.stderr, re.M)]
    if not times:
        return [wall], wall, proc.stdout
    if not statements:
        return [sum(times)], wall, proc.stdout
    runs = [sum(times[i:i + statements]) for i in range(0, len(times), statements)]
    return runs, wall, proc.stdout


def parse_jsonl(text):
    import json
    names, rows = [], []
    for line in text.splitlines():
        if line.strip():
            pairs = json.loads(line, object_pairs_hook=lambda p: p)
            names = names or [k for k, _ in pairs]
            rows.append(tuple(v for _, v in pairs))
    return names, rows


def run_duck(con, sql):
    started = time.perf_counter()
    result = run_duckdb(con, sql)
    return (time.perf_counter() - started) * 1000, result


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sf", default="1")
    ap.add_argument("--data", default=None)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--tandem", default=os.environ.get("TANDEM_BIN",
                                                       os.path.join(ROOT, "build/default/tandem")))
    ap.add_argument("--queries", default=",".join(str(n) for n in range(1, 23)))
    ap.add_argument("--out", default=None)
    ap.add_argument("--note", default="", help="a line added to the report (e.g. why a query "
                    "was left out)")
    ap.add_argument("--timeout", type=int, default=120)
    args = ap.parse_args()
    # Run a private copy of the binary, so a rebuild during the run cannot break it.
    private = os.path.join(tempfile.mkdtemp(prefix="tpch_bench_"), "tandem")
    shutil.copy2(args.tandem, private)
    args.tandem = private
    data = args.data or os.path.join(ROOT, "data", f"tpch-sf{args.sf}")
    out = args.out or os.path.join(ROOT, "bench", "results", f"tpch_sf{args.sf}_cpu.md")
    queries = [int(q) for q in args.queries.split(",")]

    if not os.path.isdir(os.path.join(data, "lineitem")):
        print(f"== generating TPC-H SF{args.sf} into {data} with tandem datagen", flush=True)
        subprocess.run([args.tandem, "datagen", "tpch", "--sf", str(args.sf), "--out", data],
                       check=True)
    con = duckdb.connect()
    con.execute(f"SET threads = {args.threads}")
    for t in TABLES:
        con.execute(f"CREATE VIEW {t} AS SELECT * FROM read_parquet('{data}/{t}/*.parquet')")
    order_by, limits = query_meta()

    results = []
    for n in queries:
        qfile = os.path.join(QUERY_DIR, f"q{n:02d}.sql")
        with open(qfile) as f:
            sql = f.read()
        row = {"q": n, "tandem": [], "cold": [], "wall": [], "duck": [], "error": None,
               "check": ""}
        statements = len([x for x in re.sub(r"--[^\n]*", "", sql).split(";") if x.strip()])
        twice = os.path.join(tempfile.mkdtemp(prefix="tpch_q_"), f"q{n:02d}_twice.sql")
        with open(twice, "w") as f:
            f.write(sql.rstrip().rstrip(";") + ";\n" + sql)
        try:
            _, _, stdout = run_tandem(args.tandem, qfile, data, args.threads, args.timeout)
        except (RuntimeError, OSError, subprocess.TimeoutExpired) as e:
            row["error"] = str(e)[:200]
        _, expected = run_duck(con, sql)
        if not row["error"]:
            names, rows = parse_jsonl(stdout)
            diff = compare_results((names, rows), expected, order_by[n], limits.get(n))
            row["check"] = "ok" if diff is None else "DIFF: " + diff[:80]
        for _ in range(args.reps):
            if not row["error"]:
                try:
                    runs, wall, _ = run_tandem(args.tandem, twice, data, args.threads,
                                               args.timeout, statements)
                    if len(runs) != 2:
                        raise RuntimeError(f"expected 2 timed runs, got {len(runs)}")
                    row["cold"].append(runs[0])
                    row["tandem"].append(runs[1])
                    row["wall"].append(wall)
                except (RuntimeError, OSError, subprocess.TimeoutExpired) as e:
                    row["error"] = str(e)[:200]
            row["duck"].append(run_duck(con, sql)[0])
        results.append(row)
        t = f"{statistics.median(row['tandem']):9.1f}" if row["tandem"] else "    error"
        print(f"Q{n:02d}  tandem {t} ms  duckdb {statistics.median(row['duck']):9.1f} ms  "
              f"{row['error'] or row['check']}", flush=True)

    write_report(results, args, data, out)
    print(f"== wrote {out}")


def write_report(results, args, data, out):
    version = subprocess.run([args.tandem, "version"], capture_output=True, text=True).stdout
    lines = [f"# TPC-H SF{args.sf}, CPU: Tandem vs DuckDB {duckdb.__version__}", "",
             f"- run {datetime.datetime.now():%Y-%m-%d %H:%M}, {cpu_model()}, "
             f"{os.cpu_count()} cores; both engines with {args.threads} threads",
             f"- data: `{os.path.relpath(data, ROOT)}` (Parquet"
             + (f", made by `tandem datagen tpch --sf {args.sf}`" if not args.data else "")
             + "); DuckDB reads the same files with read_parquet",
             f"- {args.reps} alternating rounds after one warm-up of each; medians in ms",
             "- tandem: `tandem sql --timing` time (parse..execute, no process start) of the "
             "second run of the query in a fresh process; cold: the first run in that process; "
             "wall: the whole process (both runs); duckdb: execute + fetchall in-process, warm",
             f"- tandem: {version.strip().splitlines()[0] if version.strip() else 'unknown'}"]
    if args.note:
        lines.append(f"- {args.note}")
    lines += ["",
             "| query | tandem ms | tandem cold ms | tandem wall ms | duckdb ms | "
             "tandem / duckdb | result |",
             "|---|---:|---:|---:|---:|---:|---|"]
    both = []
    for r in results:
        d = statistics.median(r["duck"])
        if r["tandem"] and not r["error"]:
            t, w = statistics.median(r["tandem"]), statistics.median(r["wall"])
            c = statistics.median(r["cold"])
            both.append((t, c, w, d))
            lines.append(f"| Q{r['q']:02d} | {t:.1f} | {c:.1f} | {w:.1f} | {d:.1f} | "
                         f"{t / d:.2f} | {r['check']} |")
        else:
            err = (r["error"] or "").replace("|", "\\|")
            lines.append(f"| Q{r['q']:02d} | error | | | {d:.1f} | | {err} |")
    if both:
        ts, cs, ws, ds = zip(*both)
        ratios = [t / d for t, _, _, d in both]
        lines.append(f"| sum ({len(both)} queries) | {sum(ts):.1f} | {sum(cs):.1f} | "
                     f"{sum(ws):.1f} | {sum(ds):.1f} | {sum(ts) / sum(ds):.2f} | |")
        lines.append(f"| geomean | {geomean(ts):.1f} | {geomean(cs):.1f} | {geomean(ws):.1f} | "
                     f"{geomean(ds):.1f} | {geomean(ts) / geomean(ds):.2f} | |")
        lines.append(f"| cold geomean / duckdb | | {geomean(cs) / geomean(ds):.2f} | | | | |")
        lines += ["", f"Goal: geomean ratio <= 1.5 (now {geomean(ts) / geomean(ds):.2f}), no "
                  f"query above 3x (now {sum(1 for x in ratios if x > 3)} above, worst "
                  f"{max(ratios):.2f}); {len(results) - len(both)} of {len(results)} queries "
                  "did not run on Tandem."]
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
