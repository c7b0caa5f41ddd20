// Spark's internal values (a Literal's value, a file's partition values) -> fragment literal
// values: null, booleans, integers, float64 numbers or "NaN"/"Infinity"/"-Infinity", strings,
// decimals as their unscaled integer in a string, dates as days, timestamps as microseconds.
package dev.tandem.spark;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.math.RoundingMode;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;

final class LiteralTranslator {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private LiteralTranslator() {}

  static ObjectNode literal(Literal lit) throws Unsupported {
    return literal(lit.value(), lit.dataType());
  }

  static ObjectNode literal(Object value, DataType type) throws Unsupported {
    ObjectNode node = Json.object();
    node.put("kind", "lit");
    node.set("type", TypeTranslator.type(type));
    node.set("value", value(value, type));
    return node;
  }

  /** The fragment form of one internal value of {@code type}. */
  static JsonNode value(Object v, DataType type) throws Unsupported {
    if (v == null) return NODES.nullNode();
    if (type instanceof BooleanType) return NODES.booleanNode((Boolean) v);
    if (type instanceof ByteType || type instanceof ShortType || type instanceof IntegerType
        || type instanceof LongType || type instanceof DateType || type instanceof TimestampType
        || type instanceof TimestampNTZType) {
      return NODES.numberNode(((Number) v).longValue());
    }
    // A float32 goes as the float64 of the same value: printing that double is exact, so the
    // engine's parse and narrowing give back this very float.
    if (type instanceof FloatType) return floating(((Float) v).doubleValue());
    if (type instanceof DoubleType) return floating((Double) v);
    if (type instanceof StringType) return NODES.textNode(v.toString());
    if (type instanceof DecimalType d) return NODES.textNode(unscaled((Decimal) v, d));
    if (type instanceof BinaryType) {
      throw new Unsupported("binary literals (the fragment format has no binary values)");
    }
    throw new Unsupported("literals of type " + type.simpleString() + " are not supported");
  }

  private static JsonNode floating(double d) {
    if (Double.isNaN(d)) return NODES.textNode("NaN");
    if (Double.isInfinite(d)) return NODES.textNode(d > 0 ? "Infinity" : "-Infinity");
    return NODES.numberNode(d);
  }

  private static String unscaled(Decimal value, DecimalType type) throws Unsupported {
    try {
      BigDecimal exact = value.toJavaBigDecimal().setScale(type.scale(), RoundingMode.UNNECESSARY);
      return exact.unscaledValue().toString();
    } catch (ArithmeticException e) {
      throw new Unsupported("decimal literal " + value + " does not have the scale of "
          + type.simpleString());
    }
  }
}
