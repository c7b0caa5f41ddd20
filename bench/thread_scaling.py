"""How Tandem's CPU path and DuckDB scale with threads on the same TPC-H queries and files.

For each round, query and thread count: one `tandem sql` process runs the query twice (a warm-up,
then the timed run: its `--timing` statement time), and DuckDB, in one process per thread count
(views over the same Parquet files), runs it twice likewise. Rounds interleave the engines and
thread counts; the report gives medians, each engine's speedup over its fewest threads, and
Tandem's time / DuckDB's. --analyze DIR also writes EXPLAIN ANALYZE (third run of a process) of
every query at the most threads.

Each Tandem process's CPU time (user and system) and minor page faults are read from the kernel
(getrusage of the finished child) and reported per query (startup, warm-up and timed run
together): system time that grows with threads points at the kernel (page faults on fresh
memory, unmapping), not at the engine's own loops. --variant LABEL:KEY=VALUE[,KEY=VALUE] adds a
Tandem variant run with those environment variables (LD_PRELOAD of another memory allocator,
TANDEM_HOST_KEPT_BYTES) or settings (keys that start with "tandem.", passed as --conf),
interleaved with the plain one.

    python3 bench/thread_scaling.py --tandem BIN --data DIR --queries 6,10 --threads 1,4,16
                                    [--rounds 3] [--out F] [--analyze DIR]
                                    [--variant jemalloc:LD_PRELOAD=/path/libjemalloc.so.2 ...]
                                    [--variant pieces:tandem.exec.cpu.scanPieceRows=16384]
"""
import argparse
import os
import re
import resource
import statistics
import subprocess
import tempfile
import time

from explain_analyze import TABLES, explain_analyze, query_statements, tandem_command


def tandem_time(binary, data, threads, n, variant=None):
    """(timed run's ms, user s, system s, minor faults) of one process running query n; variant:
    environment variables, and settings (keys "tandem....") passed as --conf."""
    variant = variant or {}
    extra_env = {k: v for k, v in variant.items() if not k.startswith("tandem.")}
    confs = [f"{k}={v}" for k, v in variant.items() if k.startswith("tandem.")]
    parts, timed = query_statements(n)
    script = ";\n".join(parts[:timed] + [parts[timed]] * 2) + ";\n"
    with tempfile.NamedTemporaryFile("w", suffix=".sql", delete=False) as f:
        f.write(script)
    env = dict(os.environ, **extra_env)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        proc = subprocess.run(tandem_command(binary, data, threads, "cpu", confs) +
                              ["-f", f.name, "--format", "csv"],
                              capture_output=True, text=True, timeout=3600, env=env)
    finally:
        os.unlink(f.name)
    if proc.returncode != 0:
        raise SystemExit(f"tandem Q{n} threads={threads}: {proc.stderr[-1500:]}")
    times = [float(m) for m in re.findall(r"^Time: ([0-9.]+) ms$", proc.stderr, re.M)]
    if not times:
        raise SystemExit(f"tandem Q{n} threads={threads}: no timing printed: {proc.stderr[-500:]}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (times[-1], after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime,
            after.ru_minflt - before.ru_minflt)


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
    ap.add_argument("--variant", action="append", default=[],
                    help="LABEL:KEY=VALUE[,KEY=VALUE]: a Tandem variant run with that "
                         "environment (keys starting with 'tandem.': settings)")
    ap.add_argument("--out")
    ap.add_argument("--analyze", help="folder for EXPLAIN ANALYZE at the most threads")
    args = ap.parse_args()
    queries = [int(q) for q in args.queries.split(",")]
    threads = [int(t) for t in args.threads.split(",")]
    variants = [("tandem", None)]
    for v in args.variant:
        label, _, assignments = v.partition(":")
        pairs = [a.split("=", 1) for a in assignments.split(",") if a]
        if not label or not pairs or any(len(p) != 2 or not p[0] for p in pairs):
            ap.error(f"--variant takes LABEL:KEY=VALUE[,KEY=VALUE], got {v!r}")
        variants.append((label, dict(pairs)))
    runs = {(v, q, t): [] for v, _ in variants for q in queries for t in threads}
    duck = {(q, t): [] for q in queries for t in threads}
    cons = {} if args.no_duckdb else {t: duck_connection(args.data, t) for t in threads}
    for r in range(args.rounds):
        order = threads if r % 2 == 0 else list(reversed(threads))
        vorder = variants if r % 2 == 0 else list(reversed(variants))
        for q in queries:
            for t in order:
                line = f"round {r} Q{q:02d} threads {t}:"
                for label, env in vorder:
                    runs[(label, q, t)].append(tandem_time(args.tandem, args.data, t, q, env))
                    line += f" {label} {runs[(label, q, t)][-1][0]:.0f} ms"
                if cons:
                    duck[(q, t)].append(duck_time(cons[t], q))
                    line += f", duckdb {duck[(q, t)][-1]:.0f} ms"
                print(line, flush=True)
    lines = [f"# Thread scaling: Tandem cpu vs DuckDB, data {args.data}",
             "",
             f"- {args.rounds} rounds, engines, variants and thread counts interleaved; medians in "
             "ms; speedup = time at the fewest threads / time at this many",
             "- user s, sys s, faults: CPU time and minor page faults of the whole Tandem process "
             "(startup, warm-up and timed run), medians",
             ] + [f"- variant {label}: " + " ".join(f"{k}={v}" for k, v in env.items())
                  for label, env in variants if env] + [
             "",
             "| query | threads | variant | ms | speedup | user s | sys s | faults (K) | "
             "duckdb ms | duckdb speedup | variant / duckdb |",
             "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    med = statistics.median
    for q in queries:
        base_d = med(duck[(q, threads[0])]) if cons else None
        for label, _ in variants:
            base_t = med([x[0] for x in runs[(label, q, threads[0])]])
            for t in threads:
                cells = runs[(label, q, t)]
                mt = med([x[0] for x in cells])
                md = med(duck[(q, t)]) if cons else None
                lines.append(
                    f"| Q{q:02d} | {t} | {label} | {mt:.0f} | {base_t / mt:.2f} | "
                    f"{med([x[1] for x in cells]):.1f} | {med([x[2] for x in cells]):.1f} | "
                    f"{med([x[3] for x in cells]) / 1000:.0f} | "
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
