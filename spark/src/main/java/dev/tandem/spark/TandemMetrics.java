// TandemExec's SQL metrics (shown in the Spark UI and event log), filled at the end of every task
// from the engine's metrics JSON: rows, batches, cpu_ns, gpu_ns, pcie_bytes, peak_bytes. Spill
// is reported for the UI's sake and stays 0 until the engine spills.
package dev.tandem.spark;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.Serializable;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.spark.SparkContext;
import org.apache.spark.sql.execution.metric.SQLMetric;
import org.apache.spark.sql.execution.metric.SQLMetrics;

final class TandemMetrics implements Serializable {
  private static final long serialVersionUID = 1L;

  static final String ROWS = "numOutputRows";
  static final String BATCHES = "numOutputBatches";
  static final String TIME = "tandemTime";
  static final String GPU_TIME = "gpuTime";
  static final String PCIE = "pcieBytes";
  static final String PEAK = "peakNativeMemory";
  static final String SPILL = "spillSize";

  private final SQLMetric rows;
  private final SQLMetric batches;
  private final SQLMetric time;
  private final SQLMetric gpuTime;
  private final SQLMetric pcie;
  private final SQLMetric peak;

  TandemMetrics(Map<String, SQLMetric> metrics) {
    rows = metrics.get(ROWS);
    batches = metrics.get(BATCHES);
    time = metrics.get(TIME);
    gpuTime = metrics.get(GPU_TIME);
    pcie = metrics.get(PCIE);
    peak = metrics.get(PEAK);
  }

  /** The metrics of a new TandemExec, by name (created on the driver). */
  static Map<String, SQLMetric> create(SparkContext sc) {
    Map<String, SQLMetric> m = new LinkedHashMap<>();
    m.put(ROWS, SQLMetrics.createMetric(sc, "number of output rows"));
    m.put(BATCHES, SQLMetrics.createMetric(sc, "number of output batches"));
    m.put(TIME, SQLMetrics.createNanoTimingMetric(sc, "time in Tandem", -1));
    m.put(GPU_TIME, SQLMetrics.createNanoTimingMetric(sc, "time on GPU", -1));
    m.put(PCIE, SQLMetrics.createSizeMetric(sc, "bytes across PCIe", -1));
    m.put(PEAK, SQLMetrics.createSizeMetric(sc, "peak native memory", -1));
    m.put(SPILL, SQLMetrics.createSizeMetric(sc, "spill size", -1));
    return m;
  }

  /** Adds one task's engine metrics. */
  void add(String metricsJson) {
    JsonNode m = Json.parseObject(metricsJson);
    rows.add(m.path("rows").asLong(0));
    batches.add(m.path("batches").asLong(0));
    time.add(m.path("cpu_ns").asLong(0));
    gpuTime.add(m.path("gpu_ns").asLong(0));
    pcie.add(m.path("pcie_bytes").asLong(0));
    peak.add(m.path("peak_bytes").asLong(0));
  }
}
