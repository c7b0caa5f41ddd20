"""TPC-H over tables cached in one process, checked against the CPU from files (SF100 on the
H200: bench/results/tpch_sf100_cached_h200).

Runs the 22 queries (tests/tpch/queries) once each in one `tandem sql` process under
--mode after `CACHE TABLE` of all eight tables (CACHE TABLE keeps what does not fit the GPU in
host memory), then once each from the Parquet files under device=cpu in another process, and
compares the answers (same rows in any order; numbers to 1e-9 relative). Prints each query's
time from `--timing` and its Devices line, and writes a markdown summary.

usage: python3 bench/tpch_cached_check.py --tandem BIN --data DIR --mode gpu --out FILE.md
       --mode gpu,auto,cpu runs each mode in its own process against one CPU reference run and
       writes FILE_<mode>.md for each.
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


def script(cache_mode, run_mode, confs=(), before=()):
    parts = [set_statement(kv) for kv in before]
    if cache_mode:
        parts.append(f"SET tandem.sql.device = {cache_mode};")
        parts += [f"CACHE TABLE {t};" for t in TABLES]
    parts.append(f"SET tandem.sql.device = {run_mode};")
    parts += [set_statement(kv) for kv in confs]
    for n in range(1, 23):
        parts.append(f"SELECT 'Q{n:02d}' AS tpch_marker;")
        with open(os.path.join(QUERIES, f"q{n:02d}.sql")) as f:
            parts.append(f.read().strip())
    return "\n".join(parts) + "\n"


def set_statement(key_value):
    key, value = key_value.split("=", 1)
    return f"SET \"{key}\" = '{value}';"


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
    ap.add_argument("--before", action="append", default=[], type=key_value,
                    help="KEY=VALUE set before caching (e.g. tandem.memory.gpu.limit, to give "
                         "SF10 the little room the cached tables leave at SF100)")
    ap.add_argument("--reference",
                    help="JSON file holding the CPU-from-files run: read when it exists, else "
                         "written, so that later calls over the same data skip that run")
    a = ap.parse_args()
    modes = [m for m in a.mode.split(",") if m]
    files, files_s = reference_run(a)
    print(f"cpu from files: exit {files.returncode} in {files_s:.1f} s", flush=True)
    ref = split_answers(files.stdout)
    bad = 0
    for mode in modes:
        out = a.out if len(modes) == 1 else f"{os.path.splitext(a.out)[0]}_{mode}.md"
        bad += check_mode(a, mode, ref, files, files_s, out)
    return 1 if bad else 0


def reference_run(a):
    """The CPU's answers from the files: from --reference when it exists, else run (and saved
    there when --reference names a file)."""
    if a.reference and os.path.exists(a.reference):
        saved = json.load(open(a.reference))
        print(f"cpu from files: read from {a.reference}", flush=True)
        return (subprocess.CompletedProcess([], saved["returncode"], saved["stdout"], ""),
                saved["seconds"])
    files, files_s = run(a.tandem, a.data, script(None, "cpu"), a.timeout)
    if a.reference and files.returncode == 0:
        json.dump({"returncode": 0, "stdout": files.stdout, "seconds": files_s},
                  open(a.reference, "w"))
    return files, files_s


def check_mode(a, mode, ref, files, files_s, out):
    """Runs the 22 under `mode` (cached unless --files), compares with `ref`, writes `out`;
    returns the number of queries whose answers differ or are missing."""
    cached, cached_s = run(a.tandem, a.data,
                           script(None if a.files else mode, mode, a.conf, a.before), a.timeout)
    print(f"cached run ({mode}): exit {cached.returncode} in {cached_s:.1f} s", flush=True)
    sys.stdout.write(cached.stderr[-3000:] if cached.returncode else "")
    got = split_answers(cached.stdout)
    times, devices, peaks = per_query_stderr(cached.stderr)
    cache_lines = re.findall(r"cached table .*", cached.stdout + cached.stderr)
    # Statement order: SET, 8 CACHE, SET, then (marker, query) x 22 (Q15: view + query + drop).
    what = "from files" if a.files else "cached"
    lines = [f"# TPC-H {what} under device={mode} {' '.join(a.before + a.conf)}, checked against cpu "
             "from files", "",
             f"data: {a.data}; cached process {cached_s:.1f} s (exit {cached.returncode}), "
             f"files process {files_s:.1f} s (exit {files.returncode})", ""]
    lines += [f"- {c}" for c in cache_lines] + [""]
    qt = query_times(times, len(a.before) + (0 if a.files else 1 + len(TABLES)) + 1 + len(a.conf))
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
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines), flush=True)
    return bad


if __name__ == "__main__":
    sys.exit(main())
