// What translating one stage's plan shares: the settings, the session's SQL semantics (ANSI mode,
// time zone) and the counter that gives every fragment node of the stage a unique id.
package dev.tandem.spark;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Set;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.internal.SQLConf;

final class TranslationContext {
  final TandemConf conf;
  final boolean ansi;
  final String timeZone;
  private int nextId = 1;

  TranslationContext(TandemConf conf, SQLConf sql) {
    this.conf = conf;
    this.ansi = sql.ansiEnabled();
    this.timeZone = sql.sessionLocalTimeZone();
  }

  /** The session time zone is UTC (or a name of it), as the engine's SparkSettings::utc. */
  boolean utcSession() {
    return Set.of("UTC", "Etc/UTC", "Z", "+00:00", "GMT", "Etc/GMT").contains(timeZone);
  }

  /**
   * Throws Unsupported unless the engine's table marks the Spark expression class (an aggregate
   * or window function) as translated and no setting switches it off.
   */
  void requireExpression(String cls) throws Unsupported {
    SupportTable table = SupportTable.get();
    if (!table.expressions().contains(cls)) {
      String why = table.reason(cls);
      throw new Unsupported(why != null ? cls + ": " + why : cls + " is not supported");
    }
    if (!conf.expressionEnabled(cls)) {
      throw new Unsupported(cls + " is disabled by " + TandemConf.EXPRESSION_PREFIX + cls
          + "=false");
    }
  }

  int newId() {
    return nextId++;
  }

  /** A translator for expressions over {@code input}, noting what it finds in {@code notes}. */
  ExpressionTranslator expressions(List<Attribute> input, List<ExpressionNote> notes) {
    return new ExpressionTranslator(this, input, notes);
  }

  /** A fragment node: {"op": op, "id": new id, "output": FIELDs}. */
  ObjectNode node(String op, List<Attribute> output) throws Unsupported {
    ObjectNode node = Json.object();
    node.put("op", op);
    node.put("id", newId());
    node.set("output", TypeTranslator.fields(output));
    return node;
  }
}
