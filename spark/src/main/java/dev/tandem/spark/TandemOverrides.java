// The planner rule (a preColumnarTransitions rule, so it sees plain Spark operators): with AQE it
// runs once per query stage (leaves are query stages), without AQE once on the whole plan. For
// each plan it translates the candidates, asks the engine for verdicts once, lets SupportPlanner
// decide, logs the explain, and (in execute mode) replaces the Tandem regions by TandemExecs.
// It is idempotent: a plan that already holds a TandemExec was planned (double registration).
// An unexpected error in the plugin leaves the plan to Spark (and is logged), except in strict
// mode, where tests want to see it.
package dev.tandem.spark;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.sql.catalyst.rules.Rule;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanExec;
import org.apache.spark.sql.internal.SQLConf;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

final class TandemOverrides extends Rule<SparkPlan> {
  private static final Logger LOG = LoggerFactory.getLogger(TandemOverrides.class);

  @Override
  public SparkPlan apply(SparkPlan plan) {
    TandemConf conf = TandemConf.ofSession();
    if (!conf.enabled() || plan instanceof AdaptiveSparkPlanExec
        || plan.exists(p -> p instanceof TandemExec)) {
      return plan;
    }
    try {
      return plan(plan, conf);
    } catch (RuntimeException e) {
      if (conf.strict()) throw e;
      LOG.error("Tandem: planning failed, the stage runs in Spark", e);
      return plan;
    }
  }

  private SparkPlan plan(SparkPlan plan, TandemConf conf) {
    TranslationContext ctx = new TranslationContext(conf, SQLConf.get());
    Candidate root = new PlanTranslator(ctx).translate(plan);
    ValidationDocument validation = ValidationDocument.of(ctx, root);
    NativeVerdicts verdicts = null;
    if (validation != null) {
      verdicts = NativeVerdicts.validate(validation.document, validation.ids);
      SupportPlanner.decide(root, verdicts);
    }
    String explain = ExplainLog.render(root, conf.explain(), conf.mode());
    if (explain != null) LOG.warn(explain);

    SparkPlan result = plan;
    List<ObjectNode> fragments = List.of();
    if (conf.mode() == TandemConf.Mode.EXECUTE && validation != null) {
      FragmentAssembler assembler = new FragmentAssembler(ctx, root);
      try {
        result = OrderingRepair.apply(assembler.rebuild(root));
      } catch (Unsupported u) {
        throw new IllegalStateException("a Tandem region could not be assembled: "
            + u.getMessage(), u);
      }
      fragments = assembler.fragments;
    }
    Path dump = conf.dumpDirectory();
    if (dump != null) {
      FragmentDump.write(dump, plan.treeString(), validation, verdicts,
          ExplainLog.render(root, TandemConf.Explain.ALL, conf.mode()), fragments,
          result.treeString());
    }
    if (conf.strict()) StrictMode.check(root, conf);
    return result;
  }
}
