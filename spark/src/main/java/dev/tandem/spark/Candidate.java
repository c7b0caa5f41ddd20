// One Spark node of the stage being planned, with what translation, validation and the support
// planner decided about it: its fragment form (when it has one), the notes on its expressions,
// and, while it stays in Spark, why. Candidates mirror the Spark plan (children in Spark's order).
package dev.tandem.spark;

import java.util.List;
import org.apache.spark.sql.execution.SparkPlan;

final class Candidate {
  enum Role {
    /** Has a fragment form; runs in Tandem unless the engine or the planner says no. */
    TRANSLATED,
    /** Has no fragment form. */
    UNSUPPORTED,
    /** Spark's own machinery between stages (exchanges, query stages): never converted. */
    BOUNDARY
  }

  final SparkPlan plan;
  final List<Candidate> children;
  final Role role;
  final Translation translation;
  final List<ExpressionNote> notes;
  /** Why the node stays in Spark; null while it runs in Tandem. */
  String reason;
  /** A sort that its Tandem parent (a hash join or hash aggregate) makes unnecessary. */
  boolean elided;
  /** An aggregate whose result expressions Spark projects, because of {@link #resultReason}. */
  String resultReason;
  /** Where the engine runs it: "gpu", "cpu" or both ("gpu+cpu"), once supported. */
  String device;

  Candidate(SparkPlan plan, List<Candidate> children, Role role, Translation translation,
      List<ExpressionNote> notes, String reason) {
    this.plan = plan;
    this.children = children;
    this.role = role;
    this.translation = translation;
    this.notes = notes;
    this.reason = reason;
    if (translation != null) this.resultReason = translation.sparkResultReason;
  }

  String name() {
    return plan.getClass().getSimpleName();
  }

  /** Part of a Tandem fragment: translated and accepted, or a sort left out of one. */
  boolean inTandem() {
    return elided || (role == Role.TRANSLATED && reason == null);
  }

  /** Keeps the node in Spark, unless an earlier reason already does. */
  void reject(String why) {
    if (reason == null) reason = why;
  }

  /** Ends its Tandem region: a parent in Tandem reads its output as an input. */
  boolean endsRegion() {
    return !elided && (translation.finalPhase >= 0 || resultReason != null);
  }

  /** Belongs to its parent's Tandem region (when the parent is in Tandem). */
  boolean joinsParentRegion() {
    return inTandem() && !endsRegion();
  }
}
