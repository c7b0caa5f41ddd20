// The RDD of a TandemExec: one partition per task of the fragment's PartitionShape (file
// partitions of its scans, partitions of its rows inputs, zipped, paired or concatenated as the
// fragment combines them), each depending narrowly on the input partitions it reads. compute()
// runs the task in the engine and returns its output: columnar batches over the engine's buffers,
// or, for a row consumer, the UnsafeRows the engine writes.
package dev.tandem.spark;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.spark.Dependency;
import org.apache.spark.InterruptibleIterator;
import org.apache.spark.NarrowDependency;
import org.apache.spark.Partition;
import org.apache.spark.SparkContext;
import org.apache.spark.TaskContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.execution.datasources.FilePartition;
import org.apache.spark.sql.execution.datasources.PartitionedFile;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;
import scala.reflect.ClassTag$;

final class TandemRDD<T> extends RDD<T> {
  private static final long serialVersionUID = 1L;

  /** The files of one scan, listed on the driver when the TandemExec executes. */
  record ScanFiles(List<FilePartition> partitions, StructType partitionSchema) {}

  private final FragmentPlan plan;
  /** Per input: the rows of a rows input (null for a broadcast input). */
  private final List<RDD<InternalRow>> rowInputs;
  /** Per input: the broadcast of a broadcast input (null for a rows input). */
  private final List<Broadcast<Object>> broadcasts;
  private final List<DataType[]> inputTypes;
  private final DataType[] outputTypes;
  private final TandemMetrics metrics;
  private final long chunkBytes;
  private final int batchRows;
  /** Output: UnsafeRows the engine writes (true) or columnar batches over its buffers. */
  private final boolean rows;
  private final transient List<ScanFiles> scans;

  /** The RDD of a TandemExec that produces columnar batches. */
  static TandemRDD<ColumnarBatch> batches(SparkContext sc, FragmentPlan plan,
      List<RDD<InternalRow>> rowInputs, List<Broadcast<Object>> broadcasts, List<ScanFiles> scans,
      List<DataType[]> inputTypes, DataType[] outputTypes, TandemMetrics metrics,
      long chunkBytes, int batchRows) {
    return new TandemRDD<>(sc, plan, rowInputs, broadcasts, scans, inputTypes, outputTypes,
        metrics, chunkBytes, batchRows, false, ColumnarBatch.class);
  }

  /** The RDD of a TandemExec that produces rows (for a row consumer). */
  static TandemRDD<InternalRow> rows(SparkContext sc, FragmentPlan plan,
      List<RDD<InternalRow>> rowInputs, List<Broadcast<Object>> broadcasts, List<ScanFiles> scans,
      List<DataType[]> inputTypes, DataType[] outputTypes, TandemMetrics metrics,
      long chunkBytes, int batchRows) {
    return new TandemRDD<>(sc, plan, rowInputs, broadcasts, scans, inputTypes, outputTypes,
        metrics, chunkBytes, batchRows, true, InternalRow.class);
  }

  private TandemRDD(SparkContext sc, FragmentPlan plan, List<RDD<InternalRow>> rowInputs,
      List<Broadcast<Object>> broadcasts, List<ScanFiles> scans, List<DataType[]> inputTypes,
      DataType[] outputTypes, TandemMetrics metrics, long chunkBytes, int batchRows,
      boolean rows, Class<T> kind) {
    super(sc, ScalaInterop.<Dependency<?>>seq(), ClassTag$.MODULE$.apply(kind));
    this.rows = rows;
    this.plan = plan;
    this.rowInputs = rowInputs;
    this.broadcasts = broadcasts;
    this.scans = scans;
    this.inputTypes = inputTypes;
    this.outputTypes = outputTypes;
    this.metrics = metrics;
    this.chunkBytes = chunkBytes;
    this.batchRows = batchRows;
  }

  @Override
  public Partition[] getPartitions() {
    List<PartitionShape.Task> tasks = plan.shape().tasks(new PartitionShape.Sources() {
      @Override
      public List<FilePartition> scanPartitions(int scan) {
        return scans.get(scan).partitions();
      }

      @Override
      public int inputPartitions(int input) {
        return rowInputs.get(input).partitions().length;
      }
    });
    if (tasks == null) throw new IllegalStateException("a Tandem fragment reads only broadcasts");
    Partition[] out = new Partition[tasks.size()];
    for (int i = 0; i < out.length; i++) out[i] = partition(i, tasks.get(i));
    return out;
  }

  private TandemPartition partition(int index, PartitionShape.Task task) {
    ObjectNode doc = Json.object();
    ObjectNode splits = doc.putObject("splits");
    List<String> locations = new ArrayList<>();
    for (Map.Entry<Integer, FilePartition> e : task.files().entrySet()) {
      ArrayNode list = splits.putArray(String.valueOf(plan.scanNodeIds().get(e.getKey())));
      StructType partitionSchema = scans.get(e.getKey()).partitionSchema();
      for (PartitionedFile f : e.getValue().files()) list.add(split(f, partitionSchema));
      locations.addAll(List.of(e.getValue().preferredLocations()));
    }
    doc.put("batchRows", batchRows);
    Partition[] inputs = new Partition[rowInputs.size()];
    for (Map.Entry<Integer, Integer> e : task.inputPartitions().entrySet()) {
      inputs[e.getKey()] = rowInputs.get(e.getKey()).partitions()[e.getValue()];
    }
    return new TandemPartition(index, doc.toString(), inputs, locations.toArray(new String[0]));
  }

  private static ObjectNode split(PartitionedFile file, StructType partitionSchema) {
    java.net.URI uri = file.pathUri();
    if (!"file".equals(uri.getScheme())) {
      throw new IllegalStateException("Tandem reads local files only, not " + uri);
    }
    ObjectNode s = Json.object();
    s.put("path", Paths.get(uri).toString());
    s.put("start", file.start());
    s.put("length", file.length());
    ArrayNode values = s.putArray("partition_values");
    InternalRow row = file.partitionValues();
    for (int i = 0; i < partitionSchema.fields().length; i++) {
      DataType type = partitionSchema.fields()[i].dataType();
      try {
        values.add(LiteralTranslator.value(row.isNullAt(i) ? null : row.get(i, type), type));
      } catch (Unsupported u) {
        throw new IllegalStateException("partition value of " + uri + ": " + u.getMessage(), u);
      }
    }
    return s;
  }

  @Override
  public Seq<Dependency<?>> getDependencies() {
    Partition[] parts = partitions();
    List<Dependency<?>> deps = new ArrayList<>();
    for (int input = 0; input < rowInputs.size(); input++) {
      if (rowInputs.get(input) == null) continue;
      int[][] parents = new int[parts.length][];
      for (int p = 0; p < parts.length; p++) {
        Partition read = ((TandemPartition) parts[p]).inputs[input];
        parents[p] = read == null ? new int[0] : new int[] {read.index()};
      }
      deps.add(new InputDependency(rowInputs.get(input), parents));
    }
    return ScalaInterop.seq(deps);
  }

  /** Partition p of a TandemRDD reads partitions parents[p] of one input. */
  private static final class InputDependency extends NarrowDependency<InternalRow> {
    private static final long serialVersionUID = 1L;
    private final int[][] parents;

    InputDependency(RDD<InternalRow> rdd, int[][] parents) {
      super(rdd);
      this.parents = parents;
    }

    @Override
    public Seq<Object> getParents(int partitionId) {
      List<Object> out = new ArrayList<>();
      for (int p : parents[partitionId]) out.add(p);
      return ScalaInterop.seq(out);
    }
  }

  @Override
  public Seq<String> getPreferredLocations(Partition split) {
    TandemPartition p = (TandemPartition) split;
    if (p.locations.length > 0) return ScalaInterop.seq(p.locations);
    for (int i = 0; i < p.inputs.length; i++) {
      if (p.inputs[i] != null) return rowInputs.get(i).preferredLocations(p.inputs[i]);
    }
    return ScalaInterop.seq();
  }

  @Override
  @SuppressWarnings("unchecked")
  public scala.collection.Iterator<T> compute(Partition split, TaskContext context) {
    TandemPartition p = (TandemPartition) split;
    NativeTask task = NativeTask.open(plan.fragment(), p.task, context, metrics, chunkBytes);
    for (int i = 0; i < plan.inputKinds().size(); i++) {
      if (plan.inputKinds().get(i) == Translation.InputKind.BROADCAST) {
        task.addRows(i, BroadcastRows.of(broadcasts.get(i).value()), inputTypes.get(i));
      } else if (p.inputs[i] != null) {
        Iterator<InternalRow> rows =
            CollectionConverters.asJava(rowInputs.get(i).iterator(p.inputs[i], context));
        task.addRows(i, rows, inputTypes.get(i));
      }
    }
    Iterator<?> out = rows ? task.executeRows(outputTypes.length) : task.execute(outputTypes);
    return new InterruptibleIterator<>(context, CollectionConverters.asScala((Iterator<T>) out));
  }
}
