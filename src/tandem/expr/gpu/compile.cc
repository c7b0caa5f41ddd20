// Compiles a bound expression into the GPU interpreter's postfix program (program.h). Every rule
// mirrors the CPU evaluator (expr/cpu): the operand conversions it makes (decimal alignment in
// comparisons, branch results cast to the CASE type, IN items cast to the probe's type), lazy
// CASE branches, and the NULL-argument short cut of null-propagating functions. What the
// interpreter does not implement is refused here with a reason, which makes this compiler the
// GPU support check as well.
#include <algorithm>
#include <chrono>
#include <cstring>

#include "tandem/common/text.h"
#include "tandem/expr/cpu/kernels.h"
#include "tandem/expr/gpu/program.h"
#include "tandem/types/decimal.h"
#include "tandem/udf/function.h"

namespace tandem::gpu::internal {
namespace {

bool IsNumberLike(const DataType& t) {
  return t.is_integer() || t.is_floating() || t.is_decimal() || t.id == TypeId::kBool;
}

VClass ClassOf(const DataType& t) {
  if (t.is_decimal()) return VClass::kDec;
  if (t.is_floating()) return VClass::kFlt;
  if (t.is_string_like()) return VClass::kStr;
  return VClass::kInt;
}

CmpClass CmpClassOf(const DataType& t) {
  if (t.id == TypeId::kUInt64) return kCmpUnsigned;
  switch (ClassOf(t)) {
    case VClass::kDec:
      return kCmpDec;
    case VClass::kFlt:
      return kCmpFloat;
    case VClass::kStr:
      return kCmpStr;
    default:
      return kCmpSigned;
  }
}

int FieldOf(const std::string& f) {
  static const std::pair<const char*, DateField> kFields[] = {{"year", kYear},
                                                              {"quarter", kQuarter},
                                                              {"month", kMonth},
                                                              {"week", kWeek},
                                                              {"day", kDay},
                                                              {"dayofweek", kDayOfWeek},
                                                              {"dow", kDayOfWeek},
                                                              {"isodow", kIsoDow},
                                                              {"dayofyear", kDayOfYear},
                                                              {"doy", kDayOfYear},
                                                              {"hour", kHour},
                                                              {"minute", kMinute},
                                                              {"second", kSecond},
                                                              {"millisecond", kMillisecond},
                                                              {"microsecond", kMicrosecond},
                                                              {"epoch", kEpoch}};
  for (const auto& [name, field] : kFields) {
    if (f == name) return field;
  }
  return -1;
}

int UnitOf(const std::string& u) {
  static const char* const kUnits[] = {"year", "quarter", "month",  "week",        "day",
                                       "hour", "minute",  "second", "millisecond", "microsecond"};
  for (int k = 0; k < 10; ++k) {
    if (u == kUnits[k]) return k;
  }
  return -1;
}

// The CPU filter's "cheap conjunct" (evaluated first); see expr/cpu/evaluate.cc.
bool IsCheapConjunct(const Expr& e) {
  if (e.kind != ExprKind::kCall) return false;
  static const char* const kCheap[] = {"eq", "ne", "lt",      "le",
                                       "gt", "ge", "is_null", "is_not_null"};
  bool cheap_name = false;
  for (const char* name : kCheap) cheap_name |= e.name == name;
  if (!cheap_name) return false;
  for (const auto& a : e.args) {
    if (a->kind != ExprKind::kColumnRef && a->kind != ExprKind::kLiteral) return false;
    if (a->type.is_string_like()) return false;
  }
  return true;
}

void CollectConjuncts(const Expr& e, std::vector<const Expr*>* out) {
  if (e.kind == ExprKind::kCall && e.name == "and" && e.args.size() == 2) {
    CollectConjuncts(*e.args[0], out);
    CollectConjuncts(*e.args[1], out);
    return;
  }
  out->push_back(&e);
}

// Returns the reason from a step that failed.
#define TRY(x)                      \
  do {                              \
    std::string _why = (x);         \
    if (!_why.empty()) return _why; \
  } while (0)

bool OutputTypeSupported(const DataType& t) { return t.id <= TypeId::kBinary; }

class Compiler {
 public:
  explicit Compiler(Program* p) : p_(p) {}

  // Emits code that leaves e's value (of type e.type) on the stack.
  std::string Emit(const Expr& e, bool root = false) {
    switch (e.kind) {
      case ExprKind::kColumnRef:
        if (e.outer_depth != 0) return "outer column reference";
        if (e.column_index < 0) return "column reference without an index";
        p_->columns.push_back(e.column_index);
        Push({Op::kColumn, static_cast<int32_t>(e.type.id), 0, 0, e.column_index});
        return "";
      case ExprKind::kLiteral: {
        Value v = e.literal;
        if (v.is_null) v.type = e.type;
        if (!v.is_null && v.type != e.type) return "literal of type " + v.type.ToString();
        PushConst(v);
        return "";
      }
      case ExprKind::kCast: {
        if (e.args.size() != 1) return "cast without one argument";
        TRY(Emit(*e.args[0]));
        return Cast(e.args[0]->type, e.type, e.try_cast);
      }
      case ExprKind::kCase:
        return Case(e);
      case ExprKind::kInList:
        return InList(e);
      case ExprKind::kCall:
        return Call(e, root);
      case ExprKind::kSubquery:
        return "subquery";
    }
    return "unknown expression kind";
  }

  std::string Selection(const Expr& predicate) {
    std::vector<const Expr*> conjuncts;
    CollectConjuncts(predicate, &conjuncts);
    std::stable_partition(conjuncts.begin(), conjuncts.end(),
                          [](const Expr* c) { return IsCheapConjunct(*c); });
    // The CPU runs each conjunct only on the rows the earlier ones kept; a UDF in one of several
    // conjuncts would see (and may fail on) other rows here.
    if (conjuncts.size() > 1) {
      for (const Expr* c : conjuncts) {
        const Expr* call = FindUdfCall(*c);
        if (call && call->udf->has_gpu()) {  // a CPU-only one is refused for that, below
          return "UDF " + call->name +
                 " in a filter of several conditions (the CPU calls it only on the rows the "
                 "others keep)";
        }
      }
    }
    std::vector<size_t> to_false;
    for (const Expr* c : conjuncts) {
      if (c->type.id != TypeId::kBool) return "filter predicate is not boolean";
      TRY(Emit(*c));
      to_false.push_back(p_->code.size());
      Emit1({Op::kJumpIfNotTrue}, 1, 0);
    }
    PushConst(Value::Bool(true));
    const size_t to_end = p_->code.size();
    Emit1({Op::kJump}, 0, 0);
    depth_ = 0;
    for (size_t at : to_false) p_->code[at].imm = static_cast<int64_t>(p_->code.size());
    PushConst(Value::Bool(false));
    p_->code[to_end].imm = static_cast<int64_t>(p_->code.size());
    return "";
  }

  bool too_deep() const { return max_depth_ > kMaxStack; }
  int max_depth() const { return max_depth_; }

 private:
  void Emit1(Instr in, int pops, int pushes) {
    p_->code.push_back(in);
    depth_ += pushes - pops;
    max_depth_ = std::max(max_depth_, depth_);
  }
  void Push(Instr in) { Emit1(in, 0, 1); }

  void PushConst(const Value& v) {
    ConstVal c;
    c.is_null = v.is_null ? 1 : 0;
    if (!v.is_null) {
      if (v.type.is_decimal()) {
        c.dec = v.DecimalUnscaled();
      } else if (v.type.is_floating()) {
        c.f = v.f64;
      } else if (v.type.is_string_like()) {
        c.str_offset = AddBytes(v.str.data(), v.str.size());
        c.str_length = static_cast<int64_t>(v.str.size());
      } else {
        c.i = v.i64;
      }
    }
    p_->consts.push_back(c);
    Push({Op::kConst, 0, static_cast<int32_t>(ClassOf(v.type)), 0,
          static_cast<int64_t>(p_->consts.size() - 1)});
  }

  int64_t AddBytes(const void* data, size_t n) {
    const int64_t at = static_cast<int64_t>(p_->pool.size());
    p_->pool.resize(p_->pool.size() + ((n + 7) / 8) * 8 + (n == 0 ? 8 : 0), 0);
    if (n > 0) std::memcpy(p_->pool.data() + at, data, n);
    return at;
  }

  // Converts the value on top of the stack from `from` to `to` (CPU CastColumn rules).
  std::string Cast(const DataType& from, const DataType& to, bool try_cast) {
    if (from == to) return "";
    if ((from.is_string_like() && to.is_string_like()) ||
        (from.id == TypeId::kTimestamp && to.id == TypeId::kTimestamp)) {
      return "";  // same bytes, another type
    }
    if (IsNumberLike(from) && IsNumberLike(to)) {
      if (from.is_floating() && to.is_decimal()) return "cast " + from.ToString() + " to decimal";
      const int64_t scales = int64_t{from.is_decimal() ? from.scale : 0} |
                             (int64_t{to.precision} << 8) | (int64_t{to.scale} << 16);
      Emit1({Op::kCastNum, static_cast<int32_t>(from.id), static_cast<int32_t>(to.id),
             try_cast ? 1 : 0, scales},
            1, 1);
      return "";
    }
    if (from.id == TypeId::kDate32 && to.id == TypeId::kTimestamp) {
      Emit1({Op::kCastDateToTs}, 1, 1);
      return "";
    }
    if (from.id == TypeId::kTimestamp && to.id == TypeId::kDate32) {
      Emit1({Op::kCastTsToDate}, 1, 1);
      return "";
    }
    return "cast " + from.ToString() + " to " + to.ToString();
  }

  // Emits the arguments of e, each converted to `to` (CPU Conform).
  std::string ArgsAs(const Expr& e, size_t from, const DataType& to) {
    for (size_t k = from; k < e.args.size(); ++k) {
      const Expr& a = *e.args[k];
      if (a.kind == ExprKind::kLiteral && a.literal.is_null) {
        PushConst(Value::Null(to));
        continue;
      }
      TRY(Emit(a));
      TRY(Cast(a.type, to, false));
    }
    return "";
  }

  // A UDF call with a GPU implementation runs before the interpreter, over its arguments
  // evaluated as whole columns (evaluate.cu); the program reads its result like a column. A
  // CPU-only UDF is a CPU island. Inside CASE the CPU calls a UDF only on the rows that reach
  // it, and a UDF that fails on other rows must not fail the query: such calls stay on the CPU.
  std::string UdfCall(const Expr& e) {
    if (!e.udf->has_gpu()) return "UDF " + e.name + " has no GPU implementation";
    if (in_case_ > 0) {
      return "UDF " + e.name + " inside CASE (the CPU calls it only on the rows that reach it)";
    }
    if (!OutputTypeSupported(e.type)) return "UDF " + e.name + " returns " + e.type.ToString();
    for (const auto& a : e.args) {
      Program argument;
      TRY(Compile(*a, /*selection=*/false, &argument));
    }
    p_->udf_placeholders = true;
    Push({Op::kColumn, static_cast<int32_t>(e.type.id), 0, 0, -1});
    return "";
  }

  std::string Case(const Expr& e) {
    ++in_case_;
    std::string why = CaseBody(e);
    --in_case_;
    return why;
  }

  std::string CaseBody(const Expr& e) {
    const size_t pairs = (e.args.size() - (e.has_else ? 1 : 0)) / 2;
    std::vector<size_t> to_end;
    const int base = depth_;
    for (size_t k = 0; k < pairs; ++k) {
      const Expr& when = *e.args[2 * k];
      if (when.type.id != TypeId::kBool && !(when.kind == ExprKind::kLiteral)) {
        return "CASE condition is not boolean";
      }
      TRY(Emit(when));
      const size_t jnt = p_->code.size();
      Emit1({Op::kJumpIfNotTrue}, 1, 0);
      TRY(ArgsAsOne(*e.args[2 * k + 1], e.type));
      to_end.push_back(p_->code.size());
      Emit1({Op::kJump}, 0, 0);
      depth_ = base;
      p_->code[jnt].imm = static_cast<int64_t>(p_->code.size());
    }
    if (e.has_else) {
      TRY(ArgsAsOne(*e.args.back(), e.type));
    } else {
      PushConst(Value::Null(e.type));
    }
    for (size_t at : to_end) p_->code[at].imm = static_cast<int64_t>(p_->code.size());
    return "";
  }

  std::string ArgsAsOne(const Expr& a, const DataType& to) {
    if (a.kind == ExprKind::kLiteral && a.literal.is_null) {
      PushConst(Value::Null(to));
      return "";
    }
    TRY(Emit(a));
    return Cast(a.type, to, false);
  }

  std::string InList(const Expr& e) {
    if (e.args.empty()) return "IN list without a probe";
    const DataType t = e.args[0]->type;
    TRY(Emit(*e.args[0]));
    TRY(ArgsAs(e, 1, t));
    const int n = static_cast<int>(e.args.size()) - 1;
    Emit1({Op::kInList, n, CmpClassOf(t), e.negated ? 1 : 0}, n + 1, 1);
    return "";
  }

  // Brings two comparison operands to one type (CPU Align), emitting both.
  std::string ComparePair(const Expr& e, DataType* type) {
    const Expr& x = *e.args[0];
    const Expr& y = *e.args[1];
    DataType t = x.type;
    if (x.type != y.type) {
      if (x.type.is_decimal() && y.type.is_decimal()) {
        const int s = std::max(x.type.scale, y.type.scale);
        const int r = std::max(x.type.precision - x.type.scale, y.type.precision - y.type.scale);
        if (r + s > 38) return "comparison of " + x.type.ToString() + " and " + y.type.ToString();
        t = DataType::Decimal(r + s, s);
      } else if (x.type.id == TypeId::kTimestamp || y.type.id == TypeId::kTimestamp) {
        t = x.type.id == TypeId::kTimestamp ? x.type : y.type;
      } else if (x.kind == ExprKind::kLiteral && x.literal.is_null) {
        t = y.type;
      } else if (!(y.kind == ExprKind::kLiteral && y.literal.is_null)) {
        return "comparison of " + x.type.ToString() + " and " + y.type.ToString();
      }
    }
    TRY(ArgsAsOne(x, t));
    TRY(ArgsAsOne(y, t));
    *type = t;
    return "";
  }

  std::string EmitArgs(const Expr& e) {
    for (const auto& a : e.args) TRY(Emit(*a));
    return "";
  }

  bool IsNullLiteral(const Expr& a) const {
    return a.kind == ExprKind::kLiteral && a.literal.is_null;
  }

  std::string StringLiteralArg(const Expr& e, size_t k, std::string* out) {
    const Expr& a = *e.args[k];
    if (a.kind != ExprKind::kLiteral || !a.type.is_string_like()) {
      return e.name + " with a non-constant " + (k == 0 ? "first" : "later") + " argument";
    }
    *out = a.literal.str;
    return "";
  }

  std::string Like(const Expr& e) {
    const bool fold = e.name == "ilike";
    std::string pattern, escape;
    TRY(StringLiteralArg(e, 1, &pattern));
    if (e.args.size() > 2) TRY(StringLiteralArg(e, 2, &escape));
    if (escape.size() > 1) return "LIKE escape of more than one character";
    if (fold) {  // as the CPU kernel: lower() of the pattern; the text folds byte by byte
      cpu::internal::FoldCase(&pattern, /*upper=*/false);
      cpu::internal::FoldCase(&escape, /*upper=*/false);
    }
    std::vector<uint16_t> tokens;
    for (size_t i = 0; i < pattern.size(); ++i) {
      char c = pattern[i];
      if (escape.size() == 1 && c == escape[0]) {
        if (i + 1 >= pattern.size()) return "LIKE pattern ending with its escape character";
        c = pattern[++i];
      } else if (c == '%') {
        if (tokens.empty() || tokens.back() != kLikeStar) tokens.push_back(kLikeStar);
        continue;
      } else if (c == '_') {
        tokens.push_back(kLikeAny);
        continue;
      }
      tokens.push_back(static_cast<uint8_t>(c));
    }
    TRY(Emit(*e.args[0]));
    const int64_t at = AddBytes(tokens.data(), tokens.size() * sizeof(uint16_t));
    Emit1({Op::kLike, fold ? 1 : 0, 0, 0, at, static_cast<int64_t>(tokens.size())}, 1, 1);
    return "";
  }

  std::string Arith(const Expr& e) {
    if (e.args.size() != 2) return e.name + " without two arguments";
    static const std::pair<const char*, ArithOp> kOps[] = {
        {"add", kAdd}, {"subtract", kSub}, {"multiply", kMul}, {"divide", kDiv}, {"modulo", kMod}};
    ArithOp op = kAdd;
    for (const auto& [n, o] : kOps) {
      if (e.name == n) op = o;
    }
    const DataType& x = e.args[0]->type;
    const DataType& y = e.args[1]->type;
    const DataType& t = e.type;
    if (x.id == TypeId::kDate32 || y.id == TypeId::kDate32) {
      if (op != kAdd && op != kSub) return e.name + " on dates";
      const bool days = t.id == TypeId::kInt64;
      if (days && (x.id != TypeId::kDate32 || y.id != TypeId::kDate32)) return "date arithmetic";
      if (!days && t.id != TypeId::kDate32) return "date arithmetic";
      for (const auto& a : e.args) {
        TRY(Emit(*a));
        TRY(Cast(a->type, a->type.id == TypeId::kDate32 ? a->type : DataType::Int32(), false));
      }
      Emit1({Op::kDateArith, op, days ? 1 : 0}, 2, 1);
      return "";
    }
    TRY(EmitArgs(e));
    if (t.is_decimal()) {
      if (!x.is_decimal() || !y.is_decimal()) return "decimal arithmetic on non-decimal operands";
      const int64_t scales = int64_t{x.scale} | (int64_t{y.scale} << 8) | (int64_t{t.scale} << 16);
      Emit1({Op::kArithDec, op, 0, t.precision, scales}, 2, 1);
      return "";
    }
    if (x != t || y != t) return "arithmetic operand types differ from the result type";
    if (t.is_floating()) {
      Emit1({Op::kArithFloat, op, t.id == TypeId::kFloat32 ? 1 : 0}, 2, 1);
    } else if (t.is_integer()) {
      Emit1({Op::kArithInt, op, static_cast<int32_t>(t.id)}, 2, 1);
    } else {
      return "arithmetic on " + t.ToString();
    }
    return "";
  }

  std::string Call(const Expr& e, bool root) {
    if (e.udf) return UdfCall(e);
    const std::string& n = e.name;
    const size_t nargs = e.args.size();
    // Null-propagating functions with a NULL literal argument: the arguments still run (their
    // errors count), the result is NULL (the CPU's dispatcher does the same). The list is the
    // CPU's kernels registered as not null-propagating (expr/cpu/kernels_*.cc); the Spark ones
    // take a NULL literal only to carry a type, and have no GPU form.
    static const char* const kNonPropagating[] = {"and",
                                                  "or",
                                                  "is_null",
                                                  "is_not_null",
                                                  "is_distinct_from",
                                                  "is_not_distinct_from",
                                                  "coalesce",
                                                  "nullif",
                                                  "greatest",
                                                  "least",
                                                  "spark_decimal_average",
                                                  "make_decimal"};
    bool propagating = true;
    for (const char* np : kNonPropagating) propagating &= n != np;
    if (propagating) {
      for (const auto& a : e.args) {
        if (IsNullLiteral(*a)) {
          TRY(EmitArgs(e));
          Emit1({Op::kDrop, static_cast<int32_t>(nargs)}, static_cast<int>(nargs), 0);
          PushConst(Value::Null(e.type));
          return "";
        }
      }
    }
    if (n == "add" || n == "subtract" || n == "multiply" || n == "divide" || n == "modulo") {
      return Arith(e);
    }
    if (n == "negate" || n == "abs") {
      if (nargs != 1 || e.args[0]->type != e.type) return n + " operand type";
      if (!IsNumberLike(e.type) || e.type.id == TypeId::kBool)
        return n + " on " + e.type.ToString();
      TRY(Emit(*e.args[0]));
      Emit1({n == "negate" ? Op::kNegate : Op::kAbs, 0, static_cast<int32_t>(e.type.id)}, 1, 1);
      return "";
    }
    if (n == "sign") {
      TRY(Emit(*e.args[0]));
      Emit1({Op::kSign, 0, static_cast<int32_t>(e.args[0]->type.id)}, 1, 1);
      return "";
    }
    if (n == "eq" || n == "ne" || n == "lt" || n == "le" || n == "gt" || n == "ge") {
      static const char* const kNames[] = {"eq", "ne", "lt", "le", "gt", "ge"};
      int op = 0;
      for (int k = 0; k < 6; ++k) {
        if (n == kNames[k]) op = k;
      }
      DataType t;
      TRY(ComparePair(e, &t));
      Emit1({Op::kCompare, op, CmpClassOf(t)}, 2, 1);
      return "";
    }
    if (n == "is_distinct_from" || n == "is_not_distinct_from") {
      DataType t;
      TRY(ComparePair(e, &t));
      Emit1({Op::kDistinct, n == "is_distinct_from" ? 1 : 0, CmpClassOf(t)}, 2, 1);
      return "";
    }
    if (n == "and" || n == "or") {
      TRY(EmitArgs(e));
      Emit1({n == "and" ? Op::kAnd : Op::kOr}, 2, 1);
      return "";
    }
    if (n == "not" || n == "is_null" || n == "is_not_null") {
      TRY(EmitArgs(e));
      Emit1({n == "not" ? Op::kNot : (n == "is_null" ? Op::kIsNull : Op::kIsNotNull)}, 1, 1);
      return "";
    }
    if (n == "coalesce" || n == "greatest" || n == "least") {
      if (nargs == 0) return n + " without arguments";
      TRY(ArgsAs(e, 0, e.type));
      const int k = static_cast<int>(nargs);
      if (n == "coalesce") {
        Emit1({Op::kCoalesce, k, k}, k, 1);
      } else {
        Emit1({Op::kGreatestLeast, k, CmpClassOf(e.type), n == "greatest" ? 1 : 0}, k, 1);
      }
      return "";
    }
    if (n == "nullif") {
      TRY(ArgsAs(e, 0, e.type));
      Emit1({Op::kNullIf, 0, CmpClassOf(e.type)}, 2, 1);
      return "";
    }
    if (n == "like" || n == "ilike") return Like(e);
    if (n == "concat") {
      if (!root) return "concat inside an expression (only at the top of one)";
      for (const auto& a : e.args) {
        if (!a->type.is_string_like()) return "concat of " + a->type.ToString();
      }
      TRY(EmitArgs(e));
      Emit1({Op::kConcat, static_cast<int32_t>(nargs)}, static_cast<int>(nargs), 1);
      p_->concat_root = true;
      return "";
    }
    if (n == "substring") {
      TRY(EmitArgs(e));
      Emit1({Op::kSubstring, nargs > 2 ? 1 : 0}, static_cast<int>(nargs), 1);
      return "";
    }
    if (n == "upper" || n == "lower") {
      TRY(EmitArgs(e));
      Emit1({Op::kFold, n == "upper" ? 1 : 2}, 1, 1);
      return "";
    }
    if (n == "trim" || n == "ltrim" || n == "rtrim") {
      TRY(EmitArgs(e));
      const int kind = n == "ltrim" ? 1 : (n == "rtrim" ? 2 : 3);
      Emit1({Op::kTrim, kind, nargs > 1 ? 1 : 0}, static_cast<int>(nargs), 1);
      return "";
    }
    if (n == "left" || n == "right") {
      TRY(EmitArgs(e));
      Emit1({Op::kLeftRight, n == "left" ? 1 : 0}, 2, 1);
      return "";
    }
    if (n == "length" || n == "octet_length") {
      TRY(EmitArgs(e));
      Emit1({Op::kLength, n == "octet_length" ? 1 : 0}, 1, 1);
      return "";
    }
    if (n == "strpos") {
      TRY(EmitArgs(e));
      Emit1({Op::kStrpos}, 2, 1);
      return "";
    }
    if (n == "starts_with" || n == "ends_with" || n == "contains") {
      TRY(EmitArgs(e));
      Emit1({Op::kAffix, n == "starts_with" ? 0 : (n == "ends_with" ? 1 : 2)}, 2, 1);
      return "";
    }
    if (n.rfind("extract_", 0) == 0) {
      const int field = FieldOf(n.substr(8));
      const DataType& t = e.args[0]->type;
      if (field < 0) return "function " + n;
      if (t.id != TypeId::kDate32 && t.id != TypeId::kTimestamp) return n + " of " + t.ToString();
      TRY(EmitArgs(e));
      Emit1({Op::kExtract, field, t.id == TypeId::kTimestamp ? 1 : 0}, 1, 1);
      return "";
    }
    if (n == "date_trunc") {
      std::string unit;
      TRY(StringLiteralArg(e, 0, &unit));
      const int u = UnitOf(AsciiLower(unit));
      if (u < 0) return "date_trunc unit '" + unit + "'";
      const DataType& t = e.args[1]->type;
      if (t.id != TypeId::kDate32 && t.id != TypeId::kTimestamp)
        return "date_trunc of " + t.ToString();
      TRY(Emit(*e.args[1]));  // the unit is compiled in
      Emit1({Op::kDateTrunc, u, t.id == TypeId::kTimestamp ? 1 : 0}, 1, 1);
      return "";
    }
    if (n == "date_add" || n == "date_sub") {
      if (e.args[0]->type.id != TypeId::kDate32 || e.args[1]->type.id != TypeId::kInt32) {
        return n + " operand types";
      }
      TRY(EmitArgs(e));
      Emit1({Op::kDateAddSub, n == "date_sub" ? 1 : 0}, 2, 1);
      return "";
    }
    if (n == "datediff") {
      if (nargs == 2) {
        if (e.args[0]->type.id != TypeId::kDate32 || e.args[1]->type.id != TypeId::kDate32) {
          return "datediff operand types";
        }
        TRY(EmitArgs(e));
        Emit1({Op::kDateDiff2}, 2, 1);
        return "";
      }
      std::string unit;
      TRY(StringLiteralArg(e, 0, &unit));
      unit = AsciiLower(unit);
      if (!unit.empty() && unit.back() == 's') unit.pop_back();
      const int u = UnitOf(unit);
      if (u < 0) return "datediff unit '" + unit + "'";
      const DataType& t = e.args[1]->type;
      if (t != e.args[2]->type) return "datediff operand types";
      TRY(Emit(*e.args[1]));  // the unit is compiled in
      TRY(Emit(*e.args[2]));
      Emit1({Op::kDateDiff3, u, t.id == TypeId::kTimestamp ? 1 : 0}, 2, 1);
      return "";
    }
    if (n.rfind("add_interval_", 0) == 0) {
      const int u = UnitOf(n.substr(13));
      if (u < 0) return "function " + n;
      static const int64_t kMonths[] = {12, 3, 1, 0, 0, 0, 0, 0, 0, 0};
      static const int64_t kMicros[] = {
          0,         0,      0, 7 * 86400000000LL, 86400000000LL, 3600000000LL, 60000000LL,
          1000000LL, 1000LL, 1};
      const DataType& t = e.args[0]->type;
      if (t.id != TypeId::kDate32 && t.id != TypeId::kTimestamp) return n + " of " + t.ToString();
      if (e.args[1]->type.id != TypeId::kInt64) return n + " amount type";
      TRY(EmitArgs(e));
      Emit1({Op::kAddInterval, static_cast<int32_t>(kMonths[u]), t.id == TypeId::kTimestamp ? 1 : 0,
             e.type.id == TypeId::kTimestamp ? 1 : 0, kMicros[u]},
            2, 1);
      return "";
    }
    if (n == "to_date") {
      const DataType& t = e.args[0]->type;
      if (nargs != 1 || (t.id != TypeId::kDate32 && t.id != TypeId::kTimestamp)) {
        return "to_date of " + t.ToString();
      }
      TRY(EmitArgs(e));
      if (t.id == TypeId::kTimestamp) Emit1({Op::kCastTsToDate}, 1, 1);
      return "";
    }
    if (n == "current_date" || n == "current_timestamp") {
      const int64_t micros = std::chrono::duration_cast<std::chrono::microseconds>(
                                 std::chrono::system_clock::now().time_since_epoch())
                                 .count();
      const int64_t day =
          micros >= 0 ? micros / 86400000000LL : -((-micros - 1) / 86400000000LL) - 1;
      PushConst(n == "current_date" ? Value::Date32(static_cast<int32_t>(day))
                                    : Value::Timestamp(micros, true));
      return "";
    }
    if (n == "floor" || n == "ceil") {
      const DataType& t = e.args[0]->type;
      TRY(EmitArgs(e));
      if (t.is_integer()) return "";  // the CPU returns its operand
      if (!t.is_decimal() && t.id != TypeId::kFloat64) return n + " of " + t.ToString();
      Emit1({Op::kFloorCeil, n == "ceil" ? 1 : 0, static_cast<int32_t>(ClassOf(t)), 0,
             t.is_decimal() ? t.scale : 0},
            1, 1);
      return "";
    }
    if (n == "round") {
      const DataType& t = e.args[0]->type;
      const bool digits = nargs > 1;
      if (digits && e.args[1]->type.id != TypeId::kInt32) return "round digits type";
      TRY(EmitArgs(e));
      if (t.id == TypeId::kFloat64) {
        Emit1({Op::kRoundFloat, digits ? 1 : 0}, static_cast<int>(nargs), 1);
        return "";
      }
      if (!t.is_decimal() && !t.is_integer()) return "round of " + t.ToString();
      if (!e.type.is_decimal() && !e.type.is_integer()) return "round to " + e.type.ToString();
      if (!t.is_decimal() && t.id == TypeId::kUInt64) return "round of uint64";
      const int64_t meta = int64_t{t.is_decimal() ? t.scale : 0} |
                           (int64_t{e.type.precision} << 8) | (int64_t{e.type.scale} << 16);
      Emit1({Op::kRoundExact, digits ? 1 : 0, static_cast<int32_t>(e.type.id),
             t.is_decimal() ? 1 : 0, meta},
            static_cast<int>(nargs), 1);
      return "";
    }
    if (n == "power") {
      TRY(EmitArgs(e));
      Emit1({Op::kPower}, 2, 1);
      return "";
    }
    static const std::pair<const char*, MathFn> kMath[] = {{"sqrt", kSqrt},   {"exp", kExp},
                                                           {"cbrt", kCbrt},   {"ln", kLn},
                                                           {"log10", kLog10}, {"log2", kLog2}};
    for (const auto& [name, fn] : kMath) {
      if (n == name) {
        if (e.args[0]->type.id != TypeId::kFloat64) return n + " of " + e.args[0]->type.ToString();
        TRY(EmitArgs(e));
        Emit1({Op::kMath, fn}, 1, 1);
        return "";
      }
    }
    return "function " + n;
  }
#undef TRY

  Program* p_;
  int in_case_ = 0;  // CASE expressions around the expression being emitted
  int depth_ = 0;
  int max_depth_ = 0;
};

}  // namespace

const Expr* FindUdfCall(const Expr& e) {
  if (e.kind == ExprKind::kCall && e.udf) return &e;
  for (const auto& a : e.args) {
    if (const Expr* call = FindUdfCall(*a)) return call;
  }
  return nullptr;
}

std::string Compile(const Expr& expr, bool selection, Program* out) {
  *out = Program();
  Compiler c(out);
  std::string why = selection ? c.Selection(expr) : c.Emit(expr, /*root=*/true);
  if (!why.empty()) return why;
  if (c.too_deep()) return "expression nested deeper than " + std::to_string(kMaxStack);
  if (!OutputTypeSupported(expr.type)) return "type " + expr.type.ToString();
  out->max_stack = c.max_depth();
  out->result_type = selection ? DataType::Bool() : expr.type;
  out->result_class = ClassOf(out->result_type);
  std::sort(out->columns.begin(), out->columns.end());
  out->columns.erase(std::unique(out->columns.begin(), out->columns.end()), out->columns.end());
  return "";
}

}  // namespace tandem::gpu::internal
