"""How Tandem's CPU path and DuckDB scale with threads on the same TPC-H queries and files.

For each round, query and thread count: one `tandem sql` process runs the query twice (a warm-up,
then the timed run: its `--timing` statement time), and DuckDB, in one process per thread count
(views over the same Parquet files), runs it twice likewise. Rounds interleave the engines and
thread counts; the report gives medians, each engine's speedup over its fewest threads, and
Tandem's time / DuckDB's. --analyze DIR also writes EXPLAIN ANALYZE (third run of a process) of
every query at the most threads.

    python3 bench/thread_scaling.py --tandem BIN --data DIR --queries 6,10 --threads 1,4,16
                                    [--rounds 3] [--out F] [--analyze DIR]
"""
import argparse
import os
import re
import statistics
import subprocess
import tempfile
import time

from explain_analyze import TABLES, explain_analyze, query_statements, tandem_command


def tandem_time(binary, data, threads, n):
    parts, timed = query_statements(n)
    script = ";\n".join(parts[:timed] + [parts[timed]] * 2) + ";\n"
    with tempfile.NamedTemporaryFile("w", suffix=".sql", delete=False) as f:
        f.write(script)
    try:
        proc = subprocess.run(tandem_command(binary, data, threads, "cpu") +
                              ["-f", f.name, "--format", "csv"],
                              capture_output=True, text=True, timeout=3600)
    finally:
        os.unlink(f.name)
    if proc.returncode != 0:
        raise SystemExit(f"tandem Q{n} threads={threads}: {proc.stderr[-1500:]}")
    times = [float(m) for m in re.findall(r"^Time: ([0-9.]+) ms$", proc.stderr, re.M)]
    if not times:
        raise SystemExit(f"tandem Q{n} threads={threads}: no timing printed: {proc.stderr[-500:]}")
    return times[-1]


def duck_connection(data, threads):
    import duckdb
    con = duckdb.connect()
    con.execute(f"SET threads = {threads}")
    con.execute("SET enable_progress_bar = false")
    for t in TABLES:
        con.execute(f"CREATE VIEW {t} AS SELECT * FROM read_parquet('{data}/{t}/*.parquet')")
    return con


def duck_time(con, n):
    parts, timed = query_statements(n)
    for p in parts[:timed]:
        con.execute(re.sub(r"(?i)^create view", "CREATE OR REPLACE VIEW", p))
    con.execute(parts[timed]).fetchall()  # warm-up
    start = time.perf_counter()
    con.execute(parts[timed]).fetchall()
    return (time.perf_counter() - start) * 1000


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tandem", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--queries", default="1,6,10")
    ap.add_argument("--threads", default="1,4,16")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--no-duckdb", action="store_true")
    ap.add_argument("--out")
    ap.add_argument("--analyze", help="folder for EXPLAIN ANALYZE at the most threads")
    args = ap.parse_args()
    queries = [int(q) for q in args.queries.split(",")]
    threads = [int(t) for t in args.threads.split(",")]
    tandem = {(q, t): [] for q in queries for t in threads}
    duck = {(q, t): [] for q in queries for t in threads}
    cons = {} if args.no_duckdb else {t: duck_connection(args.data, t) for t in threads}
    for r in range(args.rounds):
        order = threads if r % 2 == 0 else list(reversed(threads))
        for q in queries:
            for t in order:
                tandem[(q, t)].append(tandem_time(args.tandem, args.data, t, q))
                if cons:
                    duck[(q, t)].append(duck_time(cons[t], q))
                print(f"round {r} Q{q:02d} threads {t}: tandem {tandem[(q, t)][-1]:.0f} ms"
                      + (f", duckdb {duck[(q, t)][-1]:.0f} ms" if cons else ""), flush=True)
    lines = [f"# Thread scaling: Tandem cpu vs DuckDB, data {args.data}",
             "",
             f"- {args.rounds} rounds, engines and thread counts interleaved; medians in ms; "
             "speedup = time at the fewest threads / time at this many",
             "",
             "| query | threads | tandem ms | tandem speedup | duckdb ms | duckdb speedup | "
             "tandem / duckdb |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for q in queries:
        base_t = statistics.median(tandem[(q, threads[0])])
        base_d = statistics.median(duck[(q, threads[0])]) if cons else None
        for t in threads:
            mt = statistics.median(tandem[(q, t)])
            md = statistics.median(duck[(q, t)]) if cons else None
            lines.append(f"| Q{q:02d} | {t} | {mt:.0f} | {base_t / mt:.2f} | "
                         + (f"{md:.0f} | {base_d / md:.2f} | {mt / md:.2f} |" if cons
                            else "- | - | - |"))
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        open(args.out, "w").write(text)
    if args.analyze:
        os.makedirs(args.analyze, exist_ok=True)
        for q in queries:
            with open(os.path.join(args.analyze, f"q{q:02d}_threads{threads[-1]}.txt"), "w") as f:
                f.write(explain_analyze(args.tandem, args.data, q, "cpu", threads[-1]))


if __name__ == "__main__":
    main()
