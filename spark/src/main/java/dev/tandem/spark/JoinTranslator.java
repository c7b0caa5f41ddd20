// Spark's joins -> a join node, which Tandem runs as a hash join building its right input:
// BroadcastHashJoinExec and ShuffledHashJoinExec (hash joins), SortMergeJoinExec (as a hash join:
// its output order is not kept), BroadcastNestedLoopJoinExec and CartesianProductExec (no keys).
// When Spark builds the left side of an inner or outer join, the sides are swapped (so Tandem
// builds the same, smaller side) and a project restores Spark's column order. The build side of a
// broadcast join is read from the broadcast, the same in every task.
package dev.tandem.spark;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.optimizer.BuildLeft$;
import org.apache.spark.sql.catalyst.optimizer.BuildSide;
import org.apache.spark.sql.catalyst.plans.Cross$;
import org.apache.spark.sql.catalyst.plans.ExistenceJoin;
import org.apache.spark.sql.catalyst.plans.FullOuter$;
import org.apache.spark.sql.catalyst.plans.Inner$;
import org.apache.spark.sql.catalyst.plans.JoinType;
import org.apache.spark.sql.catalyst.plans.LeftAnti$;
import org.apache.spark.sql.catalyst.plans.LeftOuter$;
import org.apache.spark.sql.catalyst.plans.LeftSemi$;
import org.apache.spark.sql.catalyst.plans.RightOuter$;
import org.apache.spark.sql.catalyst.plans.physical.Partitioning;
import org.apache.spark.sql.catalyst.plans.physical.UnknownPartitioning;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.joins.BroadcastHashJoinExec;
import org.apache.spark.sql.execution.joins.BroadcastNestedLoopJoinExec;
import org.apache.spark.sql.execution.joins.CartesianProductExec;
import org.apache.spark.sql.execution.joins.ShuffledHashJoinExec;
import org.apache.spark.sql.execution.joins.SortMergeJoinExec;
import scala.Option;

final class JoinTranslator {
  private JoinTranslator() {}

  /** The parts of a Spark join the fragment needs. */
  private record Join(SparkPlan plan, List<Expression> leftKeys, List<Expression> rightKeys,
      JoinType type, Option<Expression> condition, BuildSide build, boolean broadcast,
      Translation.ShapeRule shape) {}

  static Translation translate(SparkPlan plan, TranslationContext ctx, List<ExpressionNote> notes)
      throws Unsupported {
    return translate(describe(plan), ctx, notes);
  }

  private static Join describe(SparkPlan plan) throws Unsupported {
    Translation.ShapeRule zip = Translation.ShapeRule.ZIP;
    if (plan instanceof BroadcastHashJoinExec j) {
      if (j.isNullAwareAntiJoin()) {
        throw new Unsupported("null-aware anti joins (NOT IN subqueries) are not supported");
      }
      return new Join(j, keys(j.leftKeys()), keys(j.rightKeys()), j.joinType(), j.condition(),
          j.buildSide(), true, zip);
    }
    if (plan instanceof ShuffledHashJoinExec j) {
      checkCoPartitioned(j);
      return new Join(j, keys(j.leftKeys()), keys(j.rightKeys()), j.joinType(), j.condition(),
          j.buildSide(), false, zip);
    }
    if (plan instanceof SortMergeJoinExec j) {
      checkCoPartitioned(j);
      return new Join(j, keys(j.leftKeys()), keys(j.rightKeys()), j.joinType(), j.condition(),
          null, false, zip);
    }
    if (plan instanceof BroadcastNestedLoopJoinExec j) {
      checkNestedLoop(j.joinType(), j.buildSide() == BuildLeft$.MODULE$);
      return new Join(j, List.of(), List.of(), j.joinType(), j.condition(), j.buildSide(), true,
          zip);
    }
    CartesianProductExec j = (CartesianProductExec) plan;
    return new Join(j, List.of(), List.of(), Inner$.MODULE$, j.condition(), null, false,
        Translation.ShapeRule.PRODUCT);
  }

  private static Translation translate(Join j, TranslationContext ctx, List<ExpressionNote> notes)
      throws Unsupported {
    String type = typeName(j.type());
    SparkPlan left = j.plan().children().apply(0);
    SparkPlan right = j.plan().children().apply(1);
    boolean swap = j.build() == BuildLeft$.MODULE$ && !type.equals("semi") && !type.equals("anti");
    SparkPlan probe = swap ? right : left;
    SparkPlan build = swap ? left : right;
    List<Expression> probeKeys = swap ? j.rightKeys() : j.leftKeys();
    List<Expression> buildKeys = swap ? j.leftKeys() : j.rightKeys();
    String fragmentType = !swap ? type : type.equals("left") ? "right"
        : type.equals("right") ? "left" : type;

    List<Attribute> sparkOutput = ScalaInterop.list(j.plan().output());
    int leftWidth = left.output().size();
    List<Attribute> joinOutput = sparkOutput;
    if (swap) {
      joinOutput = new ArrayList<>(sparkOutput.subList(leftWidth, sparkOutput.size()));
      joinOutput.addAll(sparkOutput.subList(0, leftWidth));
    }
    ObjectNode node = ctx.node("join", joinOutput);
    node.put("type", fragmentType);
    node.set("left_keys", keyList(ctx.expressions(list(probe), notes), probeKeys));
    node.set("right_keys", keyList(ctx.expressions(list(build), notes), buildKeys));
    List<Attribute> both = new ArrayList<>(list(probe));
    both.addAll(list(build));
    node.set("condition", j.condition().isDefined()
        ? ctx.expressions(both, notes).translate(j.condition().get())
        : NullNode.getInstance());

    List<ObjectNode> chain = swap
        ? List.of(node, restoreOrder(ctx, sparkOutput, leftWidth))
        : List.of(node);
    Translation t = new Translation(chain, j.shape(), true, 2);
    if (swap) t.childOrder = new int[] {1, 0};
    if (j.broadcast()) {
      t.inputKinds[j.build() == BuildLeft$.MODULE$ ? 0 : 1] = Translation.InputKind.BROADCAST;
    }
    return t;
  }

  /** Spark's column order (left ++ right) from the swapped join's (right ++ left). */
  private static ObjectNode restoreOrder(TranslationContext ctx, List<Attribute> sparkOutput,
      int leftWidth) throws Unsupported {
    int rightWidth = sparkOutput.size() - leftWidth;
    ObjectNode project = ctx.node("project", sparkOutput);
    ArrayNode exprs = project.putArray("exprs");
    for (int i = 0; i < sparkOutput.size(); i++) {
      ObjectNode col = Json.object();
      col.put("kind", "col");
      col.put("index", i < leftWidth ? rightWidth + i : i - leftWidth);
      col.set("type", TypeTranslator.type(sparkOutput.get(i).dataType()));
      exprs.add(col);
    }
    return project;
  }

  private static String typeName(JoinType t) throws Unsupported {
    if (t == Inner$.MODULE$) return "inner";
    if (t == Cross$.MODULE$) return "cross";
    if (t == LeftOuter$.MODULE$) return "left";
    if (t == RightOuter$.MODULE$) return "right";
    if (t == FullOuter$.MODULE$) return "full";
    if (t == LeftSemi$.MODULE$) return "semi";
    if (t == LeftAnti$.MODULE$) return "anti";
    if (t instanceof ExistenceJoin) {
      throw new Unsupported("existence joins (EXISTS under OR or in a projection) are not"
          + " supported");
    }
    throw new Unsupported(t + " joins are not supported");
  }

  /**
   * A nested-loop join runs per partition of its streamed side against the whole broadcast side,
   * which is exact unless the broadcast side's unmatched rows must be emitted (Spark gathers
   * those across all partitions).
   */
  private static void checkNestedLoop(JoinType t, boolean buildLeft) throws Unsupported {
    boolean ok = t == Inner$.MODULE$ || t == Cross$.MODULE$
        || (t == LeftOuter$.MODULE$ && !buildLeft) || (t == RightOuter$.MODULE$ && buildLeft)
        || ((t == LeftSemi$.MODULE$ || t == LeftAnti$.MODULE$) && !buildLeft);
    if (!ok) {
      throw new Unsupported("nested-loop " + t + " joins broadcasting the " + (buildLeft ? "left"
          : "right") + " side are not supported (Spark matches the broadcast side across all"
          + " partitions)");
    }
  }

  /** Tasks zip the two sides' partitions, so their numbers must agree where Spark knows them. */
  private static void checkCoPartitioned(SparkPlan join) throws Unsupported {
    Partitioning l = join.children().apply(0).outputPartitioning();
    Partitioning r = join.children().apply(1).outputPartitioning();
    if (!(l instanceof UnknownPartitioning) && !(r instanceof UnknownPartitioning)
        && l.numPartitions() != r.numPartitions()) {
      throw new Unsupported("its sides have " + l.numPartitions() + " and " + r.numPartitions()
          + " partitions");
    }
  }

  private static ArrayNode keyList(ExpressionTranslator expressions, List<Expression> keys)
      throws Unsupported {
    return Json.array().addAll(expressions.translateAll(keys));
  }

  private static List<Expression> keys(scala.collection.Seq<Expression> keys) {
    return ScalaInterop.list(keys);
  }

  private static List<Attribute> list(SparkPlan plan) {
    return ScalaInterop.list(plan.output());
  }
}
