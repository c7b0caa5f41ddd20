// Rebuilds a stage's Spark plan with one TandemExec per Tandem region (SupportPlanner): the
// region's fragment nodes, already translated, are assembled over input nodes for the Spark
// children it reads (converted themselves, recursively), along with the region's partition shape
// and its scans. Two-phase regions (TakeOrderedAndProject, CollectLimit) become a TandemExec for
// the final phase over a Spark shuffle into one partition over a TandemExec for the rest; an
// aggregate whose result expressions only Spark can compute gets a Spark ProjectExec above its
// TandemExec.
package dev.tandem.spark;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.AttributeSet;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.SortOrder;
import org.apache.spark.sql.catalyst.plans.physical.Partitioning;
import org.apache.spark.sql.catalyst.plans.physical.SinglePartition$;
import org.apache.spark.sql.catalyst.plans.physical.UnknownPartitioning;
import org.apache.spark.sql.execution.FileSourceScanExec;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.aggregate.BaseAggregateExec;

final class FragmentAssembler {
  private final TranslationContext ctx;
  private final Map<Integer, String> devices;
  /** The execution documents made, for the fragment dump. */
  final List<ObjectNode> fragments = new ArrayList<>();

  FragmentAssembler(TranslationContext ctx, Candidate root) {
    this.ctx = ctx;
    this.devices = new HashMap<>();
    collectDevices(root);
  }

  /** The plan of {@code c} with its Tandem regions replaced. */
  SparkPlan rebuild(Candidate c) throws Unsupported {
    if (c.inTandem())
      return region(c);
    List<SparkPlan> children = new ArrayList<>();
    boolean changed = false;
    for (Candidate child : c.children) {
      SparkPlan rebuilt = rebuild(child);
      changed |= rebuilt != child.plan;
      children.add(rebuilt);
    }
    return changed ? c.plan.withNewChildren(ScalaInterop.seq(children)) : c.plan;
  }

  /** What one region's fragment is being built from. */
  private final class Region {
    final FragmentDocument doc = new FragmentDocument(ctx);
    final List<FileSourceScanExec> scans = new ArrayList<>();
    final List<Integer> scanIds = new ArrayList<>();

    record Part(ObjectNode node, PartitionShape shape) {}

    /** Fragment node and shape of {@code c}; {@code lower}: a region root's lower phase only. */
    Part part(Candidate c, boolean lower) throws Unsupported {
      if (c.elided)
        return child(c, 0, Translation.InputKind.ROWS);
      Translation t = c.translation;
      List<ObjectNode> nodes = new ArrayList<>();
      List<PartitionShape> shapes = new ArrayList<>();
      for (int i = 0; i < c.children.size(); i++) {
        Part p = child(c, i, t.inputKinds[i]);
        nodes.add(p.node());
        shapes.add(p.shape());
      }
      ObjectNode node = lower ? t.buildLower(nodes, c.resultReason != null) : t.build(nodes);
      return new Part(node, shape(c, shapes));
    }

    private Part child(Candidate c, int i, Translation.InputKind kind) throws Unsupported {
      Candidate child = c.children.get(i);
      if (child.joinsParentRegion())
        return part(child, false);
      return input(rebuild(child), kind);
    }

    Part input(SparkPlan plan, Translation.InputKind kind) throws Unsupported {
      ObjectNode node = doc.input(plan, ScalaInterop.list(plan.output()), kind);
      int index = node.get("index").asInt();
      PartitionShape shape = kind == Translation.InputKind.ROWS
          ? new PartitionShape.Rows(index)
          : new PartitionShape.Broadcast(index);
      return new Part(node, shape);
    }

    private PartitionShape shape(Candidate c, List<PartitionShape> children) {
      return switch (c.translation.shape) {
        case SCAN -> {
          int nodeId = c.translation.ids().get(0);
          scans.add(c.translation.scan);
          scanIds.add(nodeId);
          yield new PartitionShape.Scan(scans.size() - 1);
        }
        case SAME -> children.get(0);
        case ZIP -> new PartitionShape.Zip(children);
        case PRODUCT -> new PartitionShape.Product(children.get(0), children.get(1));
        case CONCAT -> new PartitionShape.Concat(children);
      };
    }

    TandemExec exec(Part root, List<Attribute> output, Partitioning partitioning,
        List<SortOrder> ordering, SparkPlan replaced) {
      ObjectNode document = doc.withRoot(root.node());
      fragments.add(document);
      FragmentPlan plan = new FragmentPlan(document.toString(), doc.inputKinds, root.shape(),
          scanIds, summary(root.node()));
      TandemExec exec = new TandemExec(plan, ScalaInterop.seq(output),
          ScalaInterop.seq(doc.inputPlans), ScalaInterop.seq(scans),
          within(partitioning, output), ScalaInterop.seq(ordering), false);
      exec.copyTagsFrom(replaced);
      return exec;
    }
  }

  private SparkPlan region(Candidate root) throws Unsupported {
    Translation t = root.translation;
    Region lower = new Region();
    Region.Part part = lower.part(root, true);
    SparkPlan plan = root.plan;
    if (t.finalPhase >= 0) {
      SparkPlan child = plan.children().head();
      TandemExec partitions = lower.exec(part, ScalaInterop.list(child.output()),
          child.outputPartitioning(), List.of(), plan);
      Region upper = new Region();
      // A shuffle into one partition, as Spark's TakeOrderedAndProject does: the lower phase keeps
      // its tasks (a CoalesceExec(1) would run every partition of the stage in one task).
      SparkPlan gathered = SparkShim.shuffleToOnePartition(partitions);
      Region.Part input = upper.input(gathered, Translation.InputKind.ROWS);
      Region.Part last = new Region.Part(t.buildFinalPhase(input.node()), input.shape());
      return upper.exec(last, ScalaInterop.list(plan.output()), SinglePartition$.MODULE$,
          ordering(last.node(), plan), plan);
    }
    if (root.resultReason != null) {
      BaseAggregateExec agg = (BaseAggregateExec) plan;
      TandemExec exec = lower.exec(part, AggregateTranslator.resultInput(agg),
          plan.children().head().outputPartitioning(), List.of(), plan);
      SparkPlan project = SparkShim.project(agg.resultExpressions(), exec);
      project.copyTagsFrom(plan);
      return project;
    }
    return lower.exec(part, ScalaInterop.list(plan.output()), plan.outputPartitioning(),
        ordering(part.node(), plan), plan);
  }

  /** Spark's ordering of {@code replaced} when the fragment ends in a sort (seen through
   * projects, filters and limits, which keep order); none otherwise (a hash join or aggregate). */
  private static List<SortOrder> ordering(JsonNode root, SparkPlan replaced) {
    JsonNode node = root;
    while (List.of("project", "filter", "limit").contains(node.path("op").asText())) {
      node = node.path("child");
    }
    String op = node.path("op").asText();
    return op.equals("sort") || op.equals("top_n")
        ? ScalaInterop.list(replaced.outputOrdering())
        :
          List.of();
      }

      /** {@code p} if it is expressed in {@code output}'s attributes, else unknown (same count). */
      private static Partitioning within(Partitioning p, List<Attribute> output) {
        if (p instanceof Expression e) {
          AttributeSet available =
              AttributeSet.apply(ScalaInterop.seq(new ArrayList<Expression>(output)));
          if (!e.references().subsetOf(available))
            return new UnknownPartitioning(p.numPartitions());
        }
        return p;
      }

      /** "project#9(join#8(filter#2(scan_parquet#1), input#10)) on gpu" for explain output. */
      private String summary(JsonNode root) {
        StringBuilder sb = new StringBuilder();
        describe(root, sb);
        List<String> used = new ArrayList<>();
        collectDevicesUsed(root, used);
        return sb + " on " + (used.isEmpty() ? "?" : String.join("+", used));
      }

      private static void describe(JsonNode node, StringBuilder sb) {
        sb.append(node.path("op").asText()).append('#').append(node.path("id").asInt());
        List<JsonNode> kids = new ArrayList<>();
        for (String key : List.of("child", "left", "right")) {
          if (node.has(key))
            kids.add(node.get(key));
        }
        node.path("children").forEach(kids::add);
        if (kids.isEmpty())
          return;
        sb.append('(');
        for (int i = 0; i < kids.size(); i++) {
          if (i > 0)
            sb.append(", ");
          describe(kids.get(i), sb);
        }
        sb.append(')');
      }

      private void collectDevicesUsed(JsonNode node, List<String> used) {
        String device = devices.get(node.path("id").asInt());
        if (device != null) {
          for (String d : device.split("\\+")) {
            if (!d.isEmpty() && !used.contains(d))
              used.add(d);
          }
        }
        for (String key : List.of("child", "left", "right")) {
          if (node.has(key))
            collectDevicesUsed(node.get(key), used);
        }
        for (JsonNode child : node.path("children")) collectDevicesUsed(child, used);
      }

      private void collectDevices(Candidate c) {
        if (c.translation != null && c.device != null) {
          for (int id : c.translation.ids()) devices.put(id, c.device);
        }
        c.children.forEach(this::collectDevices);
      }
    }
