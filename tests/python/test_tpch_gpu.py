"""The 22 TPC-H queries with tandem.sql.device = gpu and = auto give DuckDB's answers (the same
reference as test_tpch_queries.py, whose data sets and comparison rules this reuses), and so do
they under gpu with every expression in a kernel generated for it (gpu-generated:
tandem.exec.gpu.generatedKernels = wait, kernels kept in one folder for the module) and with
those kernels compiled in the background (gpu-background). Needs a
usable CUDA device: without one every case is skipped with "skipped: no CUDA device" (ctest label
gpu). SF1 joins the data sets with TANDEM_TPCH_SF1=1, as in test_tpch_queries.py.
"""
import subprocess

import pytest

import test_tpch_queries as tpch
from random_queries import tandem_command

_usable = None


def gpu_usable():
    global _usable
    if _usable is None:
        cmd = tandem_command()
        if not cmd:
            _usable = False
        else:
            out = subprocess.run(cmd + ["version"], capture_output=True, text=True).stdout
            _usable = "GPU: none usable" not in out and "GPU:" in out
    return _usable


MODES = {
    "gpu": ["--conf", "tandem.sql.device=gpu"],
    "auto": ["--conf", "tandem.sql.device=auto"],
    "gpu-generated": ["--conf", "tandem.sql.device=gpu",
                      "--conf", "tandem.exec.gpu.generatedKernels=wait"],
    # A fresh process per query: compiles start in the background and the process may exit while
    # one runs (they are drained at exit); the first uses interpret.
    "gpu-background": ["--conf", "tandem.sql.device=gpu",
                       "--conf", "tandem.exec.gpu.generatedKernels=background"],
}


@pytest.fixture(scope="module")
def kernel_dir(tmp_path_factory):
    return str(tmp_path_factory.mktemp("kernels"))


@pytest.mark.parametrize("n", range(1, 23), ids=lambda n: f"q{n:02d}")
@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("data_name", tpch.DATASETS)
def test_tpch_query_on_device(data_name, mode, n, kernel_dir):
    if not gpu_usable():
        pytest.skip("skipped: no CUDA device")
    args = MODES[mode] + ["--conf", f"tandem.exec.gpu.kernelCacheDir={kernel_dir}"]
    failure = tpch.check_query(data_name, n, args)
    assert failure is None, failure


def test_explain_analyze_counts_generated_kernel_launches(kernel_dir):
    """Q6 under gpu with generated kernels: EXPLAIN ANALYZE says its aggregate ran as fused
    kernels and nothing was interpreted (wait compiles before the first launch)."""
    if not gpu_usable():
        pytest.skip("skipped: no CUDA device")
    tables, _ = tpch.dataset(tpch.DATASETS[0])
    with open(tpch.query_path(6)) as f:
        sql = "EXPLAIN ANALYZE " + "\n".join(
            line for line in f.read().splitlines() if not line.lstrip().startswith("--"))
    cmd = tandem_command() + ["sql", sql, "--conf", "tandem.sql.device=gpu",
                              "--conf", "tandem.exec.gpu.generatedKernels=wait",
                              "--conf", f"tandem.exec.gpu.kernelCacheDir={kernel_dir}"]
    for name, path in tables.items():
        cmd += ["--table", f"{name}={path}"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    line = next((l for l in proc.stdout.splitlines() if l.startswith("GPU expressions:")), None)
    assert line is not None, proc.stdout
    fused = int(line.split("; ")[1].split()[0])
    # Q6 is one aggregate over a filtered scan: one fused kernel per slice of lineitem, nothing
    # interpreted.
    assert fused > 0 and " 0 interpreted" in line, line
