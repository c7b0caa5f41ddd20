// A subtree of Spark operators run as one fragment in Tandem. Its children are the Spark plans
// the fragment reads (inputs[i] is children[i]); the scans inside it are kept (not as children)
// to list their files at execution time. It produces columnar batches, or for a row consumer the
// UnsafeRows the engine writes (InputTransitions replaces ColumnarToRow over it); it reports the
// partitioning of the subtree it replaced and, when the fragment ends in a sort, its ordering.
// Product elements are the constructor arguments, so Spark can copy it; equality is structural
// (exchange reuse depends on it) and canonicalization normalizes attribute ids, children and
// scans.
package dev.tandem.spark;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.AttributeSet;
import org.apache.spark.sql.catalyst.expressions.ExprId$;
import org.apache.spark.sql.catalyst.expressions.SortOrder;
import org.apache.spark.sql.catalyst.plans.physical.Partitioning;
import org.apache.spark.sql.catalyst.plans.physical.UnknownPartitioning;
import org.apache.spark.sql.execution.FileSourceScanExec;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.datasources.FileScanRDD;
import org.apache.spark.sql.execution.metric.SQLMetric;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import scala.collection.immutable.IndexedSeq;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;

public final class TandemExec extends SparkPlan {
  private static final long serialVersionUID = 1L;

  private final FragmentPlan plan;
  private final Seq<Attribute> output;
  private final Seq<SparkPlan> children;
  private final Seq<FileSourceScanExec> scans;
  private final Partitioning partitioning;
  private final Seq<SortOrder> ordering;
  /** Produces UnsafeRows (for a row consumer) instead of columnar batches. */
  private final boolean rowOutput;
  private transient scala.collection.immutable.Map<String, SQLMetric> metrics;

  public TandemExec(FragmentPlan plan, Seq<Attribute> output, Seq<SparkPlan> children,
      Seq<FileSourceScanExec> scans, Partitioning partitioning, Seq<SortOrder> ordering,
      boolean rowOutput) {
    this.plan = plan;
    this.output = output;
    this.children = children;
    this.scans = scans;
    this.partitioning = partitioning;
    this.ordering = ordering;
    this.rowOutput = rowOutput;
  }

  /** The same node producing rows, which the engine writes in Spark's UnsafeRow format. */
  TandemExec withRowOutput() {
    return rowOutput ? this
        : new TandemExec(plan, output, children, scans, partitioning, ordering, true);
  }

  boolean rowOutput() {
    return rowOutput;
  }

  FragmentPlan fragmentPlan() {
    return plan;
  }

  @Override
  public Seq<Attribute> output() {
    return output;
  }

  @Override
  public Seq<SparkPlan> children() {
    return children;
  }

  @Override
  public SparkPlan withNewChildrenInternal(IndexedSeq<SparkPlan> newChildren) {
    return new TandemExec(plan, output, newChildren, scans, partitioning, ordering, rowOutput);
  }

  @Override
  public Partitioning outputPartitioning() {
    return partitioning;
  }

  @Override
  public Seq<SortOrder> outputOrdering() {
    return ordering;
  }

  /** The fragment makes its output attributes (they are not missing inputs). */
  @Override
  public AttributeSet producedAttributes() {
    return outputSet();
  }

  @Override
  public boolean supportsColumnar() {
    return !rowOutput;
  }

  @Override
  @SuppressWarnings("unchecked")
  public RDD<InternalRow> doExecute() {
    if (!rowOutput) throw new UnsupportedOperationException("this TandemExec produces batches");
    return (RDD<InternalRow>) tandemRdd(true);
  }

  @Override
  @SuppressWarnings("unchecked")
  public RDD<ColumnarBatch> doExecuteColumnar() {
    if (rowOutput) throw new UnsupportedOperationException("this TandemExec produces rows");
    return (RDD<ColumnarBatch>) tandemRdd(false);
  }

  private RDD<?> tandemRdd(boolean asRows) {
    List<RDD<InternalRow>> rows = new ArrayList<>();
    List<Broadcast<Object>> broadcasts = new ArrayList<>();
    List<DataType[]> inputTypes = new ArrayList<>();
    List<SparkPlan> inputs = ScalaInterop.list(children);
    for (int i = 0; i < inputs.size(); i++) {
      boolean broadcast = plan.inputKinds().get(i) == Translation.InputKind.BROADCAST;
      rows.add(broadcast ? null : inputs.get(i).execute());
      broadcasts.add(broadcast ? inputs.get(i).executeBroadcast() : null);
      inputTypes.add(types(inputs.get(i).output()));
    }
    List<TandemRDD.ScanFiles> files = new ArrayList<>();
    for (FileSourceScanExec scan : ScalaInterop.list(scans)) {
      if (!(scan.inputRDD() instanceof FileScanRDD rdd)) {
        throw new IllegalStateException("the scan " + scan.nodeName() + " gave no FileScanRDD");
      }
      files.add(new TandemRDD.ScanFiles(ScalaInterop.list(rdd.filePartitions()),
          scan.relation().partitionSchema()));
    }
    TandemConf conf = TandemConf.ofSession();
    TandemMetrics m = new TandemMetrics(CollectionConverters.asJava(metrics()));
    return asRows
        ? TandemRDD.rows(sparkContext(), plan, rows, broadcasts, files, inputTypes, types(output),
            m, conf.batchSizeBytes(), conf.batchRows())
        : TandemRDD.batches(sparkContext(), plan, rows, broadcasts, files, inputTypes,
            types(output), m, conf.batchSizeBytes(), conf.batchRows());
  }

  @Override
  public synchronized scala.collection.immutable.Map<String, SQLMetric> metrics() {
    if (metrics == null) {
      metrics = scala.collection.immutable.Map$.MODULE$.from(
          CollectionConverters.asScala(TandemMetrics.create(sparkContext())));
    }
    return metrics;
  }

  @Override
  public SparkPlan doCanonicalize() {
    List<Attribute> out = new ArrayList<>();
    List<Attribute> attributes = ScalaInterop.list(output);
    for (int i = 0; i < attributes.size(); i++) {
      out.add((Attribute) attributes.get(i).withExprId(ExprId$.MODULE$.apply(i)).canonicalized());
    }
    List<SparkPlan> kids = new ArrayList<>();
    for (SparkPlan c : ScalaInterop.list(children)) kids.add(c.canonicalized());
    List<FileSourceScanExec> canonicalScans = new ArrayList<>();
    for (FileSourceScanExec s : ScalaInterop.list(scans)) {
      canonicalScans.add((FileSourceScanExec) s.canonicalized());
    }
    return new TandemExec(plan.canonical(), ScalaInterop.seq(out), ScalaInterop.seq(kids),
        ScalaInterop.seq(canonicalScans), new UnknownPartitioning(partitioning.numPartitions()),
        ScalaInterop.seq(), rowOutput);
  }

  @Override
  public String nodeName() {
    return "TandemExec";
  }

  @Override
  public String simpleString(int maxFields) {
    return nodeName() + " " + plan.summary() + " "
        + org.apache.spark.sql.catalyst.util.package$.MODULE$.truncatedString(
            output, "[", ", ", "]", maxFields);
  }

  @Override
  public String verboseString(int maxFields) {
    return simpleString(maxFields) + " fragment " + plan.fragment();
  }

  @Override
  public String verboseStringWithOperatorId() {
    return formattedNodeName() + "\nFragment: " + plan.summary() + "\nOutput ["
        + output.size() + "]: " + output.mkString("[", ", ", "]") + "\nDocument:\n"
        + Json.pretty(Json.parseObject(plan.fragment())) + "\n";
  }

  @Override
  public int productArity() {
    return 7;
  }

  @Override
  public Object productElement(int n) {
    return switch (n) {
      case 0 -> plan;
      case 1 -> output;
      case 2 -> children;
      case 3 -> scans;
      case 4 -> partitioning;
      case 5 -> ordering;
      case 6 -> rowOutput;
      default -> throw new IndexOutOfBoundsException(n);
    };
  }

  @Override
  public boolean canEqual(Object other) {
    return other instanceof TandemExec;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof TandemExec t && plan.equals(t.plan) && output.equals(t.output)
        && children.equals(t.children) && scans.equals(t.scans)
        && partitioning.equals(t.partitioning) && ordering.equals(t.ordering)
        && rowOutput == t.rowOutput;
  }

  @Override
  public int hashCode() {
    return Objects.hash(plan, output, children, scans, partitioning, ordering, rowOutput);
  }

  private static DataType[] types(Seq<Attribute> attributes) {
    List<Attribute> list = ScalaInterop.list(attributes);
    DataType[] out = new DataType[list.size()];
    for (int i = 0; i < out.length; i++) out[i] = list.get(i).dataType();
    return out;
  }
}
