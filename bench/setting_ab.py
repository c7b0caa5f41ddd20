"""A/B of one setting inside one `tandem sql` process: TPC-H queries run with the setting at A and
at B, alternating per query and round (the order flips every round), after one warm-up round.
Tables come from Parquet files, or are cached first (in host or GPU memory). Each query's time is
its statements' `--timing` times summed; the report gives per-query medians, the ratio A/B, and
whether the two ranges overlap (then the ratio is within this run's noise).

    python3 bench/setting_ab.py --tandem BIN --data DIR --setting KEY --a VALUE --b VALUE
        [--queries 1,3,6] [--cache none|host|gpu] [--prelude "SET ...;"] [--rounds 5] [--out F]

Example (GPU slices made ahead or not, lineitem cached in host memory, 512 MiB slices):
    --setting tandem.exec.gpu.prefetchSlices --a false --b true --cache host \
    --prelude "SET tandem.sql.device = gpu; SET tandem.exec.gpu.chunkBytes = '512m';"
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

TABLES = ["region", "nation", "part", "supplier", "partsupp", "customer", "orders", "lineitem"]
QUERIES = os.path.join(os.path.dirname(__file__), "..", "tests", "tpch", "queries")


def statements_of(q):
    with open(os.path.join(QUERIES, f"q{q:02d}.sql")) as f:
        lines = f.read().splitlines()
    text = "\n".join(l for l in lines if not l.lstrip().startswith("--"))
    return [p.strip() for p in text.split(";") if p.strip()]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tandem", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--setting", required=True)
    ap.add_argument("--a", required=True)
    ap.add_argument("--b", required=True)
    ap.add_argument("--queries", default="1,3,6,18")
    ap.add_argument("--cache", choices=["none", "host", "gpu"], default="none")
    ap.add_argument("--prelude", default="")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--timeout", type=int, default=3000)
    ap.add_argument("--out")
    args = ap.parse_args()
    queries = [int(q) for q in args.queries.split(",")]

    script = []  # (statement, (query, value, round) or None)
    if args.cache != "none":
        script.append((f"SET tandem.sql.device = {'cpu' if args.cache == 'host' else 'gpu'}",
                       None))
        script += [(f"CACHE TABLE {t}", None) for t in TABLES]
    script += [(s.strip(), None) for s in args.prelude.split(";") if s.strip()]
    for r in range(args.rounds + 1):  # round 0: warm-up
        order = [args.a, args.b] if r % 2 == 0 else [args.b, args.a]
        for q in queries:
            for v in order:
                script.append((f"SET {args.setting} = {v}", None))
                script += [(s, (q, v, r)) for s in statements_of(q)]
    with tempfile.NamedTemporaryFile("w", suffix=".sql", delete=False) as f:
        f.write(";\n".join(s for s, _ in script) + ";\n")
        path = f.name
    cmd = [args.tandem, "sql", "-f", path, "--timing", "--format", "csv"]
    for t in TABLES:
        cmd += ["--table", f"{t}={os.path.join(args.data, t)}"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
    os.unlink(path)
    if proc.returncode != 0:
        raise SystemExit(f"tandem: exit {proc.returncode}: {proc.stderr[-3000:]}")
    times = [float(m) for m in re.findall(r"^Time: ([0-9.]+) ms$", proc.stderr, re.M)]
    if len(times) != len(script):
        raise SystemExit(f"{len(times)} Time lines for {len(script)} statements")
    per = {}  # (q, value) -> {round: ms}
    for (_, tag), ms in zip(script, times):
        if tag and tag[2] > 0:
            q, v, r = tag
            per.setdefault((q, v), {}).setdefault(r, 0.0)
            per[(q, v)][r] += ms

    lines = [f"# `{args.setting}`: {args.a} (A) against {args.b} (B)", "",
             f"- command: `python3 bench/setting_ab.py {' '.join(sys.argv[1:])}`",
             f"- one process; cache: {args.cache}; {args.rounds} rounds after a warm-up, A and B "
             "alternating per query (order flipped each round); medians of the rounds", "",
             "| query | A (ms) | B (ms) | A/B | ranges overlap |", "|---|---:|---:|---:|---|"]
    ratios = []
    for q in queries:
        a = list(per[(q, args.a)].values())
        b = list(per[(q, args.b)].values())
        ma, mb = statistics.median(a), statistics.median(b)
        overlap = min(a) <= max(b) and min(b) <= max(a)
        ratios.append(ma / mb)
        lines.append(f"| Q{q:02d} | {ma:.1f} ({min(a):.1f}-{max(a):.1f}) | {mb:.1f} "
                     f"({min(b):.1f}-{max(b):.1f}) | {ma / mb:.2f}x | {'yes' if overlap else 'no'} |")
    geo = statistics.geometric_mean(ratios)
    lines += ["", f"- geomean A/B: {geo:.2f}x (above 1: B faster)"]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
