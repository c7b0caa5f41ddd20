// A fragment document under construction (docs/spark_fragment.md, "Document"): the header with
// the session's SQL semantics and device, and the inputs that the fragment's `input` nodes read,
// each remembered with the Spark plan that feeds it and how (rows or broadcast).
package dev.tandem.spark;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.execution.SparkPlan;

final class FragmentDocument {
  static final String FORMAT = "tandem-fragment";
  static final int VERSION = 1;

  private final TranslationContext ctx;
  private final ArrayNode inputs = Json.array();
  /** The Spark plan feeding each input (null for a validation-only input). */
  final List<SparkPlan> inputPlans = new ArrayList<>();
  final List<Translation.InputKind> inputKinds = new ArrayList<>();

  FragmentDocument(TranslationContext ctx) {
    this.ctx = ctx;
  }

  /** A new input read from {@code plan} (null: only its schema matters), and its input node. */
  ObjectNode input(SparkPlan plan, List<Attribute> schema, Translation.InputKind kind)
      throws Unsupported {
    ObjectNode input = inputs.addObject();
    input.put("kind", kind == Translation.InputKind.ROWS ? "rows" : "broadcast");
    input.set("schema", TypeTranslator.fields(schema));
    inputPlans.add(plan);
    inputKinds.add(kind);
    ObjectNode node = ctx.node("input", schema);
    node.put("index", inputs.size() - 1);
    return node;
  }

  /** The document for execution, with one root. */
  ObjectNode withRoot(JsonNode root) {
    ObjectNode doc = header();
    doc.set("root", root);
    return doc;
  }

  /** The document for validation: every candidate tree of a stage, judged node by node. */
  ObjectNode withRoots(List<ObjectNode> roots) {
    ObjectNode doc = header();
    doc.putArray("roots").addAll(roots);
    return doc;
  }

  private ObjectNode header() {
    ObjectNode doc = Json.object();
    doc.put("format", FORMAT);
    doc.put("version", VERSION);
    ObjectNode spark = doc.putObject("spark");
    spark.put("version", org.apache.spark.package$.MODULE$.SPARK_VERSION());
    spark.put("ansi", ctx.ansi);
    spark.put("timeZone", ctx.timeZone);
    doc.put("device", ctx.conf.device());
    doc.set("inputs", inputs);
    return doc;
  }
}
