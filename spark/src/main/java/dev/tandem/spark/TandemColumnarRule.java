// Tandem's ColumnarRule: TandemOverrides before Spark inserts row/columnar transitions,
// InputTransitions after.
package dev.tandem.spark;

import org.apache.spark.sql.catalyst.rules.Rule;
import org.apache.spark.sql.execution.ColumnarRule;
import org.apache.spark.sql.execution.SparkPlan;

final class TandemColumnarRule extends ColumnarRule {
  private final TandemOverrides overrides = new TandemOverrides();
  private final InputTransitions inputs = new InputTransitions();

  @Override
  public Rule<SparkPlan> preColumnarTransitions() {
    return overrides;
  }

  @Override
  public Rule<SparkPlan> postColumnarTransitions() {
    return inputs;
  }
}
