// The executor half of TandemPlugin: loads libtandem_jni.so once per executor JVM and starts the
// engine with the driver's settings (TandemDriverPlugin.initSettings). A library that cannot load stops the
// executor, except with -Dtandem.validate.stub=true (plan translation tests without the engine).
package dev.tandem.spark;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Map;
import org.apache.spark.api.plugin.ExecutorPlugin;
import org.apache.spark.api.plugin.PluginContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

final class TandemExecutorPlugin implements ExecutorPlugin {
  private static final Logger LOG = LoggerFactory.getLogger(TandemExecutorPlugin.class);
  private static boolean started;

  @Override
  public void init(PluginContext ctx, Map<String, String> extraConf) {
    ObjectNode settings = Json.parseObject(extraConf.get(TandemDriverPlugin.INIT_KEY));
    start(settings.toString());
  }

  /** Once per JVM: in local mode the executor plugin runs inside the driver's JVM. */
  private static synchronized void start(String settings) {
    if (started) return;
    try {
      NativeLoader.load();
    } catch (IllegalStateException e) {
      if (!NativeVerdicts.stubbed()) throw e;
      LOG.warn("Tandem: {} (continuing: -D{}=true)", e.getMessage(), NativeVerdicts.STUB_PROPERTY);
      return;
    }
    TandemNative.init(settings);
    started = true;
    LOG.info("Tandem engine started from {} with {}", NativeLoader.loadedFrom(), settings);
  }
}
