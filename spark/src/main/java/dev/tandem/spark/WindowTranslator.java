// WindowExec -> a window node (docs/spark_fragment.md, "window"): the window functions of one
// (PARTITION BY, ORDER BY) specification, each with its frame. Ranking and offset functions,
// and sum, avg, count, min, max, first and last as window aggregates; IGNORE NULLS, DISTINCT
// and FILTER stay in Spark. Tandem's window sorts its input itself, so SupportPlanner drops the
// Spark sort below it; WindowGroupLimitExec (Spark's early cut of rows a rank filter above will
// drop) passes its rows through, the filter above it still deciding.
package dev.tandem.spark;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.catalyst.expressions.Alias;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.CumeDist;
import org.apache.spark.sql.catalyst.expressions.CurrentRow$;
import org.apache.spark.sql.catalyst.expressions.DenseRank;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.Lag;
import org.apache.spark.sql.catalyst.expressions.Lead;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.catalyst.expressions.NTile;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.catalyst.expressions.NthValue;
import org.apache.spark.sql.catalyst.expressions.PercentRank;
import org.apache.spark.sql.catalyst.expressions.Rank;
import org.apache.spark.sql.catalyst.expressions.RowFrame$;
import org.apache.spark.sql.catalyst.expressions.RowNumber;
import org.apache.spark.sql.catalyst.expressions.SpecifiedWindowFrame;
import org.apache.spark.sql.catalyst.expressions.UnaryMinus;
import org.apache.spark.sql.catalyst.expressions.UnboundedFollowing$;
import org.apache.spark.sql.catalyst.expressions.UnboundedPreceding$;
import org.apache.spark.sql.catalyst.expressions.WindowExpression;
import org.apache.spark.sql.catalyst.expressions.WindowFrame;
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateExpression;
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateFunction;
import org.apache.spark.sql.catalyst.expressions.aggregate.Average;
import org.apache.spark.sql.catalyst.expressions.aggregate.Count;
import org.apache.spark.sql.catalyst.expressions.aggregate.First;
import org.apache.spark.sql.catalyst.expressions.aggregate.Last;
import org.apache.spark.sql.catalyst.expressions.aggregate.Max;
import org.apache.spark.sql.catalyst.expressions.aggregate.Min;
import org.apache.spark.sql.catalyst.expressions.aggregate.Sum;
import org.apache.spark.sql.execution.window.WindowExec;
import org.apache.spark.sql.execution.window.WindowGroupLimitExec;

final class WindowTranslator {
  private WindowTranslator() {}

  static Translation translate(WindowExec w, TranslationContext ctx, List<ExpressionNote> notes)
      throws Unsupported {
    List<Attribute> input = ScalaInterop.list(w.child().output());
    ExpressionTranslator expressions = ctx.expressions(input, notes);
    ObjectNode node = ctx.node("window", ScalaInterop.list(w.output()));
    ArrayNode partition = node.putArray("partition_by");
    expressions.translateAll(ScalaInterop.list(w.partitionSpec())).forEach(partition::add);
    node.set("order_by", PlanTranslator.sortKeys(w.orderSpec(), expressions));
    ArrayNode functions = node.putArray("functions");
    for (NamedExpression named : ScalaInterop.list(w.windowExpression())) {
      Expression e = (Expression) named;
      while (e instanceof Alias a) e = a.child();
      if (!(e instanceof WindowExpression we)) {
        throw new Unsupported("window expression " + ExpressionTranslator.text(e)
            + " is not a window function call");
      }
      ObjectNode fn = function(we.windowFunction(), expressions, ctx);
      fn.set("frame", frame(we.windowSpec().frameSpecification()));
      fn.set("output", TypeTranslator.fields(List.of(named.toAttribute())).get(0));
      functions.add(fn);
    }
    // Sorting is the window's own work: substantial even where Spark's sort below is dropped.
    return Translation.unary(true, node);
  }

  /** A pass-through: the rank filter above the window keeps only the rows this would keep. */
  static Translation passThrough(WindowGroupLimitExec limit, TranslationContext ctx,
      List<ExpressionNote> notes) throws Unsupported {
    List<Attribute> input = ScalaInterop.list(limit.child().output());
    ObjectNode node = ctx.node("project", input);
    node.set("exprs", Json.array().addAll(ctx.expressions(input, notes).translateAll(input)));
    return Translation.unary(false, node);
  }

  private static ObjectNode function(Expression f, ExpressionTranslator expressions,
      TranslationContext ctx) throws Unsupported {
    String name = f.getClass().getSimpleName();
    if (!(f instanceof AggregateExpression)) ctx.requireExpression(name);  // aggregate(): its fn
    ObjectNode out = Json.object();
    List<Expression> args = new ArrayList<>();
    if (f instanceof RowNumber) {
      out.put("fn", "row_number");
    } else if (f instanceof Rank) {
      out.put("fn", "rank");
    } else if (f instanceof DenseRank) {
      out.put("fn", "dense_rank");
    } else if (f instanceof PercentRank) {
      out.put("fn", "percent_rank");
    } else if (f instanceof CumeDist) {
      out.put("fn", "cume_dist");
    } else if (f instanceof NTile n) {
      out.put("fn", "ntile");
      args.add(n.buckets());
    } else if (f instanceof Lag lag) {
      noIgnoreNulls(lag.ignoreNulls(), "lag");
      out.put("fn", "lag");
      args.addAll(List.of(lag.input(), lag.inputOffset(), defaultValue(lag)));
    } else if (f instanceof Lead lead) {
      noIgnoreNulls(lead.ignoreNulls(), "lead");
      out.put("fn", "lead");
      args.addAll(List.of(lead.input(), lead.offset(), defaultValue(lead)));
    } else if (f instanceof NthValue nth) {
      noIgnoreNulls(nth.ignoreNulls(), "nth_value");
      out.put("fn", "nth_value");
      args.addAll(List.of(nth.input(), nth.offset()));
    } else if (f instanceof AggregateExpression ae) {
      if (ae.isDistinct()) throw new Unsupported("DISTINCT window aggregates are not supported");
      if (ae.filter().isDefined()) throw new Unsupported("FILTER in a window is not supported");
      aggregate(ae.aggregateFunction(), out, args, ctx);
    } else {
      throw new Unsupported("window function " + name + " is not supported");
    }
    ArrayNode list = out.putArray("args");
    expressions.translateAll(args).forEach(list::add);
    return out;
  }

  private static void aggregate(AggregateFunction fn, ObjectNode out, List<Expression> args,
      TranslationContext ctx) throws Unsupported {
    String name = fn.getClass().getSimpleName();
    ctx.requireExpression(name);
    if (fn instanceof Sum s) {
      out.put("fn", "sum");
      out.put("mode", s.evalMode().toString().toLowerCase(java.util.Locale.ROOT));
      args.add(s.child());
    } else if (fn instanceof Average a) {
      out.put("fn", "avg");
      out.put("mode", a.evalMode().toString().toLowerCase(java.util.Locale.ROOT));
      args.add(a.child());
    } else if (fn instanceof Count c) {
      List<Expression> children = ScalaInterop.list(c.children());
      if (children.size() != 1) throw new Unsupported("count of several columns is not supported");
      Expression arg = children.get(0);
      boolean star = arg instanceof Literal lit && lit.value() != null;
      out.put("fn", star ? "count_star" : "count");
      if (!star) args.add(arg);
    } else if (fn instanceof Min m) {
      out.put("fn", "min");
      args.add(m.child());
    } else if (fn instanceof Max m) {
      out.put("fn", "max");
      args.add(m.child());
    } else if (fn instanceof First first) {
      noIgnoreNulls(first.ignoreNulls(), "first");
      out.put("fn", "first_value");
      args.add(first.child());
    } else if (fn instanceof Last last) {
      noIgnoreNulls(last.ignoreNulls(), "last");
      out.put("fn", "last_value");
      args.add(last.child());
    } else {
      throw new Unsupported("window aggregate " + name + " is not supported");
    }
  }

  /**
   * The default of lag/lead: its third child ({@code default} is a Java keyword); Spark's NULL
   * default has no type, Tandem's is the value's.
   */
  private static Expression defaultValue(Expression offsetFunction) throws Unsupported {
    List<Expression> children = ScalaInterop.list(offsetFunction.children());
    if (children.size() != 3) {
      throw new Unsupported(offsetFunction.prettyName() + " with " + children.size()
          + " arguments");
    }
    Expression d = children.get(2);
    if (d instanceof Literal lit && lit.value() == null) {
      return Literal.create(null, children.get(0).dataType());
    }
    return d;
  }

  private static void noIgnoreNulls(boolean ignoreNulls, String fn) throws Unsupported {
    if (ignoreNulls) throw new Unsupported(fn + " IGNORE NULLS is not supported");
  }

  private static ObjectNode frame(WindowFrame frame) throws Unsupported {
    if (!(frame instanceof SpecifiedWindowFrame f)) {
      throw new Unsupported("window frame " + frame + " is not specified");
    }
    ObjectNode out = Json.object();
    out.put("unit", f.frameType() == RowFrame$.MODULE$ ? "rows" : "range");
    out.set("start", bound(f.lower()));
    out.set("end", bound(f.upper()));
    return out;
  }

  /** A frame bound: Spark writes n PRECEDING as -n and n FOLLOWING as n. */
  private static ObjectNode bound(Expression b) throws Unsupported {
    ObjectNode out = Json.object();
    if (b == UnboundedPreceding$.MODULE$) return out.put("bound", "unbounded_preceding");
    if (b == UnboundedFollowing$.MODULE$) return out.put("bound", "unbounded_following");
    if (b == CurrentRow$.MODULE$) return out.put("bound", "current_row");
    long offset = integerConstant(b);
    if (offset == 0) return out.put("bound", "current_row");
    out.put("bound", offset < 0 ? "preceding" : "following");
    out.put("offset", Math.abs(offset));
    return out;
  }

  private static long integerConstant(Expression e) throws Unsupported {
    boolean negate = false;
    if (e instanceof UnaryMinus u) {
      negate = true;
      e = u.child();
    }
    Object v = e instanceof Literal lit ? lit.value() : null;
    boolean integral = v instanceof Integer || v instanceof Long || v instanceof Short
        || v instanceof Byte;
    if (integral && ((Number) v).longValue() != Long.MIN_VALUE) {
      long n = ((Number) v).longValue();
      return negate ? -n : n;
    }
    throw new Unsupported("window frame bound " + ExpressionTranslator.text(e)
        + " is not an integer constant");
  }
}
