// An error raised by the native engine (libtandem_jni.so) with the engine's message. It is a
// RuntimeException so that it fails the Spark task, with that message, wherever it surfaces.
package dev.tandem.spark;

public class TandemException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public TandemException(String message) {
    super(message);
  }
}
