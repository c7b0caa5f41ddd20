"""The 22 TPC-H queries with tandem.sql.device = gpu and = auto give DuckDB's answers (the same
reference as test_tpch_queries.py, whose data sets and comparison rules this reuses). Needs a
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


@pytest.mark.parametrize("n", range(1, 23), ids=lambda n: f"q{n:02d}")
@pytest.mark.parametrize("mode", ["gpu", "auto"])
@pytest.mark.parametrize("data_name", tpch.DATASETS)
def test_tpch_query_on_device(data_name, mode, n):
    if not gpu_usable():
        pytest.skip("skipped: no CUDA device")
    failure = tpch.check_query(data_name, n, ["--conf", f"tandem.sql.device={mode}"])
    assert failure is None, failure
