#!/usr/bin/env python3
"""The pyarrow side of the Parquet read benchmark: pyarrow.parquet.read_table(PATH,
use_threads=True) --warmup times untimed, then --reps times timed; prints each time and the
median. Last line, for scripts: "pyarrow median_ms=<ms> rows=<rows> reps=<n>".

    parquet_read_pyarrow.py PATH [--reps N] [--warmup N] [--columns a,b]
"""
import argparse
import statistics
import time

import pyarrow
import pyarrow.parquet as pq


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("path")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--columns", default="")
    args = ap.parse_args()
    columns = args.columns.split(",") if args.columns else None
    times = []
    rows = 0
    for r in range(args.warmup + max(1, args.reps)):
        start = time.perf_counter()
        table = pq.read_table(args.path, columns=columns, use_threads=True)
        ms = (time.perf_counter() - start) * 1000.0
        rows = table.num_rows
        del table
        if r >= args.warmup:
            times.append(ms)
            print(f"pyarrow rep {r - args.warmup + 1}: {ms:.1f} ms", flush=True)
    print(f"pyarrow {pyarrow.__version__}, {pyarrow.cpu_count()} CPU threads")
    print(f"pyarrow median_ms={statistics.median(times):.1f} rows={rows} reps={len(times)}")


if __name__ == "__main__":
    main()
