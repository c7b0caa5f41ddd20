// The Spark-version-specific parts of the plugin, in one place: the version check, and the
// constructors of Spark plan nodes and expressions whose arguments have changed between Spark
// releases. The plugin is built against and tested with Spark 4.0.1 (scripts/install.sh pins
// pyspark 4.0.1); supporting another 4.x means adding its differences here, behind the version.
package dev.tandem.spark;

import org.apache.spark.sql.catalyst.expressions.Cast;
import org.apache.spark.sql.catalyst.expressions.EvalMode$;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.catalyst.expressions.SortOrder;
import org.apache.spark.sql.catalyst.plans.physical.SinglePartition$;
import org.apache.spark.sql.execution.ColumnarToRowExec;
import org.apache.spark.sql.execution.ProjectExec;
import org.apache.spark.sql.execution.SortExec;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.exchange.ENSURE_REQUIREMENTS$;
import org.apache.spark.sql.execution.exchange.ShuffleExchangeExec;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.types.DataType;
import scala.Option;
import scala.collection.immutable.Seq;

final class SparkShim {
  /** The Spark line this build supports. */
  static final String SUPPORTED = "4.0";

  private SparkShim() {}

  /** Refuses a Spark this build was not made for, naming both versions. */
  static void checkVersion(String sparkVersion) {
    if (!sparkVersion.equals(SUPPORTED) && !sparkVersion.startsWith(SUPPORTED + ".")) {
      throw new IllegalStateException("the Tandem plugin is built for Spark " + SUPPORTED
          + ".x; this application runs Spark " + sparkVersion
          + " (remove spark.plugins=dev.tandem.spark.TandemPlugin, or use a Tandem build for it)");
    }
  }

  /** Every partition of {@code child} shuffled into one (as TakeOrderedAndProject gathers). */
  static SparkPlan shuffleToOnePartition(SparkPlan child) {
    return new ShuffleExchangeExec(
        SinglePartition$.MODULE$, child, ENSURE_REQUIREMENTS$.MODULE$, Option.empty());
  }

  /** A local (per-partition) sort. */
  static SparkPlan sort(Seq<SortOrder> order, SparkPlan child) {
    return new SortExec(order, false, child, 0);
  }

  static SparkPlan project(Seq<NamedExpression> list, SparkPlan child) {
    return new ProjectExec(list, child);
  }

  static SparkPlan columnarToRow(SparkPlan child) {
    return new ColumnarToRowExec(child);
  }

  /** A cast in the session's eval mode (the analyzer fills in the time zone where needed). */
  static Expression cast(Expression child, DataType to) {
    return new Cast(child, to, Option.empty(), EvalMode$.MODULE$.fromSQLConf(SQLConf.get()));
  }
}
