// A stage's Spark plan -> a tree of Candidates: every node Tandem knows gets its fragment form
// (Translation) or the reason it has none; exchanges and query stages are boundaries. Nothing
// here decides what runs where: the engine's verdicts and SupportPlanner do.
package dev.tandem.spark;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.catalyst.expressions.NullsFirst$;
import org.apache.spark.sql.catalyst.expressions.SortOrder;
import org.apache.spark.sql.execution.CollectLimitExec;
import org.apache.spark.sql.execution.ColumnarToRowTransition;
import org.apache.spark.sql.execution.EmptyRelationExec;
import org.apache.spark.sql.execution.ExpandExec;
import org.apache.spark.sql.execution.FileSourceScanExec;
import org.apache.spark.sql.execution.FilterExec;
import org.apache.spark.sql.execution.GlobalLimitExec;
import org.apache.spark.sql.execution.InputAdapter;
import org.apache.spark.sql.execution.LocalLimitExec;
import org.apache.spark.sql.execution.ProjectExec;
import org.apache.spark.sql.execution.RowToColumnarTransition;
import org.apache.spark.sql.execution.SortExec;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.TakeOrderedAndProjectExec;
import org.apache.spark.sql.execution.UnionExec;
import org.apache.spark.sql.execution.WholeStageCodegenExec;
import org.apache.spark.sql.execution.adaptive.AQEShuffleReadExec;
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanExec;
import org.apache.spark.sql.execution.adaptive.QueryStageExec;
import org.apache.spark.sql.execution.aggregate.BaseAggregateExec;
import org.apache.spark.sql.execution.command.ExecutedCommandExec;
import org.apache.spark.sql.execution.exchange.Exchange;
import org.apache.spark.sql.execution.exchange.ReusedExchangeExec;
import org.apache.spark.sql.execution.joins.BaseJoinExec;
import org.apache.spark.sql.execution.window.WindowExec;
import org.apache.spark.sql.execution.window.WindowGroupLimitExec;

final class PlanTranslator {

  private final TranslationContext ctx;

  PlanTranslator(TranslationContext ctx) {
    this.ctx = ctx;
  }

  Candidate translate(SparkPlan plan) {
    List<Candidate> children = new ArrayList<>();
    for (SparkPlan child : ScalaInterop.list(plan.children())) children.add(translate(child));
    List<ExpressionNote> notes = new ArrayList<>();
    String boundary = boundaryReason(plan);
    if (boundary != null) {
      return new Candidate(plan, children, Candidate.Role.BOUNDARY, null, notes, boundary);
    }
    String name = plan.getClass().getSimpleName();
    String reason;
    SupportTable table = SupportTable.get();
    if (!table.operators().contains(name)) {
      String why = table.reason(name);
      reason = name + (why != null ? " stays in Spark: " + why : " is not supported");
    } else if (!ctx.conf.execEnabled(name)) {
      reason = name + " is disabled by " + TandemConf.EXEC_PREFIX + name + "=false";
    } else {
      try {
        Translation t = translateNode(plan, notes);
        return new Candidate(plan, children, Candidate.Role.TRANSLATED, t, notes, null);
      } catch (Unsupported u) {
        reason = u.getMessage();
      }
    }
    return new Candidate(plan, children, Candidate.Role.UNSUPPORTED, null, notes, reason);
  }

  static boolean isBoundary(SparkPlan plan) {
    return boundaryReason(plan) != null;
  }

  /** Why Tandem never takes {@code plan} (Spark's machinery, not a query operator), or null. */
  private static String boundaryReason(SparkPlan plan) {
    if (plan instanceof Exchange || plan instanceof QueryStageExec
        || plan instanceof ReusedExchangeExec || plan instanceof AQEShuffleReadExec
        || plan instanceof AdaptiveSparkPlanExec || plan instanceof TandemExec
        || plan instanceof ColumnarToRowTransition || plan instanceof RowToColumnarTransition
        || plan instanceof WholeStageCodegenExec || plan instanceof InputAdapter) {
      return "exchanges, query stages and transitions stay in Spark";
    }
    if (plan instanceof ExecutedCommandExec) return "commands stay in Spark";
    if (plan instanceof EmptyRelationExec) {
      return "an empty relation (AQE found no rows) has nothing to run";
    }
    return null;
  }

  private Translation translateNode(SparkPlan plan, List<ExpressionNote> notes)
      throws Unsupported {
    if (plan instanceof FileSourceScanExec scan) return ScanTranslator.translate(scan, ctx);
    if (plan instanceof BaseAggregateExec agg) {
      return AggregateTranslator.translate(agg, ctx, notes);
    }
    if (plan instanceof BaseJoinExec) return JoinTranslator.translate(plan, ctx, notes);
    if (plan instanceof WindowExec w) return WindowTranslator.translate(w, ctx, notes);
    if (plan instanceof WindowGroupLimitExec l) return WindowTranslator.passThrough(l, ctx, notes);
    if (plan instanceof UnionExec union) {
      return new Translation(List.of(ctx.node("union", output(union))),
          Translation.ShapeRule.CONCAT, false, union.children().size());
    }
    List<Attribute> input = output(plan.children().head());
    ExpressionTranslator expressions = ctx.expressions(input, notes);
    if (plan instanceof FilterExec f) {
      ObjectNode node = ctx.node("filter", output(f));
      node.set("condition", expressions.translate(f.condition()));
      return Translation.unary(false, node);
    }
    if (plan instanceof ProjectExec p) {
      return Translation.unary(false, project(output(p), p.projectList(), expressions));
    }
    if (plan instanceof ExpandExec e) {
      ObjectNode node = ctx.node("expand", output(e));
      ArrayNode projections = node.putArray("projections");
      for (scala.collection.Seq<Expression> p : ScalaInterop.list(e.projections())) {
        ArrayNode exprs = projections.addArray();
        expressions.translateAll(ScalaInterop.list(p)).forEach(exprs::add);
      }
      return Translation.unary(false, node);
    }
    if (plan instanceof SortExec s) {
      ObjectNode node = ctx.node("sort", output(s));
      node.set("keys", sortKeys(s.sortOrder(), expressions));
      return Translation.unary(true, node);
    }
    // Spark's limits count the offset in: limit L, offset O keeps rows [O, L) (L < 0: no limit).
    // Tandem's limit node keeps `limit` rows after skipping `offset`.
    if (plan instanceof GlobalLimitExec g) {
      return Translation.unary(false,
          limit(output(g), afterOffset(g.limit(), g.offset()), g.offset()));
    }
    if (plan instanceof LocalLimitExec l) {
      return Translation.unary(false, limit(output(l), l.limit(), 0));
    }
    if (plan instanceof CollectLimitExec c) {
      // Every partition keeps its first L rows; one task then skips O of them.
      return twoPhase(false, limit(input, c.limit(), 0),
          limit(output(c), afterOffset(c.limit(), c.offset()), c.offset()));
    }
    TakeOrderedAndProjectExec t = (TakeOrderedAndProjectExec) plan;
    ObjectNode local = topN(input, t.limit(), 0, t.sortOrder(), expressions);
    ObjectNode last =
        topN(input, afterOffset(t.limit(), t.offset()), t.offset(), t.sortOrder(), expressions);
    if (isIdentity(t.projectList(), input)) return twoPhase(true, local, last);
    return twoPhase(true, local, last, project(output(t), t.projectList(), expressions));
  }

  /** The rows a Spark limit keeps after its offset: limit - offset (at least 0), or -1. */
  private static long afterOffset(int limit, int offset) {
    return limit < 0 ? -1 : Math.max(0, (long) limit - offset);
  }

  /** chain[0] runs per partition; the rest once, over every partition's output. */
  private static Translation twoPhase(boolean substantial, ObjectNode... chain) {
    Translation t = Translation.unary(substantial, chain);
    t.finalPhase = 1;
    return t;
  }

  private ObjectNode project(List<Attribute> output, scala.collection.Seq<NamedExpression> list,
      ExpressionTranslator expressions) throws Unsupported {
    ObjectNode node = ctx.node("project", output);
    node.set("exprs", Json.array().addAll(expressions.translateNamed(ScalaInterop.list(list))));
    return node;
  }

  private ObjectNode limit(List<Attribute> output, long limit, long offset) throws Unsupported {
    ObjectNode node = ctx.node("limit", output);
    node.put("limit", limit);
    node.put("offset", offset);
    return node;
  }

  private ObjectNode topN(List<Attribute> output, long limit, long offset,
      scala.collection.Seq<SortOrder> order, ExpressionTranslator expressions) throws Unsupported {
    ObjectNode node = ctx.node("top_n", output);
    node.put("limit", limit);
    node.put("offset", offset);
    node.set("keys", sortKeys(order, expressions));
    return node;
  }

  static ArrayNode sortKeys(scala.collection.Seq<SortOrder> order,
      ExpressionTranslator expressions) throws Unsupported {
    ArrayNode keys = Json.array();
    for (SortOrder o : ScalaInterop.list(order)) {
      ObjectNode key = keys.addObject();
      key.set("expr", expressions.translate(o.child()));
      key.put("ascending", o.isAscending());
      key.put("nulls_first", o.nullOrdering() == NullsFirst$.MODULE$);
    }
    return keys;
  }

  private static boolean isIdentity(scala.collection.Seq<NamedExpression> list,
      List<Attribute> input) {
    List<NamedExpression> exprs = ScalaInterop.list(list);
    if (exprs.size() != input.size()) return false;
    for (int i = 0; i < exprs.size(); i++) {
      if (!(exprs.get(i) instanceof Attribute a) || !a.exprId().equals(input.get(i).exprId())) {
        return false;
      }
    }
    return true;
  }

  private static List<Attribute> output(SparkPlan plan) {
    return ScalaInterop.list(plan.output());
  }
}
