"""EXPLAIN ANALYZE of TPC-H queries as the third run of one `tandem sql` process, under a device
mode, from files or with every table cached first (CACHE TABLE), with extra settings. Q15's view
is created once, before the runs.

    python3 bench/explain_analyze.py --tandem BIN --data DIR --queries 11,15 --mode auto
                                     [--cache] [--threads N] [--conf k=v ...] [--out F]
"""
import argparse
import os
import subprocess
import tempfile

TABLES = ["region", "nation", "part", "supplier", "partsupp", "customer", "orders", "lineitem"]
QUERIES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "tpch", "queries")


def query_statements(n):
    """The query's statements (Q15 has a view) and the index of the timed SELECT."""
    lines = open(os.path.join(QUERIES, f"q{n:02d}.sql")).read().splitlines()
    text = "\n".join(l for l in lines if not l.lstrip().startswith("--"))
    parts = [p.strip() for p in text.split(";") if p.strip()]
    timed = max(i for i, p in enumerate(parts) if p.lower().startswith(("select", "with")))
    return parts, timed


def tandem_command(binary, data, threads, mode, confs=()):
    cmd = [binary, "sql", "--timing", "--conf", f"tandem.sql.threads={threads}",
           "--conf", f"tandem.sql.device={mode}"]
    for kv in confs:
        cmd += ["--conf", kv]
    for t in TABLES:
        cmd += ["--table", f"{t}={os.path.join(data, t)}"]
    return cmd


def explain_analyze(binary, data, n, mode="cpu", threads=0, cache=False, confs=()):
    """The EXPLAIN ANALYZE text (from its Placement line) of the query's third run."""
    parts, timed = query_statements(n)
    setup = [f"CACHE TABLE {t}" for t in TABLES] if cache else []
    script = setup + parts[:timed] + [parts[timed]] * 2 + ["EXPLAIN ANALYZE " + parts[timed]]
    with tempfile.NamedTemporaryFile("w", suffix=".sql", delete=False) as f:
        f.write(";\n".join(script) + ";\n")
    try:
        proc = subprocess.run(tandem_command(binary, data, threads, mode, confs) + ["-f", f.name],
                              capture_output=True, text=True, timeout=3600)
    finally:
        os.unlink(f.name)
    at = proc.stdout.find("Placement")
    text = proc.stdout[at:] if at >= 0 else proc.stdout[-20000:]
    times = [l for l in proc.stderr.splitlines() if l.startswith("Time:")]
    return text + "\n" + "\n".join(times[-4:]) + "\n" + (proc.stderr[-1500:] if proc.returncode
                                                          else "")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tandem", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--queries", default="6")
    ap.add_argument("--mode", default="cpu")
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--cache", action="store_true", help="CACHE TABLE every table first")
    ap.add_argument("--conf", action="append", default=[])
    ap.add_argument("--out")
    args = ap.parse_args()
    out = []
    for q in [int(q) for q in args.queries.split(",")]:
        out.append(f"== Q{q:02d} device={args.mode}{' cached' if args.cache else ''} "
                   f"{' '.join(args.conf)} (third run of one process)\n")
        out.append(explain_analyze(args.tandem, args.data, q, args.mode, args.threads, args.cache,
                                   args.conf))
    text = "".join(out)
    print(text)
    if args.out:
        open(args.out, "a").write(text)


if __name__ == "__main__":
    main()
