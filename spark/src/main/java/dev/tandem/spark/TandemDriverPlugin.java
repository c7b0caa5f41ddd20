// The driver half of TandemPlugin. At application start it checks every spark.tandem.* setting
// (a bad one stops the application with the key and what it accepts), appends
// dev.tandem.spark.TandemExtensions to spark.sql.extensions (once, keeping what is there; sessions
// created afterwards read it), and hands every executor the engine's start-up settings.
package dev.tandem.spark;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Arrays;
import java.util.Map;
import org.apache.spark.SparkConf;
import org.apache.spark.SparkContext;
import org.apache.spark.api.plugin.DriverPlugin;
import org.apache.spark.api.plugin.PluginContext;

final class TandemDriverPlugin implements DriverPlugin {
  static final String EXTENSIONS_KEY = "spark.sql.extensions";
  static final String INIT_KEY = "dev.tandem.spark.init";

  @Override
  public Map<String, String> init(SparkContext sc, PluginContext ctx) {
    SparkShim.checkVersion(sc.version());
    SparkConf conf = ctx.conf();
    TandemConf tandem = TandemConf.of(SparkSettings.asMap(conf));
    addExtension(conf);
    return Map.of(INIT_KEY, initSettings(tandem, conf.getInt("spark.task.cpus", 1)).toString());
  }

  private static void addExtension(SparkConf conf) {
    String name = TandemExtensions.class.getName();
    String current = conf.get(EXTENSIONS_KEY, "").trim();
    boolean present = Arrays.stream(current.split(",")).map(String::trim).anyMatch(name::equals);
    if (present)
      return;
    conf.set(EXTENSIONS_KEY, current.isEmpty() ? name : current + "," + name);
  }

  /**
   * TandemNative.init's document. "threads" is the CPU threads of one task: spark.task.cpus, as
   * Spark itself runs a task on that many cores while the executor's other slots run other tasks.
   */
  static ObjectNode initSettings(TandemConf tandem, int taskCpus) {
    ObjectNode init = Json.object();
    init.put("threads", taskCpus);
    init.put("device", tandem.device());
    init.put("concurrent_gpu_tasks", tandem.concurrentGpuTasks());
    if (tandem.hostMemoryLimit() > 0)
      init.put("host_memory_limit", tandem.hostMemoryLimit());
    if (tandem.gpuMemoryLimit() > 0)
      init.put("gpu_memory_limit", tandem.gpuMemoryLimit());
    tandem.udfLibraries().forEach(init.putArray("udf_libraries")::add);
    return init;
  }
}
