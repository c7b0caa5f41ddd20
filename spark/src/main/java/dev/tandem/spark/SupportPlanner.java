// Decides, from the engine's verdicts, which translated nodes of a stage run in Tandem:
//   1. a node runs in Tandem only if the engine supports every fragment node it made (and its
//      companions); a final/complete aggregate whose result projection alone is unsupported runs
//      in Tandem with Spark projecting its results;
//   2. the halves of an aggregate stay together: a partial half goes to Tandem only if its final
//      twin is supported (step 1), a final half only if its partial half runs in Tandem (found
//      below it through the exchange, whether in this stage or in an earlier query stage);
//   3. a sort that only orders the input of a sort-merge join, a sort aggregate or a window is
//      left out when that operator runs in Tandem (as a hash join or hash aggregate; a window
//      sorts for itself);
//   4. connected nodes in Tandem form regions, one TandemExec each; a region without a scan,
//      aggregate, join or sort stays in Spark, since it would only add transitions.
package dev.tandem.spark;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.spark.sql.catalyst.expressions.SortOrder;
import org.apache.spark.sql.execution.SortExec;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.adaptive.QueryStageExec;
import org.apache.spark.sql.execution.aggregate.BaseAggregateExec;
import org.apache.spark.sql.execution.aggregate.SortAggregateExec;
import org.apache.spark.sql.execution.exchange.ReusedExchangeExec;
import org.apache.spark.sql.execution.joins.SortMergeJoinExec;
import org.apache.spark.sql.execution.window.WindowExec;
import org.apache.spark.sql.execution.window.WindowGroupLimitExec;
import scala.collection.immutable.Seq;

final class SupportPlanner {
  static final String ONLY_TRANSITIONS = "it would only add row/columnar transitions: its Tandem"
      + " part has no scan, aggregate, join or sort";

  private SupportPlanner() {}

  static void decide(Candidate root, NativeVerdicts verdicts) {
    applyVerdicts(root, verdicts);
    pairAggregates(root);
    elideSorts(root);
    rejectRegionsWithoutWork(root, null);
  }

  private static void applyVerdicts(Candidate c, NativeVerdicts verdicts) {
    c.children.forEach(child -> applyVerdicts(child, verdicts));
    if (!c.inTandem()) return;
    Translation t = c.translation;
    Set<String> devices = new LinkedHashSet<>();
    for (int id : t.ids()) {
      NativeVerdicts.Verdict v = verdicts.verdict(id);
      if (v.supported()) {
        devices.add(v.device());
      } else if (t.resultProjection && id == t.resultProjectionId()) {
        c.resultReason = v.reason();
      } else {
        c.reject(v.reason());
      }
    }
    for (Translation.Companion companion : t.companions) {
      NativeVerdicts.Verdict v = verdicts.verdict(companion.node().get("id").asInt());
      if (!v.supported()) c.reject("its final half could not run on Tandem: " + v.reason());
    }
    c.device = String.join("+", devices);
  }

  private static void pairAggregates(Candidate c) {
    c.children.forEach(SupportPlanner::pairAggregates);
    if (!c.inTandem() || !(c.plan instanceof BaseAggregateExec agg) || !isMode(agg,
        AggregateTranslator.Mode.FINAL)) {
      return;
    }
    Boolean partial = partialInTandem(c);
    if (partial == null) {
      c.reject("its partial aggregate was not found below it (an aggregate's halves stay"
          + " together)");
    } else if (!partial) {
      c.reject("its partial aggregate runs in Spark (an aggregate's halves stay together)");
    }
  }

  /**
   * Whether the partial half below a final aggregate runs in Tandem, following the plan through
   * exchanges, query stages, shuffle reads, reuse, sorts and transitions; null if not found.
   */
  private static Boolean partialInTandem(Candidate fin) {
    Candidate cand = fin.children.get(0);
    SparkPlan p = cand.plan;
    while (true) {
      if (p instanceof BaseAggregateExec a) {
        if (!isMode(a, AggregateTranslator.Mode.PARTIAL)) return null;
        return cand != null && cand.inTandem();
      }
      if (p instanceof TandemExec t) return t.fragmentPlan().rootIsPartialAggregate() ? true : null;
      SparkPlan next;
      if (p instanceof QueryStageExec stage) {
        next = stage.plan();
      } else if (p instanceof ReusedExchangeExec reused) {
        next = reused.child();
      } else if (p.children().size() == 1
          && (PlanTranslator.isBoundary(p) || p instanceof SortExec)) {
        next = p.children().head();
      } else {
        return null;
      }
      boolean inDocument = cand != null && cand.plan == p && cand.children.size() == 1;
      cand = inDocument ? cand.children.get(0) : null;
      p = next;
    }
  }

  private static boolean isMode(BaseAggregateExec agg, AggregateTranslator.Mode mode) {
    try {
      return AggregateTranslator.mode(agg) == mode;
    } catch (Unsupported u) {
      return false;
    }
  }

  private static void elideSorts(Candidate c) {
    c.children.forEach(SupportPlanner::elideSorts);
    boolean sortBased = c.plan instanceof SortMergeJoinExec || c.plan instanceof SortAggregateExec
        || c.plan instanceof WindowExec || c.plan instanceof WindowGroupLimitExec;
    if (!c.inTandem() || !sortBased) {
      return;
    }
    List<Seq<SortOrder>> required = ScalaInterop.list(c.plan.requiredChildOrdering());
    for (int i = 0; i < c.children.size(); i++) {
      Candidate child = c.children.get(i);
      if (child.plan instanceof SortExec s && !s.global() && !required.get(i).isEmpty()
          && SortOrder.orderingSatisfies(s.sortOrder(), required.get(i))) {
        child.elided = true;
      }
    }
  }

  private static void rejectRegionsWithoutWork(Candidate c, Candidate parent) {
    boolean regionRoot = c.inTandem()
        && (parent == null || !parent.inTandem() || !c.joinsParentRegion());
    if (regionRoot) {
      List<Candidate> members = new ArrayList<>();
      members(c, members);
      boolean work = members.stream().anyMatch(m -> !m.elided && m.translation.substantial);
      if (!work) {
        for (Candidate m : members) {
          m.elided = false;  // a sort left out for a parent that now stays in Spark returns
          m.reject(ONLY_TRANSITIONS);
        }
      }
    }
    for (Candidate child : c.children) rejectRegionsWithoutWork(child, c);
  }

  /** {@code root} and the nodes of its region below it. */
  static void members(Candidate root, List<Candidate> out) {
    out.add(root);
    for (Candidate child : root.children) {
      if (child.joinsParentRegion()) members(child, out);
    }
  }
}
