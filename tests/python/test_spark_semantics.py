"""Spark's semantics under the Tandem plugin, case by case, against vanilla Spark in the same
session: ANSI on (overflow fails the query in both) and off (wraps / NULL in both), a session
time zone that is not UTC (Asia/Kathmandu, +05:45), decimal(38, s), NaN / -0.0 / NULL as keys
and values, empty tables and empty partitions, hive-partitioned Parquet (typed and NULL
partition values), characters outside the BMP, the plugin's settings (bad values named,
explainOnly, the kill switch) and that no native task is left open.
"""
import datetime
import math
import os
from decimal import Decimal

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import spark_session
from spark_tpch import rows_difference


def udf_library():
    return os.path.join(os.environ["TANDEM_BUILD_DIR"], "examples", "udf",
                        "libtandem_example_udf.so")


@pytest.fixture(scope="module")
def spark():
    s = spark_session.session("tandem-test-spark-semantics",
                              conf={"spark.tandem.udf.libraries": udf_library()})
    yield s
    s.stop()


@pytest.fixture(scope="module")
def tables(spark, tmp_path_factory):
    """Temp views: nums (ints at the int32 limits, doubles with NaN/-0.0/inf, decimals up to
    38 digits, strings with emoji, dates, timestamps, NULLs everywhere), empty (nums' schema,
    no rows) and parts (hive-partitioned by an int, a string and a date, one NULL partition)."""
    root = tmp_path_factory.mktemp("semantics")
    n = 240
    ints = [None if i % 17 == 0 else [2147483647, -2147483648, 0, -1, 7, i][i % 6] for i in range(n)]
    doubles = [None if i % 13 == 0 else [math.nan, -0.0, 0.0, math.inf, -math.inf, i / 4,
                                         -i / 8][i % 7] for i in range(n)]
    big = [None if i % 11 == 0 else Decimal(f"{(-1) ** i * (10 ** 24 + i * 7919)}.{i:010d}")
           for i in range(n)]
    small = [None if i % 9 == 0 else Decimal(i * 37 - 4000).scaleb(-2) for i in range(n)]
    words = ["", "a", "Ab", "straße", "😀", "x😀y", "ǅ", None, "zz"]
    strings = [words[i % len(words)] for i in range(n)]
    dates = [None if i % 19 == 0 else datetime.date(1969, 12, 25) + datetime.timedelta(days=i * 53)
             for i in range(n)]
    stamps = [None if i % 23 == 0 else datetime.datetime(2024, 3, 9, 23, 50) +
              datetime.timedelta(minutes=i * 37) for i in range(n)]
    table = pa.table({
        "id": pa.array(range(n), pa.int64()),
        "k": pa.array([None if i % 10 == 0 else i % 5 for i in range(n)], pa.int32()),
        "e": pa.array(ints, pa.int32()),
        "d": pa.array(doubles, pa.float64()),
        "m38": pa.array(big, pa.decimal128(38, 10)),
        "m": pa.array(small, pa.decimal128(12, 2)),
        "s": pa.array(strings, pa.string()),
        "dt": pa.array(dates, pa.date32()),
        "ts": pa.array(stamps, pa.timestamp("us", tz="UTC")),
    })
    nums = root / "nums"
    nums.mkdir()
    for part in range(3):  # three files, one of them empty
        pq.write_table(table.slice(part * 120, 120 if part < 2 else 0), nums / f"part-{part}.parquet",
                       row_group_size=50)
    pq.write_table(table.slice(0, 0), root / "empty.parquet")
    spark.read.parquet(str(nums)).createOrReplaceTempView("nums")
    spark.read.parquet(str(root / "empty.parquet")).createOrReplaceTempView("empty")
    parts = spark.createDataFrame(
        [(i, i % 3 if i % 7 else None, ["x", "y", "z"][i % 3], datetime.date(2020, 1, 1 + i % 2),
          i * 1.5) for i in range(60)],
        "id long, p int, q string, r date, v double")
    parts.write.partitionBy("p", "q", "r").parquet(str(root / "parts"))
    spark.read.parquet(str(root / "parts")).createOrReplaceTempView("parts")
    return root


def same(spark, sql, ordered=None, expect_tandem=True):
    vanilla, tandem, plan = spark_session.both(spark, lambda: spark.sql(sql))
    if expect_tandem:
        assert spark_session.tandem_nodes(plan) > 0, f"nothing ran in Tandem: {sql}\n{plan}"
    if ordered is None:  # ORDER BY ... LIMIT: the row order must match too
        ordered = "order by" in sql and "group by" not in sql
    diff = rows_difference(tandem, vanilla, ordered)
    assert diff is None, f"{sql}\n{diff}\n{plan}"
    return tandem


QUERIES = [
    # NaN, -0.0 and NULL as grouping keys, join keys, sort keys and aggregated values.
    "select d, count(*), min(id), max(id) from nums group by d",
    "select a.id, b.id from nums a join nums b on a.d = b.d where a.id < 60",
    "select min(d), max(d), sum(d), avg(d), count(d) from nums where d is not null",
    "select id, d from nums order by d desc nulls last, id",
    "select d = 0.0, d < 1.0, isnan(d) from nums",
    # decimal(38, 10): sums, comparisons and the precision-loss rules of * and /.
    "select k, sum(m38), min(m38), max(m38), count(m38) from nums group by k",
    "select id, m38 + m38, m38 * m, m38 / 3, m38 > 0 from nums",
    "select k, sum(m), avg(m) from nums group by k",
    # Strings outside the BMP and empty strings.
    "select s, count(*) from nums group by s",
    "select id from nums where s = '😀' or s like 'x%' or s = ''",
    "select length(s), substring(s, 2, 2), s || '!' from nums",
    # Dates and timestamps.
    "select dt, ts, extract(year from dt), date_add(dt, 40) from nums",
    "select id from nums where dt between date '1970-01-01' and date '1990-06-30'",
    # Empty inputs: an empty table, a filter that keeps nothing, aggregates over no rows.
    "select count(*), sum(e), min(s) from empty",
    "select count(*), sum(m), max(dt) from nums where id < 0",
    "select a.id from nums a left anti join empty b on a.k = b.k where a.id < 10",
    # LIMIT and OFFSET (Spark's limits count the offset in; Tandem's do not).
    "select id, s from nums order by id limit 5 offset 3",
    "select id from nums order by id desc offset 230",
    "select k, count(*) from (select * from nums order by id limit 40 offset 7) group by k",
    # Hive-partitioned Parquet: typed partition values, a NULL partition, partition filters.
    "select p, q, r, count(*), sum(v) from parts group by p, q, r",
    "select id, p, q from parts where p is null or q = 'y'",
    "select id from parts where r = date '2020-01-02' and p = 1",
]


# Window functions and grouping sets, which must run in Tandem (strict mode: no operator but
# exchanges may stay in Spark): every ranking and offset function, window aggregates over ROWS
# and RANGE frames, NaN / -0.0 / NULL as partition and order keys, decimals and strings; ROLLUP,
# CUBE, GROUPING SETS and two DISTINCT aggregates (Spark plans those with an Expand).
STRICT_QUERIES = [
    "select id, k, row_number() over (partition by k order by id) as rn, "
    "rank() over (partition by k order by e) as r, dense_rank() over (partition by k order by e) "
    "as dr, ntile(3) over (partition by k order by id) as nt from nums",
    "select id, percent_rank() over (partition by k order by d) as pr, "
    "cume_dist() over (partition by k order by d desc) as cd from nums",
    "select id, lag(s) over (partition by k order by id) as a, lead(m, 2) over (partition by k "
    "order by id) as b, lag(e, 1, -7) over (order by id) as c from nums",
    "select id, sum(e) over (partition by k order by id) as s1, "
    "count(d) over (partition by k) as c1, min(s) over (partition by k order by id rows between "
    "2 preceding and 1 following) as m1, max(dt) over (partition by d order by id) as m2 "
    "from nums",
    "select id, avg(m) over (partition by k order by id rows between unbounded preceding and "
    "current row) as a1, sum(m) over (partition by k order by id range between 3 preceding and "
    "current row) as s2, count(*) over (order by k range between current row and unbounded "
    "following) as c2 from nums",
    "select id, first(s) over (partition by k order by id) as f, last(s) over (partition by k "
    "order by id rows between current row and 3 following) as l, nth_value(e, 2) over "
    "(partition by k order by id) as n2 from nums",
    "select * from (select id, k, row_number() over (partition by k order by id desc) as rn "
    "from nums) where rn <= 3",
    "select k, s, count(*), sum(m) from nums group by rollup(k, s)",
    "select k, dt, count(*), max(e), grouping_id() from nums group by cube(k, dt)",
    "select k, s, sum(e) from nums group by grouping sets ((k), (s), ())",
    # DISTINCT aggregates: Spark groups by the distinct values first (PartialMerge phases).
    "select k, count(distinct s), sum(e), avg(m), min(d) from nums group by k",
    "select count(distinct dt), sum(m38) from nums",
    "select k, count(distinct s), count(distinct e) from nums group by k",
    # Functions over every edge value of their inputs (NULL, NaN, -0.0, infinities, zero and
    # negative numbers, empty and non-ASCII strings, int extremes).
    "select id, sqrt(d), exp(d), ln(d), log10(d), log2(d), cbrt(d), pow(d, 2), "
    "floor(m), ceil(m), round(m, 1), round(e, 0), round(m38, 3) from nums",
    "select id, greatest(d, 0.5), least(e, k), greatest(s, 'b'), least(dt, date '1980-01-01') "
    "from nums",
    "select id, trim(s), ltrim(concat('  ', s)), rtrim(concat(s, '  ')), replace(s, 'a', 'xy'), "
    "replace(s, '', 'q'), lpad(s, 3, 'ab'), rpad(s, 4, '😀'), lpad(s, 1, ''), reverse(s), "
    "repeat(s, 2), repeat(s, -1), instr(s, 'b'), instr(s, '') from nums",
    "select id, dayofweek(dt), dayofyear(dt), hour(ts), minute(ts), second(ts) from nums",
]


@pytest.mark.parametrize("sql", STRICT_QUERIES)
def test_windows_and_grouping_sets_run_in_tandem(spark, tables, sql):
    with spark_session.settings(spark, spark__tandem__test__strict="true"):
        same(spark, sql, ordered=False)


# AQE replaces these plans by an empty relation once it sees the empty side: nothing is left
# for Tandem, and the answers must still agree.
EMPTIED_BY_SPARK = [
    "select k, count(*) from empty group by k",
    "select a.k, count(*) from nums a join empty b on a.k = b.k group by a.k",
]


@pytest.mark.parametrize("sql", QUERIES)
def test_answers_equal_vanilla_spark(spark, tables, sql):
    same(spark, sql)


@pytest.mark.parametrize("sql", QUERIES[:12])
def test_columnar_output_read_by_spark_equals_vanilla(spark, tables, sql):
    """Without native rows, Spark reads Tandem's columnar batches in place (ColumnarToRow over
    TandemColumnVector): the same answers."""
    with spark_session.settings(spark, spark__tandem__sql__nativeRowOutput="false"):
        vanilla, tandem, plan = spark_session.both(spark, lambda: spark.sql(sql))
    assert "ColumnarToRow" in plan and spark_session.tandem_nodes(plan) > 0, plan
    ordered = "order by" in sql and "group by" not in sql
    assert rows_difference(tandem, vanilla, ordered) is None, sql


@pytest.mark.parametrize("sql", EMPTIED_BY_SPARK)
def test_plans_spark_empties_agree(spark, tables, sql):
    same(spark, sql, expect_tandem=False)


def test_ansi_overflow_fails_in_both(spark, tables):
    sql = "select e + 1 from nums where e = 2147483647"
    assert spark_session.error_of(spark, lambda: spark.sql(sql), False)
    error = spark_session.error_of(spark, lambda: spark.sql(sql), True)
    assert error and "overflow" in error.lower(), error


def test_legacy_mode_wraps_like_spark(spark, tables):
    with spark_session.settings(spark, spark__sql__ansi__enabled="false"):
        rows = same(spark, "select id, e + 1, e * 2, -e, m38 * m38 from nums")
    assert any(r[1] == -2147483648 for r in rows)


def test_session_time_zone_kathmandu(spark, tables):
    with spark_session.settings(spark, spark__sql__session__timeZone="Asia/Kathmandu"):
        same(spark, "select id, hour(ts), cast(ts as date), ts from nums", expect_tandem=False)
        same(spark, "select cast(ts as date) as day, count(*) from nums group by day",
             expect_tandem=False)
        same(spark, "select k, count(*), min(ts) from nums group by k")


def test_explain_only_and_kill_switch_leave_the_plan_to_spark(spark, tables):
    sql = "select k, count(*) from nums group by k"
    for conf in ({"spark__tandem__sql__mode": "explainOnly"}, {"spark__tandem__enabled": "false"}):
        with spark_session.settings(spark, **conf):
            df = spark.sql(sql)
            df.collect()
            assert spark_session.tandem_nodes(spark_session.final_plan(df)) == 0, conf


def test_bad_settings_are_named(spark, tables):
    with spark_session.settings(spark, spark__tandem__sql__device="tpu"):
        error = spark_session.error_of(spark, lambda: spark.sql("select count(*) from nums"), True)
    assert error and "spark.tandem.sql.device" in error, error
    with spark_session.settings(spark, spark__tandem__sql__exec__NoSuchExec="false"):
        error = spark_session.error_of(spark, lambda: spark.sql("select count(*) from nums"), True)
    assert error and "NoSuchExec" in error, error


def test_a_switched_off_operator_stays_in_spark(spark, tables):
    sql = "select k, count(*) from nums group by k"
    with spark_session.settings(spark, spark__tandem__sql__exec__HashAggregateExec="false"):
        vanilla, tandem, plan = spark_session.both(spark, lambda: spark.sql(sql))
    assert "HashAggregate" in plan.replace("TandemExec", ""), plan
    assert rows_difference(tandem, vanilla, False) is None


def test_no_native_task_or_memory_is_left(spark, tables):
    for sql in QUERIES[:6]:
        spark.sql(sql).collect()
    memory = spark_session.native_memory(spark)
    assert memory["open_tasks"] == 0, memory


def test_cancelling_a_job_stops_the_native_work(spark, tables):
    """A join that would run for minutes in Tandem: cancelling the job ends its native tasks
    within seconds (the task's kill reaches TandemNative.cancel, which the join checks between
    slices of its output), and nothing is left open."""
    import threading
    import time
    sql = ("select count(*) from nums a, nums b, nums c, nums d "
           "where a.id + b.id + c.id + d.id = -5")
    sc = spark.sparkContext
    outcome = {}

    def run():
        sc.setJobGroup("tandem-cancel-test", "a join to cancel", interruptOnCancel=True)
        try:
            spark.sql(sql).collect()
            outcome["error"] = None
        except Exception as e:  # the cancellation, as py4j/pyspark raise it
            outcome["error"] = str(e)

    worker = threading.Thread(target=run)
    worker.start()
    deadline = time.monotonic() + 60
    while spark_session.native_memory(spark)["open_tasks"] == 0:
        assert time.monotonic() < deadline and worker.is_alive(), "no native task started"
        time.sleep(0.2)
    cancelled_at = time.monotonic()
    sc.cancelJobGroup("tandem-cancel-test")
    worker.join(60)
    assert not worker.is_alive(), "the job did not end within 60 s of its cancellation"
    assert outcome["error"] and "cancel" in outcome["error"].lower(), outcome
    while spark_session.native_memory(spark)["open_tasks"] > 0:
        assert time.monotonic() - cancelled_at < 30, "native tasks still open 30 s after cancel"
        time.sleep(0.2)


def redact(s):
    return None if s is None else "".join("*" if c in "0123456789" else c for c in s)


def test_cpp_udfs_run_in_tandem_and_in_spark(spark, tables):
    """The example library's functions are SQL functions of the session: inside a Tandem fragment
    (strict mode) and, with the plugin off or next to an operator that stays in Spark, one row at
    a time; every path gives what Python computes."""
    sql = ("select id, redact(concat(s, cast(id as string))) as r, risk_score(d, 2) as x, "
           "risk_score(e, 1) as y from nums")
    with spark_session.settings(spark, spark__tandem__test__strict="true"):
        rows = same(spark, sql, ordered=False)
    for row in rows:
        source = spark.sql(f"select s, d, e from nums where id = {row.id}").collect()[0]
        assert row.r == redact(None if source.s is None else source.s + str(row.id))
        for got, x, w in ((row.x, source.d, 2.0), (row.y, source.e, 1.0)):
            if x is None:
                assert got is None
            elif math.isnan(x):
                assert math.isnan(got)
            else:
                assert math.isclose(got, math.log1p(abs(x)) * w, rel_tol=1e-12), (row, x)
    # Next to upper() (which stays in Spark) the call runs in Spark, row by row.
    vanilla, tandem, _ = spark_session.both(
        spark, lambda: spark.sql("select id, redact(upper(s)) as r from nums"))
    assert rows_difference(tandem, vanilla, False) is None
    source = {r.id: r.s for r in spark.sql("select id, s from nums").collect()}
    assert all(r.r == redact(None if source[r.id] is None else source[r.id].upper())
               for r in tandem)


def test_cpp_udf_errors_are_clear(spark, tables):
    error = spark_session.error_of(
        spark, lambda: spark.sql("select risk_score(s, 1) from nums"), True)
    assert error and "expects double for argument 1" in error, error
    for enabled in (True, False):
        error = spark_session.error_of(
            spark, lambda: spark.sql("select test_error(id) from nums"), enabled)
        assert error and "test_error" in error, error
