// Loads libtandem_jni.so once per JVM: from the path in the TANDEM_JNI_LIB environment variable
// or the tandem.jni.lib system property when set (tests, development builds), else from the copy
// inside the plugin jar (native/linux-x86_64/libtandem_jni.so), extracted to a temporary file
// because System.load needs a file. A failure is remembered and reported the same way each time.
package dev.tandem.spark;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;

final class NativeLoader {
  static final String RESOURCE = "native/linux-x86_64/libtandem_jni.so";
  static final String ENV = "TANDEM_JNI_LIB";
  static final String PROPERTY = "tandem.jni.lib";

  private static String loadedFrom;
  private static IllegalStateException failure;

  private NativeLoader() {}

  /** Loads the library unless it is loaded; throws IllegalStateException saying why not. */
  static synchronized void load() {
    if (loadedFrom != null) return;
    if (failure != null) throw failure;
    try {
      String path = explicitPath();
      if (path == null) path = extractFromJar().toString();
      System.load(path);
      loadedFrom = path;
    } catch (IOException | UnsatisfiedLinkError | IllegalStateException e) {
      failure = new IllegalStateException(
          "cannot load the Tandem native library: " + e.getMessage(), e);
      throw failure;
    }
  }

  /** Where the library was loaded from, or null if it is not loaded. */
  static synchronized String loadedFrom() {
    return loadedFrom;
  }

  private static String explicitPath() {
    String path = System.getProperty(PROPERTY);
    if (path == null || path.isEmpty()) path = System.getenv(ENV);
    return path == null || path.isEmpty() ? null : path;
  }

  private static Path extractFromJar() throws IOException {
    String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
    String arch = System.getProperty("os.arch");
    if (!os.contains("linux") || !(arch.equals("amd64") || arch.equals("x86_64"))) {
      throw new IllegalStateException("the plugin jar holds a library for linux-x86_64 only, this"
          + " JVM runs on " + os + "-" + arch);
    }
    try (InputStream in = NativeLoader.class.getClassLoader().getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException("the plugin jar has no " + RESOURCE + " (built without"
            + " it?) and neither " + ENV + " nor -D" + PROPERTY + " names one");
      }
      Path file = Files.createTempFile("libtandem_jni", ".so");
      file.toFile().deleteOnExit();
      Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
      return file;
    }
  }
}
