// FileSourceScanExec over Parquet -> a scan_parquet node: the data columns Spark reads
// (requiredSchema, by their Parquet names), the partition columns (relation.partitionSchema) and
// the pushed data filters that have a Tandem form (row-group pruning only: Spark's FilterExec
// above still applies them exactly). The files themselves are listed at execution time
// (TandemExec asks the scan's FileScanRDD), so only what planning can check is checked here.
package dev.tandem.spark;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.PlanExpression;
import org.apache.spark.sql.execution.FileSourceScanExec;
import org.apache.spark.sql.execution.datasources.HadoopFsRelation;
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

final class ScanTranslator {
  private ScanTranslator() {}

  static Translation translate(FileSourceScanExec scan, TranslationContext ctx)
      throws Unsupported {
    HadoopFsRelation relation = scan.relation();
    if (relation.fileFormat().getClass() != ParquetFileFormat.class) {
      throw new Unsupported("it reads " + relation.fileFormat() + " files; Tandem reads Parquet");
    }
    if (scan.bucketedScan()) throw new Unsupported("bucketed scans are not supported");
    if (scan.stream().isDefined()) throw new Unsupported("streaming scans are not supported");
    for (Expression f : concat(scan.partitionFilters(), scan.dataFilters())) {
      if (f.exists(e -> e instanceof PlanExpression)) {
        throw new Unsupported("its filter " + ExpressionTranslator.text(f) + " holds a subquery"
            + " (dynamic partition pruning or a scalar subquery)");
      }
    }
    for (Path root : ScalaInterop.list(relation.location().rootPaths())) {
      String scheme = root.toUri().getScheme();
      if (!"file".equals(scheme)) {
        throw new Unsupported("it reads " + root + "; Tandem reads local files (file:) only");
      }
    }
    List<Attribute> output = ScalaInterop.list(scan.output());
    StructType data = scan.requiredSchema();
    StructType partitions = relation.partitionSchema();
    checkLayout(output, data, partitions);

    ObjectNode node = ctx.node("scan_parquet", output);
    node.set("columns", TypeTranslator.fields(data));
    node.set("partition_columns", TypeTranslator.fields(partitions));
    ArrayNode filters = node.putArray("filters");
    ExpressionTranslator expressions = ctx.expressions(output, new ArrayList<>());
    for (Expression f : ScalaInterop.list(scan.dataFilters())) {
      try {
        filters.add(expressions.translate(f));
      } catch (Unsupported u) {
        // Not pushed: the filter only prunes row groups, Spark's FilterExec applies it exactly.
      }
    }
    Translation t = new Translation(List.of(node), Translation.ShapeRule.SCAN, true, 0);
    t.scan = scan;
    return t;
  }

  /** The scan's output must be its data columns followed by every partition column. */
  private static void checkLayout(List<Attribute> output, StructType data, StructType partitions)
      throws Unsupported {
    List<StructField> expected = new ArrayList<>(List.of(data.fields()));
    expected.addAll(List.of(partitions.fields()));
    boolean same = output.size() == expected.size();
    for (int i = 0; same && i < output.size(); i++) {
      same = output.get(i).name().toLowerCase(Locale.ROOT)
          .equals(expected.get(i).name().toLowerCase(Locale.ROOT));
    }
    if (!same) {
      throw new Unsupported("its output " + output + " is not its data columns followed by its"
          + " partition columns (file metadata columns?)");
    }
  }

  private static List<Expression> concat(scala.collection.Seq<Expression> a,
      scala.collection.Seq<Expression> b) {
    List<Expression> out = new ArrayList<>(ScalaInterop.list(a));
    out.addAll(ScalaInterop.list(b));
    return out;
  }
}
