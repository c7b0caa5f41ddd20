// Every spark.tandem.* setting, with its default, its documentation and its check, in one place.
// The driver plugin checks the application's settings at start; the planner rule reads the
// session's settings for every query (so `spark.conf.set` works for the runtime ones) and checks
// them again there. A bad value is an IllegalArgumentException naming the key and what it accepts.
package dev.tandem.spark;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import org.apache.spark.network.util.JavaUtils;
import org.apache.spark.sql.internal.SQLConf;
import scala.jdk.javaapi.CollectionConverters;

final class TandemConf {
  static final String PREFIX = "spark.tandem.";
  static final String EXEC_PREFIX = "spark.tandem.sql.exec.";
  static final String EXPRESSION_PREFIX = "spark.tandem.sql.expression.";

  enum Mode { EXECUTE, EXPLAIN_ONLY }

  enum Explain { ALL, NOT_ON_GPU, NONE }

  /** One documented setting. {@code check} returns null for a good value, else what it accepts. */
  record Setting(String key, String defaultValue, String doc, Function<String, String> check) {}

  static final Setting ENABLED = new Setting("spark.tandem.enabled", "true",
      "Run supported plan subtrees in Tandem. Read for every query, so spark.conf.set switches it.",
      TandemConf::checkBoolean);
  static final Setting SQL_MODE = new Setting("spark.tandem.sql.mode", "execute",
      "execute: run what Tandem supports; explainOnly: only log what would run (the plan is not"
          + " changed; an explain level of NONE then counts as ALL).",
      choice("execute", "explainOnly"));
  static final Setting SQL_DEVICE = new Setting("spark.tandem.sql.device", "auto",
      "Where Tandem runs operators: auto (its cost model chooses), gpu or cpu"
          + " (tandem.sql.device).",
      choice("auto", "gpu", "cpu"));
  static final Setting SQL_EXPLAIN = new Setting("spark.tandem.sql.explain", "NONE",
      "Log, on the driver, which operators and expressions run in Tandem: ALL, NOT_ON_GPU (only"
          + " what stays in Spark) or NONE.",
      choice("ALL", "NOT_ON_GPU", "NONE"));
  static final Setting BATCH_SIZE_BYTES = new Setting("spark.tandem.sql.batchSizeBytes", "64m",
      "Bytes of Spark rows packed per hand-over to Tandem (a size: 64m, 1g, ...).",
      TandemConf::checkBytes);
  static final Setting BATCH_ROWS = new Setting("spark.tandem.sql.batchRows", "65536",
      "Rows per batch that Tandem hands back to Spark.", TandemConf::checkPositiveInt);
  static final Setting NATIVE_ROWS = new Setting("spark.tandem.sql.nativeRowOutput", "true",
      "Where a Spark row operator (an exchange, collect, a Spark operator) reads Tandem's output,"
          + " the engine writes Spark's UnsafeRows itself; false: Spark converts Tandem's columnar"
          + " batches (ColumnarToRow), much slower.",
      TandemConf::checkBoolean);
  static final Setting CONCURRENT_GPU_TASKS = new Setting("spark.tandem.sql.concurrentGpuTasks",
      "2", "Tasks of one executor that may use the GPU at the same time.",
      TandemConf::checkPositiveInt);
  static final Setting UDF_LIBRARIES = new Setting("spark.tandem.udf.libraries", "",
      "Comma-separated Tandem C++ UDF libraries (.so, docs/udf.md), at the same absolute path on"
          + " the driver and every executor: their functions become SQL functions of every"
          + " session and run inside Tandem's fragments (one row at a time where their operator"
          + " stays in Spark). Read at application start.",
      TandemConf::checkLibraries);
  static final Setting MEMORY_HOST_LIMIT = new Setting("spark.tandem.memory.host.limit", "",
      "Host memory Tandem may use per executor (a size: 8g, ...); empty: Tandem's default"
          + " (tandem.memory.host.limit).",
      value -> value.isEmpty() ? null : checkBytes(value));
  static final Setting MEMORY_GPU_LIMIT = new Setting("spark.tandem.memory.gpu.limit", "",
      "GPU memory Tandem's fragments of one executor may hold at once (a size: 40g, ...); past"
          + " it, the part of a fragment that ran out runs on the CPU. Empty: the device pool's"
          + " size (tandem.memory.gpu.limit).",
      value -> value.isEmpty() ? null : checkBytes(value));
  static final Setting TEST_STRICT = new Setting("spark.tandem.test.strict", "false",
      "Tests: fail a query when an operator other than those in spark.tandem.test.allowedFallbacks"
          + " stays in Spark (the error names the operator and why).",
      TandemConf::checkBoolean);
  static final Setting TEST_ALLOWED_FALLBACKS = new Setting("spark.tandem.test.allowedFallbacks",
      "", "Tests: comma-separated Spark operator class names allowed to stay in Spark in strict"
          + " mode (e.g. WindowExec,ExpandExec).",
      value -> null);
  static final Setting TEST_DUMP_FRAGMENTS = new Setting("spark.tandem.test.dumpFragments", "",
      "Tests: a directory that receives, for every planned stage, its plan, candidate document,"
          + " verdicts and chosen fragments as files.",
      value -> null);

  static final List<Setting> SETTINGS = List.of(ENABLED, SQL_MODE, SQL_DEVICE, SQL_EXPLAIN,
      BATCH_SIZE_BYTES, BATCH_ROWS, NATIVE_ROWS, CONCURRENT_GPU_TASKS, UDF_LIBRARIES,
      MEMORY_HOST_LIMIT, MEMORY_GPU_LIMIT,
      TEST_STRICT, TEST_ALLOWED_FALLBACKS, TEST_DUMP_FRAGMENTS);

  static final String EXEC_DOC = EXEC_PREFIX + "<SparkNodeClass>=false keeps that operator in"
      + " Spark (e.g. " + EXEC_PREFIX + "SortMergeJoinExec=false).";
  static final String EXPRESSION_DOC = EXPRESSION_PREFIX + "<ExpressionClass>=false keeps"
      + " operators using that expression in Spark (e.g. " + EXPRESSION_PREFIX + "Add=false).";

  private final Map<String, String> values;

  private TandemConf(Map<String, String> values) {
    this.values = values;
  }

  /** The spark.tandem.* entries among {@code all}, checked. */
  static TandemConf of(Map<String, String> all) {
    Map<String, String> ours = new TreeMap<>();
    for (Map.Entry<String, String> e : all.entrySet()) {
      if (e.getKey().startsWith(PREFIX)) ours.put(e.getKey(), e.getValue().trim());
    }
    ours.forEach(TandemConf::check);
    return new TandemConf(ours);
  }

  /** The current session's settings (read per query). */
  static TandemConf ofSession() {
    return of(CollectionConverters.asJava(SQLConf.get().getAllConfs()));
  }

  boolean enabled() {
    return Boolean.parseBoolean(get(ENABLED));
  }

  Mode mode() {
    return get(SQL_MODE).equals("explainOnly") ? Mode.EXPLAIN_ONLY : Mode.EXECUTE;
  }

  String device() {
    return get(SQL_DEVICE);
  }

  Explain explain() {
    Explain level = Explain.valueOf(get(SQL_EXPLAIN));
    return mode() == Mode.EXPLAIN_ONLY && level == Explain.NONE ? Explain.ALL : level;
  }

  long batchSizeBytes() {
    return JavaUtils.byteStringAsBytes(get(BATCH_SIZE_BYTES));
  }

  int batchRows() {
    return Integer.parseInt(get(BATCH_ROWS));
  }

  boolean nativeRowOutput() {
    return Boolean.parseBoolean(get(NATIVE_ROWS));
  }

  int concurrentGpuTasks() {
    return Integer.parseInt(get(CONCURRENT_GPU_TASKS));
  }

  /** Absolute paths of existing files, or what the setting accepts. */
  private static String checkLibraries(String value) {
    for (String path : commaList(value)) {
      Path p = Paths.get(path);
      if (!p.isAbsolute()) return "absolute paths of UDF libraries; " + path + " is relative";
      if (!p.toFile().isFile()) return "paths of UDF libraries that exist; " + path + " does not";
    }
    return null;
  }

  List<String> udfLibraries() {
    return commaList(get(UDF_LIBRARIES));
  }

  /** Bytes, or -1 when unset. */
  long hostMemoryLimit() {
    String v = get(MEMORY_HOST_LIMIT);
    return v.isEmpty() ? -1 : JavaUtils.byteStringAsBytes(v);
  }

  /** Bytes, or -1 when unset. */
  long gpuMemoryLimit() {
    String v = get(MEMORY_GPU_LIMIT);
    return v.isEmpty() ? -1 : JavaUtils.byteStringAsBytes(v);
  }

  boolean strict() {
    return Boolean.parseBoolean(get(TEST_STRICT));
  }

  Set<String> allowedFallbacks() {
    return new LinkedHashSet<>(commaList(get(TEST_ALLOWED_FALLBACKS)));
  }

  /** The fragment dump directory, or null when dumping is off. */
  Path dumpDirectory() {
    String v = get(TEST_DUMP_FRAGMENTS);
    return v.isEmpty() ? null : Paths.get(v);
  }

  boolean execEnabled(String sparkNodeClass) {
    return !"false".equalsIgnoreCase(values.get(EXEC_PREFIX + sparkNodeClass));
  }

  boolean expressionEnabled(String expressionClass) {
    return !"false".equalsIgnoreCase(values.get(EXPRESSION_PREFIX + expressionClass));
  }

  private String get(Setting s) {
    return values.getOrDefault(s.key(), s.defaultValue());
  }

  private static void check(String key, String value) {
    for (Setting s : SETTINGS) {
      if (s.key().equals(key)) {
        String accepted = s.check().apply(value);
        if (accepted != null) throw bad(key, value, accepted);
        return;
      }
    }
    if (key.startsWith(EXEC_PREFIX)) {
      checkSwitch(key, value, key.substring(EXEC_PREFIX.length()), SupportTable.get().operators());
    } else if (key.startsWith(EXPRESSION_PREFIX)) {
      checkSwitch(key, value, key.substring(EXPRESSION_PREFIX.length()),
          SupportTable.get().expressions());
    } else {
      List<String> known = new ArrayList<>();
      for (Setting s : SETTINGS) known.add(s.key());
      known.add(EXEC_PREFIX + "<SparkNodeClass>");
      known.add(EXPRESSION_PREFIX + "<ExpressionClass>");
      throw new IllegalArgumentException("unknown Tandem setting " + key + "; the settings are "
          + String.join(", ", known));
    }
  }

  private static void checkSwitch(String key, String value, String name, Set<String> names) {
    if (!names.contains(name)) {
      throw new IllegalArgumentException("unknown Tandem setting " + key + ": Tandem translates"
          + " no " + name + "; it translates " + String.join(", ", sorted(names)));
    }
    String accepted = checkBoolean(value);
    if (accepted != null) throw bad(key, value, accepted);
  }

  private static IllegalArgumentException bad(String key, String value, String accepted) {
    return new IllegalArgumentException(
        "bad value '" + value + "' for " + key + "; it accepts " + accepted);
  }

  private static String checkBoolean(String value) {
    String v = value.toLowerCase(Locale.ROOT);
    return v.equals("true") || v.equals("false") ? null : "true or false";
  }

  private static String checkPositiveInt(String value) {
    try {
      if (Integer.parseInt(value) > 0) return null;
    } catch (NumberFormatException e) {
      // falls through to the accepted values
    }
    return "a positive integer";
  }

  private static String checkBytes(String value) {
    try {
      if (JavaUtils.byteStringAsBytes(value) > 0) return null;
    } catch (NumberFormatException e) {
      // falls through to the accepted values
    }
    return "a positive size such as 512m or 4g";
  }

  private static Function<String, String> choice(String... accepted) {
    return value -> Arrays.asList(accepted).contains(value) ? null : String.join(", ", accepted);
  }

  private static List<String> commaList(String value) {
    List<String> out = new ArrayList<>();
    for (String part : value.split(",")) {
      if (!part.trim().isEmpty()) out.add(part.trim());
    }
    return out;
  }

  private static List<String> sorted(Set<String> names) {
    List<String> out = new ArrayList<>(names);
    Collections.sort(out);
    return out;
  }
}
