// The postColumnarTransitions rule. Spark makes every child of a columnar operator columnar
// (RowToColumnarExec over a row-based child), but a TandemExec reads its Spark children as rows
// (packed UnsafeRows, or a broadcast): this rule removes those RowToColumnarExecs again, and puts
// a ColumnarToRowExec over a child that only produces batches (a Spark columnar scan).
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
    List<SparkPlan> children = new ArrayList<>();
    boolean changed = false;
    for (SparkPlan child : ScalaInterop.list(plan.children())) {
      SparkPlan c = apply(child);
      if (plan instanceof TandemExec) c = asRows(c);
      changed |= c != child;
      children.add(c);
    }
    return changed ? plan.withNewChildren(ScalaInterop.seq(children)) : plan;
  }

  private static SparkPlan asRows(SparkPlan child) {
    if (child instanceof RowToColumnarExec r) return r.child();
    return child.supportsColumnar() && !child.supportsRowBased()
        ? new ColumnarToRowExec(child)
        : child;
  }
}
