"""GPU parts in hash partitions of a join key (ctest label gpu; without a usable CUDA device every
case is skipped with "skipped: no CUDA device").

A GPU part over tables cached in GPU memory whose equi-joins share a key (o_orderkey =
l_orderkey in TPC-H Q18 and Q21) runs once per hash partition of that key: the cached tables'
rows of one partition stand in for them, joins on the key and aggregations by it see one
partition at a time, tables joined on other columns are read whole once, and an aggregation by
other columns merges partial rows. tandem.exec.gpu.hashPartitions asks for it; a part that runs
out of GPU memory whole does it by itself (4, 16, 64 partitions) before slicing or running on
the CPU. Every answer is DuckDB's; the Devices line and EXPLAIN ANALYZE say what ran so.
"""
import re

import pytest

import test_tpch_queries as tpch
from test_slices_gpu import (cache, cached_gpu_bytes, check, devices_lines, explain_analyze,
                             needs_gpu, query)

PARTITIONED = "GPU parts in hash partitions"


@pytest.mark.parametrize("n", range(1, 23), ids=lambda n: f"q{n:02d}")
def test_tpch_over_tables_cached_on_the_gpu_in_hash_partitions(n):
    needs_gpu()
    prelude = cache("gpu") + "SET tandem.exec.gpu.hashPartitions = 5;\n"
    stderr = check(query(n), prelude, tpch.ORDER_BY[n], tpch.LIMIT.get(n))
    if n in (3, 18, 21):
        assert any(PARTITIONED in l for l in devices_lines(stderr)[-1:]), stderr


# Shapes TPC-H leaves out: outer joins on the key (NULL-extended keys above them), a top-N of
# groups by the key, NOT IN (its right side must stay whole), a mark join, DISTINCT counts of the
# key and of another column, an aggregation by a column of a table joined on another key, a
# window partitioned by the key. (NULL keys in the split tables: the unit test
# hash_partition_plan_test.cc, whose tables have them.)
SHAPES = [
    "SELECT o_orderstatus, count(*) AS n, count(l_orderkey) AS m, count(DISTINCT o_orderkey) AS d "
    "FROM orders LEFT JOIN lineitem ON o_orderkey = l_orderkey AND l_quantity > 49 "
    "GROUP BY o_orderstatus",
    "SELECT count(*) AS n, count(o_orderkey) AS a, count(l_orderkey) AS b, "
    "sum(l_quantity) AS q FROM orders FULL JOIN (SELECT * FROM lineitem WHERE l_quantity < 3) x "
    "ON o_orderkey = l_orderkey AND o_orderstatus = 'F'",
    "SELECT l_orderkey, count(*) AS n FROM lineitem JOIN orders ON l_orderkey = o_orderkey "
    "WHERE o_orderstatus = 'F' GROUP BY l_orderkey ORDER BY n DESC, l_orderkey LIMIT 20",
    "SELECT count(*) AS n FROM orders WHERE o_orderkey NOT IN "
    "(SELECT l_orderkey FROM lineitem WHERE l_quantity > 48)",
    "SELECT sum(big) AS big, count(*) AS n FROM (SELECT CASE WHEN o_orderkey IN "
    "(SELECT l_orderkey FROM lineitem WHERE l_quantity > 49) THEN 1 ELSE 0 END AS big "
    "FROM orders) x",
    "SELECT n_name, count(DISTINCT o_orderkey) AS d, count(DISTINCT l_suppkey) AS s, "
    "sum(l_extendedprice) AS p FROM orders JOIN lineitem ON o_orderkey = l_orderkey "
    "JOIN customer ON o_custkey = c_custkey JOIN nation ON c_nationkey = n_nationkey "
    "GROUP BY n_name",
    "SELECT o_orderkey, l_linenumber, rank() OVER (PARTITION BY o_orderkey ORDER BY "
    "l_extendedprice DESC) AS r FROM orders JOIN lineitem ON o_orderkey = l_orderkey "
    "WHERE o_totalprice > 450000",
    "SELECT c_custkey, count(o_orderkey) AS n FROM customer LEFT JOIN orders "
    "ON c_custkey = o_custkey AND o_comment NOT LIKE '%special%requests%' GROUP BY c_custkey",
]


@pytest.mark.parametrize("parts", [2, 7])
@pytest.mark.parametrize("shape", range(len(SHAPES)))
def test_shapes_in_hash_partitions(shape, parts):
    needs_gpu()
    prelude = cache("gpu", ["orders", "lineitem", "customer", "nation"]) + (
        f"SET tandem.exec.gpu.hashPartitions = {parts};\n")
    stderr = check(SHAPES[shape], prelude)
    if shape in (0, 2, 6, 7):
        assert any(PARTITIONED in l for l in devices_lines(stderr)[-1:]), stderr


def test_explain_analyze_names_the_partitions():
    needs_gpu()
    prelude = cache("gpu", ["orders", "lineitem", "customer"]) + (
        "SET tandem.exec.gpu.hashPartitions = 4;\n")
    out = explain_analyze(prelude, query(18))
    assert re.search(r"\(in 4 hash partitions of [a-z_, ]*orderkey", out), out
    assert re.search(r"Scan lineitem \(cached in GPU memory, in 4 hash partitions of "
                     r"l_orderkey\)", out), out


def host_and_gpu(host, gpu):
    """`host` cached in host memory, `gpu` in GPU memory, then device=gpu."""
    return ("SET tandem.sql.device = cpu;\n" + "".join(f"CACHE TABLE {t};\n" for t in host) +
            cache("gpu", gpu))


@pytest.mark.parametrize("sql", [query(13), SHAPES[7]], ids=["q13", "left_join"])
def test_an_input_from_host_memory_is_cut_by_the_key(sql):
    # customer in host memory reaches the GPU through a HostToDevice transition on the left of a
    # LEFT join with orders (cached on the GPU): its rows are cut by c_custkey as orders' are
    # by o_custkey, so the part still runs in partitions (a replicated left side cannot).
    needs_gpu()
    prelude = host_and_gpu(["customer"], ["orders"]) + "SET tandem.exec.gpu.hashPartitions = 3;\n"
    stderr = check(sql, prelude)
    assert any(PARTITIONED in l for l in devices_lines(stderr)[-1:]), stderr
    out = explain_analyze(prelude, sql)
    assert "HostToDevice (cut on the GPU in 3 hash partitions of c_custkey)" in out, out


@pytest.mark.parametrize("n", [18, 21])
def test_a_part_without_room_on_the_gpu_runs_in_hash_partitions(n):
    # Only the tables the query reads are cached (none can move to host memory) and the limits
    # sit just above what they hold: some leave too little room for the part whole. Every limit
    # gives DuckDB's answer; somewhere in the sweep the part ran in hash partitions.
    needs_gpu()
    reads = {18: ["customer", "orders", "lineitem"],
             21: ["supplier", "lineitem", "orders", "nation"]}[n]
    base = cached_gpu_bytes(reads)
    partitioned_somewhere = False
    for headroom_mib in (2, 4, 8, 16, 32):
        limit = int(base) + (headroom_mib << 20)
        prelude = cache("gpu", reads) + f"SET \"tandem.memory.gpu.limit\" = {limit};\n"
        stderr = check(query(n), prelude, tpch.ORDER_BY[n], tpch.LIMIT.get(n))
        last = devices_lines(stderr)[-1:]
        # Ahead (the part's estimated peak passed the room left) or after running out whole.
        partitioned_somewhere |= any(PARTITIONED in l for l in last)
    assert partitioned_somewhere, "no limit made the part run in hash partitions"
