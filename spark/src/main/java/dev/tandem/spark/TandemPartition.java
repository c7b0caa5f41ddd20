// One task of a TandemRDD: its task document for TandemNative.open (the file splits of each
// scan, keyed by scan node id), the partition of each rows input it reads (null: none, e.g. the
// other children of a union), and where its files are (for locality).
package dev.tandem.spark;

import org.apache.spark.Partition;

final class TandemPartition implements Partition {
  private static final long serialVersionUID = 1L;

  private final int index;
  final String task;
  final Partition[] inputs;
  final String[] locations;

  TandemPartition(int index, String task, Partition[] inputs, String[] locations) {
    this.index = index;
    this.task = task;
    this.inputs = inputs;
    this.locations = locations;
  }

  @Override
  public int index() {
    return index;
  }

  @Override
  public int hashCode() {
    return index;
  }

  @Override
  public boolean equals(Object o) {
    return o == this;
  }
}
