"""TPC-H over tables cached in one process, checked against the CPU from files (SF100 on the
H200: bench/results/tpch_sf100_cached_h200).

Runs the 22 queries (tests/tpch/queries) once each in one `tandem sql` process under
--mode after `CACHE TABLE` of all eight tables (CACHE TABLE keeps what does not fit the GPU in
host memory), then once each from the Parquet files under device=cpu in another process, and
compares the answers (same rows in any order; numbers to 1e-9 relative). Prints each query's
time from `--timing` and its Devices line, and writes a markdown summary.

usage: python3 bench/tpch_cached_check.py --tandem BIN --data DIR --mode gpu --out FILE.md
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

TABLES = ["region", "nation", "part", "supplier", "partsupp", "customer", "orders", "lineitem"]
HERE = os.path.dirname(os.path.abspath(__file__))
QUERIES = os.path.join(HERE, "..", "tests", "tpch", "queries")


def script(cache_mode, run_mode, confs=()):
    parts = []
    if cache_mode:
        parts.append(f"SET tandem.sql.device = {cache_mode};")
        parts += [f"CACHE TABLE {t};" for t in TABLES]
    parts.append(f"SET tandem.sql.device = {run_mode};")
    for kv in confs:
        key, value = kv.split("=", 1)
        parts.append(f"SET \"{key}\" = '{value}';")
    for n in range(1, 23):
        parts.append(f"SELECT 'Q{n:02d}' AS tpch_marker;")
        with open(os.path.join(QUERIES, f"q{n:02d}.sql")) as f:
            parts.append(f.read().strip())
    return "\n".join(parts) + "\n"


def run(tandem, data, text, timeout):
    cmd = [tandem, "sql", "-f", "-", "--format", "jsonl", "--timing"]
    for t in TABLES:
        cmd += ["--table", f"{t}={data}/{t}"]
    started = time.time()
    p = subprocess.run(cmd, input=text, capture_output=True, text=True, timeout=timeout)
    return p, time.time() - started


def split_answers(stdout):
    answers, current = {}, None
    for line in stdout.splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        if list(row) == ["tpch_marker"]:
            current = row["tpch_marker"]
            answers[current] = []
        elif current:
            answers[current].append(tuple(row.values()))
    return answers


def close(a, b):
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b or abs(a - b) <= 1e-9 * max(abs(a), abs(b))
    if isinstance(a, str) and isinstance(b, str):
        try:
            x, y = float(a), float(b)
            return x == y or abs(x - y) <= 1e-9 * max(abs(x), abs(y))
        except ValueError:
            return a == b
    return a == b


def same(rows_a, rows_b):
    if len(rows_a) != len(rows_b):
        return f"{len(rows_a)} rows against {len(rows_b)}"
    key = lambda r: tuple("" if v is None else str(v) for v in r)
    for ra, rb in zip(sorted(rows_a, key=key), sorted(rows_b, key=key)):
        if len(ra) != len(rb) or not all(close(x, y) for x, y in zip(ra, rb)):
            return f"row {ra} against {rb}"
    return ""


def statement_count(n):
    with open(os.path.join(QUERIES, f"q{n:02d}.sql")) as f:
        text = "\n".join(l for l in f.read().splitlines() if not l.strip().startswith("--"))
    return max(1, sum(1 for piece in text.split(";") if piece.strip()))


def query_times(times, prelude):
    """Each query's time (its statements' Time lines summed) after `prelude` statements."""
    out, i = {}, prelude
    for n in range(1, 23):
        i += 1  # the marker
        k = statement_count(n)
        out[n] = sum(times[i:i + k]) if i + k <= len(times) else None
        i += k
    return out


def per_query_stderr(stderr):
    """Time and Devices lines of the statements after the marker selects."""
    times = [float(m) for m in re.findall(r"^Time: ([0-9.]+) ms", stderr, re.M)]
    devices = re.findall(r"^Devices: (.*)$", stderr, re.M)
    peaks = re.findall(r"^Peak memory: (.*)$", stderr, re.M)
    return times, devices, peaks


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tandem", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--mode", default="gpu")
    ap.add_argument("--out", required=True)
    ap.add_argument("--timeout", type=int, default=420)
    ap.add_argument("--files", action="store_true",
                    help="read the files under --mode instead of caching the tables")
    def key_value(text):
        if "=" not in text or not text.split("=", 1)[0]:
            raise argparse.ArgumentTypeError(f"--conf takes KEY=VALUE, got {text!r}")
        return text

    ap.add_argument("--conf", action="append", default=[], type=key_value,
                    help="KEY=VALUE set after caching, for the measured queries")
    a = ap.parse_args()
    cached, cached_s = run(a.tandem, a.data,
                           script(None if a.files else a.mode, a.mode, a.conf), a.timeout)
    print(f"cached run ({a.mode}): exit {cached.returncode} in {cached_s:.1f} s", flush=True)
    sys.stdout.write(cached.stderr[-3000:] if cached.returncode else "")
    files, files_s = run(a.tandem, a.data, script(None, "cpu"), a.timeout)
    print(f"cpu from files: exit {files.returncode} in {files_s:.1f} s", flush=True)
    got, ref = split_answers(cached.stdout), split_answers(files.stdout)
    times, devices, peaks = per_query_stderr(cached.stderr)
    cache_lines = re.findall(r"cached table .*", cached.stdout + cached.stderr)
    # Statement order: SET, 8 CACHE, SET, then (marker, query) x 22 (Q15: view + query + drop).
    what = "from files" if a.files else "cached"
    lines = [f"# TPC-H {what} under device={a.mode} {' '.join(a.conf)}, checked against cpu "
             "from files", "",
             f"data: {a.data}; cached process {cached_s:.1f} s (exit {cached.returncode}), "
             f"files process {files_s:.1f} s (exit {files.returncode})", ""]
    lines += [f"- {c}" for c in cache_lines] + [""]
    qt = query_times(times, (0 if a.files else 1 + len(TABLES)) + 1 + len(a.conf))
    lines += ["| query | time (ms) | answer | devices | peak memory |", "|---|---|---|---|---|"]
    bad = 0
    for n in range(1, 23):
        q = f"Q{n:02d}"
        if q not in got or q not in ref:
            verdict = "missing"
        else:
            diff = same(got[q], ref[q])
            verdict = "equal" if not diff else "DIFF: " + diff[:200]
        bad += verdict != "equal"
        i = 2 * n - 1  # Devices lines: one per SELECT (markers included)
        t = f"{qt[n]:.0f}" if qt.get(n) is not None else ""
        lines.append(f"| {q} | {t} | {verdict} | {devices[i] if i < len(devices) else ''} | "
                     f"{peaks[i] if i < len(peaks) else ''} |")
    lines += ["", "Time lines of the cached process (ms, in statement order):",
              " ".join(f"{t:.0f}" for t in times)]
    with open(a.out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
