// spark.tandem.test.dumpFragments=<dir>: for every planned stage, the files
//   <pid>-<n>-plan.txt        the stage's Spark plan as the rule received it
//   <pid>-<n>-candidates.json the document sent to TandemNative.validate
//   <pid>-<n>-verdicts.json   the engine's answer
//   <pid>-<n>-explain.txt     the explain log of the stage (at level ALL)
//   <pid>-<n>-fragment-<k>.json the fragments chosen to run (none in explainOnly mode)
//   <pid>-<n>-result.txt      the plan after the rewrite
// so that tests and people can inspect what the plugin produced.
package dev.tandem.spark;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

final class FragmentDump {
  private static final AtomicInteger STAGES = new AtomicInteger();

  private FragmentDump() {}

  static void write(Path dir, String plan, ValidationDocument validation, NativeVerdicts verdicts,
      String explain, List<ObjectNode> fragments, String result) {
    String prefix = ProcessHandle.current().pid() + "-" + STAGES.incrementAndGet() + "-";
    try {
      Files.createDirectories(dir);
      write(dir.resolve(prefix + "plan.txt"), plan);
      if (validation != null) {
        write(dir.resolve(prefix + "candidates.json"), Json.pretty(validation.document));
        write(dir.resolve(prefix + "verdicts.json"), verdicts.answer);
      }
      if (explain != null) write(dir.resolve(prefix + "explain.txt"), explain);
      for (int k = 0; k < fragments.size(); k++) {
        write(dir.resolve(prefix + "fragment-" + k + ".json"), Json.pretty(fragments.get(k)));
      }
      write(dir.resolve(prefix + "result.txt"), result);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write Tandem fragment dumps to " + dir, e);
    }
  }

  private static void write(Path file, String text) throws IOException {
    Files.writeString(file, text, StandardCharsets.UTF_8);
  }
}
