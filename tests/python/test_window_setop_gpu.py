"""Window functions and set operations through SQL with tandem.sql.device = gpu give DuckDB's
answers on TPC-H SF0.1 data (Tandem's generator). Needs a usable CUDA device: without one every case
is skipped with "skipped: no CUDA device" (ctest label gpu). That the planner puts these
operators on the GPU is tested everywhere by test_placement_cli.py.
"""
import pytest

import test_tpch_queries as tpch
from random_queries import TandemError, compare_results, run_duckdb, run_tandem
from test_tpch_gpu import gpu_usable

QUERIES = {
    "rank_per_nation": """
        SELECT c_nationkey, c_custkey, c_acctbal,
               rank() OVER (PARTITION BY c_nationkey ORDER BY c_acctbal DESC) AS r,
               dense_rank() OVER (PARTITION BY c_nationkey ORDER BY c_mktsegment) AS dr,
               row_number() OVER (PARTITION BY c_nationkey ORDER BY c_acctbal, c_custkey) AS rn
        FROM customer""",
    "running_sums": """
        SELECT o_custkey, o_orderkey, o_totalprice,
               sum(o_totalprice) OVER (PARTITION BY o_custkey ORDER BY o_orderkey) AS running,
               avg(o_totalprice) OVER (PARTITION BY o_custkey) AS per_customer,
               count(*) OVER (PARTITION BY o_orderstatus) AS per_status
        FROM orders""",
    "frames_and_navigation": """
        SELECT l_orderkey, l_linenumber, l_quantity,
               min(l_extendedprice) OVER (PARTITION BY l_orderkey ORDER BY l_linenumber
                   ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) AS m,
               lag(l_quantity) OVER (PARTITION BY l_orderkey ORDER BY l_linenumber) AS prev,
               lead(l_shipmode, 1, 'none') OVER (PARTITION BY l_orderkey
                   ORDER BY l_linenumber) AS next_mode,
               first_value(l_partkey) OVER (PARTITION BY l_orderkey ORDER BY l_linenumber)
                   AS first_part
        FROM lineitem WHERE l_orderkey < 20000""",
    "union_all": """
        SELECT n_name AS name, n_regionkey AS k FROM nation
        UNION ALL SELECT r_name, r_regionkey FROM region""",
    "union": """
        SELECT c_nationkey AS k, c_mktsegment AS s FROM customer
        UNION SELECT s_nationkey, 'SUPPLIER' FROM supplier""",
    "intersect": """
        SELECT o_custkey FROM orders WHERE o_orderpriority = '1-URGENT'
        INTERSECT SELECT c_custkey FROM customer WHERE c_acctbal > 5000""",
    "except_all": """
        SELECT l_suppkey FROM lineitem WHERE l_quantity > 45
        EXCEPT ALL SELECT ps_suppkey FROM partsupp WHERE ps_availqty > 5000""",
}


@pytest.mark.parametrize("name", sorted(QUERIES))
def test_gpu_window_and_set_operation_answers(name):
    if not gpu_usable():
        pytest.skip("skipped: no CUDA device")
    tables, con = tpch.dataset("tandem-sf0.1")
    sql = QUERIES[name]
    expected = run_duckdb(con, sql)
    try:
        actual = run_tandem(sql, tables, extra_args=["--conf", "tandem.sql.device=gpu"])
    except TandemError as e:
        pytest.fail(f"{name} with device=gpu: tandem failed: {e}")
    diff = compare_results(actual, expected)
    assert diff is None, f"{name} with device=gpu: {diff}"

