"""Spark sessions with the Tandem plugin for the Spark tests (test_spark_*.py).

One session per test module (a session takes ~10 s to start). The plugin is switched per query
with spark.tandem.enabled, so every answer is compared with vanilla Spark's in the same session:
`both(spark, make_df)` runs a query with the plugin off and on and returns the two results and
the plugin's final plan. The jar comes from the build (TANDEM_BUILD_DIR/tandem-spark-*.jar); a
build without it fails these tests rather than skipping them, since the build makes it wherever
a JDK is installed.
"""
import contextlib
import glob
import json
import os

import pytest

JAVA_HOME_DEFAULT = "/usr/lib/jvm/java-17-openjdk-amd64"


def plugin_jar():
    build = os.environ.get("TANDEM_BUILD_DIR", "")
    jars = sorted(glob.glob(os.path.join(build, "tandem-spark-*.jar"))) if build else []
    if not jars:
        pytest.fail(f"no tandem-spark-*.jar in TANDEM_BUILD_DIR ({build or 'unset'}): the build "
                    "makes it when a JDK and pyspark are installed (install.sh)", pytrace=False)
    return jars[-1]


def session(app, conf=None, master="local[2]", plugin=True):
    """A new SparkSession (stop the previous one first) with the plugin loaded."""
    if not os.environ.get("JAVA_HOME") and os.path.isdir(JAVA_HOME_DEFAULT):
        os.environ["JAVA_HOME"] = JAVA_HOME_DEFAULT
    from pyspark.sql import SparkSession
    b = (SparkSession.builder.master(master).appName(app)
         .config("spark.ui.enabled", "false")
         .config("spark.sql.shuffle.partitions", "4")
         .config("spark.driver.memory", "2g")
         .config("spark.sql.session.timeZone", "UTC"))
    if plugin:
        b = b.config("spark.jars", plugin_jar()).config("spark.plugins",
                                                        "dev.tandem.spark.TandemPlugin")
    for k, v in (conf or {}).items():
        b = b.config(k, v)
    spark = b.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


@contextlib.contextmanager
def settings(spark, **conf):
    """Session settings for a block (keys with '__' for '.'), restored afterwards."""
    keys = {k.replace("__", "."): str(v) for k, v in conf.items()}
    old = {k: spark.conf.get(k, None) for k in keys}
    for k, v in keys.items():
        spark.conf.set(k, v)
    try:
        yield
    finally:
        for k, v in old.items():
            if v is None:
                spark.conf.unset(k)
            else:
                spark.conf.set(k, v)


def final_plan(df):
    """The executed plan's text (AQE's final plan once the query has run)."""
    return df._jdf.queryExecution().executedPlan().toString()


def tandem_nodes(plan_text):
    return plan_text.count("TandemExec")


def collect(make_df, enabled, spark):
    with settings(spark, spark__tandem__enabled=str(enabled).lower()):
        df = make_df()
        rows = df.collect()
        return rows, final_plan(df)


def both(spark, make_df):
    """(vanilla rows, tandem rows, tandem plan): make_df builds the DataFrame (called twice)."""
    vanilla, _ = collect(make_df, False, spark)
    tandem, plan = collect(make_df, True, spark)
    return vanilla, tandem, plan


def error_of(spark, make_df, enabled):
    """The message of the error the query raises (None when it succeeds)."""
    try:
        collect(make_df, enabled, spark)
    except Exception as e:  # py4j and pyspark raise several kinds
        return str(e)
    return None


def native_memory(spark):
    """TandemNative.memory() of the driver's JVM (local mode: the executor's too), by reflection
    (the class is package-private)."""
    gateway = spark.sparkContext._gateway
    jvm = spark.sparkContext._jvm
    loader = jvm.org.apache.spark.util.Utils.getContextOrSparkClassLoader()
    cls = jvm.java.lang.Class.forName("dev.tandem.spark.TandemNative", True, loader)
    method = cls.getDeclaredMethod("memory", gateway.new_array(jvm.java.lang.Class, 0))
    method.setAccessible(True)
    return json.loads(method.invoke(None, gateway.new_array(jvm.java.lang.Object, 0)))
