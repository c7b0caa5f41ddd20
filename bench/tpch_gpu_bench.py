"""TPC-H on the GPU: the 22 queries with tandem.sql.device = cpu, gpu and auto, each from Parquet
files and hot (every table held by CACHE TABLE: in GPU memory for gpu/auto, host memory for cpu),
against DuckDB on the same files and on in-memory copies, in one run on one machine.

Per (device mode, source) one `tandem sql -f` process runs a script: the SET, the CACHE TABLEs
(hot only), then for each query one warm-up and --reps timed runs; times are the per-statement
`Time: X ms` lines of `tandem sql --timing` (parse, plan, execute; no process start). DuckDB runs
in this process with the same thread count: views over read_parquet (files) and tables loaded
into memory (hot). Results: every mode's answer is compared with DuckDB's (the "check" column).
For Q1 and Q6 the report adds the ratio of the hot GPU time to the memory-bandwidth floor: the
bytes of the columns the query reads, at their in-memory widths, divided by --hbm-tbs (4.3 TB/s
for the H200).
    bench/tpch_gpu_bench.py --sf 10 [--data DIR] [--reps 3] [--threads N] [--tandem BIN]
                            [--queries 1,6] [--modes cpu,gpu,auto] [--out FILE.md]
"""
import argparse
import datetime
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "python"))
sys.path.insert(0, os.path.join(ROOT, "bench"))

import duckdb  # noqa: E402

from random_queries import compare_results, run_duckdb  # noqa: E402
from machine import cpu_model  # noqa: E402
from tpch_bench import TABLES, QUERY_DIR, geomean, parse_jsonl, query_meta  # noqa: E402

# Columns each scan-bound query reads (for the bandwidth floor) and their bytes per row in memory.
FLOOR_COLUMNS = {
    1: {"l_quantity": 8, "l_extendedprice": 8, "l_discount": 8, "l_tax": 8, "l_returnflag": 5,
        "l_linestatus": 5, "l_shipdate": 4},
    6: {"l_quantity": 8, "l_extendedprice": 8, "l_discount": 8, "l_shipdate": 4},
}
LINEITEM_ROWS_PER_SF = 6_000_000


def query_text(n):
    with open(os.path.join(QUERY_DIR, f"q{n:02d}.sql")) as f:
        return f.read()


def statements_of(sql):
    return [s.strip() for s in re.sub(r"--[^\n]*", "", sql).split(";") if s.strip()]


def tandem_base(args, data):
    cmd = [args.tandem, "sql", "--threads", str(args.threads), "--timing"]
    for t in TABLES:
        cmd += ["--table", f"{t}={os.path.join(data, t)}"]
    return cmd


def run_script(args, data, mode, hot, queries):
    """Runs one tandem process; returns {query: [ms per timed run]} and errors {query: text}."""
    lines = [f"SET tandem.sql.device = '{mode}';"]
    if hot:
        lines += [f"CACHE TABLE {t};" for t in TABLES]
    layout = []  # (query or None, statement count) in script order
    layout.append((None, len(lines)))
    for n in queries:
        stmts = statements_of(query_text(n))
        for _ in range(1 + args.reps):
            lines += [s + ";" for s in stmts]
            layout.append((n, len(stmts)))
    script = os.path.join(tempfile.mkdtemp(prefix="tpch_gpu_"), "script.sql")
    with open(script, "w") as f:
        f.write("\n".join(lines) + "\n")
    proc = subprocess.run(tandem_base(args, data) + ["-f", script, "--format", "csv"],
                          capture_output=True, text=True, timeout=args.timeout)
    times = [float(m) for m in re.findall(r"^Time: ([0-9.]+) ms$", proc.stderr, re.M)]
    out, errors, pos = {}, {}, 0
    for n, count in layout:
        if pos + count > len(times):
            if n is not None:
                errors[n] = (proc.stderr.strip().splitlines() or ["no output"])[-1][:200]
            break
        if n is not None:
            out.setdefault(n, []).append(sum(times[pos:pos + count]))
        pos += count
    if proc.returncode != 0 and not errors:
        errors[-1] = (proc.stderr.strip().splitlines() or ["exit"])[-1][:200]
    return {n: runs[1:] for n, runs in out.items() if len(runs) > 1}, errors


def run_resuming(args, data, mode, hot, queries):
    """run_script over all queries; after a failing query, a fresh process goes on with the
    queries after it."""
    timed, errors, todo = {}, {}, list(queries)
    while todo:
        got, errs = run_script(args, data, mode, hot, todo)
        timed.update(got)
        errors.update({n: e for n, e in errs.items() if n != -1})
        if -1 in errs:  # the process failed before any query (SET or CACHE TABLE)
            errors.update({n: errs[-1] for n in todo if n not in timed})
            break
        failed = [n for n in todo if n in errs]
        if not failed:
            break
        todo = todo[todo.index(failed[0]) + 1:]
    return timed, errors


def check_mode(args, data, mode, n, expected):
    """Runs query n once with device=mode from the files; 'ok' or what differs."""
    qfile = os.path.join(QUERY_DIR, f"q{n:02d}.sql")  # -f: the text starts with a -- comment
    cmd = tandem_base(args, data) + ["--conf", f"tandem.sql.device={mode}", "--format", "jsonl",
                                     "-f", qfile]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
    if proc.returncode != 0:
        return "ERROR: " + (proc.stderr.strip().splitlines() or ["exit"])[-1][:120]
    order_by, limits = query_meta()
    diff = compare_results(parse_jsonl(proc.stdout), expected, order_by[n], limits.get(n))
    return "ok" if diff is None else "DIFF: " + diff[:80]


def check_mode_hot(args, data, mode, queries, expected):
    """Runs every query once with device=mode in one process after CACHE TABLE of every table;
    {query: 'ok' or what differs}. A marker row before each query splits the JSON lines."""
    lines = [f"CACHE TABLE {t};" for t in TABLES]
    for n in queries:
        lines.append(f"SELECT 'Q{n:02d}' AS tpch_bench_marker;")
        lines += [st + ";" for st in statements_of(query_text(n))]
    script = os.path.join(tempfile.mkdtemp(prefix="tpch_check_"), "check.sql")
    with open(script, "w") as f:
        f.write("\n".join(lines) + "\n")
    cmd = tandem_base(args, data) + ["--conf", f"tandem.sql.device={mode}", "--format", "jsonl",
                                     "-f", script]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
    chunks, current = {}, None
    for line in proc.stdout.splitlines():
        if line.startswith('{"tpch_bench_marker":'):
            current = int(line.split('"Q')[1][:2])
            chunks[current] = []
        elif current is not None and line.strip():
            chunks[current].append(line)
    order_by, limits = query_meta()
    out = {}
    for n in queries:
        if n not in chunks:
            out[n] = "ERROR: " + (proc.stderr.strip().splitlines() or ["no output"])[-1][:120]
            continue
        diff = compare_results(parse_jsonl("\n".join(chunks[n])), expected[n], order_by[n],
                               limits.get(n))
        out[n] = "ok" if diff is None else "DIFF: " + diff[:80]
    return out


def duck_times(con, n, reps):
    sql = query_text(n)
    run_duckdb(con, sql)  # warm-up
    times = []
    for _ in range(reps):
        start = datetime.datetime.now()
        run_duckdb(con, sql)
        times.append((datetime.datetime.now() - start).total_seconds() * 1000)
    return times


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sf", default="10")
    ap.add_argument("--data", default=None)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--tandem", default=os.path.join(ROOT, "build/default/tandem"))
    ap.add_argument("--queries", default=",".join(str(n) for n in range(1, 23)))
    ap.add_argument("--modes", default="cpu,gpu,auto")
    ap.add_argument("--sources", default="files,hot", help="files, hot or both")
    ap.add_argument("--no-checks", action="store_true", help="skip the per-mode answer checks")
    ap.add_argument("--no-duckdb", action="store_true", help="skip DuckDB (times and checks)")
    ap.add_argument("--check-source", default="files",
                    help="where the per-mode answer checks read the tables: files or hot")
    ap.add_argument("--hbm-tbs", type=float, default=4.3)
    ap.add_argument("--timeout", type=int, default=1800)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    data = args.data or os.path.join(ROOT, "data", f"tpch-sf{args.sf}")
    out = args.out or os.path.join(ROOT, "bench", "results", f"tpch_sf{args.sf}_gpu.md")
    queries = [int(q) for q in args.queries.split(",")]
    modes = args.modes.split(",")
    if not os.path.isdir(os.path.join(data, "lineitem")):
        print(f"== generating TPC-H SF{args.sf} into {data}", flush=True)
        subprocess.run([args.tandem, "datagen", "tpch", "--sf", str(args.sf), "--out", data],
                       check=True)

    expected, duck_files, duck_mem = {}, {n: [] for n in queries}, {n: [] for n in queries}
    if args.no_duckdb:
        args.no_checks = True
    else:
        con = duckdb.connect()
        con.execute(f"SET threads = {args.threads}")
        for t in TABLES:
            con.execute(f"CREATE VIEW {t} AS SELECT * FROM read_parquet('{data}/{t}/*.parquet')")
        expected = {n: run_duckdb(con, query_text(n)) for n in queries}
        duck_files = {n: duck_times(con, n, args.reps) for n in queries}
        mem = duckdb.connect()
        mem.execute(f"SET threads = {args.threads}")
        mem.execute("ATTACH ':memory:' AS compressed (COMPRESS)")  # as `tandem bench tpch`
        mem.execute("USE compressed")
        for t in TABLES:
            mem.execute(f"CREATE TABLE {t} AS SELECT * FROM read_parquet('{data}/{t}/*.parquet')")
        duck_mem = {n: duck_times(mem, n, args.reps) for n in queries}
        print("== duckdb done", flush=True)

    results, errors, checks = {}, {}, {}
    sources = args.sources.split(",")
    for mode in modes:
        for src in sources:
            key = (mode, src)
            results[key], errors[key] = run_resuming(args, data, mode, src == "hot", queries)
            print(f"== {key} done: {len(results[key])} queries timed, errors {errors[key]}",
                  flush=True)
            # After every column, so that a run cut short still leaves a report.
            write_report(args, data, out, queries, modes, sources, results, errors, checks,
                         duck_files, duck_mem)
    for mode in ([] if args.no_checks else modes):
        if args.check_source == "hot":
            checks[mode] = check_mode_hot(args, data, mode, queries, expected)
        else:
            checks[mode] = {n: check_mode(args, data, mode, n, expected[n]) for n in queries}
        write_report(args, data, out, queries, modes, sources, results, errors, checks,
                     duck_files, duck_mem)
    print(f"== wrote {out}")


def med(values):
    return statistics.median(values) if values else None


def fmt(v):
    return "" if v is None else f"{v:.1f}"


def write_report(args, data, out, queries, modes, sources, results, errors, checks, duck_files,
                 duck_mem):
    version = subprocess.run([args.tandem, "version"], capture_output=True, text=True).stdout
    try:
        gpu = subprocess.run(["nvidia-smi", "--query-gpu=name,memory.total,driver_version",
                              "--format=csv,noheader"], capture_output=True, text=True).stdout.strip()
    except OSError:
        gpu = ""
    keys = [(m, s) for m in modes for s in sources if (m, s) in results]
    lines = [f"# TPC-H SF{args.sf} on the GPU: Tandem cpu / gpu / auto vs DuckDB "
             f"{duckdb.__version__}", "",
             f"- run {datetime.datetime.now():%Y-%m-%d %H:%M}; GPU: {gpu or 'none'}; host: "
             f"{cpu_model()}, {os.cpu_count()} cores; all engines with {args.threads} threads",
             f"- data: `{data}` (Parquet from `tandem datagen tpch --sf {args.sf}`)",
             f"- medians of {args.reps} runs after one warm-up, in ms; tandem times are "
             "`--timing` statement times (plan + execute) in one process per column; files: "
             "tables read from Parquet by every query; hot: tables held by CACHE TABLE (GPU "
             "memory for gpu/auto, host memory for cpu); duckdb files: read_parquet views; "
             "duckdb mem: tables loaded into DuckDB's memory",
             f"- tandem: {version.strip().splitlines()[0] if version.strip() else 'unknown'}", ""]
    head = "| query | " + " | ".join(f"{m} {s}" for m, s in keys) + \
        " | duckdb files | duckdb mem | check |"
    lines += [head, "|---|" + "---:|" * (len(keys) + 2) + "---|"]
    cols = {k: [] for k in keys}
    dfs, dms = [], []
    for n in queries:
        row = [f"Q{n:02d}"]
        for k in keys:
            v = med(results[k].get(n, []))
            row.append(fmt(v) if v is not None else "error")
            cols[k].append(v)
        df, dm = med(duck_files[n]), med(duck_mem[n])
        dfs.append(df)
        dms.append(dm)
        row += [fmt(df), fmt(dm)]
        row.append(", ".join(f"{m}: {checks[m][n]}" for m in modes if m in checks) or "not run")
        lines.append("| " + " | ".join(row) + " |")

    def complete(values):
        return all(v is not None for v in values)
    for label, agg in (("sum", sum), ("geomean", geomean)):
        row = [label]
        for k in keys:
            row.append(fmt(agg(cols[k])) if complete(cols[k]) else "n/a")
        row += [fmt(agg(dfs)) if complete(dfs) else "", fmt(agg(dms)) if complete(dms) else "", ""]
        lines.append("| " + " | ".join(row) + " |")
    lines.append("")
    lines.append("Ratios (geomean of per-query ratios; above 1 means faster than the reference):")
    lines.append("")
    for k in keys:
        pairs = [(v, d) for v, d in zip(cols[k], dfs) if v is not None and d is not None]
        pairs_m = [(v, d) for v, d in zip(cols[k], dms) if v is not None and d is not None]
        if pairs and pairs_m:
            lines.append(f"- {k[0]} {k[1]}: vs duckdb files {geomean([d / v for v, d in pairs]):.2f}x,"
                         f" vs duckdb mem {geomean([d / v for v, d in pairs_m]):.2f}x"
                         f" ({len(pairs)} of {len(queries)} queries)")
    for src in sources:
        if ("auto", src) in results and ("cpu", src) in results:
            ratios = {n: med(results[("auto", src)][n]) / med(results[("cpu", src)][n])
                      for n in queries
                      if results[("auto", src)].get(n) and results[("cpu", src)].get(n)}
            slower = [f"Q{n:02d} ({r:.2f}x)" for n, r in ratios.items() if r > 1.05]
            within = [f"Q{n:02d}" for n, r in ratios.items() if 1.0 < r <= 1.05]
            lines.append(f"- auto vs cpu ({src}): auto time / cpu time above 1.05 on "
                         f"{', '.join(slower) or 'no query'}; between 1.00 and 1.05 (noise "
                         f"level) on {', '.join(within) or 'no query'}")
    sf = float(args.sf)
    for n in (1, 6):
        if n in queries and ("gpu", "hot") in results and results[("gpu", "hot")].get(n):
            bytes_read = sum(FLOOR_COLUMNS[n].values()) * LINEITEM_ROWS_PER_SF * sf
            floor_ms = bytes_read / (args.hbm_tbs * 1e12) * 1000
            t = med(results[("gpu", "hot")][n])
            lines.append(f"- Q{n}: {bytes_read / 1e9:.2f} GB read, floor {floor_ms:.3f} ms at "
                         f"{args.hbm_tbs} TB/s; gpu hot {t:.2f} ms = {t / floor_ms:.1f}x the floor")
    errs = {k: e for k, e in errors.items() if e}
    if errs:
        lines += ["", "Errors:", ""] + [f"- {k}: {e}" for k, e in errs.items()]
    os.makedirs(os.path.dirname(out), exist_ok=True)
    tmp = out + ".tmp"
    with open(tmp, "w") as f:
        f.write("\n".join(lines) + "\n")
    os.replace(tmp, out)


if __name__ == "__main__":
    main()
