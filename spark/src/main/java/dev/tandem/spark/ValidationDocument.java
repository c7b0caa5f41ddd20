// The one document a stage sends to TandemNative.validate: every maximal tree of translated
// nodes (a node that stays in Spark becomes an input of its parent's tree, and the translated
// nodes below it start trees of their own), plus the companion trees (the final twins of partial
// aggregates). The engine judges each node alone, so one call gives every verdict the stage needs.
package dev.tandem.spark;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.catalyst.expressions.Attribute;

final class ValidationDocument {
  final ObjectNode document;
  /** The ids of the translated nodes (and companions), whose verdicts the planner reads. */
  final List<Integer> ids = new ArrayList<>();

  private final FragmentDocument doc;
  private final List<ObjectNode> roots = new ArrayList<>();

  private ValidationDocument(TranslationContext ctx, Candidate root) {
    doc = new FragmentDocument(ctx);
    collect(root);
    document = doc.withRoots(roots);
  }

  /** The document for {@code root}'s candidates, or null when none has a fragment form. */
  static ValidationDocument of(TranslationContext ctx, Candidate root) {
    rejectUnreadableInputs(root);
    ValidationDocument v = new ValidationDocument(ctx, root);
    return v.roots.isEmpty() ? null : v;
  }

  /** A node whose Spark child has columns of a type the fragment cannot carry stays in Spark. */
  private static void rejectUnreadableInputs(Candidate c) {
    for (Candidate child : c.children) {
      rejectUnreadableInputs(child);
      if (!c.inTandem() || child.inTandem()) continue;
      try {
        TypeTranslator.fields(ScalaInterop.list(child.plan.output()));
      } catch (Unsupported u) {
        c.reject("it reads " + child.name() + ", whose output has " + u.getMessage());
      }
    }
  }

  /** Adds the trees of translated nodes at or below {@code c}, which is outside any tree. */
  private void collect(Candidate c) {
    if (c.inTandem()) {
      roots.add(tree(c));
    } else {
      c.children.forEach(this::collect);
    }
  }

  private ObjectNode tree(Candidate c) {
    Translation t = c.translation;
    ids.addAll(t.ids());
    List<ObjectNode> children = new ArrayList<>();
    for (int i = 0; i < c.children.size(); i++) {
      Candidate child = c.children.get(i);
      if (child.inTandem()) {
        children.add(tree(child));
      } else {
        children.add(input(ScalaInterop.list(child.plan.output()), t.inputKinds[i]));
        collect(child);
      }
    }
    for (Translation.Companion companion : t.companions) {
      ids.add(companion.node().get("id").asInt());
      ObjectNode input = input(companion.inputSchema(), Translation.InputKind.ROWS);
      roots.add(companion.node().deepCopy().set("child", input));
    }
    return t.build(children);
  }

  private ObjectNode input(List<Attribute> schema, Translation.InputKind kind) {
    try {
      return doc.input(null, schema, kind);
    } catch (Unsupported u) {
      throw new IllegalStateException("an input that rejectUnreadableInputs let through: "
          + u.getMessage(), u);
    }
  }
}
