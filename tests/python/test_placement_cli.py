"""Placement from the command line: `tandem config --list`, --conf and SET through the
configuration registry, `tandem explain --target h200` planning for the H200 on a machine without
a GPU (text and JSON), the planning-time report of tandem.sql.explain, device=gpu and device=auto
without a usable GPU, `tandem calibrate`, and CACHE TABLE giving the same answers as uncached
scans."""
import json
import os
import subprocess

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

TANDEM = os.environ.get("TANDEM_BIN", "tandem")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
KEYS = ["tandem.sql.device", "tandem.sql.explain", "tandem.sql.ansi", "tandem.sql.threads",
        "tandem.memory.gpu.allocFraction", "tandem.memory.gpu.reserve", "tandem.memory.gpu.limit",
        "tandem.test.injectOom",
        "tandem.memory.pinned.poolSize", "tandem.memory.pinned.maxPoolSize",
        "tandem.placement.target",
        "tandem.placement.calibrationFile"]


@pytest.fixture(autouse=True)
def no_user_calibration(tmp_path, monkeypatch):
    # The user's ~/.config/tandem/calibration.json must not change what these tests see.
    monkeypatch.setenv("TANDEM_CALIBRATION", str(tmp_path / "no-calibration.json"))


def tandem(*args, stdin=None):
    return subprocess.run([TANDEM, *args], capture_output=True, text=True, input=stdin,
                          timeout=300)


def gpu_usable():
    r = tandem("sql", "--conf", "tandem.sql.device=gpu", "SELECT 1 AS x")
    return r.returncode == 0


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    """5M rows into 200K groups: large enough that the H200 figures put a filter + aggregation on
    the GPU (into a few groups the CPU aggregates faster than the rows cross PCIe)."""
    n = 5_000_000
    path = tmp_path_factory.mktemp("big") / "big.parquet"
    pq.write_table(pa.table({"k": np.arange(n) % 200_000, "v": np.arange(n) * 1.5,
                             "w": np.arange(n)}), path)
    return path


@pytest.fixture(scope="module")
def tpch(tmp_path_factory):
    out = tmp_path_factory.mktemp("tpch") / "sf0.01"
    r = tandem("datagen", "tpch", "--sf", "0.01", "--out", str(out))
    assert r.returncode == 0, r.stderr
    return out


def table_args(tpch):
    args = []
    for t in ["lineitem", "orders", "customer", "part", "partsupp", "supplier", "nation",
              "region"]:
        args += ["--table", f"{t}={tpch / t}"]
    return args


def query_text(n):
    with open(os.path.join(ROOT, "tests", "tpch", "queries", f"q{n:02d}.sql")) as f:
        return f.read()


AGG = "SELECT k, sum(v) AS s FROM t WHERE w % 3 = 0 GROUP BY k"


def test_config_list_describes_every_key():
    r = tandem("config", "--list")
    assert r.returncode == 0, r.stderr
    for key in KEYS:
        assert key + "\n" in r.stdout
    assert "default: auto" in r.stdout and "auto|gpu|cpu" in r.stdout
    assert "ALL|NOT_ON_GPU|NONE" in r.stdout
    r = tandem("config", "--list", "--json")
    assert r.returncode == 0, r.stderr
    keys = {k["name"]: k for k in json.loads(r.stdout)}
    assert set(KEYS) <= set(keys)
    assert keys["tandem.sql.device"]["allowed"] == ["auto", "gpu", "cpu"]
    assert keys["tandem.sql.explain"]["default"] == "NONE"
    assert all(k["doc"] for k in keys.values())
    assert tandem("config").returncode == 2


@pytest.mark.parametrize("conf, needle", [
    ("tandem.sql.device=tpu", "tandem.sql.device takes auto, gpu or cpu, got 'tpu'"),
    ("tandem.memory.gpu.allocFraction=2", "tandem.memory.gpu.allocFraction"),
    ("tandem.nope=1", "unknown setting tandem.nope"),
    ("novalue", "--conf takes key=value"),
    ("tandem.test.injectOom=-3", "tandem.test.injectOom takes off, a positive integer N"),
    ("tandem.test.injectOom=random:x", "the seed after 'random:' must be a positive integer"),
])
def test_bad_conf_is_a_usage_error_naming_the_key(conf, needle):
    for command in (["sql", "SELECT 1"], ["explain", "SELECT 1"]):
        r = tandem(*command, "--conf", conf)
        assert r.returncode == 2, (command, r.stderr)
        assert needle in r.stderr


def test_conf_and_set_reach_the_session():
    r = tandem("sql", "--conf", "tandem.sql.ansi=true", "SELECT 1 / 0 AS q")
    assert r.returncode == 1 and "division by zero" in r.stderr
    r = tandem("sql", "SET tandem.sql.ansi = true; SELECT 1 / 0 AS q")
    assert r.returncode == 1 and "division by zero" in r.stderr
    r = tandem("sql", "SET tandem.sql.device = cpu; SET threads = 1; "
               "SET tandem.sql.explain = NOT_ON_GPU; SELECT 6 * 7 AS q", "--format", "csv")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["q", "42"]
    r = tandem("sql", "SET tandem.sql.device = sometimes")
    assert r.returncode == 1
    assert r.stderr.count("\n") == 1 and "tandem.sql.device takes auto, gpu or cpu" in r.stderr


def test_explain_for_the_h200_without_a_gpu(big):
    # With the default margin (tandem.placement.minGain = 0.1) this plan's few-percent estimated
    # gain keeps it on the CPU, whole; without the margin the GPU plan wins.
    r = tandem("explain", "--target", "h200", AGG, "--table", f"t={big}")
    assert r.returncode == 0, r.stderr
    assert all(l.split()[0] == "cpu" for l in r.stdout.splitlines()[1:]), r.stdout
    r = tandem("explain", "--target", "h200", AGG, "--table", f"t={big}",
               "--conf", "tandem.placement.minGain=0")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith("Placement: device=auto, target=h200, built-in H200 figures")
    on_gpu = [l.split()[1] for l in lines[1:] if l.startswith("gpu")]
    assert "Aggregate" in on_gpu
    # The Parquet file is decoded on the GPU or on the host by the cost model's rates; either
    # way no plan bounces: a host scan feeds the GPU through one upload, a GPU scan needs none.
    uploads = sum(1 for l in lines if l.startswith("pcie") and "HostToDevice" in l)
    assert sum(1 for l in lines if l.startswith("pcie") and "DeviceToHost" in l) == 1
    gpu_scan = any(l.startswith("gpu") and "Scan t" in l for l in lines)
    cpu_scan = any(l.startswith("cpu") and "Scan t" in l for l in lines)
    assert (gpu_scan and uploads == 0) or (cpu_scan and uploads == 1), r.stdout

    # Small inputs stay on the CPU, with both estimates.
    small = big.parent / "small.parquet"
    pq.write_table(pq.read_table(big).slice(0, 2000), small)
    r = tandem("explain", "--target", "h200", AGG, "--table", f"t={small}")
    assert r.returncode == 0, r.stderr
    assert not [l for l in r.stdout.splitlines() if l.startswith(("gpu", "pcie"))]
    assert "moved to the CPU by the cost model (cpu est" in r.stdout

    # The same query without a target plans for this machine.
    r = tandem("explain", AGG, "--table", f"t={big}")
    assert r.returncode == 0, r.stderr
    if not gpu_usable():
        assert "no usable GPU" in r.stdout.splitlines()[0]
        assert all(l.split()[0] == "cpu" for l in r.stdout.splitlines()[1:])


def test_explain_json(big):
    r = tandem("explain", "--target", "h200", "--json", AGG, "--table", f"t={big}",
               "--conf", "tandem.placement.minGain=0")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["placement"]["target"] == "h200" and doc["placement"]["uses_gpu"] is True
    assert doc["placement"]["estimated_ms"] <= doc["placement"]["all_cpu_estimated_ms"]

    def walk(node):
        yield node
        for c in node["children"]:
            yield from walk(c)

    nodes = list(walk(doc["plan"]))
    devices = [n["device"] for n in nodes]
    assert "gpu" in devices and devices.count("pcie") in (1, 2)
    assert devices[-1] == ("gpu" if devices.count("pcie") == 1 else "cpu")
    assert all("cpu_est_ms" in n for n in nodes if n["placement"] == "cpu_cost_model")
    r = tandem("explain", "--json", "--analyze", AGG, "--table", f"t={big}",
               "--conf", "tandem.sql.device=cpu")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["total"]["rows"] == 200_000
    assert all(n["actual"]["device"] == "cpu" for n in walk(doc["plan"]) if "actual" in n)


def test_explain_setting_reports_placement_on_stderr(big):
    r = tandem("sql", "--conf", "tandem.sql.explain=ALL", "--conf", "tandem.placement.target=h200",
               "--conf", "tandem.sql.device=cpu", AGG, "--table", f"t={big}", "--format", "csv")
    assert r.returncode == 0, r.stderr
    assert len(r.stdout.splitlines()) == 200_001
    assert "tandem: Placement: device=cpu" in r.stderr
    assert "!Aggregate keys=[k]" in r.stderr and "tandem.sql.device=cpu" in r.stderr
    r = tandem("sql", "--conf", "tandem.sql.explain=NOT_ON_GPU", "--conf", "tandem.sql.device=cpu",
               AGG, "--table", f"t={big}", "--format", "csv")
    assert "!Scan t" in r.stderr


def test_device_gpu_without_a_gpu_is_one_clear_line():
    if gpu_usable():
        pytest.skip("a GPU is usable here")
    r = tandem("sql", "--conf", "tandem.sql.device=gpu", "SELECT 1 AS x")
    assert r.returncode == 1
    assert r.stderr.count("\n") == 1
    assert r.stderr.startswith("tandem: tandem.sql.device=gpu but no GPU is usable")
    # auto, set explicitly, falls back to the CPU with a one-line notice; left at its default
    # it stays quiet (scripts and logs) unless stderr is a terminal.
    r = tandem("sql", "--conf", "tandem.sql.device=auto", "SELECT 1 AS x", "--format", "csv")
    assert r.returncode == 0 and r.stdout.splitlines() == ["x", "1"]
    assert r.stderr.count("\n") == 1 and "running on the CPU" in r.stderr
    r = tandem("sql", "SELECT 1 AS x", "--format", "csv")
    assert r.returncode == 0 and r.stderr == ""


def test_calibrate_writes_a_file_the_planner_reads(tmp_path, big):
    out = tmp_path / "cal" / "calibration.json"
    r = tandem("calibrate", "--rows", "20000", "--repeats", "1", "--cpu-only", "--output", str(out))
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == str(out)
    doc = json.loads(out.read_text())
    assert doc["version"] == 1 and doc["rows"] == 20000
    assert all(v > 0 for v in doc["cpu"]["throughput_bytes_per_s"].values())
    assert "gpu" not in doc
    assert "cpu filter:" in r.stderr
    assert [p.name for p in out.parent.iterdir()] == ["calibration.json"]  # no temporary left
    r = tandem("explain", "--target", "h200", AGG, "--table", f"t={big}",
               "--conf", f"tandem.placement.calibrationFile={out}")
    assert r.returncode == 0, r.stderr
    assert f"CPU calibrated ({out})" in r.stdout.splitlines()[0]
    out.write_text("{broken")
    r = tandem("explain", AGG, "--table", f"t={big}",
               "--conf", f"tandem.placement.calibrationFile={out}")
    assert r.returncode == 1 and str(out) in r.stderr and r.stderr.count("\n") == 1


def test_cache_table_gives_the_same_answers(tpch, tmp_path):
    queries = [1, 3, 6, 10, 12, 18]
    body = "".join(query_text(q).rstrip().rstrip(";") + ";\n" for q in queries)
    uncached = tandem("sql", "-f", "-", *table_args(tpch), "--format", "jsonl", stdin=body)
    assert uncached.returncode == 0, uncached.stderr
    cache = "".join(f"CACHE TABLE {t};\n" for t in ["lineitem", "orders", "customer", "nation"])
    cached = tandem("sql", "-f", "-", *table_args(tpch), "--format", "jsonl", stdin=cache + body)
    assert cached.returncode == 0, cached.stderr
    assert cached.stdout == uncached.stdout
    assert uncached.stdout.count("\n") > 20

    script = ("CACHE TABLE nation;\nEXPLAIN ANALYZE SELECT count(*) FROM nation;\n"
              "UNCACHE TABLE nation;\nUNCACHE TABLE IF EXISTS nation;\n"
              "SELECT count(*) AS n FROM nation;\n")
    r = tandem("sql", "-f", "-", *table_args(tpch), stdin=script)
    assert r.returncode == 0, r.stderr
    assert "cached table nation (25 rows" in r.stdout
    assert "cached in" in r.stdout
    assert "uncached table nation" in r.stdout and "table nation was not cached" in r.stdout
    r = tandem("sql", "-f", "-", *table_args(tpch),
               stdin="SELECT 1;\nCACHE TABLE nope;\n")
    assert r.returncode == 1 and "no table named nope (line 2:1)" in r.stderr


def test_window_and_set_operations_are_placed_on_the_gpu():
    # The GPU twins of Window and SetOp are in the plan for the H200 (their answers on a GPU are
    # tested by test_window_setop_gpu.py); NTILE has no GPU twin and stays on the CPU.
    import test_tpch_queries as tpch
    from test_window_setop_gpu import QUERIES
    tables, _ = tpch.dataset("tandem-sf0.01")
    table_args = [a for t, p in tables.items() for a in ("--table", f"{t}={p}")]
    ntile = "SELECT c_custkey, ntile(4) OVER (ORDER BY c_acctbal) AS q FROM customer"
    for sql, operator, device in [(QUERIES["rank_per_nation"], "Window", "gpu"),
                                  (QUERIES["union"], "Union", "gpu"),
                                  (QUERIES["intersect"], "Intersect", "gpu"), (ntile, "Window", "cpu")]:
        r = tandem("explain", "--target", "h200", "--conf", "tandem.sql.device=gpu", sql,
                   *table_args)
        assert r.returncode == 0, r.stderr
        lines = [l for l in r.stdout.splitlines() if operator in l]
        assert lines and all(l.split()[0] == device for l in lines), r.stdout
    assert "window function ntile" in r.stdout, r.stdout
