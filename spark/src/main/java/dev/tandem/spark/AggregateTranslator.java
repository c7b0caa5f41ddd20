// HashAggregateExec / ObjectHashAggregateExec / SortAggregateExec -> an aggregate node (plus a
// project node for the result expressions of a final or complete aggregate). Modes Partial,
// PartialMerge, Final and Complete of sum, avg, count, count(*), min and max, and the DISTINCT
// aggregates of Spark's plans for them (computed over rows made distinct below); the columns between a partial and a
// final node are Spark's own aggregation buffers (docs/spark_fragment.md, "Aggregates"), so the
// halves may meet across an exchange. A sort aggregate runs as a hash aggregate (its output order
// is not kept; SupportPlanner drops the sort below it and OrderingRepair restores order above).
package dev.tandem.spark;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateExpression;
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateFunction;
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateMode;
import org.apache.spark.sql.catalyst.expressions.aggregate.Average;
import org.apache.spark.sql.catalyst.expressions.aggregate.Complete$;
import org.apache.spark.sql.catalyst.expressions.aggregate.Count;
import org.apache.spark.sql.catalyst.expressions.aggregate.Final$;
import org.apache.spark.sql.catalyst.expressions.aggregate.Max;
import org.apache.spark.sql.catalyst.expressions.aggregate.Min;
import org.apache.spark.sql.catalyst.expressions.aggregate.Partial$;
import org.apache.spark.sql.catalyst.expressions.aggregate.PartialMerge$;
import org.apache.spark.sql.catalyst.expressions.aggregate.Sum;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.aggregate.BaseAggregateExec;

final class AggregateTranslator {
  enum Mode { PARTIAL, FINAL, COMPLETE }

  private AggregateTranslator() {}

  static Translation translate(BaseAggregateExec agg, TranslationContext ctx,
      List<ExpressionNote> notes) throws Unsupported {
    Mode mode = mode(agg);
    List<AggregateExpression> aggregates = ScalaInterop.list(agg.aggregateExpressions());
    for (AggregateExpression ae : aggregates) {
      // Spark aggregates a DISTINCT aggregate's argument only after grouping by it below, so in
      // its partial and final modes it is the plain aggregate of those rows.
      if (ae.isDistinct() && ae.mode() != Partial$.MODULE$ && ae.mode() != Final$.MODULE$) {
        throw new Unsupported("DISTINCT aggregates in " + ae.mode() + " mode are not supported");
      }
      boolean readsInput = ae.mode() == Partial$.MODULE$ || ae.mode() == Complete$.MODULE$;
      if (ae.filter().isDefined() && !readsInput) {
        throw new Unsupported("aggregate FILTER clauses in " + ae.mode() + " mode");
      }
    }
    List<Attribute> input = ScalaInterop.list(((SparkPlan) agg).children().head().output());
    List<Attribute> keys = new ArrayList<>();
    for (NamedExpression g : ScalaInterop.list(agg.groupingExpressions())) {
      keys.add(g.toAttribute());
    }
    List<Attribute> results = ScalaInterop.list(agg.aggregateAttributes());
    List<Attribute> output =
        mode == Mode.PARTIAL ? ScalaInterop.list(agg.output()) : resultInput(agg);
    if (mode == Mode.PARTIAL && output.size() != keys.size() + buffers(aggregates).size()) {
      throw new Unsupported("its output is not its keys followed by the aggregation buffers");
    }
    if (mode == Mode.FINAL) checkFinalInput(input, keys, aggregates);

    ExpressionTranslator expressions = ctx.expressions(input, notes);
    ObjectNode node = ctx.node("aggregate", output);
    node.put("mode", mode.name().toLowerCase(java.util.Locale.ROOT));
    ArrayNode keyList = node.putArray("keys");
    for (NamedExpression g : ScalaInterop.list(agg.groupingExpressions())) {
      keyList.add(expressions.translateNamed(g));
    }
    ArrayNode list = node.putArray("aggregates");
    for (int i = 0; i < aggregates.size(); i++) {
      AggregateExpression ae = aggregates.get(i);
      AggregateFunction fn = ae.aggregateFunction();
      List<Attribute> fnOutput = mode == Mode.PARTIAL
          ? attributes(fn.inputAggBufferAttributes())
          : List.of(results.get(i));
      boolean merge = ae.mode() == PartialMerge$.MODULE$;
      ObjectNode a = aggregate(fn, mode != Mode.FINAL && !merge, fnOutput, expressions, ctx);
      if (merge) {
        // PartialMerge: the function's buffers in the input, merged into buffers.
        a.put("phase", "merge");
        ArrayNode buffers = a.putArray("args");
        expressions.translateAll(attributes(fn.inputAggBufferAttributes())).forEach(buffers::add);
      }
      if (ae.isDistinct()) a.put("distinct", true);
      if (ae.filter().isDefined()) a.set("filter", expressions.translate(ae.filter().get()));
      list.add(a);
    }
    if (mode == Mode.PARTIAL) {
      Translation t = Translation.unary(true, node);
      t.companions.add(finalTwin(node, output, keys.size(), aggregates, ctx));
      return t;
    }
    return withResultProjection(agg, node, output, ctx, notes);
  }

  /** What a final or complete aggregate computes before its result expressions: keys ++ results. */
  static List<Attribute> resultInput(BaseAggregateExec agg) {
    List<Attribute> out = new ArrayList<>();
    for (NamedExpression g : ScalaInterop.list(agg.groupingExpressions())) out.add(g.toAttribute());
    out.addAll(ScalaInterop.list(agg.aggregateAttributes()));
    return out;
  }

  /** The aggregation mode, or Unsupported for PartialMerge and mixed modes (DISTINCT plans). */
  static Mode mode(BaseAggregateExec agg) throws Unsupported {
    Set<AggregateMode> modes = new LinkedHashSet<>();
    for (AggregateExpression ae : ScalaInterop.list(agg.aggregateExpressions())) {
      modes.add(ae.mode());
    }
    if (modes.isEmpty()) {
      // Grouping only (SELECT DISTINCT): the final half is the one that needs its keys clustered.
      return agg.requiredChildDistributionExpressions().isDefined() ? Mode.FINAL : Mode.PARTIAL;
    }
    // Partial and PartialMerge aggregates both output buffers (Spark mixes them in the plans of
    // DISTINCT aggregates); each aggregate's own mode goes into the fragment as its phase.
    if (modes.stream().allMatch(m -> m == Partial$.MODULE$ || m == PartialMerge$.MODULE$)) {
      return Mode.PARTIAL;
    }
    if (modes.size() > 1) throw new Unsupported("it mixes aggregation modes " + modes);
    AggregateMode m = modes.iterator().next();
    if (m == Final$.MODULE$) return Mode.FINAL;
    if (m == Complete$.MODULE$) return Mode.COMPLETE;
    throw new Unsupported(m + " aggregation is not supported");
  }

  private static ObjectNode aggregate(AggregateFunction fn, boolean withArgs,
      List<Attribute> output, ExpressionTranslator expressions, TranslationContext ctx)
      throws Unsupported {
    String name = fn.getClass().getSimpleName();
    ctx.requireExpression(name);
    ObjectNode agg = Json.object();
    List<Expression> args = new ArrayList<>();
    if (fn instanceof Sum s) {
      agg.put("fn", "sum");
      agg.put("mode", s.evalMode().toString().toLowerCase(java.util.Locale.ROOT));
      args.add(s.child());
    } else if (fn instanceof Average a) {
      agg.put("fn", "avg");
      agg.put("mode", a.evalMode().toString().toLowerCase(java.util.Locale.ROOT));
      args.add(a.child());
    } else if (fn instanceof Count c) {
      List<Expression> children = ScalaInterop.list(c.children());
      if (children.size() != 1) throw new Unsupported("count of several columns is not supported");
      Expression arg = children.get(0);
      boolean star = arg instanceof Literal lit && lit.value() != null;
      agg.put("fn", star ? "count_star" : "count");
      if (!star) args.add(arg);
    } else if (fn instanceof Min m) {
      agg.put("fn", "min");
      args.add(m.child());
    } else if (fn instanceof Max m) {
      agg.put("fn", "max");
      args.add(m.child());
    } else {
      throw new Unsupported("aggregate function " + name + " is not supported");
    }
    ArrayNode argList = agg.putArray("args");
    if (withArgs) expressions.translateAll(args).forEach(argList::add);
    agg.set("output", TypeTranslator.fields(output));
    return agg;
  }

  /** Final/complete: Spark's result expressions over keys ++ results, when they are not those. */
  private static Translation withResultProjection(BaseAggregateExec agg, ObjectNode node,
      List<Attribute> output, TranslationContext ctx, List<ExpressionNote> notes)
      throws Unsupported {
    List<NamedExpression> results = ScalaInterop.list(agg.resultExpressions());
    if (sameAttributes(results, output)) return Translation.unary(true, node);
    ObjectNode project = ctx.node("project", ScalaInterop.list(agg.output()));
    try {
      List<ObjectNode> exprs = ctx.expressions(output, notes).translateNamed(results);
      project.set("exprs", Json.array().addAll(exprs));
      Translation t = Translation.unary(true, node, project);
      t.resultProjection = true;
      return t;
    } catch (Unsupported u) {
      Translation t = Translation.unary(true, node);
      t.sparkResultReason = u.getMessage();
      return t;
    }
  }

  /**
   * The final aggregate this partial one feeds, validated with it: with AQE the final half is
   * planned in a later stage, and the partial half goes to Tandem only if the final one can too.
   */
  private static Translation.Companion finalTwin(ObjectNode partial, List<Attribute> partialOutput,
      int keyCount, List<AggregateExpression> aggregates, TranslationContext ctx)
      throws Unsupported {
    List<Attribute> output = new ArrayList<>(partialOutput.subList(0, keyCount));
    for (AggregateExpression ae : aggregates) output.add(ae.resultAttribute());
    ObjectNode twin = ctx.node("aggregate", output);
    twin.put("mode", "final");
    ExpressionTranslator columns = ctx.expressions(partialOutput, new ArrayList<>());
    ArrayNode keys = twin.putArray("keys");
    for (int i = 0; i < keyCount; i++) keys.add(columns.translate(partialOutput.get(i)));
    ArrayNode list = twin.putArray("aggregates");
    for (int i = 0; i < aggregates.size(); i++) {
      ObjectNode agg = partial.get("aggregates").get(i).deepCopy();
      agg.remove(List.of("phase", "filter"));
      agg.putArray("args");
      agg.set("output", TypeTranslator.fields(List.of(output.get(keyCount + i))));
      list.add(agg);
    }
    return new Translation.Companion(twin, partialOutput);
  }

  /** A final aggregate reads keys ++ every aggregate's buffers, in order. */
  private static void checkFinalInput(List<Attribute> input, List<Attribute> keys,
      List<AggregateExpression> aggregates) throws Unsupported {
    List<Attribute> expected = new ArrayList<>(keys);
    expected.addAll(buffers(aggregates));
    boolean same = input.size() == expected.size();
    for (int i = 0; same && i < input.size(); i++) {
      same = input.get(i).exprId().equals(expected.get(i).exprId());
    }
    if (!same) {
      throw new Unsupported("its input " + input + " is not its keys followed by the"
          + " aggregation buffers");
    }
  }

  private static List<Attribute> buffers(List<AggregateExpression> aggregates) {
    List<Attribute> out = new ArrayList<>();
    for (AggregateExpression ae : aggregates) {
      out.addAll(attributes(ae.aggregateFunction().inputAggBufferAttributes()));
    }
    return out;
  }

  private static List<Attribute> attributes(scala.collection.Seq<? extends Attribute> seq) {
    return new ArrayList<>(ScalaInterop.list(seq));
  }

  private static boolean sameAttributes(List<NamedExpression> exprs, List<Attribute> attrs) {
    if (exprs.size() != attrs.size()) return false;
    for (int i = 0; i < exprs.size(); i++) {
      if (!(exprs.get(i) instanceof Attribute a) || !a.exprId().equals(attrs.get(i).exprId())) {
        return false;
      }
    }
    return true;
  }
}
