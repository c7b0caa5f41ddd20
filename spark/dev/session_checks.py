#!/usr/bin/env python3
"""Checks of the plugin inside a Spark session (local[2]) without the engine: the fake library
(spark/dev/fake_jni, runs nothing and logs each task's splits) and stub validation. What they
cover: settings (checked at start and per query, the kill switch, exec and expression switches),
explainOnly, strict mode, the plan shapes (two-phase limits, unions, cartesian products, swapped
outer joins, order restored above a hash join that replaced a sort-merge join, exchange reuse),
the file splits and partition values handed to the engine, rows fed through AQE stages, and the
extension registered twice. A development tool, not a test suite.

    .venv/bin/python spark/dev/session_checks.py --jar JAR --fake LIB [--out DIR]
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import traceback

FAILURES = []


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--jar", required=True)
    p.add_argument("--fake", required=True, help="libfake_tandem_jni.so")
    p.add_argument("--out", default="/tmp/tandem-session-checks")
    p.add_argument("--startup", help=argparse.SUPPRESS)  # KEY=VALUE: one start-up check, then exit
    p.add_argument("--extensions", action="store_true", help=argparse.SUPPRESS)
    return p.parse_args()


def session(args, extra=()):
    from pyspark.sql import SparkSession
    b = (SparkSession.builder.master("local[2]").appName("tandem-session-checks")
         .config("spark.jars", os.path.abspath(args.jar))
         .config("spark.plugins", "dev.tandem.spark.TandemPlugin")
         .config("spark.driver.extraJavaOptions",
                 f"-Dtandem.validate.stub=true -Dtandem.jni.lib={os.path.abspath(args.fake)}")
         .config("spark.sql.adaptive.enabled", "false")
         .config("spark.sql.shuffle.partitions", "3")
         .config("spark.ui.enabled", "false"))
    for k, v in extra:
        b = b.config(k, v)
    spark = b.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def check(ok, what):
    print(("ok      " if ok else "FAILED  ") + what)
    if not ok:
        FAILURES.append(what)


def plan_text(df):
    """The executed plan without fragment documents (after the action when one ran)."""
    return df._jdf.queryExecution().executedPlan().treeString(False, False, 25, False)


def error_of(fn):
    try:
        fn()
    except Exception as e:  # py4j wraps the JVM exception; its text is what users see
        return str(e)
    return ""


class Checks:
    def __init__(self, spark, out):
        self.spark = spark
        self.out = out
        self.data = os.path.join(out, "data")
        self.make_data()

    def plan(self, text, collect=False, **conf):
        """The executed plan of `text` planned (and with `collect`, run) under settings `conf`
        (keys with "__" for "."), which are unset afterwards."""
        for k, v in conf.items():
            self.spark.conf.set(k.replace("__", "."), v)
        try:
            df = self.spark.sql(text)
            if collect:
                df.collect()
            return plan_text(df)
        finally:
            for k in conf:
                self.spark.conf.unset(k.replace("__", "."))

    def error(self, text, **conf):
        """The error planning `text` raises under `conf` ("" if none)."""
        return error_of(lambda: self.plan(text, **conf))

    def make_data(self):
        s = self.spark
        s.conf.set("spark.tandem.enabled", "false")  # the fake engine would write no rows
        t = os.path.join(self.data, "t")
        if not os.path.isdir(t):
            s.range(0, 2000).selectExpr(
                "id", "cast(id % 7 as int) as k", "cast(id * 1.5 as decimal(12,2)) as d",
                "concat('s', id % 13) as s", "cast(id % 3 as int) as p",
                "if(id % 2 = 0, 'even', 'odd') as q").repartition(4) \
                .write.partitionBy("p", "q").parquet(t)
        u = os.path.join(self.data, "u")
        if not os.path.isdir(u):
            s.range(0, 300).selectExpr("id as uid", "cast(id % 7 as int) as k",
                                       "concat('u', id) as name").write.parquet(u)
        s.conf.unset("spark.tandem.enabled")
        s.read.parquet(t).createOrReplaceTempView("t")
        s.read.parquet(u).createOrReplaceTempView("u")

    # -- settings ----------------------------------------------------------------------------
    def settings(self):
        err = self.error("select k, count(*) from t group by k",
                         spark__tandem__sql__explain="SOME")
        check("spark.tandem.sql.explain" in err and "ALL, NOT_ON_GPU, NONE" in err,
              "a bad runtime value fails the query naming the key and the accepted values")
        err = self.error("select k, count(*) from t group by k",
                         spark__tandem__sql__exec__FooExec="false")
        check("unknown Tandem setting spark.tandem.sql.exec.FooExec" in err and "SortExec" in err,
              "an unknown exec switch is refused with the names Tandem translates")
        plan = self.plan("select k, count(*) from t group by k",
                                  spark__tandem__enabled="false")
        check("TandemExec" not in plan and "HashAggregate" in plan,
              "spark.tandem.enabled=false (runtime) leaves the plan to Spark")
        plan = self.plan("select k, count(*) from t group by k")
        check("TandemExec" in plan, "the same query goes to Tandem with the switch unset")

    def switches(self):
        q = "select t.k, count(*) from t join u on t.k = u.k group by t.k"
        plan = self.plan(q, spark__sql__autoBroadcastJoinThreshold="-1",
                                  spark__tandem__sql__exec__SortMergeJoinExec="false")
        check("SortMergeJoin" in plan,
              "spark.tandem.sql.exec.SortMergeJoinExec=false keeps the join in Spark")
        dump = self.dump_dir("switch-expression")
        plan = self.plan("select k, sum(d + 1) from t group by k",
                                  spark__tandem__sql__expression__Add="false",
                                  spark__tandem__test__dumpFragments=dump)
        explain = self.dumped(dump, "explain.txt")
        check("Add is disabled by spark.tandem.sql.expression.Add=false" in explain
              and "HashAggregate" in plan,
              "spark.tandem.sql.expression.Add=false keeps the aggregate using + in Spark")

    def explain_only(self):
        dump = self.dump_dir("explain-only")
        plan = self.plan("select k, count(*) from t where d > 10 group by k",
                                  spark__tandem__sql__mode="explainOnly",
                                  spark__tandem__test__dumpFragments=dump)
        explain = self.dumped(dump, "explain.txt")
        check("TandemExec" not in plan, "explainOnly does not change the plan")
        check("explainOnly" in explain and "*Exec <HashAggregateExec> will run on Tandem" in explain
              and "*Exec <FileSourceScanExec> will run on Tandem" in explain
              and not glob.glob(os.path.join(dump, "*fragment*")),
              "explainOnly logs what would run and chooses no fragments")

    def strict(self):
        q = "select k, row_number() over (partition by k order by id) from t"
        err = self.error(q, spark__tandem__test__strict="true")
        check("strict mode" in err and "WindowExec stays in Spark because WindowExec is not yet"
              " supported" in err, "strict mode fails a query naming the operator and the reason")
        err = self.error(q, spark__tandem__test__strict="true",
                         spark__tandem__test__allowedFallbacks="WindowExec")
        check(err == "", "strict mode passes when the fallback is allowed: " + err[:200])

    # -- plan shapes ---------------------------------------------------------------------------
    def shapes(self):
        plan = self.plan("select k, d from t where d > 5 order by d desc limit 7")
        check(plan.count("TandemExec") == 2 and "Coalesce 1" in plan and "top_n" in plan,
              "TakeOrderedAndProject runs as top_n per partition, Coalesce 1, final top_n")
        plan = self.plan("select k, d from t where d > 5 limit 7")
        check("Coalesce 1" in plan and plan.count("limit#") == 2,
              "CollectLimit runs as a limit per partition, Coalesce 1, final limit")
        plan = self.plan("select k from t where d > 5 union all select k from u")
        check("union#" in plan and plan.count("TandemExec") == 1, "UNION ALL in one fragment")
        plan = self.plan("select t.id, u.uid from t, u where t.d < u.uid",
                                  spark__sql__autoBroadcastJoinThreshold="-1")
        check("CartesianProduct" not in plan and "join#" in plan,
              "a cartesian product with a condition runs in Tandem")
        plan = self.plan(
            "select /*+ broadcast(u) */ u.uid, t.id from u right join t on u.k = t.k and t.d > 3")
        check("TandemExec" in plan and "BroadcastExchange" in plan,
              "a right outer broadcast join runs in Tandem")

    def ordering_restored(self):
        # The window needs its input ordered by k, which the sort-merge join's output is.
        q = "select t.k, sum(t.id) over (partition by t.k) from t join u on t.k = u.k"
        conf = dict(spark__sql__autoBroadcastJoinThreshold="-1",
                    spark__tandem__sql__exec__SortMergeJoinExec="false")
        vanilla = self.plan(q, **conf)
        plan = self.plan(q, spark__sql__autoBroadcastJoinThreshold="-1")
        window_sorts = vanilla.split("Window")[1].split("SortMergeJoin")[0].count("Sort [")
        check(window_sorts == 0 and "Sort [k#" in plan.split("Window")[1].split("TandemExec")[0],
              "a Spark Window over a Tandem hash join gets the sort the sort-merge join made")

    def reuse(self):
        q = ("with a as (select k, sum(d) s from t group by k)"
             " select * from a x join a y on x.k = y.k + 1")
        plan = self.plan(q, spark__sql__autoBroadcastJoinThreshold="-1")
        vanilla = self.plan(q, spark__sql__autoBroadcastJoinThreshold="-1",
                                     spark__tandem__enabled="false")
        check(("ReusedExchange" in plan) == ("ReusedExchange" in vanilla) and "TandemExec" in plan,
              f"exchange reuse as in Spark (Tandem {'ReusedExchange' in plan},"
              f" Spark {'ReusedExchange' in vanilla})")

    # -- execution through the fake engine -----------------------------------------------------
    def splits(self):
        log = os.path.join(self.out, "tasks.jsonl")
        if os.path.exists(log):
            os.remove(log)
        self.plan("select p, q, count(*) from t group by p, q", collect=True)
        if not os.path.exists(log):
            check(False, "the fake engine logged tasks (TANDEM_FAKE_TASK_LOG set before start)")
            return
        seen = {}
        with open(log) as f:
            for line in f:
                task = json.loads(line)
                for node, splits in task.get("splits", {}).items():
                    for s in splits:
                        seen.setdefault(s["path"], []).append(s)
        files = glob.glob(os.path.join(self.data, "t", "p=*", "q=*", "*.parquet"))
        check(sorted(seen) == sorted(files), f"every file of t is split to a task ({len(files)})")
        good = True
        for path, splits in seen.items():
            p = int(path.split("/p=")[1].split("/")[0])
            q = path.split("/q=")[1].split("/")[0]
            good &= all(s["partition_values"] == [p, q] for s in splits)
            good &= sum(s["length"] for s in splits) == os.path.getsize(path)
        check(good, "partition values come from the paths and splits cover each file")

    def aqe(self):
        self.spark.conf.set("spark.sql.adaptive.enabled", "true")
        self.spark.conf.set("spark.sql.adaptive.optimizer.excludedRules",
                            "org.apache.spark.sql.execution.adaptive.AQEPropagateEmptyRelation")
        try:
            plan = self.plan("select t.k, count(*), sum(t.d) from t join u on t.k = u.k"
                             " group by t.k order by t.k", collect=True,
                             spark__tandem__sql__exec__FileSourceScanExec="false")
            check("isFinalPlan=true" in plan and "TandemExec" in plan
                  and "ShuffleQueryStage" in plan,
                  "with AQE the stages run through TandemExecs (rows from Spark scans fed in)")
        finally:
            self.spark.conf.unset("spark.sql.adaptive.optimizer.excludedRules")
            self.spark.conf.set("spark.sql.adaptive.enabled", "false")

    # -- helpers ---------------------------------------------------------------------------------
    def dump_dir(self, name):
        d = os.path.join(self.out, "dumps", name)
        os.makedirs(d, exist_ok=True)
        for f in glob.glob(os.path.join(d, "*")):
            os.remove(f)
        return d

    @staticmethod
    def dumped(dump, suffix):
        text = ""
        for f in sorted(glob.glob(os.path.join(dump, "*" + suffix))):
            with open(f) as fh:
                text += fh.read()
        return text


def startup_check(args):
    """In a fresh process: a bad setting at start, or the extension named twice."""
    if args.extensions:
        spark = session(args, [("spark.sql.extensions", "dev.tandem.spark.TandemExtensions")])
        spark.range(0, 100).write.mode("overwrite").parquet(os.path.join(args.out, "twice"))
        df = spark.read.parquet(os.path.join(args.out, "twice")).groupBy("id").count()
        plan = df._jdf.queryExecution().executedPlan().treeString(False, False, 25, False)
        print("TANDEM_EXECS", plan.count("TandemExec"))
        return
    key, value = args.startup.split("=", 1)
    try:
        session(args, [(key, value)])
        print("STARTED")
    except Exception as e:
        print("REFUSED", str(e).replace("\n", " ")[:2000])


def in_subprocess(args, *flags):
    env = dict(os.environ)
    r = subprocess.run([sys.executable, __file__, "--jar", args.jar, "--fake", args.fake,
                        "--out", args.out, *flags], capture_output=True, text=True, env=env)
    return r.stdout


def main():
    args = parse_args()
    os.makedirs(args.out, exist_ok=True)
    if args.startup or args.extensions:
        return startup_check(args)
    out = in_subprocess(args, "--startup", "spark.tandem.sql.device=tpu")
    check("REFUSED" in out and "spark.tandem.sql.device" in out and "auto, gpu, cpu" in out,
          "a bad spark.tandem.* value stops the application at start")
    out = in_subprocess(args, "--extensions")
    check("TANDEM_EXECS 2" in out, "spark.sql.extensions naming TandemExtensions as well as the"
          " plugin adding it: still one rewrite (" + out.strip()[-40:] + ")")
    # The fake engine reads TANDEM_FAKE_TASK_LOG from the JVM's environment: set it before start.
    os.environ["TANDEM_FAKE_TASK_LOG"] = os.path.join(args.out, "tasks.jsonl")
    spark = session(args)
    checks = Checks(spark, args.out)
    for name in ["settings", "switches", "explain_only", "strict", "shapes", "ordering_restored",
                 "reuse", "splits", "aqe"]:
        try:
            getattr(checks, name)()
        except Exception:
            check(False, f"{name} raised:\n{traceback.format_exc()}")
    spark.stop()
    print(f"{len(FAILURES)} checks failed" if FAILURES else "all session checks passed")
    sys.exit(1 if FAILURES else 0)


if __name__ == "__main__":
    main()
