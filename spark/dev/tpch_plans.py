#!/usr/bin/env python3
"""Plans the 22 TPC-H queries in Spark (local[2]) with the Tandem plugin and checks what the
plugin made of them: every fragment it dumps must be well formed (spark/dev/fragment_check.py),
and the report says, per query, how many operators run in Tandem, how many stay in Spark and
why. A development tool, not a test suite.

Without the engine (the default) the plugin validates with -Dtandem.validate.stub=true (every
translated node "supported on the CPU"); the queries are then only planned, with AQE off (with
AQE on, Spark plans stages only while it runs them). With --native LIB (the engine, or
spark/dev/fake_jni/ for a stand-in that runs nothing) the queries run, AQE on or off.

    .venv/bin/python spark/dev/tpch_plans.py --jar build/tandem-spark-dev.jar [--aqe] \
        [--native LIB] [--mode execute|explainOnly] [--queries 1,3,5] [--out DIR]

Data: TPC-H SF 0.01 from build/default/tandem datagen (into DIR/data unless there).
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "python"))
sys.path.insert(0, HERE)

import fragment_check  # noqa: E402
from spark_tpch import register_tables, sql_query  # noqa: E402


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--jar", required=True, help="tandem-spark jar (spark/build.sh)")
    p.add_argument("--out", default="/tmp/tandem-tpch-plans", help="data, dumps and report")
    p.add_argument("--aqe", action="store_true", help="adaptive execution on (needs --native)")
    p.add_argument("--native", help="libtandem_jni.so to load: the queries then run")
    p.add_argument("--mode", default="execute", choices=["execute", "explainOnly"])
    p.add_argument("--queries", default=",".join(str(i) for i in range(1, 23)))
    p.add_argument("--conf", action="append", default=[], help="extra KEY=VALUE Spark settings")
    return p.parse_args()


def make_data(out):
    data = os.path.join(out, "data")
    if not os.path.isdir(os.path.join(data, "lineitem")):
        tandem = os.path.join(ROOT, "build", "default", "tandem")
        subprocess.run([tandem, "datagen", "tpch", "--sf", "0.01", "--out", data], check=True,
                       stdout=subprocess.DEVNULL)
    return data


def session(args):
    from pyspark.sql import SparkSession
    java_options = []
    if args.native:
        java_options.append(f"-Dtandem.jni.lib={os.path.abspath(args.native)}")
    if not args.native or os.path.basename(args.native).startswith("libfake"):
        java_options.append("-Dtandem.validate.stub=true")
    b = (SparkSession.builder.master("local[2]").appName("tandem-tpch-plans")
         .config("spark.jars", os.path.abspath(args.jar))
         .config("spark.plugins", "dev.tandem.spark.TandemPlugin")
         .config("spark.driver.extraJavaOptions", " ".join(java_options))
         .config("spark.sql.adaptive.enabled", "true" if args.aqe else "false")
         .config("spark.sql.shuffle.partitions", "4")
         .config("spark.ui.enabled", "false")
         .config("spark.tandem.sql.mode", args.mode))
    for kv in args.conf:
        k, v = kv.split("=", 1)
        b = b.config(k, v)
    spark = b.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def run_query(spark, n, dump, run):
    """Plans (and with `run`, runs) query n, dumping into `dump`; returns the final plan text
    and, when run, the TandemExecs' metrics."""
    os.makedirs(dump, exist_ok=True)
    for f in glob.glob(os.path.join(dump, "*")):
        os.remove(f)
    spark.conf.set("spark.tandem.test.dumpFragments", dump)
    df = spark.sql(sql_query(n))
    if run:
        df.collect()
    qe = df._jdf.queryExecution()
    return qe.executedPlan().toString(), tandem_metrics(qe) if run else []


def tandem_metrics(qe):
    """(summary, rows, batches) of every TandemExec of an executed query, through AQE stages."""
    out = []

    def walk(p):
        name = p.getClass().getSimpleName()
        if name == "AdaptiveSparkPlanExec":
            return walk(p.executedPlan())
        if name.endswith("QueryStageExec"):
            walk(p.plan())
        if name == "ReusedExchangeExec":
            walk(p.child())
        if name == "TandemExec":
            m = p.metrics()
            out.append((p.simpleString(5).split(" on ")[0], m.get("numOutputRows").get().value(),
                        m.get("numOutputBatches").get().value()))
        children = p.children()
        for i in range(children.size()):
            walk(children.apply(i))

    walk(qe.executedPlan())
    return out


def check_dumps(dump):
    """Problems in the dumped documents, and the explain lines of every stage."""
    issues, explain = [], []
    for path in sorted(glob.glob(os.path.join(dump, "*.json"))):
        name = os.path.basename(path)
        if name.endswith("verdicts.json"):
            continue
        with open(path) as f:
            doc = json.load(f)
        for p in fragment_check.problems(doc, execution="fragment-" in name):
            issues.append(f"{name}: {p}")
    for path in sorted(glob.glob(os.path.join(dump, "*-explain.txt"))):
        with open(path) as f:
            explain += f.read().splitlines()[1:]
    return issues, explain


def main():
    args = parse_args()
    if args.aqe and not args.native:
        sys.exit("--aqe needs --native: with AQE, stages are planned only while they run")
    os.makedirs(args.out, exist_ok=True)
    data = make_data(args.out)
    spark = session(args)
    register_tables(spark, data)
    run = bool(args.native)
    reasons, total_issues = Counter(), 0
    report = []
    for n in [int(q) for q in args.queries.split(",")]:
        dump = os.path.join(args.out, f"q{n:02d}")
        try:
            plan, metrics = run_query(spark, n, dump, run)
        except Exception as e:  # report and go on with the next query
            report.append(f"Q{n:02d} FAILED: {str(e).splitlines()[0][:300]}")
            continue
        with open(os.path.join(dump, "final-plan.txt"), "w") as f:
            f.write(plan)
        issues, explain = check_dumps(dump)
        total_issues += len(issues)
        tandem = [l for l in explain if l.lstrip().startswith("*Exec")]
        spark_ops = [l.strip() for l in explain if l.lstrip().startswith("!Exec")]
        for l in spark_ops:
            reasons[re.sub(r"#\d+", "#N", l)] += 1
        execs = plan.count("TandemExec")
        status = "fully" if not spark_ops else ("partly" if tandem else "not")
        report.append(f"Q{n:02d} {status:6} in Tandem: {len(tandem)} operators in Tandem"
                      f" ({execs} TandemExec), {len(spark_ops)} in Spark,"
                      f" {len(issues)} fragment problems")
        report += [f"      {l}" for l in spark_ops]
        report += [f"      metrics: {summary}: {rows} rows, {batches} batches"
                   for summary, rows, batches in metrics]
        report += [f"      PROBLEM {i}" for i in issues]
    spark.stop()
    report.append("")
    report.append("Why operators stay in Spark (all queries):")
    report += [f"  {c:3} x {r}" for r, c in reasons.most_common()]
    report.append(f"fragment problems: {total_issues}")
    text = "\n".join(report)
    print(text)
    with open(os.path.join(args.out, "report.txt"), "w") as f:
        f.write(text + "\n")
    sys.exit(1 if total_issues else 0)


if __name__ == "__main__":
    main()
