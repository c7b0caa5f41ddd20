// What a TandemExec runs, in serializable form: the fragment document (JSON, sent to the engine
// by every task), how each of its inputs is fed, how its tasks map to files and input partitions,
// the node id of each scan (splits are keyed by it), and a one-line summary for explain output.
package dev.tandem.spark;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

record FragmentPlan(String fragment, List<Translation.InputKind> inputKinds,
    PartitionShape shape, List<Integer> scanNodeIds, String summary) implements Serializable {

  /** Whether the fragment's root is a partial aggregate (its final half may follow in Spark). */
  boolean rootIsPartialAggregate() {
    JsonNode root = Json.parseObject(fragment).path("root");
    return root.path("op").asText().equals("aggregate")
        && root.path("mode").asText().equals("partial");
  }

  /**
   * The plan as canonicalization compares it: node ids renumbered in tree order and the names of
   * output and input columns dropped (they carry Spark's expression ids), so that the same
   * subtree planned twice (a subquery and its query) compares equal and its exchange is reused.
   */
  FragmentPlan canonical() {
    ObjectNode doc = Json.parseObject(fragment);
    Map<Integer, Integer> ids = new HashMap<>();
    canonicalize(doc.get("root"), ids);
    for (JsonNode input : doc.path("inputs")) dropNames(input.get("schema"));
    List<Integer> scans = new ArrayList<>();
    for (int id : scanNodeIds) scans.add(ids.get(id));
    return new FragmentPlan(doc.toString(), inputKinds, shape, scans, "");
  }

  private static void canonicalize(JsonNode node, Map<Integer, Integer> ids) {
    if (!(node instanceof ObjectNode object) || !object.has("op")) return;
    int id = ids.size() + 1;
    ids.put(object.get("id").asInt(), id);
    object.put("id", id);
    dropNames(object.get("output"));
    for (String key : List.of("child", "left", "right")) canonicalize(object.get(key), ids);
    for (JsonNode child : object.path("children")) canonicalize(child, ids);
  }

  private static void dropNames(JsonNode fields) {
    for (JsonNode f : fields) ((ObjectNode) f).remove("name");
  }
}
