// Spark expressions -> fragment EXPRs (docs/spark_fragment.md, "Expressions"), over one input
// (a node's child, or left ++ right for a join condition; attributes are found by exprId).
// Only expressions whose Tandem function is Spark's for every input are translated; where the two
// could differ (substring positions below 1, LIKE patterns Spark rejects, case folding beyond
// Latin-1) the expression is unsupported, with the reason. The engine's validation then judges
// the types and eval modes (docs: the engine checks every `type`).
package dev.tandem.spark;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.spark.sql.catalyst.expressions.*;
import org.apache.spark.sql.catalyst.optimizer.NormalizeNaNAndZero;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.StringType;
import scala.Enumeration;
import scala.Tuple2;

final class ExpressionTranslator {

  /** Expressions that are one Tandem call over their children, in order. */
  private static final Map<Class<?>, String> SIMPLE_CALLS = Map.ofEntries(
      Map.entry(EqualTo.class, "eq"), Map.entry(EqualNullSafe.class, "is_not_distinct_from"),
      Map.entry(LessThan.class, "lt"), Map.entry(LessThanOrEqual.class, "le"),
      Map.entry(GreaterThan.class, "gt"), Map.entry(GreaterThanOrEqual.class, "ge"),
      Map.entry(And.class, "and"), Map.entry(Or.class, "or"), Map.entry(Not.class, "not"),
      Map.entry(IsNull.class, "is_null"), Map.entry(IsNotNull.class, "is_not_null"),
      Map.entry(Coalesce.class, "coalesce"), Map.entry(StartsWith.class, "starts_with"),
      Map.entry(EndsWith.class, "ends_with"), Map.entry(Contains.class, "contains"),
      Map.entry(DateAdd.class, "date_add"), Map.entry(DateSub.class, "date_sub"),
      // DateDiff(endDate, startDate) and Tandem's datediff(end, start): the same order.
      Map.entry(DateDiff.class, "datediff"), Map.entry(UnscaledValue.class, "unscaled_value"),
      // Math on doubles as Spark computes it: logarithms of x <= 0 are NULL, sqrt of a negative
      // NaN (the engine's kernels follow Spark; the types are checked there).
      Map.entry(Sqrt.class, "sqrt"), Map.entry(Exp.class, "exp"), Map.entry(Log.class, "ln"),
      Map.entry(Log10.class, "log10"), Map.entry(Log2.class, "log2"),
      Map.entry(Cbrt.class, "cbrt"), Map.entry(Pow.class, "power"),
      Map.entry(Floor.class, "floor"), Map.entry(Ceil.class, "ceil"),
      Map.entry(Greatest.class, "greatest"),
      Map.entry(Least.class, "least"), Map.entry(StringReplace.class, "replace"),
      Map.entry(StringLPad.class, "lpad"), Map.entry(StringRPad.class, "rpad"),
      Map.entry(StringRepeat.class, "repeat"), Map.entry(StringInstr.class, "strpos"));

  private static final int TEXT_LIMIT = 120;

  private final TranslationContext ctx;
  private final Map<ExprId, Integer> columns = new HashMap<>();
  private final int width;
  private final List<ExpressionNote> notes;

  ExpressionTranslator(TranslationContext ctx, List<Attribute> input, List<ExpressionNote> notes) {
    this.ctx = ctx;
    this.width = input.size();
    this.notes = notes;
    for (int i = input.size() - 1; i >= 0; i--) columns.put(input.get(i).exprId(), i);
  }

  /** The EXPR of {@code e}; Unsupported names the expression and says why. */
  ObjectNode translate(Expression e) throws Unsupported {
    try {
      return expr(e);
    } catch (Failure f) {
      throw new Unsupported("expression " + f.text + " (" + f.expressionClass + "): " + f.reason);
    }
  }

  List<ObjectNode> translateAll(List<? extends Expression> exprs) throws Unsupported {
    List<ObjectNode> out = new ArrayList<>();
    for (Expression e : exprs) out.add(translate(e));
    return out;
  }

  /** NamedExpression is a Scala trait, which Java does not see as an Expression. */
  ObjectNode translateNamed(NamedExpression e) throws Unsupported {
    return translate((Expression) e);
  }

  List<ObjectNode> translateNamed(List<? extends NamedExpression> exprs) throws Unsupported {
    List<ObjectNode> out = new ArrayList<>();
    for (NamedExpression e : exprs) out.add(translateNamed(e));
    return out;
  }

  /** Why one (sub)expression cannot be translated; noted once, where it happened. */
  private static final class Failure extends Exception {
    private static final long serialVersionUID = 1L;
    final String expressionClass;
    final String text;
    final String reason;

    Failure(String expressionClass, String text, String reason) {
      super(reason, null, false, false);
      this.expressionClass = expressionClass;
      this.text = text;
      this.reason = reason;
    }
  }

  private ObjectNode expr(Expression e) throws Failure {
    String name = e.getClass().getSimpleName();
    SupportTable table = SupportTable.get();
    if (!table.expressions().contains(name)) {
      String why = table.reason(name);
      throw fail(e, why != null ? why : name + " is not supported");
    }
    if (!ctx.conf.expressionEnabled(name)) {
      throw fail(e, name + " is disabled by " + TandemConf.EXPRESSION_PREFIX + name + "=false");
    }
    ObjectNode out = dispatch(e, name);
    if (!(e instanceof LeafExpression)) notes.add(new ExpressionNote(name, text(e), null));
    return out;
  }

  private ObjectNode dispatch(Expression e, String name) throws Failure {
    if (e instanceof AttributeReference a) return column(e, columnOf(a));
    if (e instanceof BoundReference b) {
      if (b.ordinal() >= width) throw fail(e, "ordinal " + b.ordinal() + " past the input");
      return column(e, b.ordinal());
    }
    if (e instanceof Literal lit) return literal(e, lit.value());
    if (e instanceof Alias || e instanceof KnownFloatingPointNormalized
        || e instanceof KnownNotNull) {
      return expr(e.children().head());
    }
    if (e instanceof NormalizeNaNAndZero n) return normalizeZero(n);
    if (e instanceof Cast c) return cast(c);
    if (e instanceof CheckOverflow c) {
      return cast(e, c.child(), c.nullOnOverflow() ? "legacy" : "ansi");
    }
    if (e instanceof Add a) return arithmetic(e, "add", a.evalMode());
    if (e instanceof Subtract s) return arithmetic(e, "subtract", s.evalMode());
    if (e instanceof Multiply m) return arithmetic(e, "multiply", m.evalMode());
    if (e instanceof Divide d) return arithmetic(e, "divide", d.evalMode());
    if (e instanceof Remainder r) return arithmetic(e, "modulo", r.evalMode());
    if (e instanceof UnaryMinus u) return withMode(call(e, "negate"), u.failOnError());
    if (e instanceof Abs a) return withMode(call(e, "abs"), a.failOnError());
    String fn = SIMPLE_CALLS.get(e.getClass());
    if (fn != null) return call(e, fn);
    if (e instanceof TandemUdfExpression u) {
      ObjectNode node = call(e, u.name());
      node.put("kind", "udf");
      node.remove("fn");
      node.put("name", u.name());
      return node;
    }
    if (e instanceof In in) return in(in);
    if (e instanceof InSet in) return inSet(in);
    if (e instanceof CaseWhen c) return caseWhen(c);
    if (e instanceof If i) {
      return conditional(e, List.of(i.predicate(), i.trueValue(), i.falseValue()), true);
    }
    if (e instanceof Like like) return like(like);
    if (e instanceof Substring s) return substring(s);
    if (e instanceof Length || e instanceof Concat) {
      requireStrings(e);
      return call(e, e instanceof Length ? "length" : "concat");
    }
    if (e instanceof StringTrim || e instanceof StringTrimLeft || e instanceof StringTrimRight) {
      List<Expression> children = ScalaInterop.list(e.children());
      if (children.size() != 1) throw fail(e, "trimming characters other than spaces");
      requireStrings(e);
      return call(e, e instanceof StringTrim ? "trim" : e instanceof StringTrimLeft ? "ltrim"
          : "rtrim");
    }
    if (e instanceof Reverse r) {
      requireStrings(e);
      return call(e, "reverse");
    }
    if (e instanceof Round r) return round(r);
    if (e instanceof DayOfWeek || e instanceof DayOfYear) return dayField(e);
    if (e instanceof Hour || e instanceof Minute || e instanceof Second) return timeField(e);
    if (e instanceof Year || e instanceof Month || e instanceof DayOfMonth
        || e instanceof Quarter) {
      return dateField(e);
    }
    if (e instanceof MakeDecimal m) {
      ObjectNode node = call(e, "make_decimal");
      node.put("precision", m.precision());
      node.put("scale", m.scale());
      node.put("null_on_overflow", m.nullOnOverflow());
      return node;
    }
    throw fail(e, name + " is not supported");
  }

  private int columnOf(AttributeReference a) throws Failure {
    Integer index = columns.get(a.exprId());
    if (index == null) throw fail(a, "attribute " + a + " is not in the node's input");
    return index;
  }

  private ObjectNode column(Expression e, int index) throws Failure {
    ObjectNode node = Json.object();
    node.put("kind", "col");
    node.put("index", index);
    node.set("type", type(e));
    return node;
  }

  private ObjectNode literal(Expression e, Object value) throws Failure {
    try {
      return LiteralTranslator.literal(value, e.dataType());
    } catch (Unsupported u) {
      throw fail(e, u.getMessage());
    }
  }

  private ObjectNode cast(Cast c) throws Failure {
    if (c.needsTimeZone() && c.timeZoneId().isDefined()
        && !c.timeZoneId().get().equals(ctx.timeZone)) {
      throw fail(c, "the cast's time zone " + c.timeZoneId().get() + " is not the session's ("
          + ctx.timeZone + ")");
    }
    return cast(c, c.child(), mode(c.evalMode()));
  }

  private ObjectNode cast(Expression e, Expression arg, String mode) throws Failure {
    ObjectNode node = Json.object();
    node.put("kind", "cast");
    node.set("arg", expr(arg));
    node.set("type", type(e));
    node.put("mode", mode);
    return node;
  }

  private ObjectNode arithmetic(Expression e, String fn, Enumeration.Value evalMode)
      throws Failure {
    ObjectNode node = call(e, fn);
    node.put("mode", mode(evalMode));
    return node;
  }

  /**
   * Spark normalizes float keys of joins and aggregates so that -0.0 and 0.0 (and every NaN) are
   * one key; the key's value is then 0.0. Tandem's hashing and equality already treat them as
   * one; x + 0.0 turns -0.0 into 0.0 so that the value out is Spark's too.
   */
  private ObjectNode normalizeZero(NormalizeNaNAndZero n) throws Failure {
    ObjectNode node = Json.object();
    node.put("kind", "call");
    node.put("fn", "add");
    ArrayNode args = node.putArray("args");
    args.add(expr(n.child()));
    Object zero = n.dataType() instanceof org.apache.spark.sql.types.FloatType ? (Object) 0.0f : 0.0d;
    args.add(literal(n, zero));
    node.set("type", type(n));
    // A float addition cannot overflow: both modes add alike; the query's mode is the one the
    // engine accepts.
    node.put("mode", ctx.ansi ? "ansi" : "legacy");
    return node;
  }

  private static ObjectNode withMode(ObjectNode node, boolean failOnError) {
    node.put("mode", failOnError ? "ansi" : "legacy");
    return node;
  }

  private static String mode(Enumeration.Value evalMode) {
    return evalMode.toString().toLowerCase(java.util.Locale.ROOT);
  }

  private ObjectNode call(Expression e, String fn) throws Failure {
    return call(e, fn, ScalaInterop.list(e.children()));
  }

  private ObjectNode call(Expression e, String fn, List<Expression> args) throws Failure {
    ObjectNode node = Json.object();
    node.put("kind", "call");
    node.put("fn", fn);
    ArrayNode list = node.putArray("args");
    for (Expression a : args) list.add(expr(a));
    node.set("type", type(e));
    return node;
  }

  private ObjectNode in(In in) throws Failure {
    for (Expression v : ScalaInterop.list(in.list())) {
      if (!(v instanceof Literal)) throw fail(in, "IN lists other than constants");
    }
    List<Expression> args = new ArrayList<>();
    args.add(in.value());
    args.addAll(ScalaInterop.list(in.list()));
    return inNode(in, args.toArray(new Expression[0]));
  }

  private ObjectNode inSet(InSet in) throws Failure {
    // The set's internal values, ordered by their literal form so that equal plans give equal
    // fragments (exchange reuse and the fragment dumps compare them).
    TreeMap<String, ObjectNode> values = new TreeMap<>();
    for (Object v : ScalaInterop.list(in.hset().toList())) {
      ObjectNode lit = literal(in.child(), v);
      values.put(lit.toString(), lit);
    }
    ObjectNode node = inNode(in, in.child());
    ArrayNode args = (ArrayNode) node.get("args");
    values.values().forEach(args::add);
    return node;
  }

  private ObjectNode inNode(Expression e, Expression... args) throws Failure {
    ObjectNode node = Json.object();
    node.put("kind", "in");
    ArrayNode list = node.putArray("args");
    for (Expression a : args) list.add(expr(a));
    node.set("type", type(e));
    return node;
  }

  private ObjectNode caseWhen(CaseWhen c) throws Failure {
    List<Expression> args = new ArrayList<>();
    for (Tuple2<Expression, Expression> b : ScalaInterop.list(c.branches())) {
      args.add(b._1());
      args.add(b._2());
    }
    boolean hasElse = c.elseValue().isDefined();
    if (hasElse) args.add(c.elseValue().get());
    return conditional(c, args, hasElse);
  }

  private ObjectNode conditional(Expression e, List<Expression> args, boolean hasElse)
      throws Failure {
    ObjectNode node = Json.object();
    node.put("kind", "case");
    ArrayNode list = node.putArray("args");
    for (Expression a : args) list.add(expr(a));
    node.put("has_else", hasElse);
    node.set("type", type(e));
    return node;
  }

  private ObjectNode like(Like like) throws Failure {
    requireStrings(like);
    if (!(like.right() instanceof Literal p) || p.value() == null) {
      throw fail(like, "LIKE with a pattern that is not a constant (Spark rejects some patterns"
          + " that Tandem would accept)");
    }
    char escape = like.escapeChar();
    if (escape > 127) throw fail(like, "LIKE with a non-ASCII escape character");
    String invalid = sparkLikePatternError(p.value().toString(), escape);
    if (invalid != null) throw fail(like, "LIKE pattern Spark rejects: " + invalid);
    ObjectNode node = call(like, "like");
    ObjectNode escapeLiteral = literal(like.right(),
        org.apache.spark.unsafe.types.UTF8String.fromString(String.valueOf(escape)));
    ((ArrayNode) node.get("args")).add(escapeLiteral);
    return node;
  }

  /** Spark's rule (StringUtils.escapeLikeRegex): the escape may only precede _, % or itself. */
  private static String sparkLikePatternError(String pattern, char escape) {
    for (int i = 0; i < pattern.length(); i++) {
      if (pattern.charAt(i) != escape) continue;
      if (i + 1 == pattern.length()) return "it ends with the escape character";
      char next = pattern.charAt(++i);
      if (next != '_' && next != '%' && next != escape) {
        return "the escape character precedes '" + next + "'";
      }
    }
    return null;
  }

  private ObjectNode substring(Substring s) throws Failure {
    if (!(s.str().dataType() instanceof StringType)) throw fail(s, "substring of binary values");
    // Spark counts a start of 0 as 1 and a negative start from the end, and Tandem differs
    // there; for a constant start >= 1 and length >= 0 both take the same characters.
    if (intConstant(s.pos()) < 1) {
      throw fail(s, "substring with a start that is not a constant >= 1");
    }
    if (intConstant(s.len()) < 0) {
      throw fail(s, "substring with a length that is not a constant >= 0");
    }
    return call(s, "substring");
  }

  /** The value of an integer constant, or Long.MIN_VALUE when {@code e} is not one. */
  private static long intConstant(Expression e) {
    if (e instanceof Literal lit && lit.value() != null && lit.dataType() instanceof IntegerType) {
      return ((Integer) lit.value()).longValue();
    }
    return Long.MIN_VALUE;
  }

  private ObjectNode dateField(Expression e) throws Failure {
    Expression arg = e.children().head();
    if (!(arg.dataType() instanceof DateType)) {
      throw fail(e, e.getClass().getSimpleName() + " of " + arg.dataType().simpleString());
    }
    String field = e instanceof Year ? "year"
        : e instanceof Month ? "month"
        : e instanceof DayOfMonth ? "day"
        : "quarter";
    return call(e, "extract_" + field);
  }

  /**
   * Spark rounds HALF_UP; a double is rounded as its shortest decimal string (0.285 -> 0.29),
   * which Tandem's binary rounding does not follow: doubles stay in Spark.
   */
  private ObjectNode round(Round r) throws Failure {
    if (!(r.child().dataType() instanceof org.apache.spark.sql.types.DecimalType)
        && !(r.child().dataType() instanceof org.apache.spark.sql.types.IntegralType)) {
      throw fail(r, "round of " + r.child().dataType().simpleString()
          + " (Spark rounds the shortest decimal form of a double)");
    }
    if (intConstant(r.scale()) == Long.MIN_VALUE || intConstant(r.scale()) < 0) {
      throw fail(r, "round to a scale that is not a constant >= 0");
    }
    return call(r, "round");
  }

  /** Spark's dayofweek counts 1 (Sunday) to 7; Tandem's 0 to 6. */
  private ObjectNode dayField(Expression e) throws Failure {
    Expression arg = e.children().head();
    if (!(arg.dataType() instanceof DateType)) {
      throw fail(e, e.getClass().getSimpleName() + " of " + arg.dataType().simpleString());
    }
    if (e instanceof DayOfYear) return call(e, "extract_dayofyear");
    ObjectNode field = call(e, "extract_dayofweek");
    ObjectNode node = Json.object();
    node.put("kind", "call");
    node.put("fn", "add");
    node.putArray("args").add(field).add(literal(e, 1));
    node.set("type", type(e));
    node.put("mode", ctx.ansi ? "ansi" : "legacy");
    return node;
  }

  /** Hour, minute and second of a timestamp: its UTC fields, so only in a UTC session. */
  private ObjectNode timeField(Expression e) throws Failure {
    Expression arg = e.children().head();
    if (!(arg.dataType() instanceof org.apache.spark.sql.types.TimestampType)) {
      throw fail(e, e.getClass().getSimpleName() + " of " + arg.dataType().simpleString());
    }
    if (!ctx.utcSession()) {
      throw fail(e, "it depends on the session time zone " + ctx.timeZone + " (UTC only)");
    }
    String field = e instanceof Hour ? "hour" : e instanceof Minute ? "minute" : "second";
    return call(e, "extract_" + field, List.of(arg));
  }

  private void requireStrings(Expression e) throws Failure {
    for (Expression c : ScalaInterop.list(e.children())) {
      if (!(c.dataType() instanceof StringType)) {
        throw fail(e, e.getClass().getSimpleName() + " of " + c.dataType().simpleString());
      }
    }
  }

  private ObjectNode type(Expression e) throws Failure {
    try {
      return TypeTranslator.type(e.dataType());
    } catch (Unsupported u) {
      throw fail(e, u.getMessage());
    }
  }

  private Failure fail(Expression e, String reason) {
    String name = e.getClass().getSimpleName();
    notes.add(new ExpressionNote(name, text(e), reason));
    return new Failure(name, text(e), reason);
  }

  static String text(Expression e) {
    String s = e.toString();
    return s.length() <= TEXT_LIMIT ? s : s.substring(0, TEXT_LIMIT) + "...";
  }
}
