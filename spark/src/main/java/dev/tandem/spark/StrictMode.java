// spark.tandem.test.strict=true: a test fails as soon as an operator stays in Spark unless its
// class is in spark.tandem.test.allowedFallbacks. Exchanges and query stages always stay in
// Spark and never count, nor do operators that could run in Tandem but were left in Spark
// because alone they would only add transitions (next to an operator that fell back).
package dev.tandem.spark;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

final class StrictMode {
  private StrictMode() {}

  static void check(Candidate root, TandemConf conf) {
    Set<String> allowed = conf.allowedFallbacks();
    List<String> fallbacks = new ArrayList<>();
    collect(root, allowed, fallbacks);
    if (fallbacks.isEmpty()) return;
    throw new IllegalStateException("Tandem strict mode (" + TandemConf.TEST_STRICT.key()
        + "=true): " + String.join("; ", fallbacks) + " (" + TandemConf.TEST_ALLOWED_FALLBACKS.key()
        + " allows " + (allowed.isEmpty() ? "none" : String.join(", ", allowed)) + ")");
  }

  private static void collect(Candidate c, Set<String> allowed, List<String> out) {
    if (c.role != Candidate.Role.BOUNDARY && !c.inTandem() && !allowed.contains(c.name())
        && !SupportPlanner.ONLY_TRANSITIONS.equals(c.reason)) {
      out.add(c.name() + " stays in Spark because " + c.reason);
    }
    if (c.inTandem() && c.resultReason != null && !allowed.contains("ProjectExec")) {
      out.add("ProjectExec (the result expressions of " + c.name() + ") stays in Spark because "
          + c.resultReason);
    }
    c.children.forEach(child -> collect(child, allowed, out));
  }
}
