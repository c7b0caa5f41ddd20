// Checks of the plugin's execution-side pieces that need no engine and no Spark session, run by
// spark/dev/runtime_checks.sh: TandemColumnVector over hand-built Arrow buffers (nulls, packed
// booleans, every fixed width, 64- and 128-bit decimals, strings with 32- and 64-bit offsets,
// binary), RowPacker's chunks (layout, growth, a row larger than a chunk, contents read back),
// PartitionShape's task lists, BroadcastRows over hashed relations with duplicate keys, and the
// engine's start-up settings (task slots from the master, limits, UDF libraries).
// It lives in dev.tandem.spark to reach package-private classes; it is not part of the jar.
package dev.tandem.spark;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.SparkConf;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.BoundReference;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.execution.datasources.FilePartition;
import org.apache.spark.sql.execution.datasources.PartitionedFile;
import org.apache.spark.sql.execution.joins.HashedRelation$;
import org.apache.spark.sql.execution.joins.HashedRelation;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.unsafe.Platform;
import org.apache.spark.unsafe.types.UTF8String;
import scala.jdk.javaapi.CollectionConverters;

public final class RuntimeChecks {
  private static int failures;
  private static final List<Long> ALLOCATED = new ArrayList<>();

  public static void main(String[] args) {
    columnVectors();
    rowPacker();
    partitionShapes();
    broadcastRows();
    startupSettings();
    ALLOCATED.forEach(Platform::freeMemory);
    System.out.println(failures == 0 ? "all runtime checks passed" : failures + " checks failed");
    System.exit(failures == 0 ? 0 : 1);
  }

  private static void check(boolean ok, String what) {
    if (!ok) {
      failures++;
      System.out.println("FAILED: " + what);
    }
  }

  private static long alloc(long bytes) {
    long a = Platform.allocateMemory(Math.max(bytes, 8));
    Platform.setMemory(a, (byte) 0, Math.max(bytes, 8));
    ALLOCATED.add(a);
    return a;
  }

  private static void setBit(long bitmap, int i) {
    long at = bitmap + (i >>> 3);
    Platform.putByte(null, at, (byte) (Platform.getByte(null, at) | (1 << (i & 7))));
  }

  // -- TandemColumnVector ------------------------------------------------------------------------

  private static void columnVectors() {
    int rows = 70;
    long validity = alloc(16);
    for (int i = 0; i < rows; i++) if (i % 3 != 0) setBit(validity, i);  // every third null
    long ints = alloc(4L * rows);
    long longs = alloc(8L * rows);
    long bools = alloc(16);
    long bytes = alloc(rows);
    long shorts = alloc(2L * rows);
    long floats = alloc(4L * rows);
    long doubles = alloc(8L * rows);
    long wide = alloc(16L * rows);
    BigInteger[] wideValues = new BigInteger[rows];
    for (int i = 0; i < rows; i++) {
      Platform.putInt(null, ints + 4L * i, i * 1000 - 7);
      Platform.putLong(null, longs + 8L * i, (long) i * -123456789L);
      if (i % 2 == 1) setBit(bools, i);
      Platform.putByte(null, bytes + i, (byte) (i - 30));
      Platform.putShort(null, shorts + 2L * i, (short) (i * 300));
      Platform.putFloat(null, floats + 4L * i, i / 4.0f);
      Platform.putDouble(null, doubles + 8L * i, i / 3.0);
      wideValues[i] = BigInteger.TEN.pow(25).multiply(BigInteger.valueOf(i - 35)).add(
          BigInteger.valueOf(i * 17L));
      putInt128(wide + 16L * i, wideValues[i]);
    }
    String[] strings = new String[rows];
    StringBuilder all = new StringBuilder();
    long offsets32 = alloc(4L * (rows + 1));
    long offsets64 = alloc(8L * (rows + 1));
    int at = 0;
    for (int i = 0; i < rows; i++) {
      strings[i] = i % 5 == 0 ? "" : "s" + i + (i % 7 == 0 ? "é€𝄞" : "");
      Platform.putInt(null, offsets32 + 4L * i, at);
      Platform.putLong(null, offsets64 + 8L * i, at);
      at += strings[i].getBytes(StandardCharsets.UTF_8).length;
      all.append(strings[i]);
    }
    Platform.putInt(null, offsets32 + 4L * rows, at);
    Platform.putLong(null, offsets64 + 8L * rows, at);
    byte[] data = all.toString().getBytes(StandardCharsets.UTF_8);
    long dataAddress = alloc(data.length);
    Platform.copyMemory(data, Platform.BYTE_ARRAY_OFFSET, null, dataAddress, data.length);

    DataType dec12 = DataTypes.createDecimalType(12, 2);
    DataType dec30 = DataTypes.createDecimalType(30, 5);
    DataType[] types = {DataTypes.IntegerType, DataTypes.LongType, DataTypes.BooleanType,
        DataTypes.ByteType, DataTypes.ShortType, DataTypes.FloatType, DataTypes.DoubleType,
        DataTypes.DateType, DataTypes.TimestampType, dec12, dec30, DataTypes.StringType,
        DataTypes.StringType, DataTypes.BinaryType};
    long[][] columns = {{validity, ints, 0, 0}, {0, longs, 0, 0}, {0, bools, 0, 0},
        {0, bytes, 0, 0}, {0, shorts, 0, 0}, {0, floats, 0, 0}, {0, doubles, 0, 0},
        {0, ints, 0, 0}, {0, longs, 0, 0}, {validity, longs, 0, 0}, {0, wide, 0, 0},
        {0, offsets32, dataAddress, 0}, {validity, offsets64, dataAddress, 1},
        {0, offsets32, dataAddress, 0}};
    long[] layout = new long[2 + 4 * columns.length];
    layout[0] = rows;
    layout[1] = columns.length;
    for (int c = 0; c < columns.length; c++) System.arraycopy(columns[c], 0, layout, 2 + 4 * c, 4);
    ColumnarBatch batch = TandemColumnVector.batch(layout, types);
    check(batch.numRows() == rows && batch.numCols() == columns.length, "batch shape");

    ColumnVector v = batch.column(0);
    check(v.numNulls() == 24 && v.hasNull(), "numNulls over 64 + 6 rows: " + v.numNulls());
    check(!batch.column(1).hasNull() && batch.column(1).numNulls() == 0, "no validity, no nulls");
    for (int i = 0; i < rows; i++) {
      check(v.isNullAt(i) == (i % 3 == 0), "int null " + i);
      if (i % 3 != 0) check(v.getInt(i) == i * 1000 - 7, "int " + i);
      check(batch.column(1).getLong(i) == (long) i * -123456789L, "long " + i);
      check(batch.column(2).getBoolean(i) == (i % 2 == 1), "bool " + i);
      check(batch.column(3).getByte(i) == (byte) (i - 30), "byte " + i);
      check(batch.column(4).getShort(i) == (short) (i * 300), "short " + i);
      check(batch.column(5).getFloat(i) == i / 4.0f, "float " + i);
      check(batch.column(6).getDouble(i) == i / 3.0, "double " + i);
      check(batch.column(7).getInt(i) == i * 1000 - 7, "date " + i);
      check(batch.column(8).getLong(i) == (long) i * -123456789L, "timestamp " + i);
      Decimal d12 = batch.column(9).getDecimal(i, 12, 2);
      if (i % 3 == 0) {
        check(d12 == null, "null decimal " + i);
      } else {
        check(d12.toJavaBigDecimal().equals(BigDecimal.valueOf((long) i * -123456789L, 2)),
            "decimal(12,2) " + i + ": " + d12);
      }
      Decimal d30 = batch.column(10).getDecimal(i, 30, 5);
      check(d30.toJavaBigDecimal().equals(new BigDecimal(wideValues[i], 5)),
          "decimal(30,5) " + i + ": " + d30 + " vs " + new BigDecimal(wideValues[i], 5));
      check(batch.column(11).getUTF8String(i).toString().equals(strings[i]), "string " + i);
      UTF8String large = batch.column(12).getUTF8String(i);
      check(i % 3 == 0 ? large == null : large.toString().equals(strings[i]), "large string " + i);
      check(new String(batch.column(13).getBinary(i), StandardCharsets.UTF_8).equals(strings[i]),
          "binary " + i);
    }
    Decimal rescaled = batch.column(9).getDecimal(1, 14, 3);
    check(rescaled.toJavaBigDecimal().equals(new BigDecimal("-1234567.890")),
        "decimal(12,2) read as decimal(14,3): " + rescaled);
    Iterator<InternalRow> it = batch.rowIterator();
    int seen = 0;
    while (it.hasNext()) {
      InternalRow r = it.next();
      check(r.getUTF8String(11).toString().equals(strings[seen]), "row view " + seen);
      seen++;
    }
    check(seen == rows, "row iterator count");
    boolean threw = false;
    try {
      TandemColumnVector.batch(new long[] {1, 2, 0, 0, 0, 0}, types);
    } catch (IllegalStateException e) {
      threw = true;
    }
    check(threw, "a batch whose column count differs is refused");
  }

  private static void putInt128(long address, BigInteger value) {
    byte[] be = value.toByteArray();
    byte[] le = new byte[16];
    byte fill = (byte) (value.signum() < 0 ? 0xff : 0);
    for (int i = 0; i < 16; i++) le[i] = i < be.length ? be[be.length - 1 - i] : fill;
    Platform.copyMemory(le, Platform.BYTE_ARRAY_OFFSET, null, address, 16);
  }

  // -- RowPacker -------------------------------------------------------------------------------

  private static void rowPacker() {
    DataType[] types = {DataTypes.LongType, DataTypes.StringType};
    UnsafeProjection project = UnsafeProjection.create(types);
    List<String> seen = new ArrayList<>();
    int[] chunks = {0};
    long chunkBytes = 256;
    RowPacker.Sink sink = (address, bytes, rows) -> {
      chunks[0]++;
      long at = 0;
      for (int i = 0; i < rows; i++) {
        int size = Platform.getInt(null, address + at);
        check(at % 8 == 0 && size % 8 == 0 && Platform.getInt(null, address + at + 4) == 0,
            "record header at " + at);
        UnsafeRow row = new UnsafeRow(2);
        row.pointTo(null, address + at + RowPacker.HEADER_BYTES, size);
        seen.add(row.getLong(0) + ":" + row.getUTF8String(1));
        at += RowPacker.HEADER_BYTES + size;
      }
      check(at == bytes, "chunk of " + rows + " rows is " + bytes + " bytes, records end at " + at);
      check(bytes <= chunkBytes || rows == 1, "a chunk over the batch size holds one row");
    };
    List<String> expected = new ArrayList<>();
    try (RowPacker packer = new RowPacker(types, chunkBytes, sink)) {
      for (int i = 0; i < 40; i++) {
        String s = i == 20 ? "x".repeat(1000) : "v" + i;
        GenericInternalRow generic = new GenericInternalRow(
            new Object[] {(long) i, UTF8String.fromString(s)});
        // Half the rows arrive as UnsafeRows (copied), half as generic rows (projected).
        packer.add(i % 2 == 0 ? project.apply(generic).copy() : generic);
        expected.add(i + ":" + s);
      }
      packer.flush();
    }
    check(seen.equals(expected), "rows read back from the chunks equal the rows packed");
    check(chunks[0] > 2, "several chunks for 40 rows in 256-byte chunks: " + chunks[0]);
  }

  // -- PartitionShape ----------------------------------------------------------------------------

  private static void partitionShapes() {
    FilePartition[] files = new FilePartition[3];
    for (int i = 0; i < 3; i++) files[i] = new FilePartition(i, new PartitionedFile[0]);
    PartitionShape.Sources sources = new PartitionShape.Sources() {
      @Override
      public List<FilePartition> scanPartitions(int scan) {
        return List.of(files);
      }

      @Override
      public int inputPartitions(int input) {
        return input == 0 ? 3 : 2;
      }
    };
    PartitionShape scan = new PartitionShape.Scan(0);
    PartitionShape rows = new PartitionShape.Rows(0);
    PartitionShape broadcast = new PartitionShape.Broadcast(1);
    var zip = new PartitionShape.Zip(List.of(scan, rows, broadcast)).tasks(sources);
    check(zip.size() == 3 && zip.get(2).files().get(0) == files[2]
        && zip.get(2).inputPartitions().get(0) == 2, "zip of a scan, rows and a broadcast");
    var product = new PartitionShape.Product(rows, new PartitionShape.Rows(1)).tasks(sources);
    check(product.size() == 6 && product.get(5).inputPartitions().get(0) == 2
        && product.get(5).inputPartitions().get(1) == 1, "cartesian product 3 x 2");
    var concat =
        new PartitionShape.Concat(List.of(scan, new PartitionShape.Rows(1))).tasks(sources);
    check(concat.size() == 5 && concat.get(4).inputPartitions().get(1) == 1
        && !concat.get(4).files().containsKey(0), "union of a scan and rows");
    boolean threw = false;
    try {
      new PartitionShape.Zip(List.of(rows, new PartitionShape.Rows(1))).tasks(sources);
    } catch (IllegalStateException e) {
      threw = true;
    }
    check(threw, "zipping 3 and 2 partitions is refused");
  }

  // -- start-up settings ------------------------------------------------------------------------

  private static void startupSettings() {
    TandemConf tandem = TandemConf.of(java.util.Map.of("spark.tandem.memory.host.limit", "2g",
        "spark.tandem.sql.device", "cpu", "spark.master", "local[2]"));
    String init = TandemDriverPlugin.initSettings(tandem, 2).toString();
    check(init.equals("{\"threads\":2,\"device\":\"cpu\",\"concurrent_gpu_tasks\":2,"
        + "\"host_memory_limit\":2147483648,\"udf_libraries\":[]}"),
        "init settings: " + init);
    boolean threw = false;
    try {
      TandemConf.of(java.util.Map.of("spark.tandem.sql.batchSizeBytes", "lots"));
    } catch (IllegalArgumentException e) {
      threw = e.getMessage().contains("spark.tandem.sql.batchSizeBytes")
          && e.getMessage().contains("512m or 4g");
    }
    check(threw, "a bad size is refused naming the key and what it accepts");
  }

  // -- BroadcastRows -----------------------------------------------------------------------------

  private static void broadcastRows() {
    // Keys with duplicates: a single long key (LongHashedRelation), two int keys and a string
    // key (UnsafeHashedRelation). Every stored row must come back exactly once.
    relation(new DataType[] {DataTypes.LongType, DataTypes.IntegerType}, 1, "long key");
    relation(new DataType[] {DataTypes.IntegerType, DataTypes.IntegerType}, 2, "two int keys");
    relation(new DataType[] {DataTypes.StringType, DataTypes.IntegerType}, 1, "string key");
  }

  private static void relation(DataType[] types, int keyColumns, String what) {
    UnsafeProjection project = UnsafeProjection.create(types);
    List<InternalRow> rows = new ArrayList<>();
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      Object key = types[0] == DataTypes.StringType ? UTF8String.fromString("k" + i % 7)
          : types[0] == DataTypes.LongType ? (Object) (long) (i % 7) : (Object) (i % 7);
      rows.add(project.apply(new GenericInternalRow(new Object[] {key, i})).copy());
      expected.add(String.valueOf(i));
    }
    List<Expression> keys = new ArrayList<>();
    for (int k = 0; k < keyColumns; k++) keys.add(new BoundReference(k, types[k], false));
    HashedRelation relation = HashedRelation$.MODULE$.apply(
        CollectionConverters.asScala(rows.iterator()), ScalaInterop.seq(keys), 64,
        HashedRelation$.MODULE$.apply$default$4(), false, false, false);
    List<String> got = new ArrayList<>();
    BroadcastRows.of(relation).forEachRemaining(r -> got.add(String.valueOf(r.getInt(1))));
    got.sort(null);
    expected.sort(null);
    check(got.equals(expected), what + " (" + relation.getClass().getSimpleName() + "): "
        + got.size() + " rows back of " + expected.size());
  }
}
