// One task of a fragment in the engine: opened with the fragment and the task's splits, fed its
// inputs (packed rows), executed, then read batch by batch (as columnar batches, or as the
// UnsafeRows the engine writes for a row consumer); each batch is released when the next is
// asked for, and everything is closed (after taking the engine's metrics) when the last
// batch is done or, at the latest, when the Spark task completes. A killed task is noticed
// between steps and during execution (CancelWatch); the engine's errors arrive as
// TandemException and fail the task with their message.
package dev.tandem.spark;

import java.util.Iterator;
import java.util.NoSuchElementException;
import org.apache.spark.TaskContext;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.unsafe.Platform;
import org.apache.spark.util.TaskCompletionListener;

final class NativeTask {
  private final TaskContext context;
  private final TandemMetrics metrics;
  private final long chunkBytes;
  private long handle;

  private NativeTask(long handle, TaskContext context, TandemMetrics metrics, long chunkBytes) {
    this.handle = handle;
    this.context = context;
    this.metrics = metrics;
    this.chunkBytes = chunkBytes;
  }

  static NativeTask open(String fragment, String task, TaskContext context, TandemMetrics metrics,
      long chunkBytes) {
    NativeLoader.load();
    NativeTask t = new NativeTask(TandemNative.open(fragment, task), context, metrics, chunkBytes);
    context.addTaskCompletionListener((TaskCompletionListener) ctx -> t.close());
    return t;
  }

  /** Feeds every row of {@code rows} (columns of {@code types}) to input {@code input}. */
  void addRows(int input, Iterator<InternalRow> rows, DataType[] types) {
    try (RowPacker packer = new RowPacker(types, chunkBytes, (address, bytes, count) -> {
      stopIfKilled();
      TandemNative.addRows(handle, input, address, bytes, count);
    })) {
      while (rows.hasNext()) packer.add(rows.next());
      packer.flush();
    }
  }

  /** Runs the task; its output batches, with columns of {@code types}. */
  Iterator<ColumnarBatch> execute(DataType[] types) {
    return new Batches(run(), types);
  }

  /**
   * Runs the task; its output as UnsafeRows that the engine wrote, read in place (each row is
   * valid until the next is asked for, as Spark's row iterators are).
   */
  Iterator<InternalRow> executeRows(int fields) {
    return new Rows(run(), fields);
  }

  private int run() {
    stopIfKilled();
    int count;
    CancelWatch watch = new CancelWatch(this::cancelIfKilled);
    try {
      count = TandemNative.execute(handle);
    } catch (TandemException e) {
      context.killTaskIfInterrupted();
      throw e;
    } finally {
      watch.close();
    }
    return count;
  }

  /** Frees the task in the engine, once; first adds its metrics. */
  synchronized void close() {
    if (handle == 0) return;
    try {
      metrics.add(TandemNative.metrics(handle));
    } finally {
      TandemNative.close(handle);
      handle = 0;
    }
  }

  private synchronized void cancelIfKilled() {
    if (handle != 0 && context.isInterrupted()) TandemNative.cancel(handle);
  }

  private void stopIfKilled() {
    if (!context.isInterrupted()) return;
    cancelIfKilled();
    context.killTaskIfInterrupted();
  }

  private final class Rows implements Iterator<InternalRow> {
    private final int batches;
    private final UnsafeRow row;
    private int next;  // the next batch to read
    private int held = -1;
    private long address;
    private long end;

    Rows(int batches, int fields) {
      this.batches = batches;
      this.row = new UnsafeRow(fields);
    }

    @Override
    public boolean hasNext() {
      while (address >= end) {
        releaseHeld();
        if (next >= batches) {
          close();
          return false;
        }
        stopIfKilled();
        long[] block = TandemNative.rows(handle, next);
        held = next++;
        address = block[0];
        end = block[0] + block[1];
      }
      return true;
    }

    @Override
    public InternalRow next() {
      if (!hasNext()) throw new NoSuchElementException();
      int size = Platform.getInt(null, address);
      row.pointTo(null, address + 8, size);
      address += 8 + size;
      return row;
    }

    private void releaseHeld() {
      if (held >= 0 && handle != 0) TandemNative.release(handle, held);
      held = -1;
      address = end = 0;
    }
  }

  private final class Batches implements Iterator<ColumnarBatch> {
    private final int count;
    private final DataType[] types;
    private int next;
    private int held = -1;

    Batches(int count, DataType[] types) {
      this.count = count;
      this.types = types;
    }

    @Override
    public boolean hasNext() {
      if (next < count) return true;
      releaseHeld();
      close();
      return false;
    }

    @Override
    public ColumnarBatch next() {
      if (!hasNext()) throw new NoSuchElementException();
      stopIfKilled();
      releaseHeld();
      ColumnarBatch batch = TandemColumnVector.batch(TandemNative.batch(handle, next), types);
      held = next++;
      return batch;
    }

    private void releaseHeld() {
      if (held >= 0 && handle != 0) TandemNative.release(handle, held);
      held = -1;
    }
  }
}
