// While the engine executes a task (a blocking JNI call), checks every 100 ms whether Spark
// killed the task and, if so, asks the engine to stop (TandemNative.cancel) so that the task
// ends promptly. One daemon thread serves every task of the JVM.
package dev.tandem.spark;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

final class CancelWatch implements AutoCloseable {
  private static final long PERIOD_MS = 100;
  private static final ScheduledExecutorService TIMER = Executors.newSingleThreadScheduledExecutor(
      r -> {
        Thread t = new Thread(r, "tandem-cancel-watch");
        t.setDaemon(true);
        return t;
      });

  private final ScheduledFuture<?> check;

  CancelWatch(Runnable cancelIfKilled) {
    check = TIMER.scheduleWithFixedDelay(
        cancelIfKilled, PERIOD_MS, PERIOD_MS, TimeUnit.MILLISECONDS);
  }

  @Override
  public void close() {
    check.cancel(false);
  }
}
