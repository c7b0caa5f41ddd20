// Thrown while translating when a Spark node or expression has no exact Tandem form; the
// message is the reason shown to users ("... cannot run on Tandem because <message>").
package dev.tandem.spark;

final class Unsupported extends Exception {
  private static final long serialVersionUID = 1L;

  Unsupported(String reason) {
    super(reason, null, false, false);
  }
}
