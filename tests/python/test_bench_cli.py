"""`tandem bench fallback` and `tandem bench tpch` end to end, at sizes small enough for CI:
each writes report.html (self-contained, with SVG charts), results.csv (one row per cell, the
documented columns) and results.md under --out; every measured cell's answer is checked equal
across modes, and the identity-UDF conditions give native's answer. Without a GPU the gpu cells
are "n/a: no usable GPU", never an error or a number."""
import csv
import os
import subprocess
import time

import pytest

TANDEM = os.environ.get("TANDEM_BIN", "tandem")
LIB = os.environ.get("TANDEM_UDF_EXAMPLE_LIB", "")

COLUMNS = ["benchmark", "group", "scale", "rows", "engine", "mode", "status", "reps",
           "median_ms", "min_ms", "max_ms", "times_ms", "ratio_vs_cpu", "check", "date",
           "machine", "gpu", "version", "devices", "peak_memory"]
CONDITIONS = ["native", "after_agg", "after_filter", "before_filter", "two_islands",
              "before_filter_w4", "before_filter_w8", "before_filter_w12"]


def bench(*args):
    proc = subprocess.run([TANDEM, "bench", *args], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc


def read_outputs(out):
    for name in ("report.html", "results.csv", "results.md"):
        assert os.path.isfile(os.path.join(out, name)), name
    assert not [n for n in os.listdir(out) if ".tmp" in n]
    with open(os.path.join(out, "report.html")) as f:
        html = f.read()
    with open(os.path.join(out, "results.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    with open(os.path.join(out, "results.md")) as f:
        md = f.read()
    with open(os.path.join(out, "results.csv"), newline="") as f:
        header = next(csv.reader(f))
    assert header == COLUMNS
    assert "<svg" in html and "</html>" in html and "<script" not in html
    assert "https://" not in html
    return html, rows, md


@pytest.mark.skipif(not LIB or not os.path.exists(LIB),
                    reason="TANDEM_UDF_EXAMPLE_LIB not set or not built")
def test_bench_fallback_small(tmp_path):
    out = tmp_path / "fallback"
    started = time.time()
    proc = bench("fallback", "--rows", "20000", "--reps", "1", "--modes", "cpu,auto",
                 "--udf", LIB, "--data", str(tmp_path / "data"), "--out", str(out))
    assert proc.stdout.strip() == str(out)
    html, rows, md = read_outputs(str(out))
    assert len(rows) == len(CONDITIONS) * 2  # one row per (condition, mode)
    assert [r["group"] for r in rows[::2]] == CONDITIONS
    for r in rows:
        assert r["benchmark"] == "fallback" and r["rows"] == "20000" and r["engine"] == "tandem"
        assert r["status"] == "ok", r
        assert float(r["median_ms"]) > 0 and r["reps"] == "1"
        assert r["date"] and r["machine"] and r["gpu"] and r["version"].startswith("tandem")
        # Where the measured plan ran (no GPU here: the CPU).
        assert r["devices"] == "cpu only", r
        assert r["peak_memory"].startswith("host "), r  # the last run's peak
        if r["mode"] == "cpu":
            assert float(r["ratio_vs_cpu"]) == 1.0
            assert r["check"].startswith("reference"), r
            if r["group"] != "native":
                assert "equals native" in r["check"], r
        else:
            assert r["check"] == "ok", r
            ratio = float(r["ratio_vs_cpu"])
            cpu = next(c for c in rows if c["group"] == r["group"] and c["mode"] == "cpu")
            assert ratio == pytest.approx(float(cpu["median_ms"]) / float(r["median_ms"]),
                                          rel=1e-3)
    assert "DIFF" not in md and "DIFF" not in html
    assert "| before_filter_w12 |" in md
    # The data was generated once, with the stamp that lets later runs reuse it.
    assert (tmp_path / "data" / "rows-20000" / "GENERATED").exists()
    assert time.time() - started < 45


def test_bench_tpch_small(tmp_path):
    out = tmp_path / "tpch"
    bench("tpch", "--sf", "0.01", "--reps", "1", "--modes", "cpu,gpu", "--duckdb", "off",
          "--sources", "files,hot", "--data", str(tmp_path / "tpch-data"), "--out", str(out),
          "--conf", "tandem.optimizer.joinOrderByBytes=true")
    html, rows, md = read_outputs(str(out))
    assert "Tandem settings: tandem.optimizer.joinOrderByBytes=true." in md
    assert len(rows) == 22 * 2 * 2
    gpu_usable = not rows[0]["gpu"].startswith("none usable")
    for n in range(1, 23):
        for engine in ("tandem", "tandem-hot"):
            cell = [r for r in rows if r["group"] == f"Q{n:02d}" and r["engine"] == engine]
            cpu = [r for r in cell if r["mode"] == "cpu"]
            gpu = [r for r in cell if r["mode"] == "gpu"]
            assert len(cpu) == 1 and len(gpu) == 1
            # Hot runs every query in one process; its answers must be each query's own.
            assert cpu[0]["status"] == "ok" and cpu[0]["check"] == (
                "reference" if engine == "tandem" else "reference (equals files)"), cpu[0]
            if gpu_usable:
                assert gpu[0]["status"] == "ok" and gpu[0]["check"] == "ok", gpu[0]
            else:
                assert gpu[0]["status"] == "n/a: no usable GPU" and gpu[0]["median_ms"] == ""
                assert gpu[0]["ratio_vs_cpu"] == ""
    assert "Q22" in html and "<rect" in html


def test_bench_tpch_names_tables_left_in_their_files(tmp_path):
    # Under a host budget too small for lineitem, CACHE TABLE leaves it in its files: the hot
    # cells then read it from there, and the report says so.
    out = tmp_path / "tpch"
    bench("tpch", "--sf", "0.01", "--reps", "1", "--modes", "cpu", "--duckdb", "off",
          "--sources", "hot", "--queries", "1,6", "--data", str(tmp_path / "tpch-data"),
          "--out", str(out), "--conf", "tandem.memory.host.limit=6m")
    _, rows, md = read_outputs(str(out))
    assert [r["status"] for r in rows] == ["ok", "ok"], rows
    assert "- hot cpu: table lineitem not cached (queries read it from its files)" in md, md


def test_bench_usage_errors():
    proc = subprocess.run([TANDEM, "bench", "fallback", "--modes", "tpu"], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 2 and "--modes" in proc.stderr
    proc = subprocess.run([TANDEM, "bench", "nope"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "unknown benchmark" in proc.stderr
    # A setting is checked before anything runs: a misspelt key or a bad value is one usage
    # error, and the device and threads have their own options.
    for conf, says in [("tandem.optimizer.joinOrderByByte=true", "unknown setting"),
                       ("tandem.optimizer.joinOrderByBytes=maybe", "true or false"),
                       ("tandem.sql.device=gpu", "use --modes"),
                       (" TANDEM.SQL.DEVICE = gpu", "use --modes"), ("threads=8", "use --modes"),
                       ("novalue", "key=value")]:
        proc = subprocess.run([TANDEM, "bench", "tpch", "--conf", conf], capture_output=True,
                              text=True, timeout=60)
        assert proc.returncode == 2 and says in proc.stderr.splitlines()[0], proc.stderr


@pytest.mark.parametrize("script, says", [
    ("import sys; sys.exit(3)", "exit code 3"),                 # fails without a word
    ("import time; time.sleep(30)", "timed out after 1 s"),     # outlives --timeout
    ("print('not json')", "unreadable DuckDB output")])
def test_bench_tpch_reports_a_failed_duckdb_run(tmp_path, script, says):
    # DuckDB runs in a Python child (TANDEM_BENCH_PYTHON picks it); whatever way that child
    # fails, --duckdb on is one clear error and --duckdb auto a note in the report.
    python = tmp_path / "python"
    python.write_text(f"#!/bin/sh\nexec python3 -c \"{script}\"\n")
    python.chmod(0o755)
    env = dict(os.environ, TANDEM_BENCH_PYTHON=str(python))
    args = [TANDEM, "bench", "tpch", "--sf", "0.01", "--reps", "1", "--modes", "cpu",
            "--sources", "files", "--queries", "6", "--timeout", "1",
            "--data", str(tmp_path / "tpch-data")]
    proc = subprocess.run(args + ["--duckdb", "on", "--out", str(tmp_path / "on")],
                          capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode != 0 and "internal error" not in proc.stderr, proc.stderr
    assert f"DuckDB reference failed: {says}" in proc.stderr.splitlines()[-1], proc.stderr
    proc = subprocess.run(args + ["--duckdb", "auto", "--out", str(tmp_path / "auto")],
                          capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 0, proc.stderr
    _, rows, md = read_outputs(str(tmp_path / "auto"))
    assert [r["engine"] for r in rows] == ["tandem"]
    assert f"DuckDB: not measured ({says})." in md, md
