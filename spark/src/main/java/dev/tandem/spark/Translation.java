// The fragment form of one Spark node: a chain of fragment nodes, bottom-up, each taking the one
// below as its child and the first taking the Spark node's children (as "child", "left"/"right"
// or "children", by its op; a scan takes none). Most Spark nodes give one fragment node; an
// aggregate adds a projection of its result expressions, a join whose sides were swapped a
// projection restoring Spark's column order, and TakeOrderedAndProject / CollectLimit a second
// phase that runs once over every partition's output. The Spark node runs in Tandem only when
// the engine supports all of its fragment nodes (and its companions: fragment trees validated
// with it, such as the final twin of a partial aggregate).
package dev.tandem.spark;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.execution.FileSourceScanExec;

final class Translation {
  /** How a child that stays in Spark is fed to the fragment. */
  enum InputKind { ROWS, BROADCAST }

  /** How the node's tasks follow from its children's partitions (see PartitionShape). */
  enum ShapeRule { SCAN, SAME, ZIP, PRODUCT, CONCAT }

  /** A fragment tree validated alongside the node, over an input of {@code inputSchema}. */
  record Companion(ObjectNode node, List<Attribute> inputSchema) {}

  final List<ObjectNode> nodes;
  final ShapeRule shape;
  final boolean substantial;
  /** Index into {@link #nodes} where the second, single-task phase starts; -1 for none. */
  int finalPhase = -1;
  /** The last node projects an aggregate's result expressions, which Spark may do instead. */
  boolean resultProjection;
  /** Why Spark projects an aggregate's result expressions (they have no Tandem form), or null. */
  String sparkResultReason;
  /** Spark child indices in the order the fragment reads them (a swapped join: 1, 0). */
  int[] childOrder;
  /** Per Spark child: how it is read when it stays in Spark. */
  InputKind[] inputKinds;
  final List<Companion> companions = new ArrayList<>();
  /** The Spark scan, for a scan node (its files are listed at execution). */
  FileSourceScanExec scan;

  Translation(List<ObjectNode> nodes, ShapeRule shape, boolean substantial, int children) {
    this.nodes = nodes;
    this.shape = shape;
    this.substantial = substantial;
    this.childOrder = new int[children];
    this.inputKinds = new InputKind[children];
    for (int i = 0; i < children; i++) {
      childOrder[i] = i;
      inputKinds[i] = InputKind.ROWS;
    }
  }

  static Translation unary(boolean substantial, ObjectNode... chain) {
    return new Translation(List.of(chain), ShapeRule.SAME, substantial, 1);
  }

  List<Integer> ids() {
    List<Integer> ids = new ArrayList<>();
    for (ObjectNode n : nodes) ids.add(n.get("id").asInt());
    return ids;
  }

  int resultProjectionId() {
    return nodes.get(nodes.size() - 1).get("id").asInt();
  }

  /** The whole chain over the children's fragment nodes (in Spark child order). */
  ObjectNode build(List<ObjectNode> children) {
    return chain(fill(nodes.get(0), children), 1, nodes.size());
  }

  /** The chain without the final phase, or without the result projection when Spark does it. */
  ObjectNode buildLower(List<ObjectNode> children, boolean withoutResult) {
    int end = finalPhase >= 0 ? finalPhase
        : withoutResult && resultProjection ? nodes.size() - 1
        : nodes.size();
    return chain(fill(nodes.get(0), children), 1, end);
  }

  /** The final phase over the input that gathers every partition's lower phase. */
  ObjectNode buildFinalPhase(ObjectNode input) {
    return chain(input, finalPhase, nodes.size());
  }

  private ObjectNode chain(ObjectNode bottom, int from, int to) {
    ObjectNode node = bottom;
    for (int i = from; i < to; i++) node = nodes.get(i).deepCopy().set("child", node);
    return node;
  }

  private ObjectNode fill(ObjectNode template, List<ObjectNode> children) {
    ObjectNode node = template.deepCopy();
    String op = node.get("op").asText();
    switch (op) {
      case "scan_parquet" -> { }
      case "join" -> {
        node.set("left", children.get(childOrder[0]));
        node.set("right", children.get(childOrder[1]));
      }
      case "union" -> {
        ArrayNode list = node.putArray("children");
        children.forEach(list::add);
      }
      default -> node.set("child", children.get(0));
    }
    return node;
  }
}
