// A call of a Tandem C++ UDF (spark.tandem.udf.libraries) in Spark's plans. Inside a Tandem
// fragment it is a "udf" EXPR that the engine runs over whole batches; where its operator stays in
// Spark, eval() hands one row at a time to the engine (packed as the plugin packs rows) and reads
// the one-field row it gets back. Children already have the function's argument types (TandemUdfs
// casts them when it builds the call).
package dev.tandem.spark;

import java.util.List;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.catalyst.expressions.codegen.CodegenContext;
import org.apache.spark.sql.catalyst.expressions.codegen.CodegenFallback;
import org.apache.spark.sql.catalyst.expressions.codegen.ExprCode;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.unsafe.Platform;
import scala.collection.immutable.IndexedSeq;
import scala.collection.immutable.Seq;

public final class TandemUdfExpression extends Expression
    implements CodegenFallback, java.io.Serializable {
  private static final long serialVersionUID = 1L;

  private final String name;
  private final Seq<Expression> children;
  private final DataType dataType;
  private final boolean isDeterministic;
  private transient UnsafeProjection packer;

  public TandemUdfExpression(String name, Seq<Expression> children, DataType dataType,
      boolean isDeterministic) {
    this.name = name;
    this.children = children;
    this.dataType = dataType;
    this.isDeterministic = isDeterministic;
  }

  public String name() {
    return name;
  }

  @Override
  public Seq<Expression> children() {
    return children;
  }

  @Override
  public DataType dataType() {
    return dataType;
  }

  @Override
  public boolean nullable() {
    return true;
  }

  @Override
  public boolean deterministic() {
    return isDeterministic && super.deterministic();
  }

  @Override
  public String prettyName() {
    return name;
  }

  /** In plans and explain: name(arguments), as Spark shows its own functions. */
  @Override
  @SuppressWarnings({"unchecked", "rawtypes"})
  public scala.collection.Iterator<Object> flatArguments() {
    return (scala.collection.Iterator) children.iterator();
  }

  @Override
  public Object eval(InternalRow input) {
    List<Expression> args = ScalaInterop.list(children);
    Object[] values = new Object[args.size()];
    for (int i = 0; i < values.length; i++) values[i] = args.get(i).eval(input);
    UnsafeRow row = packer().apply(new GenericInternalRow(values));
    int size = row.getSizeInBytes();
    byte[] packed = new byte[8 + size];
    Platform.putInt(packed, Platform.BYTE_ARRAY_OFFSET, size);
    row.writeToMemory(packed, Platform.BYTE_ARRAY_OFFSET + 8);
    NativeLoader.load();
    byte[] result = TandemNative.evalUdf(name, packed);
    UnsafeRow out = new UnsafeRow(1);
    out.pointTo(result, Platform.BYTE_ARRAY_OFFSET + 8, result.length - 8);
    return out.isNullAt(0) ? null : out.get(0, dataType);
  }

  private UnsafeProjection packer() {
    if (packer == null) {
      List<Expression> args = ScalaInterop.list(children);
      DataType[] types = new DataType[args.size()];
      for (int i = 0; i < types.length; i++) types[i] = args.get(i).dataType();
      packer = UnsafeProjection.create(types);
    }
    return packer;
  }

  @Override
  public ExprCode doGenCode(CodegenContext ctx, ExprCode ev) {
    return CodegenFallback.super.doGenCode(ctx, ev);
  }

  @Override
  public Expression withNewChildrenInternal(IndexedSeq<Expression> newChildren) {
    return new TandemUdfExpression(name, newChildren, dataType, isDeterministic);
  }

  @Override
  public int productArity() {
    return 4;
  }

  @Override
  public Object productElement(int n) {
    return switch (n) {
      case 0 -> name;
      case 1 -> children;
      case 2 -> dataType;
      case 3 -> isDeterministic;
      default -> throw new IndexOutOfBoundsException(String.valueOf(n));
    };
  }

  @Override
  public boolean canEqual(Object other) {
    return other instanceof TandemUdfExpression;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof TandemUdfExpression u && u.name.equals(name)
        && u.children.equals(children) && u.dataType.equals(dataType)
        && u.isDeterministic == isDeterministic;
  }

  @Override
  public int hashCode() {
    return java.util.Objects.hash(name, children, dataType, isDeterministic);
  }
}
