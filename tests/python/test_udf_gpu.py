"""UDFs on the GPU: with tandem.sql.device = gpu the example library's risk_score runs its GPU
implementation (EXPLAIN ANALYZE shows the projection on the GPU) and gives the CPU's answers,
also nested and in a filter; the misbehaving test functions' GPU twins fail with the CPU's
messages; a UDF under CASE stays on the CPU and still answers right. Needs a usable CUDA device:
without one every case is skipped with "skipped: no CUDA device" (ctest label gpu)."""
import re

import pytest

from test_tpch_gpu import gpu_usable
from test_udf import (LIB, assert_close, one_line_error, risk_score, rows_of, table,  # noqa: F401
                      tandem)

GPU = ["--conf", "tandem.sql.device=gpu"]


@pytest.fixture(autouse=True)
def needs_gpu():
    if not LIB or not gpu_usable():
        pytest.skip("skipped: no CUDA device")


def test_gpu_udf_matches_the_cpu_and_runs_on_the_gpu(table):
    path, _, x, w = table
    sql = ("SELECT id, risk_score(x, w) AS k, risk_score(risk_score(x, w), 2.0) AS kk "
           "FROM t WHERE risk_score(x, w) > 0.5 ORDER BY id")
    rows = rows_of(tandem("sql", "--udf", LIB, "--table", f"t={path}", "--format", "jsonl",
                          *GPU, sql))
    want = [i for i in range(len(x)) if (risk_score(x[i], w[i]) or 0) > 0.5]
    assert [r["id"] for r in rows] == want
    for r in rows:
        i = r["id"]
        assert_close(r["k"], risk_score(x[i], w[i]))
        assert_close(r["kk"], risk_score(risk_score(x[i], w[i]), 2.0))
    r = tandem("explain", "--udf", LIB, "--table", f"t={path}", *GPU,
               "SELECT risk_score(x, w) AS k FROM t")
    assert r.returncode == 0, r.stderr
    project = [l for l in r.stdout.splitlines() if "Project" in l]
    assert project and project[0].split()[0] == "gpu", r.stdout


def test_udf_under_case_stays_on_the_cpu(table):
    path, _, x, w = table
    sql = "SELECT id, CASE WHEN x > 0 THEN risk_score(x, w) END AS k FROM t ORDER BY id"
    rows = rows_of(tandem("sql", "--udf", LIB, "--table", f"t={path}", "--format", "jsonl",
                          *GPU, sql))
    for r in rows:
        i = r["id"]
        want = risk_score(x[i], w[i]) if x[i] is not None and x[i] > 0 else None
        assert_close(r["k"], want)


@pytest.mark.parametrize("fn", ["test_throws", "test_error", "test_wrong_length",
                                "test_wrong_type", "test_bad_nulls", "test_foreign_buffer"])
def test_misbehaving_gpu_udfs_fail_like_the_cpu(table, fn):
    path = table[0]
    sql = f"SELECT sum({fn}(id)) FROM t"
    on_cpu = one_line_error(tandem("sql", "--udf", LIB, "--table", f"t={path}",
                                   "--conf", "tandem.sql.device=cpu", sql))
    on_gpu = one_line_error(tandem("sql", "--udf", LIB, "--table", f"t={path}", *GPU, sql))
    # The wrong-length message names the batch size, which differs between the devices.
    number = re.compile(r"\d+ rows for a batch of \d+")
    assert number.sub("N", on_gpu) == number.sub("N", on_cpu)
    r = tandem("explain", "--udf", LIB, "--table", f"t={path}", *GPU, sql)
    assert any(l.split()[0] == "gpu" and "Aggregate" in l for l in r.stdout.splitlines()), r.stdout
