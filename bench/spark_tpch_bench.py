"""Spark benchmark: vanilla Spark against Spark with the Tandem plugin, in one session.

    bench/spark_tpch_bench.py [--workload tpch|fallback] --sf 1 [--rows N] [--data DIR]
        --jar PATH/tandem-spark.jar
        --out bench/results/spark_tpch_sf1 [--reps 3] [--warmup 1] [--queries 1,3,6]
        [--master local[2]] [--api sql|dataframe] [--driver-memory 4g] [--conf KEY=VALUE]...

One SparkSession runs everything. It loads the plugin (spark.jars=PATH,
spark.plugins=dev.tandem.spark.TandemPlugin) and writes an event log (<out>/eventlog/, one
uncompressed JSON-lines file). For each round and each query it runs the query twice, once with
spark.tandem.enabled=false ("vanilla": the plugin leaves the plan to Spark) and once with it
true ("tandem"), alternating which goes first from query to query and round to round,
collect()s both answers and checks they are equal (rows_equal of tests/python/spark_tpch.py:
decimals, strings, dates exact, doubles to 1e-9, ties of the ORDER BY keys in any order).
--warmup rounds come first and are checked but not timed.

Times, per run:
  ms    submit to done of the query's SQL execution, from the event log:
        SparkListenerSQLExecutionEnd.time - SparkListenerSQLExecutionStart.time of the execution
        whose description is the job description set for the run ("q03 tandem rep2"; Spark
        copies the spark.job.description local property into the start event's
        "description"). Spark 4.0.1 takes the start time before it optimises and plans the
        query (SQLExecution.withNewExecutionId0 builds the event, then computes executedPlan
        and the explain text), so this covers optimisation, physical planning (the plugin's
        rule included), AQE's re-planning of later stages and execution.
  wall  time.perf_counter() around building the DataFrame and collect(), in this Python
        process: adds parsing and analysis (spark.sql and the DataFrame API analyse eagerly),
        the py4j calls and the transfer of the rows to Python.
The report has, per query, the median ms of each mode, their min..max over the rounds, the
ratio vanilla / tandem of the medians (above 1: Tandem faster), the sum of the medians, the
geomean of the ratios, and whether the two min..max ranges overlap (a ratio whose ranges
overlap is within run-to-run noise). "tandem nodes" counts TandemExec nodes in the final plan
of the tandem runs (from the event log's last AQE plan update): 0 means the plugin ran nothing.

Without a usable plugin (no --jar, a missing file, a jar without the plugin class, or a session
that fails to start with it) the benchmark runs vanilla Spark alone and says why in the report.
Exit status 1 when any answer differed or any run failed (after writing the report).

Workloads (--workload): "tpch" (the 22 queries, --sf), "fallback" (the UDF fallback matrix
of docs/benchmarks.md with pandas UDFs as the CPU islands, --rows) and "etl" (join-heavy and
write-heavy jobs over the TPC-H tables, --sf). A workload gives a list of
cases (a name, a function building the DataFrame, its ordering for the comparison); the runner,
the event-log parsing and the report do not know what the cases are.
"""
import argparse
import csv
import datetime
import glob
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import time
import zipfile
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "python"))

import spark_tpch  # noqa: E402
from machine import cpu_model  # noqa: E402

PLUGIN_CLASS = "dev.tandem.spark.TandemPlugin"
ENABLED_KEY = "spark.tandem.enabled"
TANDEM_NODE = "TandemExec"
VANILLA, TANDEM = "vanilla", "tandem"
DEFAULT_JAVA_HOME = "/usr/lib/jvm/java-17-openjdk-amd64"
SQL_START = "org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart"
SQL_END = "org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionEnd"
SQL_AQE_UPDATE = "org.apache.spark.sql.execution.ui.SparkListenerSQLAdaptiveExecutionUpdate"


# ----------------------------------------------------------------------------------------------
# Workloads

@dataclass
class Case:
    name: str                          # "q03": the first word of each run's job description
    build: Callable[[Any], Any]        # spark -> DataFrame
    ordered: Any = None                # rows_equal's `ordered` (ORDER BY output columns)
    limit: Optional[int] = None        # rows_equal's `limit`
    title: str = ""


class TpchWorkload:
    """The 22 TPC-H queries (tests/tpch/queries) over `tandem datagen tpch` Parquet files."""
    name = "tpch"

    def __init__(self, args):
        self.args = args
        self.queries = parse_queries(args.queries)
        self.data = os.path.abspath(args.data or os.path.join(ROOT, "data", f"tpch-sf{args.sf}"))
        self.generated = False

    def prepare(self):
        """Makes the data when it is missing (before Spark starts)."""
        if all(os.path.isdir(os.path.join(self.data, t)) for t in spark_tpch.TABLES):
            return
        if not os.access(self.args.tandem, os.X_OK):
            sys.exit(f"{self.data}: no TPC-H tables there, and no tandem binary at "
                     f"{self.args.tandem} to make them (--tandem)")
        print(f"== generating TPC-H SF{self.args.sf} into {self.data} with tandem datagen",
              flush=True)
        subprocess.run([self.args.tandem, "datagen", "tpch", "--sf", str(self.args.sf),
                        "--out", self.data], check=True)
        self.generated = True

    def setup(self, spark):
        spark_tpch.register_tables(spark, self.data)

    def cases(self):
        api = self.args.api
        out = []
        for n in self.queries:
            if api == "sql":
                text = spark_tpch.sql_query(n)
                build = (lambda spark, text=text: spark.sql(text))
            else:
                build = (lambda spark, n=n: spark_tpch.dataframe_query(spark, n))
            out.append(Case(name=f"q{n:02d}", build=build, ordered=spark_tpch.ORDER_BY[n],
                            limit=spark_tpch.LIMIT.get(n), title=f"Q{n:02d}"))
        return out

    def title(self):
        return f"TPC-H SF{self.args.sf}"

    def describe(self):
        rel = os.path.relpath(self.data, ROOT) if self.data.startswith(ROOT) else self.data
        how = f", made by `tandem datagen tpch --sf {self.args.sf}`" if self.generated else ""
        api = ("Spark SQL text (spark_tpch.sql_query)" if self.args.api == "sql"
               else "DataFrame API programs (spark_tpch.dataframe_query)")
        return [f"workload: TPC-H SF{self.args.sf}, queries "
                f"{','.join(str(q) for q in self.queries)}, as {api}",
                f"data: `{rel}` (Parquet{how}), temp views over spark.read.parquet"]


class FallbackWorkload:
    """The UDF fallback matrix of ../shared/seeds/004 (docs/benchmarks.md, "The fallback
    matrix") inside Spark: the same query text as `tandem bench fallback` (src/tandem/bench/
    fallback_bench.cc builds it the same way) over `tandem datagen fallback` data, its CPU
    islands pandas UDFs (identity functions, as the seed's), which stay in Spark as
    ArrowEvalPythonExec: with the plugin, rows leave Tandem for Python and come back."""
    name = "fallback"
    SOURCE = "SELECT customer_id, amount, quantity, discount FROM fact"
    FILTER = "amount >= 500 AND quantity BETWEEN 10 AND 20"
    FINAL = "region, segment, orders, net_total, net_avg"
    AFTER_AGG = "region, segment, orders, identity_double(net_total) AS net_total, net_avg"
    CONDITIONS = ["native", "after_agg", "after_filter", "before_filter", "two_islands",
                  "before_filter_w4", "before_filter_w8", "before_filter_w12"]

    def __init__(self, args):
        self.args = args
        self.rows = int(args.rows)
        self.data = os.path.abspath(args.data or os.path.join(ROOT, "data", "fallback",
                                                              f"rows-{self.rows}"))
        self.generated = False

    @classmethod
    def query(cls, source, filtered_amount, final_columns):
        return ("WITH src AS (" + source + "),\n"
                "filtered AS (SELECT customer_id, " + filtered_amount + " AS amount, discount "
                "FROM src WHERE " + cls.FILTER + "),\n"
                "joined AS (SELECT c.region, c.segment, f.amount * (1 - f.discount) AS "
                "net_amount\n  FROM filtered f JOIN customers c ON f.customer_id = "
                "c.customer_id),\n"
                "agg AS (SELECT region, segment, count(*) AS orders, sum(net_amount) AS "
                "net_total,\n  avg(net_amount) AS net_avg FROM joined GROUP BY region, segment)\n"
                "SELECT " + final_columns + " FROM agg ORDER BY region, segment")

    @staticmethod
    def wide_source(width):
        call = "identity_double(amount" if width == 1 else f"identity_double_{width}(amount"
        call += "".join(f", m{m}" for m in range(1, width))
        return "SELECT customer_id, " + call + ") AS amount, quantity, discount FROM fact"

    @classmethod
    def sql(cls, condition):
        if condition == "native":
            return cls.query(cls.SOURCE, "amount", cls.FINAL)
        if condition == "after_agg":
            return cls.query(cls.SOURCE, "amount", cls.AFTER_AGG)
        if condition == "after_filter":
            return cls.query(cls.SOURCE, "identity_double(amount)", cls.FINAL)
        if condition == "before_filter":
            return cls.query(cls.wide_source(1), "amount", cls.FINAL)
        if condition == "two_islands":
            return cls.query(cls.wide_source(1), "amount", cls.AFTER_AGG)
        width = int(condition.rsplit("_w", 1)[1])
        return cls.query(cls.wide_source(width), "amount", cls.FINAL)

    def prepare(self):
        if all(os.path.isdir(os.path.join(self.data, t)) for t in ("fact", "customers")):
            return
        if not os.access(self.args.tandem, os.X_OK):
            sys.exit(f"{self.data}: no fallback tables there, and no tandem binary at "
                     f"{self.args.tandem} to make them (--tandem)")
        print(f"== generating {self.rows} fact rows into {self.data} with tandem datagen",
              flush=True)
        subprocess.run([self.args.tandem, "datagen", "fallback", "--rows", str(self.rows),
                        "--out", self.data], check=True)
        self.generated = True

    def setup(self, spark):
        import pandas as pd
        from pyspark.sql.functions import pandas_udf
        for t in ("fact", "customers"):
            spark.read.parquet(os.path.join(self.data, t)).createOrReplaceTempView(t)

        def identity(first, *rest):
            # The first argument back, NULL where any argument is NULL (as the C++ identities).
            out = first.copy()
            for r in rest:
                out[r.isna()] = None
            return out

        spark.udf.register("identity_double", pandas_udf(
            lambda a: identity(a), "double"))
        for width in (4, 8, 12):
            spark.udf.register(f"identity_double_{width}", pandas_udf(
                lambda *cols: identity(*cols), "double"))
        _ = pd  # pandas is what the UDFs run on

    def cases(self):
        return [Case(name=c, build=(lambda spark, c=c: spark.sql(self.sql(c))),
                     ordered=["region", "segment"], title=c) for c in self.CONDITIONS]

    def title(self):
        return f"UDF fallback matrix, {self.rows} rows"

    def describe(self):
        how = f", made by `tandem datagen fallback --rows {self.rows}`" if self.generated else ""
        return [f"workload: the fallback matrix of docs/benchmarks.md, {self.rows} fact rows, "
                "CPU islands as pandas UDFs (identity functions) that stay in Spark",
                f"data: `{self.data}` (zstd Parquet{how}), temp views fact and customers"]


class EtlWorkload:
    """ETL jobs over the TPC-H tables (`--sf`): join-heavy ones (a four-way join feeding several
    aggregations, a self-join of orders by customer) and write-heavy ones (a transformed copy of
    lineitem written as Parquet, a partitioned write of orders). Writes stay in Spark under the
    plugin; what feeds them runs in Tandem. Each write goes to a fresh folder under --data."""
    name = "etl"

    def __init__(self, args):
        self.tpch = TpchWorkload(args)
        self.out = os.path.join(os.path.abspath(args.data or os.path.join(ROOT, "data")),
                                "_etl_out")
        self.counter = 0

    def prepare(self):
        self.tpch.prepare()

    def setup(self, spark):
        self.tpch.setup(spark)

    def target(self):
        self.counter += 1
        return os.path.join(self.out, f"w{self.counter}")

    JOIN_HEAVY = """
        SELECT n_name, p_type, o_orderpriority, count(*) AS lines,
               sum(l_extendedprice * (1 - l_discount)) AS revenue, avg(l_quantity) AS qty
        FROM customer JOIN orders ON c_custkey = o_custkey
             JOIN lineitem ON o_orderkey = l_orderkey
             JOIN part ON l_partkey = p_partkey
             JOIN nation ON c_nationkey = n_nationkey
        WHERE o_orderdate >= DATE '1995-01-01'
        GROUP BY n_name, p_type, o_orderpriority"""
    SELF_JOIN = """
        SELECT a.o_custkey, count(*) AS pairs, max(b.o_totalprice - a.o_totalprice) AS spread
        FROM orders a JOIN orders b ON a.o_custkey = b.o_custkey
             AND b.o_orderdate > a.o_orderdate AND b.o_orderdate < a.o_orderdate + INTERVAL 30 DAYS
        GROUP BY a.o_custkey"""
    WRITE_LINEITEM = """
        SELECT l_orderkey, l_linenumber, l_shipdate, l_returnflag,
               l_extendedprice * (1 - l_discount) AS net, l_extendedprice * l_tax AS tax
        FROM lineitem WHERE l_shipdate >= DATE '1994-01-01'"""
    WRITE_ORDERS = """
        SELECT o_orderkey, o_custkey, o_totalprice, o_orderdate, o_orderpriority AS priority
        FROM orders WHERE o_totalprice > 1000"""

    def cases(self):
        def write(sql, partition=None):
            def build(spark):
                target = self.target()
                if partition:  # a table of the session's catalog, its files at `target`
                    name = "etl_" + os.path.basename(target)
                    return spark.sql(f"CREATE TABLE {name} USING parquet PARTITIONED BY "
                                     f"({partition}) LOCATION '{target}' AS " + sql)
                return spark.sql(f"INSERT OVERWRITE DIRECTORY '{target}' USING parquet " + sql)
            return build
        return [
            Case("join_heavy", lambda spark: spark.sql(self.JOIN_HEAVY), None, None,
                 "join-heavy: 5-way join, 3 keys"),
            Case("self_join", lambda spark: spark.sql(self.SELF_JOIN), None, None,
                 "join-heavy: orders self-join by customer"),
            Case("write_lineitem", write(self.WRITE_LINEITEM), None, None,
                 "write-heavy: lineitem, transformed, to Parquet"),
            Case("write_orders", write(self.WRITE_ORDERS, "priority"), None, None,
                 "write-heavy: orders partitioned by priority"),
        ]

    def title(self):
        return f"ETL jobs over TPC-H SF{self.tpch.args.sf}"

    def describe(self):
        return [f"workload: ETL jobs (2 join-heavy, 2 write-heavy) over TPC-H SF{self.tpch.args.sf}",
                f"data: `{self.tpch.data}`; writes into `{self.out}`"]


WORKLOADS = {"tpch": TpchWorkload, "fallback": FallbackWorkload, "etl": EtlWorkload}


def parse_queries(text):
    queries = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        if "-" in part:
            lo, hi = part.split("-", 1)
            queries.extend(range(int(lo), int(hi) + 1))
        else:
            queries.append(int(part))
    bad = [q for q in queries if not 1 <= q <= 22]
    if bad:
        sys.exit(f"--queries: TPC-H has queries 1..22, not {bad}")
    return queries


# ----------------------------------------------------------------------------------------------
# The Spark session

def plugin_problem(jar):
    """None when the jar looks usable, else why the run is vanilla only."""
    if not jar:
        return "no --jar given"
    if not os.path.isfile(jar):
        return f"{jar}: no such file"
    entry = PLUGIN_CLASS.replace(".", "/") + ".class"
    try:
        with zipfile.ZipFile(jar) as z:
            if entry not in z.namelist():
                return f"{jar} holds no {entry}"
    except (zipfile.BadZipFile, OSError) as e:
        return f"{jar}: not a readable jar ({e})"
    return None


def session_conf(args, eventlog_dir, with_plugin):
    conf = {
        "spark.master": args.master,
        "spark.app.name": f"spark_tpch_bench {args.workload}",
        "spark.driver.memory": args.driver_memory,
        "spark.eventLog.enabled": "true",
        "spark.eventLog.dir": "file://" + eventlog_dir,
        "spark.eventLog.rolling.enabled": "false",
        "spark.eventLog.compress": "false",
        "spark.ui.showConsoleProgress": "false",
    }
    if with_plugin:
        conf["spark.jars"] = os.path.abspath(args.jar)
        conf["spark.plugins"] = PLUGIN_CLASS
    for item in args.conf:
        key, _, value = item.partition("=")
        conf[key.strip()] = value.strip()
    return conf


def discard_jvm():
    """Stops the SparkContext (if any) and the JVM pyspark started, so that a new session gets
    a fresh JVM (spark.jars is read when the JVM starts)."""
    from pyspark import SparkContext
    sc = SparkContext._active_spark_context
    if sc is not None:
        try:
            sc.stop()
        except Exception:
            pass
    gateway = SparkContext._gateway
    if gateway is not None:
        proc = getattr(gateway, "proc", None)
        try:
            gateway.shutdown()
        except Exception:
            pass
        if proc is not None:
            try:
                proc.stdin.close()  # the gateway server exits when its stdin closes
                proc.wait(timeout=30)
            except Exception:
                proc.kill()
                proc.wait()
    SparkContext._gateway = None
    SparkContext._jvm = None


def jvm_alive():
    from pyspark import SparkContext
    proc = getattr(SparkContext._gateway, "proc", None)
    return proc is None or proc.poll() is None


def start_session(conf):
    from pyspark.sql import SparkSession
    builder = SparkSession.Builder()  # a fresh builder: SparkSession.builder keeps options
    for key, value in conf.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("WARN")
    return spark


def check_plugin_loaded(spark):
    jvm = spark._jvm
    loader = jvm.java.lang.Thread.currentThread().getContextClassLoader()
    jvm.java.lang.Class.forName(PLUGIN_CLASS, False, loader)
    spark.conf.set(ENABLED_KEY, "false")


def open_session(args, eventlog_dir):
    """(spark, plugin loaded?, note on the plugin)."""
    problem = plugin_problem(args.jar)
    if problem is None:
        try:
            spark = start_session(session_conf(args, eventlog_dir, True))
            check_plugin_loaded(spark)
            return spark, True, f"plugin {PLUGIN_CLASS} from `{args.jar}`"
        except Exception as e:
            problem = f"the session did not start with the plugin: {one_line(e)}"
            discard_jvm()
    print(f"== vanilla Spark only: {problem}", flush=True)
    spark = start_session(session_conf(args, eventlog_dir, False))
    return spark, False, f"vanilla Spark only: {problem}"


def one_line(e, limit=400):
    """The first line of an error; for a Java exception behind py4j, its innermost cause."""
    java = getattr(e, "java_exception", None)
    if java is not None:
        try:
            while java.getCause() is not None and java.getCause() != java:
                java = java.getCause()
            return str(java.toString()).strip().splitlines()[0][:limit]
        except Exception:
            pass
    text = str(e).strip()
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    head = lines[0] if lines else type(e).__name__
    return head[:limit]


# ----------------------------------------------------------------------------------------------
# Running

@dataclass
class Run:
    case: str
    mode: str
    phase: str          # "warmup" or "rep"
    round: int          # 1-based within the phase
    tag: str            # the job description
    order: int          # 1: ran first of the pair, 2: second
    wall_ms: float = math.nan
    ms: float = math.nan             # from the event log
    executions: int = 0
    tandem_nodes: Optional[int] = None
    plan_nodes: Optional[int] = None
    rows: int = 0
    error: str = ""


@dataclass
class CaseResult:
    case: Case
    runs: list = field(default_factory=list)
    differences: list = field(default_factory=list)   # (phase, round, text)


def run_once(spark, case, mode, phase, rnd, order, plugin):
    tag = f"{case.name} {mode} {phase}{rnd}"
    run = Run(case.name, mode, phase, rnd, tag, order)
    sc = spark.sparkContext
    rows = None
    started = time.perf_counter()
    try:
        if plugin:
            spark.conf.set(ENABLED_KEY, "true" if mode == TANDEM else "false")
        sc.setJobDescription(tag)
        started = time.perf_counter()
        rows = case.build(spark).collect()
        run.rows = len(rows)
    except Exception as e:
        run.error = one_line(e)
    finally:
        run.wall_ms = (time.perf_counter() - started) * 1000
        if jvm_alive():
            sc.setJobDescription(None)
    return run, rows


def run_workload(spark, cases, args, plugin):
    modes = (VANILLA, TANDEM) if plugin else (VANILLA,)
    results = [CaseResult(c) for c in cases]
    rounds = [("warmup", k) for k in range(1, args.warmup + 1)] + \
             [("rep", k) for k in range(1, args.reps + 1)]
    for index, (phase, rnd) in enumerate(rounds):
        for qi, res in enumerate(results):
            order = modes if (index + qi) % 2 == 0 else tuple(reversed(modes))
            answers = {}
            for position, mode in enumerate(order, 1):
                if not jvm_alive():
                    return results, "the Spark JVM died (see its log above); runs stopped"
                run, rows = run_once(spark, res.case, mode, phase, rnd, position, plugin)
                res.runs.append(run)
                answers[mode] = rows
                print(f"{run.tag:28s} {run.wall_ms:9.1f} ms wall  {run.rows:6d} rows"
                      + (f"  ERROR {run.error}" if run.error else ""), flush=True)
            if plugin and answers.get(VANILLA) is not None and answers.get(TANDEM) is not None:
                diff = spark_tpch.rows_difference(answers[TANDEM], answers[VANILLA],
                                                  res.case.ordered, res.case.limit)
                if diff:
                    res.differences.append((phase, rnd, diff))
                    print(f"  DIFFERENT ANSWERS ({res.case.name} {phase}{rnd}): tandem "
                          f"against vanilla: {diff}", flush=True)
    return results, None


# ----------------------------------------------------------------------------------------------
# The event log

def event_log_path(eventlog_dir, app_id):
    found = sorted(glob.glob(os.path.join(eventlog_dir, glob.escape(app_id) + "*")))
    done = [p for p in found if not p.endswith(".inprogress")]
    return (done or found or [None])[0]


def count_nodes(info, name=TANDEM_NODE):
    """(nodes named `name`, all nodes) in a sparkPlanInfo tree (subqueries are children)."""
    if not isinstance(info, dict):
        return 0, 0
    hits, total = int(info.get("nodeName") == name), 1
    for child in info.get("children") or []:
        h, t = count_nodes(child, name)
        hits, total = hits + h, total + t
    return hits, total


def parse_event_log(path):
    """{description: [execution dict]} for the root SQL executions in the log."""
    execs = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            if "SparkListenerSQL" not in line[:120]:
                continue
            try:
                event = json.loads(line)
            except ValueError:
                continue  # a truncated last line of a log that was not closed
            kind = event.get("Event")
            if kind == SQL_START:
                eid = event["executionId"]
                execs[eid] = {"id": eid, "root": event.get("rootExecutionId", eid),
                              "description": event.get("description", ""),
                              "start": event["time"], "end": None, "error": "",
                              "plan": event.get("sparkPlanInfo")}
            elif kind == SQL_AQE_UPDATE and event.get("executionId") in execs:
                execs[event["executionId"]]["plan"] = event.get("sparkPlanInfo")
            elif kind == SQL_END and event.get("executionId") in execs:
                e = execs[event["executionId"]]
                e["end"] = event["time"]
                e["error"] = event.get("errorMessage") or ""
    by_description = {}
    for e in execs.values():
        if e["root"] in (None, -1, e["id"]):
            by_description.setdefault(e["description"], []).append(e)
    return by_description


def attach_event_times(results, by_description):
    """Fills Run.ms (the sum over the run's root executions: one per collect()), the plan node
    counts and the executions count. Returns the runs the log had nothing for."""
    missing = []
    for res in results:
        for run in res.runs:
            execs = [e for e in by_description.get(run.tag, []) if e["end"] is not None]
            run.executions = len(execs)
            if not execs:
                missing.append(run.tag)
                continue
            run.ms = float(sum(e["end"] - e["start"] for e in execs))
            hits = totals = 0
            for e in execs:
                h, t = count_nodes(e["plan"])
                hits, totals = hits + h, totals + t
            run.tandem_nodes, run.plan_nodes = hits, totals
            if not run.error:
                run.error = next((one_line(e["error"]) for e in execs if e["error"]), "")
    return missing


# ----------------------------------------------------------------------------------------------
# Report

def geomean(values):
    values = [v for v in values if v > 0 and math.isfinite(v)]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else math.nan


def summarise(res, mode, key="ms"):
    vals = [getattr(r, key) for r in res.runs
            if r.mode == mode and r.phase == "rep" and not r.error
            and math.isfinite(getattr(r, key))]
    if not vals:
        return None
    return {"median": statistics.median(vals), "min": min(vals), "max": max(vals),
            "n": len(vals)}


def fmt(v, digits=1):
    return "" if v is None or not math.isfinite(v) else f"{v:.{digits}f}"


def case_rows(results, plugin):
    rows = []
    for res in results:
        v, t = summarise(res, VANILLA), summarise(res, TANDEM) if plugin else None
        vw, tw = summarise(res, VANILLA, "wall_ms"), \
            summarise(res, TANDEM, "wall_ms") if plugin else None
        ratio = v["median"] / t["median"] if v and t and t["median"] > 0 else math.nan
        overlap = None
        if v and t and v["n"] > 1 and t["n"] > 1:
            overlap = v["min"] <= t["max"] and t["min"] <= v["max"]
        by_message = {}
        for r in res.runs:
            if r.error:
                by_message.setdefault(r.error[:200], set()).add(r.mode)
        errors = [f"{'both' if len(modes) > 1 else next(iter(modes))}: {message}"
                  for message, modes in sorted(by_message.items())]
        tandem_runs = [r for r in res.runs
                       if r.mode == TANDEM and r.tandem_nodes is not None and not r.error]
        nodes = (f"{tandem_runs[-1].tandem_nodes}/{tandem_runs[-1].plan_nodes}"
                 if tandem_runs else "")
        leaked = [r.tag for r in res.runs if r.mode == VANILLA and r.tandem_nodes]
        if not plugin:
            check = "not compared (vanilla only)"
        elif leaked:
            check = (f"DIFFERENT PLANS: a vanilla run had {TANDEM_NODE} nodes ({leaked[0]}), "
                     f"{ENABLED_KEY}=false did not switch the plugin off")
        elif res.differences:
            phase, rnd, text = res.differences[0]
            check = f"DIFFERENT ({phase}{rnd}): {text}"
        elif errors:
            check = "not compared (failed)"
        else:
            compared = len({(r.phase, r.round) for r in res.runs})
            check = f"equal ({compared} pairs)"
        rows.append({"case": res.case.name, "title": res.case.title or res.case.name,
                     "vanilla": v, "tandem": t, "vanilla_wall": vw, "tandem_wall": tw,
                     "ratio": ratio, "overlap": overlap, "nodes": nodes, "check": check,
                     "errors": errors})
    return rows


def round_ratios(results):
    """The geomean over the queries of vanilla / tandem within each timed round (the two runs of
    a pair are adjacent in time, so a round's ratio is paired), in round order."""
    out = []
    rounds = sorted({r.round for res in results for r in res.runs if r.phase == "rep"})
    for k in rounds:
        ratios = []
        for res in results:
            ms = {r.mode: r.ms for r in res.runs if r.phase == "rep" and r.round == k
                  and not r.error and math.isfinite(r.ms)}
            if ms.get(VANILLA, 0) > 0 and ms.get(TANDEM, 0) > 0:
                ratios.append(ms[VANILLA] / ms[TANDEM])
        if ratios:
            out.append(geomean(ratios))
    return out


def noise_line(rows, results, plugin, reps):
    if not plugin:
        return None
    pairs = [r for r in rows if r["vanilla"] and r["tandem"]]
    if not pairs:
        return "No query ran in both modes."
    if reps < 2:
        return ("Noise: one timed round, so no spread was measured and the ratios cannot be "
                "told from run-to-run noise (run with --reps 3 or more).")
    overlapping = [r["case"] for r in pairs if r["overlap"]]
    faster = [r["case"] for r in pairs if r["overlap"] is False and r["ratio"] > 1]
    slower = [r["case"] for r in pairs if r["overlap"] is False and r["ratio"] < 1]
    parts = [f"Noise: the min..max ranges of vanilla and tandem overlap for "
             f"{len(overlapping)} of {len(pairs)} queries (their ratios are within run-to-run "
             "noise" + (f": {', '.join(overlapping)}" if 0 < len(overlapping) <= 8 else "")
             + ")",
             f"tandem faster beyond that: {len(faster)}"
             + (f" ({', '.join(faster)})" if faster else ""),
             f"slower beyond that: {len(slower)}" + (f" ({', '.join(slower)})"
                                                     if slower else "")]
    per_round = round_ratios(results)
    if len(per_round) >= 2:
        lo, hi = min(per_round), max(per_round)
        listed = ", ".join(f"{g:.2f}" for g in per_round)
        if lo <= 1 <= hi:
            verdict = "it spans 1, so the overall ratio is within the noise"
        else:
            chance = 2.0 ** (1 - len(per_round))
            verdict = (f"every round favours {'tandem' if lo > 1 else 'vanilla'}, which "
                       f"{len(per_round)} rounds would do by chance {chance * 100:.0f}% of the "
                       "time were there no difference" + (" (too few rounds to tell)"
                                                          if chance > 0.05 else ""))
        parts.append(f"the geomean ratio of each round alone: {listed} ({lo:.2f}..{hi:.2f}): "
                     + verdict)
    spreads = [(r[m]["max"] - r[m]["min"]) / r[m]["median"] for r in pairs
               for m in ("vanilla", "tandem") if r[m]["median"] > 0]
    if spreads:
        typical = statistics.median(spreads) * 100
        parts.append(f"one query's min..max in one mode spans {typical:.0f}% of its median "
                     "(median over queries and modes)")
    return "; ".join(parts) + "."


def spark_version(spark):
    try:
        return spark.version
    except Exception:
        import pyspark
        return pyspark.__version__


def write_reports(out, results, args, workload, env, plugin, note, missing, stopped):
    rows = case_rows(results, plugin)
    with open(os.path.join(out, "runs.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["case", "mode", "phase", "round", "order", "ms", "wall_ms", "rows",
                    "executions", "tandem_nodes", "plan_nodes", "error", "description"])
        for res in results:
            for r in res.runs:
                w.writerow([r.case, r.mode, r.phase, r.round, r.order, fmt(r.ms, 0),
                            fmt(r.wall_ms, 1), r.rows, r.executions,
                            "" if r.tandem_nodes is None else r.tandem_nodes,
                            "" if r.plan_nodes is None else r.plan_nodes, r.error, r.tag])

    def stat(s, key):
        return fmt(s[key], 0) if s else ""

    with open(os.path.join(out, "results.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["case", "vanilla_ms", "vanilla_min_ms", "vanilla_max_ms", "tandem_ms",
                    "tandem_min_ms", "tandem_max_ms", "ratio_vanilla_over_tandem",
                    "ranges_overlap", "vanilla_wall_ms", "tandem_wall_ms", "tandem_nodes",
                    "check"])
        for r in rows:
            w.writerow([r["case"], stat(r["vanilla"], "median"), stat(r["vanilla"], "min"),
                        stat(r["vanilla"], "max"), stat(r["tandem"], "median"),
                        stat(r["tandem"], "min"), stat(r["tandem"], "max"),
                        fmt(r["ratio"], 3), "" if r["overlap"] is None else r["overlap"],
                        stat(r["vanilla_wall"], "median"), stat(r["tandem_wall"], "median"),
                        r["nodes"], r["check"]])
        both = [r for r in rows if r["vanilla"] and r["tandem"]]
        van = [r for r in rows if r["vanilla"]]
        w.writerow(["total", fmt(sum(r["vanilla"]["median"] for r in (both or van)), 0), "", "",
                    fmt(sum(r["tandem"]["median"] for r in both), 0) if both else "", "", "",
                    fmt(sum(r["vanilla"]["median"] for r in both)
                        / sum(r["tandem"]["median"] for r in both), 3) if both else "",
                    "", "", "", "", f"{len(both or van)} cases"])
        if both:
            w.writerow(["geomean", "", "", "", "", "", "", fmt(geomean([r["ratio"] for r in both]),
                                                                3), "", "", "", "", ""])

    lines = [f"# Spark {workload.title()}: vanilla Spark against Spark with the Tandem plugin",
             ""]
    lines += [f"- {line}" for line in workload.describe()]
    lines += [f"- run {env['date']}, {env['cpu']}, {os.cpu_count()} cores; Spark "
              f"{env['spark']} (pyspark, Python {platform.python_version()}, Java "
              f"{env['java']}), master `{args.master}`, driver memory {args.driver_memory}",
              f"- {note}",
              f"- {args.warmup} warm-up round(s) (checked, not timed), then {args.reps} timed "
              f"round(s); in each, every query runs "
              + ("in both modes, the order alternating between queries and rounds; "
                 f"`{ENABLED_KEY}` set per run" if plugin else "once (vanilla)"),
              "- ms: submit to done of the query's SQL execution in the event log "
              "(SQLExecutionEnd.time - SQLExecutionStart.time, execution matched by job "
              "description): optimisation, planning and execution; wall: spark.sql/DataFrame "
              "build + collect() in Python (adds parsing, analysis and moving the rows to "
              "Python)",
              f"- event log: `{env['eventlog']}`"]
    if env["confs"]:
        lines.append("- settings: " + ", ".join(f"`{k}={v}`" for k, v in env["confs"]))
    if stopped:
        lines.append(f"- STOPPED EARLY: {stopped}")
    if missing:
        lines.append(f"- the event log had no finished execution for {len(missing)} run(s): "
                     + ", ".join(missing[:10]) + (" ..." if len(missing) > 10 else ""))
    lines.append("")
    if plugin:
        lines += ["| query | vanilla ms | min..max | tandem ms | min..max | vanilla / tandem | "
                  "ranges overlap | vanilla wall ms | tandem wall ms | tandem nodes | answers |",
                  "|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---|"]
    else:
        lines += ["| query | vanilla ms | min..max | vanilla wall ms | result |",
                  "|---|---:|---:|---:|---|"]

    def rng(s):
        return f"{s['min']:.0f}..{s['max']:.0f}" if s else ""

    for r in rows:
        errors = "; ".join(r["errors"]).replace("|", "\\|")
        check = r["check"].replace("|", "\\|") + (f"; {errors}" if errors else "")
        if plugin:
            ov = {None: "", True: "yes", False: "no"}[r["overlap"]]
            lines.append(f"| {r['title']} | {stat(r['vanilla'], 'median')} | {rng(r['vanilla'])} "
                         f"| {stat(r['tandem'], 'median')} | {rng(r['tandem'])} | "
                         f"{fmt(r['ratio'], 2)} | {ov} | {stat(r['vanilla_wall'], 'median')} | "
                         f"{stat(r['tandem_wall'], 'median')} | {r['nodes']} | {check} |")
        else:
            lines.append(f"| {r['title']} | {stat(r['vanilla'], 'median')} | {rng(r['vanilla'])} "
                         f"| {stat(r['vanilla_wall'], 'median')} | "
                         f"{errors or 'ok'} |")
    both = [r for r in rows if r["vanilla"] and r["tandem"]]
    van = [r for r in rows if r["vanilla"]]
    if plugin and both:
        sv = sum(r["vanilla"]["median"] for r in both)
        stt = sum(r["tandem"]["median"] for r in both)
        svw = sum(r["vanilla_wall"]["median"] for r in both if r["vanilla_wall"])
        stw = sum(r["tandem_wall"]["median"] for r in both if r["tandem_wall"])
        gm = geomean([r["ratio"] for r in both])
        lines.append(f"| sum ({len(both)} queries) | {sv:.0f} | | {stt:.0f} | | {sv / stt:.2f} "
                     f"| | {svw:.0f} | {stw:.0f} | | |")
        lines.append(f"| geomean of ratios | | | | | {gm:.2f} | | | | | |")
        lines += ["", noise_line(rows, results, plugin, args.reps)]
    elif van:
        sv = sum(r["vanilla"]["median"] for r in van)
        svw = sum(r["vanilla_wall"]["median"] for r in van if r["vanilla_wall"])
        lines.append(f"| sum ({len(van)} queries) | {sv:.0f} | | {svw:.0f} | |")
        lines += ["", f"Tandem did not run ({note}), so there are no ratios."]
    differing = [r["case"] for r in rows if r["check"].startswith("DIFFERENT")]
    failed = [r["case"] for r in rows if r["errors"]]
    lines.append("")
    if plugin:
        lines.append(f"Answers: {len(rows) - len(differing) - len(failed)} of {len(rows)} queries "
                     "gave equal answers in both modes in every round"
                     + (f"; different: {', '.join(differing)}" if differing else "")
                     + (f"; failed: {', '.join(failed)}" if failed else "") + ".")
    elif failed:
        lines.append(f"Failed: {', '.join(failed)}.")
    with open(os.path.join(out, "results.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    return bool(differing or failed or stopped)


# ----------------------------------------------------------------------------------------------

def session_settings(spark, args):
    """(key, value) of the settings that shape the plans, and of every --conf."""
    keys = ["spark.sql.shuffle.partitions", "spark.sql.adaptive.enabled",
            "spark.sql.ansi.enabled", "spark.sql.autoBroadcastJoinThreshold"]
    for item in args.conf:
        key = item.split("=", 1)[0].strip()
        if key not in keys:
            keys.append(key)
    out = []
    for key in keys:
        try:
            out.append((key, spark.conf.get(key)))
        except Exception:  # a static or JVM-level setting the session cannot read back
            given = {k.strip(): v.strip() for k, _, v in (c.partition("=") for c in args.conf)}
            out.append((key, given.get(key, "?")))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workload", choices=sorted(WORKLOADS), default="tpch")
    ap.add_argument("--sf", default="1")
    ap.add_argument("--rows", default="10000000", help="fallback workload: fact rows")
    ap.add_argument("--data", default=None,
                    help="TPC-H Parquet folder (DIR/<table>/); default data/tpch-sf<SF>, made "
                         "with tandem datagen when missing")
    ap.add_argument("--jar", default=None, help="the plugin jar (tandem-spark.jar)")
    ap.add_argument("--out", default=None,
                    help="report folder (default bench/results/spark_<workload>_sf<SF>)")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--warmup", type=int, default=1, help="untimed rounds first (default 1)")
    ap.add_argument("--queries", default="1-22", help="e.g. 1,3,6 or 1-22")
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--api", choices=["sql", "dataframe"], default="sql")
    ap.add_argument("--driver-memory", default="4g")
    ap.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE",
                    help="a Spark setting for the session (repeatable)")
    ap.add_argument("--tandem", default=os.environ.get(
        "TANDEM_BIN", os.path.join(ROOT, "build", "default", "tandem")),
        help="tandem binary, for datagen only")
    args = ap.parse_args()
    if args.reps < 1 or args.warmup < 0:
        sys.exit("--reps must be at least 1 and --warmup at least 0")
    for item in args.conf:
        if "=" not in item:
            sys.exit(f"--conf {item}: expected KEY=VALUE")

    out = os.path.abspath(args.out or os.path.join(
        ROOT, "bench", "results", f"spark_{args.workload}_sf{args.sf}"))
    eventlog_dir = os.path.join(out, "eventlog")
    os.makedirs(eventlog_dir, exist_ok=True)
    if os.path.isdir(DEFAULT_JAVA_HOME) and not os.environ.get("JAVA_HOME"):
        os.environ["JAVA_HOME"] = DEFAULT_JAVA_HOME
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)

    workload = WORKLOADS[args.workload](args)
    workload.prepare()
    cases = workload.cases()

    spark, plugin, note = open_session(args, eventlog_dir)
    sc = spark.sparkContext
    app_id = sc.applicationId
    env = {"date": f"{datetime.datetime.now():%Y-%m-%d %H:%M}", "cpu": cpu_model(),
           "spark": spark_version(spark),
           "java": sc._jvm.java.lang.System.getProperty("java.version"),
           "eventlog": os.path.relpath(event_log_path_guess(eventlog_dir, app_id), ROOT)
           if out.startswith(ROOT) else event_log_path_guess(eventlog_dir, app_id),
           "confs": session_settings(spark, args)}
    print(f"== {note}; application {app_id}; event log in {eventlog_dir}", flush=True)
    try:
        workload.setup(spark)
        results, stopped = run_workload(spark, cases, args, plugin)
    finally:
        if jvm_alive():
            spark.stop()  # closes the event log (renames the .inprogress file)
    path = event_log_path(eventlog_dir, app_id)
    missing = []
    if path is None:
        stopped = (stopped + "; " if stopped else "") + f"no event log for {app_id}"
    else:
        env["eventlog"] = os.path.relpath(path, ROOT) if path.startswith(ROOT) else path
        missing = attach_event_times(results, parse_event_log(path))
    failed = write_reports(out, results, args, workload, env, plugin, note, missing, stopped)
    print(f"== wrote {os.path.join(out, 'results.md')} and results.csv, runs.csv", flush=True)
    with open(os.path.join(out, "results.md")) as f:
        print(f.read())
    return 1 if failed else 0


def event_log_path_guess(eventlog_dir, app_id):
    return os.path.join(eventlog_dir, app_id)


if __name__ == "__main__":
    sys.exit(main())
