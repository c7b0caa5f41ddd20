// Registers the functions of spark.tandem.udf.libraries in every Spark session (through the
// session extension's injectFunction): the engine loads the libraries in the driver's JVM and
// lists their signatures, and each function becomes a builder of TandemUdfExpression that casts
// its arguments to the declared types where Spark's up-casts allow (an int to a bigint or a double,
// NULL to anything) and otherwise fails with the signature, as Tandem's own binder does.
package dev.tandem.spark;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.SparkConf;
import org.apache.spark.SparkContext;
import org.apache.spark.SparkContext$;
import org.apache.spark.sql.SparkSessionExtensions;
import org.apache.spark.sql.catalyst.FunctionIdentifier;
import org.apache.spark.sql.catalyst.expressions.Cast;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.ExpressionInfo;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.NullType;
import scala.Option;
import scala.Tuple3;

final class TandemUdfs {
  private TandemUdfs() {}

  /** The UDFs of the application's libraries, injected into {@code extensions}. */
  static void inject(SparkSessionExtensions extensions) {
    Option<SparkContext> active = SparkContext$.MODULE$.getActive();
    if (active.isEmpty())
      return;
    SparkConf conf = active.get().getConf();
    List<String> libraries = TandemConf.of(SparkSettings.asMap(conf)).udfLibraries();
    if (libraries.isEmpty())
      return;
    NativeLoader.load();
    JsonNode signatures;
    try {
      signatures = new ObjectMapper().readTree(TandemNative.udfSignatures(libraries));
    } catch (java.io.IOException e) {
      throw new IllegalStateException("Tandem UDF signatures: " + e.getMessage(), e);
    }
    for (JsonNode sig : signatures) {
      String name = sig.path("name").asText();
      List<DataType> args = new ArrayList<>();
      sig.path("args").forEach(t -> args.add(TypeTranslator.sparkType(t)));
      DataType result = TypeTranslator.sparkType(sig.path("result"));
      boolean deterministic = sig.path("deterministic").asBoolean(true);
      ExpressionInfo info = new ExpressionInfo(TandemUdfExpression.class.getName(), name);
      extensions.injectFunction(new Tuple3<>(FunctionIdentifier.apply(name), info,
          children -> call(name, args, result, deterministic, ScalaInterop.list(children))));
    }
  }

  private static Expression call(String name, List<DataType> types, DataType result,
      boolean deterministic, List<Expression> children) {
    String signature = name
        + types.stream()
              .map(DataType::simpleString)
              .collect(java.util.stream.Collectors.joining(", ", "(", ")"));
    if (children.size() != types.size()) {
      throw new IllegalArgumentException("function " + signature + " takes " + types.size()
          + " arguments, got " + children.size());
    }
    List<Expression> args = new ArrayList<>();
    for (int i = 0; i < children.size(); i++) {
      Expression child = children.get(i);
      DataType want = types.get(i);
      if (!child.resolved() || child.dataType().equals(want)) {
        args.add(child);
      } else if (child.dataType() instanceof NullType || Cast.canUpCast(child.dataType(), want)) {
        args.add(SparkShim.cast(child, want));
      } else {
        throw new IllegalArgumentException("function " + signature + " expects "
            + want.simpleString() + " for argument " + (i + 1) + ", got "
            + child.dataType().simpleString() + " (add a CAST)");
      }
    }
    return new TandemUdfExpression(name, ScalaInterop.seq(args), result, deterministic);
  }
}
