// Packs Spark rows into native memory for TandemNative.addRows: each row as an UnsafeRow (rows
// of another format are converted with an UnsafeProjection), laid out as
// [int32 size][int32 0][size bytes], so that every record and every row starts 8-byte aligned
// (UnsafeRow sizes are multiples of 8). A chunk holds up to the batch size
// (spark.tandem.sql.batchSizeBytes; a larger row goes alone) and is handed over when full; the
// buffer grows as needed and is reused, since the engine copies what it needs during the call.
package dev.tandem.spark;

import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.unsafe.Platform;

final class RowPacker implements AutoCloseable {
  static final int HEADER_BYTES = 8;
  private static final long FIRST_CHUNK_BYTES = 1 << 20;

  /** Receives one full chunk: {@code rows} records, {@code bytes} long, at {@code address}. */
  interface Sink {
    void accept(long address, long bytes, int rows);
  }

  private final DataType[] types;
  private final long chunkBytes;
  private final Sink sink;
  private UnsafeProjection toUnsafe;
  private long address;
  private long capacity;
  private long used;
  private int rows;

  RowPacker(DataType[] types, long chunkBytes, Sink sink) {
    this.types = types;
    this.chunkBytes = chunkBytes;
    this.sink = sink;
  }

  void add(InternalRow row) {
    UnsafeRow unsafe = row instanceof UnsafeRow u ? u : projection().apply(row);
    int size = unsafe.getSizeInBytes();
    long need = HEADER_BYTES + (long) size;
    if (used + need > Math.max(chunkBytes, need)) flush();
    if (used + need > capacity) {
      grow(Math.max(used + need, Math.min(chunkBytes, Math.max(2 * capacity, FIRST_CHUNK_BYTES))));
    }
    Platform.putInt(null, address + used, size);
    Platform.putInt(null, address + used + 4, 0);
    unsafe.writeToMemory(null, address + used + HEADER_BYTES);
    used += need;
    rows++;
  }

  /** Hands over what is packed (nothing if empty). */
  void flush() {
    if (rows == 0) return;
    sink.accept(address, used, rows);
    used = 0;
    rows = 0;
  }

  @Override
  public void close() {
    if (address != 0) Platform.freeMemory(address);
    address = 0;
  }

  private UnsafeProjection projection() {
    if (toUnsafe == null) toUnsafe = UnsafeProjection.create(types);
    return toUnsafe;
  }

  private void grow(long size) {
    address = address == 0
        ? Platform.allocateMemory(size)
        : Platform.reallocateMemory(address, used, size);
    capacity = size;
  }
}
