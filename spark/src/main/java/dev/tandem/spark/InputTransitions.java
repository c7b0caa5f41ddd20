// The postColumnarTransitions rule. Spark makes every child of a columnar operator columnar
// (RowToColumnarExec over a row-based child), but a TandemExec reads its Spark children as rows
// (packed UnsafeRows, or a broadcast): this rule removes those RowToColumnarExecs again, and puts
// a ColumnarToRowExec over a child that only produces batches (a Spark columnar scan). Where a
// row consumer reads a TandemExec (Spark's ColumnarToRowExec over it, or a TandemExec child), the
// TandemExec produces rows itself: the engine writes UnsafeRows natively, much cheaper than
// Spark's conversion through the column vectors (spark.tandem.sql.nativeRowOutput=false keeps
// the conversion).
package dev.tandem.spark;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.catalyst.rules.Rule;
import org.apache.spark.sql.execution.ColumnarToRowExec;
import org.apache.spark.sql.execution.RowToColumnarExec;
import org.apache.spark.sql.execution.SparkPlan;

final class InputTransitions extends Rule<SparkPlan> {
  @Override
  public SparkPlan apply(SparkPlan plan) {
    return apply(plan, TandemConf.ofSession().nativeRowOutput());
  }

  private static SparkPlan apply(SparkPlan plan, boolean nativeRows) {
    List<SparkPlan> children = new ArrayList<>();
    boolean changed = false;
    for (SparkPlan child : ScalaInterop.list(plan.children())) {
      SparkPlan c = apply(child, nativeRows);
      if (plan instanceof TandemExec)
        c = asRows(c, nativeRows);
      changed |= c != child;
      children.add(c);
    }
    SparkPlan out = changed ? plan.withNewChildren(ScalaInterop.seq(children)) : plan;
    if (nativeRows && out instanceof ColumnarToRowExec c && c.child() instanceof TandemExec t) {
      return t.withRowOutput();
    }
    return out;
  }

  private static SparkPlan asRows(SparkPlan child, boolean nativeRows) {
    if (child instanceof RowToColumnarExec r)
      return r.child();
    if (nativeRows && child instanceof TandemExec t)
      return t.withRowOutput();
    return child.supportsColumnar() && !child.supportsRowBased() ? SparkShim.columnarToRow(child)
                                                                 : child;
  }
}
