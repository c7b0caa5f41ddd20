// The engine's verdicts on a stage's candidate document (TandemNative.validate): for every
// fragment node id, supported (and on which device) or not (and why). With
// -Dtandem.validate.stub=true every node is supported on the CPU without calling the engine: for
// testing the translation where the library does not exist yet, never a default. When the
// library cannot load, every node stays in Spark with that as the reason.
package dev.tandem.spark;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

final class NativeVerdicts {
  static final String STUB_PROPERTY = "tandem.validate.stub";
  private static final Logger LOG = LoggerFactory.getLogger(NativeVerdicts.class);
  private static boolean loadFailureLogged;

  record Verdict(boolean supported, String device, String reason) {}

  private final Map<Integer, Verdict> byId;
  /** The engine's answer as it came (or a note saying where the verdicts came from). */
  final String answer;

  private NativeVerdicts(Map<Integer, Verdict> byId, String answer) {
    this.byId = byId;
    this.answer = answer;
  }

  static boolean stubbed() {
    return Boolean.getBoolean(STUB_PROPERTY);
  }

  /** Verdicts on {@code ids}, the fragment node ids of {@code document}. */
  static NativeVerdicts validate(ObjectNode document, Collection<Integer> ids) {
    if (stubbed()) {
      return uniform(ids, new Verdict(true, "cpu", null), "stub: -D" + STUB_PROPERTY + "=true");
    }
    try {
      NativeLoader.load();
    } catch (IllegalStateException e) {
      logLoadFailure(e.getMessage());
      return uniform(ids, new Verdict(false, null, e.getMessage()), e.getMessage());
    }
    String answer;
    try {
      answer = TandemNative.validate(document.toString());
    } catch (TandemException e) {
      String why = "the engine could not validate the fragment: " + e.getMessage();
      LOG.warn("Tandem: {}", why);
      return uniform(ids, new Verdict(false, null, why), why);
    }
    Map<Integer, Verdict> byId = new HashMap<>();
    for (JsonNode n : Json.parseObject(answer).path("nodes")) {
      byId.put(n.get("id").asInt(), new Verdict(n.path("supported").asBoolean(false),
          n.path("device").asText(null), n.path("reason").asText(null)));
    }
    return new NativeVerdicts(byId, answer);
  }

  Verdict verdict(int id) {
    Verdict v = byId.get(id);
    return v != null ? v : new Verdict(false, null, "the engine gave no verdict on node " + id);
  }

  private static NativeVerdicts uniform(Collection<Integer> ids, Verdict v, String answer) {
    Map<Integer, Verdict> byId = new HashMap<>();
    for (int id : ids) byId.put(id, v);
    return new NativeVerdicts(byId, answer);
  }

  private static synchronized void logLoadFailure(String message) {
    if (loadFailureLogged) return;
    loadFailureLogged = true;
    LOG.warn("Tandem: {}; every query runs in Spark", message);
  }
}
