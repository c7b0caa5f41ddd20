// The driver's log of what runs in Tandem, in the RAPIDS Accelerator's style, one stage at a
// time (spark.tandem.sql.explain): ALL lists every operator and its expressions, NOT_ON_GPU only
// what stays in Spark and why. Indentation follows the plan tree.
//   *Exec <FilterExec> will run on Tandem (gpu)
//     *Expression <GreaterThan> (l_quantity#4 > 10) will run on Tandem
//   !Exec <WindowExec> cannot run on Tandem because WindowExec is not yet supported
package dev.tandem.spark;

final class ExplainLog {
  private ExplainLog() {}

  /** The log text for a stage, or null when there is nothing to say at this level. */
  static String render(Candidate root, TandemConf.Explain level, TandemConf.Mode mode) {
    if (level == TandemConf.Explain.NONE || onlyBoundaries(root)) return null;
    StringBuilder sb = new StringBuilder();
    render(root, 0, level == TandemConf.Explain.ALL, sb);
    if (sb.length() == 0) return null;
    String note = mode == TandemConf.Mode.EXPLAIN_ONLY
        ? " (" + TandemConf.SQL_MODE.key() + "=explainOnly: the plan is not changed)"
        : "";
    return "Tandem plan of a stage" + note + ":\n" + sb;
  }

  private static void render(Candidate c, int depth, boolean all, StringBuilder sb) {
    String indent = "  ".repeat(depth);
    String node = "Exec <" + c.name() + "> ";
    if (c.elided) {
      if (all) line(sb, indent, "*", node + "is not needed: its parent runs in Tandem without it");
    } else if (c.inTandem()) {
      if (all) {
        String result = c.resultReason == null ? ""
            : "; Spark projects its results because " + c.resultReason;
        line(sb, indent, "*", node + "will run on Tandem (" + c.device + ")" + result);
        for (ExpressionNote n : c.notes) expression(sb, indent, n);
      }
    } else if (c.role == Candidate.Role.BOUNDARY) {
      if (all) line(sb, indent, "@", node + "stays in Spark: " + c.reason);
    } else {
      line(sb, indent, "!", node + "cannot run on Tandem because " + c.reason);
      for (ExpressionNote n : c.notes) {
        if (!n.supported()) expression(sb, indent, n);
      }
    }
    for (Candidate child : c.children) render(child, depth + 1, all, sb);
  }

  /** A plan of exchanges and commands only: nothing to say. */
  private static boolean onlyBoundaries(Candidate c) {
    if (c.role != Candidate.Role.BOUNDARY) return false;
    for (Candidate child : c.children) {
      if (!onlyBoundaries(child)) return false;
    }
    return true;
  }

  private static void expression(StringBuilder sb, String indent, ExpressionNote n) {
    String what = "Expression <" + n.expressionClass() + "> " + n.text();
    if (n.supported()) {
      line(sb, indent + "  ", "*", what + " will run on Tandem");
    } else {
      line(sb, indent + "  ", "!", what + " cannot run on Tandem because " + n.reason());
    }
  }

  private static void line(StringBuilder sb, String indent, String mark, String text) {
    sb.append(indent).append(mark).append(text).append('\n');
  }
}
