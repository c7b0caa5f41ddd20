// Restores the row order that Spark operators left in Spark expect from their children. A
// Tandem region may replace an operator that produced sorted output (a sort-merge join, a sort
// aggregate) with a hash-based one, and this rule runs after EnsureRequirements; so wherever a
// Spark operator's required child ordering is no longer satisfied, a Spark SortExec is added.
package dev.tandem.spark;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.catalyst.expressions.SortOrder;
import org.apache.spark.sql.execution.SparkPlan;
import scala.collection.immutable.Seq;

final class OrderingRepair {
  private OrderingRepair() {}

  static SparkPlan apply(SparkPlan plan) {
    List<SparkPlan> children = new ArrayList<>();
    boolean changed = false;
    for (SparkPlan child : ScalaInterop.list(plan.children())) {
      SparkPlan repaired = apply(child);
      changed |= repaired != child;
      children.add(repaired);
    }
    List<Seq<SortOrder>> required = ScalaInterop.list(plan.requiredChildOrdering());
    for (int i = 0; i < children.size() && i < required.size(); i++) {
      Seq<SortOrder> order = required.get(i);
      SparkPlan child = children.get(i);
      if (!order.isEmpty() && !SortOrder.orderingSatisfies(child.outputOrdering(), order)) {
        children.set(i, SparkShim.sort(order, child));
        changed = true;
      }
    }
    return changed ? plan.withNewChildren(ScalaInterop.seq(children)) : plan;
  }
}
