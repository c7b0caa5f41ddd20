"""A join of a large fact table on a small dimension whose keys spread over a wide range (TPC-H
SF100's Q17: 20K parts of 20M probed by 600M lineitem rows), timed for two tandem binaries
alternating: where the probe side's rows first meet the build keys' bitmap (exec/cpu/key_bitmap.h)
and where they go to the hash table alone. Generates its data (pyarrow) unless present; the
answer is checked against DuckDB's.

    python3 bench/sparse_join_keys.py --old OLD --new NEW [--rows 30000000] [--keys 20000]
                                      [--span 20000000] [--rounds 3] [--threads 2] [--dir D]

Each round runs each binary twice per source, one process each: from the Parquet files, and
after CACHE TABLE of both tables (three runs, the last two timed). Medians of the rounds.
"""
import argparse
import os
import re
import statistics
import subprocess

QUERY = "SELECT count(*) AS n, sum(f.v) AS s FROM fact f JOIN dim d ON f.k = d.k"


def make_data(folder, rows, keys, span):
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq
    os.makedirs(folder, exist_ok=True)
    fact, dim = os.path.join(folder, "fact.parquet"), os.path.join(folder, "dim.parquet")
    if not (os.path.exists(fact) and os.path.exists(dim)):
        rng = np.random.default_rng(1)
        pq.write_table(pa.table({"k": rng.integers(1, span + 1, rows),
                                 "v": rng.integers(0, 1000, rows)}), fact,
                       row_group_size=1_000_000)
        pq.write_table(pa.table({"k": rng.choice(np.arange(1, span + 1), keys, replace=False)}),
                       dim)
    return fact, dim


def timed(binary, fact, dim, threads, hot):
    script = (["CACHE TABLE fact", "CACHE TABLE dim"] + [QUERY] * 3 if hot else [QUERY] * 2)
    out = subprocess.run([binary, "sql", "--timing", "--format", "csv",
                          "--conf", f"tandem.sql.threads={threads}",
                          "--conf", "tandem.sql.device=cpu",
                          "--table", f"fact={fact}", "--table", f"dim={dim}", "; ".join(script)],
                         capture_output=True, text=True, timeout=1800)
    if out.returncode != 0:
        raise SystemExit(f"{binary}: {out.stderr[-800:]}")
    times = [float(t) for t in re.findall(r"^Time: ([0-9.]+) ms$", out.stderr, re.M)]
    rows = [line for line in out.stdout.splitlines() if line and line != "n,s"]
    return statistics.median(times[-2:] if hot else times[-1:]), rows[-1]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--old", required=True)
    ap.add_argument("--new", required=True)
    ap.add_argument("--rows", type=int, default=30_000_000)
    ap.add_argument("--keys", type=int, default=20_000)
    ap.add_argument("--span", type=int, default=20_000_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--dir", default="/tmp/sparse_join_keys")
    args = ap.parse_args()
    fact, dim = make_data(args.dir, args.rows, args.keys, args.span)
    import duckdb
    con = duckdb.connect()
    con.execute(f"CREATE VIEW fact AS SELECT * FROM read_parquet('{fact}')")
    con.execute(f"CREATE VIEW dim AS SELECT * FROM read_parquet('{dim}')")
    expected = ",".join(str(v) for v in con.sql(QUERY).fetchone())
    results = {(b, hot): [] for b in ("old", "new") for hot in (False, True)}
    for r in range(args.rounds):
        order = [("old", args.old), ("new", args.new)]
        for label, binary in (order if r % 2 == 0 else order[::-1]):
            for hot in (False, True):
                ms, answer = timed(binary, fact, dim, args.threads, hot)
                if answer != expected:
                    raise SystemExit(f"{label}: answer {answer}, DuckDB's {expected}")
                results[(label, hot)].append(ms)
                print(f"round {r} {label} {'hot' if hot else 'files'}: {ms:.1f} ms", flush=True)
    print(f"\n{args.rows} probe rows, {args.keys} build keys over a span of {args.span}, "
          f"{args.threads} threads, {args.rounds} rounds; answers equal DuckDB's ({expected})\n")
    print("| source | old ms (median, range) | new ms (median, range) | new / old |")
    print("|---|---:|---:|---:|")
    for hot in (False, True):
        o, n = results[("old", hot)], results[("new", hot)]
        print(f"| {'cached' if hot else 'files'} | {statistics.median(o):.1f} ({min(o):.1f}-"
              f"{max(o):.1f}) | {statistics.median(n):.1f} ({min(n):.1f}-{max(n):.1f}) | "
              f"{statistics.median(n) / statistics.median(o):.2f} |")


if __name__ == "__main__":
    main()
