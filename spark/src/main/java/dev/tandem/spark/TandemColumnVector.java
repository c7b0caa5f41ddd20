// A Spark ColumnVector reading one column of an engine output batch in place, in Arrow layout:
// validity is an LSB-first bitmap (address 0: no nulls); booleans are bit-packed; int8..int64,
// float32/64 plain; date = int32 days; timestamp = int64 microseconds; decimal(p <= 18) = int64
// unscaled, decimal(p > 18) = 16-byte little-endian two's complement; strings and binary =
// offsets (int32, int64 when "large") into a data buffer. The memory belongs to the engine's
// batch (NativeTask releases it), so close() does nothing.
package dev.tandem.spark;

import java.math.BigDecimal;
import java.math.BigInteger;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarArray;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.sql.vectorized.ColumnarMap;
import org.apache.spark.unsafe.Platform;
import org.apache.spark.unsafe.types.UTF8String;

final class TandemColumnVector extends ColumnVector {
  private final int rows;
  private final long validity;
  private final long values;
  private final long data;
  private final boolean largeOffsets;
  private int nulls = -1;

  TandemColumnVector(DataType type, int rows, long validity, long values, long data,
      boolean largeOffsets) {
    super(type);
    this.rows = rows;
    this.validity = validity;
    this.values = values;
    this.data = data;
    this.largeOffsets = largeOffsets;
  }

  /**
   * The batch TandemNative.batch describes: [numRows, numColumns, then per column validity,
   * values, data, largeOffsets (0/1)].
   */
  static ColumnarBatch batch(long[] layout, DataType[] types) {
    int rows = Math.toIntExact(layout[0]);
    int columns = Math.toIntExact(layout[1]);
    if (columns != types.length || layout.length != 2 + 4 * columns) {
      throw new IllegalStateException("the engine returned a batch of " + columns + " columns ("
          + layout.length + " numbers), Spark expects " + types.length + " columns");
    }
    ColumnVector[] vectors = new ColumnVector[columns];
    for (int c = 0; c < columns; c++) {
      int at = 2 + 4 * c;
      vectors[c] = new TandemColumnVector(types[c], rows, layout[at], layout[at + 1],
          layout[at + 2], layout[at + 3] != 0);
    }
    return new ColumnarBatch(vectors, rows);
  }

  @Override
  public void close() {}

  @Override
  public boolean hasNull() {
    return numNulls() > 0;
  }

  @Override
  public int numNulls() {
    if (nulls < 0) {
      int valid = 0;
      if (validity == 0) {
        valid = rows;
      } else {
        for (int i = 0; i + 64 <= rows; i += 64) {
          valid += Long.bitCount(Platform.getLong(null, validity + i / 8));
        }
        for (int i = rows - rows % 64; i < rows; i++) valid += bit(validity, i) ? 1 : 0;
      }
      nulls = rows - valid;
    }
    return nulls;
  }

  @Override
  public boolean isNullAt(int row) {
    return validity != 0 && !bit(validity, row);
  }

  @Override
  public boolean getBoolean(int row) {
    return bit(values, row);
  }

  @Override
  public byte getByte(int row) {
    return Platform.getByte(null, values + row);
  }

  @Override
  public short getShort(int row) {
    return Platform.getShort(null, values + 2L * row);
  }

  @Override
  public int getInt(int row) {
    return Platform.getInt(null, values + 4L * row);
  }

  @Override
  public long getLong(int row) {
    return Platform.getLong(null, values + 8L * row);
  }

  @Override
  public float getFloat(int row) {
    return Platform.getFloat(null, values + 4L * row);
  }

  @Override
  public double getDouble(int row) {
    return Platform.getDouble(null, values + 8L * row);
  }

  @Override
  public Decimal getDecimal(int row, int precision, int scale) {
    if (isNullAt(row)) return null;
    DecimalType type = (DecimalType) dataType();
    Decimal d;
    if (type.precision() <= Decimal.MAX_LONG_DIGITS()) {
      d = Decimal.createUnsafe(getLong(row), type.precision(), type.scale());
    } else {
      d = Decimal.apply(new BigDecimal(int128(row), type.scale()), type.precision(), type.scale());
    }
    if (precision == type.precision() && scale == type.scale()) return d;
    if (!d.changePrecision(precision, scale)) {
      throw new ArithmeticException("decimal " + d + " does not fit decimal(" + precision + ","
          + scale + ")");
    }
    return d;
  }

  @Override
  public UTF8String getUTF8String(int row) {
    if (isNullAt(row)) return null;
    long start = offset(row);
    return UTF8String.fromAddress(null, data + start, Math.toIntExact(offset(row + 1) - start));
  }

  @Override
  public byte[] getBinary(int row) {
    if (isNullAt(row)) return null;
    long start = offset(row);
    byte[] bytes = new byte[Math.toIntExact(offset(row + 1) - start)];
    Platform.copyMemory(null, data + start, bytes, Platform.BYTE_ARRAY_OFFSET, bytes.length);
    return bytes;
  }

  @Override
  public ColumnarArray getArray(int row) {
    throw new UnsupportedOperationException("Tandem fragments return no array columns");
  }

  @Override
  public ColumnarMap getMap(int row) {
    throw new UnsupportedOperationException("Tandem fragments return no map columns");
  }

  @Override
  public ColumnVector getChild(int ordinal) {
    throw new UnsupportedOperationException("Tandem fragments return no struct columns");
  }

  private long offset(int row) {
    return largeOffsets
        ? Platform.getLong(null, values + 8L * row)
        : Platform.getInt(null, values + 4L * row);
  }

  /** The 16-byte little-endian two's complement value at {@code row}. */
  private BigInteger int128(int row) {
    long low = Platform.getLong(null, values + 16L * row);
    long high = Platform.getLong(null, values + 16L * row + 8);
    byte[] bigEndian = new byte[16];
    for (int i = 0; i < 8; i++) {
      bigEndian[7 - i] = (byte) (high >>> (8 * i));
      bigEndian[15 - i] = (byte) (low >>> (8 * i));
    }
    return new BigInteger(bigEndian);
  }

  private static boolean bit(long bitmap, int index) {
    return ((Platform.getByte(null, bitmap + (index >>> 3)) >> (index & 7)) & 1) != 0;
  }
}
