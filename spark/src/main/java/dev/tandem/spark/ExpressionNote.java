// What translation found about one expression of a Spark node, for the explain log: its class,
// its text, and why it has no Tandem form (null when it has one).
package dev.tandem.spark;

record ExpressionNote(String expressionClass, String text, String reason) {
  boolean supported() {
    return reason == null;
  }
}
