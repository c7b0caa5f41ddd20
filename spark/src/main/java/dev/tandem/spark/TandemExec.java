// A subtree of Spark operators run as one fragment in Tandem. Its children are the Spark plans
// the fragment reads (inputs[i] is children[i]); the scans inside it are kept (not as children)
// to list their files at execution time. It produces columnar batches only; it reports the
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
  private transient scala.collection.immutable.Map<String, SQLMetric> metrics;

  public TandemExec(FragmentPlan plan, Seq<Attribute> output, Seq<SparkPlan> children,
      Seq<FileSourceScanExec> scans, Partitioning partitioning, Seq<SortOrder> ordering) {
    this.plan = plan;
    this.output = output;
    this.children = children;
    this.scans = scans;
    this.partitioning = partitioning;
    this.ordering = ordering;
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
    return new TandemExec(plan, output, newChildren, scans, partitioning, ordering);
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
    return true;
  }

  @Override
  public RDD<InternalRow> doExecute() {
    throw new UnsupportedOperationException("TandemExec produces columnar batches only");
  }

  @Override
  public RDD<ColumnarBatch> doExecuteColumnar() {
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
    return new TandemRDD(sparkContext(), plan, rows, broadcasts, files, inputTypes,
        types(output), new TandemMetrics(CollectionConverters.asJava(metrics())),
        conf.batchSizeBytes(), conf.batchRows());
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
        ScalaInterop.seq());
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
    return 6;
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
        && partitioning.equals(t.partitioning) && ordering.equals(t.ordering);
  }

  @Override
  public int hashCode() {
    return Objects.hash(plan, output, children, scans, partitioning, ordering);
  }

  private static DataType[] types(Seq<Attribute> attributes) {
    List<Attribute> list = ScalaInterop.list(attributes);
    DataType[] out = new DataType[list.size()];
    for (int i = 0; i < out.length; i++) out[i] = list.get(i).dataType();
    return out;
  }
}
