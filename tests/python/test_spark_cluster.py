"""The plugin in separate executor JVMs (local-cluster[2,1,1024]: two executors of one core):
the library loads from the jar in each executor, the driver plans, executors run the fragments
over their file splits and shuffle between them, and the answers equal vanilla Spark's. Local
mode runs everything in one JVM, so only this catches state the plugin wrongly keeps on the
driver (settings, loaded library, broadcast rows).
"""
import os
import subprocess

import pytest

import spark_session
import spark_tpch


@pytest.fixture(scope="module")
def spark(tmp_path_factory):
    data = tmp_path_factory.mktemp("tpch")
    subprocess.run([os.environ["TANDEM_BIN"], "datagen", "tpch", "--sf", "0.01", "--out",
                    str(data)], check=True, capture_output=True)
    s = spark_session.session("tandem-test-spark-cluster", master="local-cluster[2,1,1024]",
                              conf={"spark.executor.memory": "768m",
                                    "spark.sql.autoBroadcastJoinThreshold": "1"})
    spark_tpch.register_tables(s, str(data))
    yield s
    s.stop()


# Queries whose answers at SF 0.01 are not empty: AQE replaces a plan whose input turns out
# empty by an empty relation (Q18 at this scale), leaving no TandemExec to count.
@pytest.mark.parametrize("n", [1, 3, 9, 10])
def test_tpch_on_two_executors(spark, n):
    vanilla, tandem, plan = spark_session.both(spark, lambda: spark.sql(spark_tpch.sql_query(n)))
    assert spark_session.tandem_nodes(plan) > 0, plan
    diff = spark_tpch.rows_difference(tandem, vanilla, spark_tpch.ORDER_BY[n] or False,
                                      spark_tpch.LIMIT.get(n))
    assert diff is None, f"Q{n}: {diff}\n{plan}"


def test_broadcast_joins_on_two_executors(spark):
    with spark_session.settings(spark, spark__sql__autoBroadcastJoinThreshold="10m"):
        vanilla, tandem, plan = spark_session.both(
            spark, lambda: spark.sql(spark_tpch.sql_query(5)))
    assert "Broadcast" in plan and spark_session.tandem_nodes(plan) > 0, plan
    assert spark_tpch.rows_difference(tandem, vanilla, spark_tpch.ORDER_BY[5]) is None
