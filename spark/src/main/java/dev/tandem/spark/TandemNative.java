// The JNI calls into libtandem_jni.so, exactly as docs/spark_fragment.md defines them. Every
// method may throw TandemException with the engine's message. Callers call NativeLoader.load()
// first, which loads the library once per JVM. JSON crosses as UTF-8 byte arrays, not Strings:
// JNI's string conversion is "modified UTF-8", which would change characters outside the BMP in
// literals and paths; the String methods here convert.
package dev.tandem.spark;

import java.nio.charset.StandardCharsets;
import java.util.List;

final class TandemNative {
  private TandemNative() {}

  /** Once per executor JVM: threads, memory limits, device (JSON, see TandemExecutorPlugin). */
  static void init(String settings) {
    init(utf8(settings));
  }

  /** Per-node verdicts for a candidate document: {"nodes": [...]}. */
  static String validate(String document) {
    return string(validate(utf8(document)));
  }

  /** Opens one task of a fragment; {@code task} carries its file splits. Returns a handle. */
  static long open(String fragment, String task) {
    return open(utf8(fragment), utf8(task));
  }

  /** The task's metrics as JSON: rows, batches, cpu_ns, gpu_ns, pcie_bytes, peak_bytes. */
  static String metrics(long handle) {
    return string(metrics0(handle));
  }

  /** The process's open tasks and host memory as JSON (open_tasks, host_bytes, ...). */
  static String memory() {
    return string(memory0());
  }

  /**
   * Registers the UDF libraries in this process and lists their functions: [{"name", "args":
   * [TYPE], "result": TYPE, "deterministic"}].
   */
  static String udfSignatures(List<String> libraries) {
    com.fasterxml.jackson.databind.node.ArrayNode list = Json.array();
    libraries.forEach(list::add);
    return string(udfSignatures0(utf8(list.toString())));
  }

  /** One packed row of the UDF's argument types through the UDF: one packed row of one field. */
  static byte[] evalUdf(String name, byte[] packedRow) {
    return evalUdf0(utf8(name), packedRow);
  }

  /** Hands {@code rows} packed UnsafeRows at {@code address} ({@code bytes} long) to input i. */
  static native void addRows(long handle, int input, long address, long bytes, int rows);

  /** Runs the task over everything added; returns the number of output batches. */
  static native int execute(long handle);

  /**
   * Batch i: [numRows, numColumns, then per column validityAddr, valuesAddr, dataAddr,
   * largeOffsets (0/1)].
   */
  static native long[] batch(long handle, int index);

  /**
   * Batch i as Spark UnsafeRows, packed [int32 size][int32 0][row]...: [address, bytes, rows],
   * valid until release(i).
   */
  static native long[] rows(long handle, int index);

  /** Frees batch i. */
  static native void release(long handle, int index);

  /** Asks a running execute() to stop; safe to call from another thread. */
  static native void cancel(long handle);

  /** Frees everything the task still holds; the handle is invalid afterwards. */
  static native void close(long handle);

  private static native void init(byte[] settings);

  private static native byte[] validate(byte[] document);

  private static native long open(byte[] fragment, byte[] task);

  private static native byte[] metrics0(long handle);

  private static native byte[] memory0();

  private static native byte[] udfSignatures0(byte[] libraries);

  private static native byte[] evalUdf0(byte[] name, byte[] packedRow);

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String string(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }
}
