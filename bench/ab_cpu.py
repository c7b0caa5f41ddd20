"""A/B of two tandem binaries on the CPU path: the 22 TPC-H queries (tests/tpch/queries) run
once each in one `tandem sql -f` process per binary and round, the binaries interleaved round by
round; each query's time is its `--timing` statement time, and the report gives per-query
medians over the rounds, the ratio new/old, and whether the two ranges overlap (then the ratio is
within this machine's noise). Each process's system CPU time and minor page faults (getrusage of
the finished child) are reported too: memory that is faulted in afresh shows there.

    python3 bench/ab_cpu.py --old OLD --new NEW --data DIR [--rounds 5] [--threads 2] [--out F]
                            [--sql FILE]

--sql FILE times the queries of FILE (statements separated by ';', each one timed) instead of
the 22 TPC-H queries, over the same tables (bench/topn_queries.sql: ORDER BY ... LIMIT).
"""
import argparse
import os
import re
import resource
import statistics
import subprocess
import tempfile

TABLES = ["region", "nation", "part", "supplier", "partsupp", "customer", "orders", "lineitem"]
QUERIES = os.path.join(os.path.dirname(__file__), "..", "tests", "tpch", "queries")


def run(binary, script, data, threads):
    cmd = [binary, "sql", "-f", script, "--timing", "--format", "csv",
           "--conf", f"tandem.sql.threads={threads}"]
    for t in TABLES:
        cmd += ["--table", f"{t}={os.path.join(data, t)}"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=3600)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{binary}: exit {proc.returncode}: {proc.stderr[-2000:]}")
    usage = (after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime,
             after.ru_minflt - before.ru_minflt)
    return [float(m) for m in re.findall(r"^Time: ([0-9.]+) ms$", proc.stderr, re.M)], usage


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--old", required=True)
    ap.add_argument("--new", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--out")
    ap.add_argument("--sql", help="time the statements of this file instead of TPC-H's")
    args = ap.parse_args()
    # A query file with a view (Q15) keeps its statements; the timed one is its last SELECT.
    statements, last = [], []
    files = [args.sql] if args.sql else [os.path.join(QUERIES, f"q{q:02d}.sql")
                                         for q in range(1, 23)]
    for path in files:
        lines = open(path).read().splitlines()
        text = "\n".join(l for l in lines if not l.lstrip().startswith("--"))
        parts = [p.strip() for p in text.split(";") if p.strip()]
        if args.sql:  # every statement timed
            last += range(len(statements), len(statements) + len(parts))
            statements += parts
            continue
        timed = max(i for i, p in enumerate(parts) if p.lower().startswith(("select", "with")))
        last.append(len(statements) + timed)
        statements += parts
    with tempfile.NamedTemporaryFile("w", suffix=".sql", delete=False) as f:
        f.write(";\n".join(statements) + ";\n")
        script = f.name
    times = {"old": [], "new": []}
    usage = {"old": [], "new": []}
    for r in range(args.rounds):
        for name in ("old", "new") if r % 2 == 0 else ("new", "old"):
            t, u = run(getattr(args, name), script, args.data, args.threads)
            times[name].append([t[i] for i in last])
            usage[name].append(u)
            print(f"round {r + 1} {name}: sum {sum(times[name][-1]):.0f} ms, user {u[0]:.1f} s, "
                  f"system {u[1]:.1f} s, {u[2] / 1000:.0f}K page faults", flush=True)
    first = "statement" if args.sql else "query"
    lines = [f"| {first} | old (ms) | new (ms) | new / old | ranges |", "|---|---:|---:|---:|---|"]
    ratios = []
    for q in range(len(last)):
        o = [r[q] for r in times["old"]]
        n = [r[q] for r in times["new"]]
        ratio = statistics.median(n) / statistics.median(o)
        ratios.append(ratio)
        overlap = max(min(o), min(n)) <= min(max(o), max(n))
        label = f"S{q + 1:02d}" if args.sql else f"Q{q + 1:02d}"  # --sql: statement numbers
        lines.append(f"| {label} | {statistics.median(o):.0f} | {statistics.median(n):.0f} | "
                     f"{ratio:.2f} | {'overlap' if overlap else 'apart'} |")
    total = [sum(r) for r in times["old"]], [sum(r) for r in times["new"]]
    geo = statistics.geometric_mean(ratios)
    lines.append(f"\nSum of the {len(last)} per round: old {sorted(round(x) for x in total[0])} ms, "
                 f"new {sorted(round(x) for x in total[1])} ms; geomean of new/old {geo:.3f}")
    for name in ("old", "new"):
        u = usage[name]
        lines.append(f"{name} per process (medians): user {statistics.median(x[0] for x in u):.1f} s, "
                     f"system {statistics.median(x[1] for x in u):.1f} s, "
                     f"{statistics.median(x[2] for x in u) / 1000:.0f}K page faults")
    text = "\n".join(lines)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
