// The Spark plugin (spark.plugins=dev.tandem.spark.TandemPlugin): its driver half checks the
// spark.tandem.* settings and installs the planner extension, its executor half loads the
// native engine once per executor JVM.
package dev.tandem.spark;

import org.apache.spark.api.plugin.DriverPlugin;
import org.apache.spark.api.plugin.ExecutorPlugin;
import org.apache.spark.api.plugin.SparkPlugin;

public final class TandemPlugin implements SparkPlugin {
  @Override
  public DriverPlugin driverPlugin() {
    return new TandemDriverPlugin();
  }

  @Override
  public ExecutorPlugin executorPlugin() {
    return new TandemExecutorPlugin();
  }
}
