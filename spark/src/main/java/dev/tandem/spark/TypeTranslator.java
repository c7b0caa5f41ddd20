// Spark data types -> fragment TYPEs and FIELDs (docs/spark_fragment.md, "Types and fields").
// Strings must use Spark's default UTF8_BINARY collation: Tandem compares bytes.
package dev.tandem.spark;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;

final class TypeTranslator {
  private TypeTranslator() {}

  static ObjectNode type(DataType t) throws Unsupported {
    ObjectNode node = Json.object();
    if (t instanceof DecimalType d) {
      node.put("id", "decimal");
      node.put("precision", d.precision());
      node.put("scale", d.scale());
      return node;
    }
    if (t instanceof StringType s && !s.isUTF8BinaryCollation()) {
      throw new Unsupported("strings with collation " + s.collationName()
          + " (Tandem compares UTF-8 bytes, Spark's UTF8_BINARY)");
    }
    node.put("id", typeId(t));
    return node;
  }

  static ObjectNode field(String name, DataType type, boolean nullable) throws Unsupported {
    ObjectNode f = Json.object();
    f.put("name", name);
    f.set("type", type(type));
    f.put("nullable", nullable);
    return f;
  }

  static ArrayNode fields(List<Attribute> attributes) throws Unsupported {
    ArrayNode out = Json.array();
    for (Attribute a : attributes) out.add(field(a.name(), a.dataType(), a.nullable()));
    return out;
  }

  static ArrayNode fields(StructType struct) throws Unsupported {
    ArrayNode out = Json.array();
    for (StructField f : struct.fields()) out.add(field(f.name(), f.dataType(), f.nullable()));
    return out;
  }

  /** The Spark type of a fragment TYPE (the inverse of {@link #type}; UDF signatures). */
  static DataType sparkType(com.fasterxml.jackson.databind.JsonNode type) {
    String id = type.path("id").asText();
    return switch (id) {
      case "bool" -> DataTypes.BooleanType;
      case "int8" -> DataTypes.ByteType;
      case "int16" -> DataTypes.ShortType;
      case "int32" -> DataTypes.IntegerType;
      case "int64" -> DataTypes.LongType;
      case "float32" -> DataTypes.FloatType;
      case "float64" -> DataTypes.DoubleType;
      case "string" -> DataTypes.StringType;
      case "binary" -> DataTypes.BinaryType;
      case "date" -> DataTypes.DateType;
      case "timestamp" -> DataTypes.TimestampType;
      case "timestamp_ntz" -> DataTypes.TimestampNTZType;
      case "decimal" -> DataTypes.createDecimalType(type.path("precision").asInt(),
          type.path("scale").asInt());
      default -> throw new IllegalArgumentException("no Spark type for Tandem type " + type);
    };
  }

  private static String typeId(DataType t) throws Unsupported {
    if (t instanceof BooleanType) return "bool";
    if (t instanceof ByteType) return "int8";
    if (t instanceof ShortType) return "int16";
    if (t instanceof IntegerType) return "int32";
    if (t instanceof LongType) return "int64";
    if (t instanceof FloatType) return "float32";
    if (t instanceof DoubleType) return "float64";
    if (t instanceof StringType) return "string";
    if (t instanceof BinaryType) return "binary";
    if (t instanceof DateType) return "date";
    if (t instanceof TimestampType) return "timestamp";
    if (t instanceof TimestampNTZType) return "timestamp_ntz";
    throw new Unsupported("type " + t.simpleString() + " is not supported");
  }
}
