// Comparison kernels: eq, ne, lt, le, gt, ge and IS [NOT] DISTINCT FROM on every type. Fixed-width
// values compare in typed loops packed 8 rows per output byte (column vs scalar is the hot
// TPC-H shape); floats use SQL's total order (NaN equals NaN and sorts above everything, -0 =
// 0); strings compare bytewise (memcmp order), equality checking lengths first.
#include <cmath>
#include <cstring>

#include "tandem/expr/cpu/kernels.h"

namespace tandem::cpu::internal {
namespace {

enum class Cmp { kEq, kNe, kLt, kLe, kGt, kGe };

Cmp CmpOf(const std::string& n) {
  if (n == "eq" || n == "is_not_distinct_from") return Cmp::kEq;
  if (n == "ne" || n == "is_distinct_from") return Cmp::kNe;
  if (n == "lt") return Cmp::kLt;
  if (n == "le") return Cmp::kLe;
  if (n == "gt") return Cmp::kGt;
  return Cmp::kGe;
}

Cmp Swap(Cmp c) {
  switch (c) {
    case Cmp::kLt:
      return Cmp::kGt;
    case Cmp::kLe:
      return Cmp::kGe;
    case Cmp::kGt:
      return Cmp::kLt;
    case Cmp::kGe:
      return Cmp::kLe;
    default:
      return c;
  }
}

// Total order for floats: NaN is the largest value and equal to itself.
template <typename T, Cmp C>
inline bool Compare(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    const bool na = std::isnan(a), nb = std::isnan(b);
    if (__builtin_expect(na | nb, 0)) {
      const int ord = na && nb ? 0 : (na ? 1 : -1);
      switch (C) {
        case Cmp::kEq:
          return ord == 0;
        case Cmp::kNe:
          return ord != 0;
        case Cmp::kLt:
          return ord < 0;
        case Cmp::kLe:
          return ord <= 0;
        case Cmp::kGt:
          return ord > 0;
        case Cmp::kGe:
          return ord >= 0;
      }
    }
  }
  switch (C) {
    case Cmp::kEq:
      return a == b;
    case Cmp::kNe:
      return a != b;
    case Cmp::kLt:
      return a < b;
    case Cmp::kLe:
      return a <= b;
    case Cmp::kGt:
      return a > b;
    case Cmp::kGe:
      return a >= b;
  }
  return false;
}

template <typename T, Cmp C>
void FixedLoop(const Datum& x, const Datum& y, int64_t n, uint8_t* bits) {
  if (y.is_scalar()) {
    const T* a = x.column->values_as<T>();
    const T b = ScalarAs<T>(y.scalar);
    FillBits(bits, n, [&](int64_t i) { return Compare<T, C>(a[i], b); });
  } else if (x.is_scalar()) {
    const T a = ScalarAs<T>(x.scalar);
    const T* b = y.column->values_as<T>();
    FillBits(bits, n, [&](int64_t i) { return Compare<T, C>(a, b[i]); });
  } else {
    const T* a = x.column->values_as<T>();
    const T* b = y.column->values_as<T>();
    FillBits(bits, n, [&](int64_t i) { return Compare<T, C>(a[i], b[i]); });
  }
}

template <typename T>
void FixedCompare(Cmp c, const Datum& x, const Datum& y, int64_t n, uint8_t* bits) {
  switch (c) {
    case Cmp::kEq:
      return FixedLoop<T, Cmp::kEq>(x, y, n, bits);
    case Cmp::kNe:
      return FixedLoop<T, Cmp::kNe>(x, y, n, bits);
    case Cmp::kLt:
      return FixedLoop<T, Cmp::kLt>(x, y, n, bits);
    case Cmp::kLe:
      return FixedLoop<T, Cmp::kLe>(x, y, n, bits);
    case Cmp::kGt:
      return FixedLoop<T, Cmp::kGt>(x, y, n, bits);
    case Cmp::kGe:
      return FixedLoop<T, Cmp::kGe>(x, y, n, bits);
  }
}

inline bool OrderHolds(Cmp c, int ord) {
  switch (c) {
    case Cmp::kEq:
      return ord == 0;
    case Cmp::kNe:
      return ord != 0;
    case Cmp::kLt:
      return ord < 0;
    case Cmp::kLe:
      return ord <= 0;
    case Cmp::kGt:
      return ord > 0;
    case Cmp::kGe:
      return ord >= 0;
  }
  return false;
}

void StringCompare(Cmp c, const Datum& x0, const Datum& y0, int64_t n, uint8_t* bits) {
  const Datum* x = &x0;
  const Datum* y = &y0;
  if (x->is_scalar()) {
    std::swap(x, y);
    c = Swap(c);
  }
  const Column& a = *x->column;
  if (y->is_scalar()) {
    const std::string_view b = y->scalar.str;
    if (c == Cmp::kEq || c == Cmp::kNe) {
      const bool want = c == Cmp::kEq;
      const size_t len = b.size();
      const char* base = a.data() ? reinterpret_cast<const char*>(a.data()->data()) : "";
      auto eq_at = [&](int64_t begin, int64_t end) {
        return static_cast<size_t>(end - begin) == len &&
               (len == 0 || std::memcmp(base + begin, b.data(), len) == 0);
      };
      if (a.large_offsets()) {
        const int64_t* off = a.values_as<int64_t>();
        FillBits(bits, n, [&](int64_t i) { return eq_at(off[i], off[i + 1]) == want; });
      } else {
        const int32_t* off = a.values_as<int32_t>();
        FillBits(bits, n, [&](int64_t i) { return eq_at(off[i], off[i + 1]) == want; });
      }
      return;
    }
    FillBits(bits, n, [&](int64_t i) { return OrderHolds(c, a.GetString(i).compare(b)); });
    return;
  }
  const Column& b = *y->column;
  FillBits(bits, n,
           [&](int64_t i) { return OrderHolds(c, a.GetString(i).compare(b.GetString(i))); });
}

void BoolCompare(Cmp c, const Datum& x, const Datum& y, int64_t n, uint8_t* bits) {
  auto get = [](const Datum& d, int64_t i) {
    return d.is_scalar() ? d.scalar.AsBool() : d.column->GetBool(i);
  };
  FillBits(bits, n, [&](int64_t i) {
    const int a = get(x, i), b = get(y, i);
    return OrderHolds(c, a - b);
  });
}

// Fills bits with the comparison of x and y (values only; validity handled by the caller).
Status CompareValues(const CallContext& cc, Cmp c, const Datum& x, const Datum& y, uint8_t* bits) {
  const DataType& t = x.type();
  const int64_t n = cc.rows;
  if (t.is_string_like()) {
    StringCompare(c, x, y, n, bits);
  } else if (t.id == TypeId::kBool) {
    BoolCompare(c, x, y, n, bits);
  } else {
    DispatchFixed(t, [&]<typename T>() { FixedCompare<T>(c, x, y, n, bits); });
  }
  return Status::OK();
}

// Brings decimals of different scales (or mixed date/timestamp) to one type when the binder
// left them apart.
Status Align(const CallContext& cc, std::vector<Datum>* args) {
  Datum& x = (*args)[0];
  Datum& y = (*args)[1];
  if (x.type() == y.type()) return Status::OK();
  DataType target;
  if (x.type().is_decimal() && y.type().is_decimal()) {
    const int s = std::max(x.type().scale, y.type().scale);
    const int r =
        std::max(x.type().precision - x.type().scale, y.type().precision - y.type().scale);
    if (r + s > 38) return Status::Internal("cannot align " + cc.expr.ToString());
    target = DataType::Decimal(r + s, s);
  } else if (x.type().id == TypeId::kTimestamp || y.type().id == TypeId::kTimestamp) {
    target = x.type().id == TypeId::kTimestamp ? x.type() : y.type();
  } else {
    return Status::Internal("comparison of " + x.type().ToString() + " and " + y.type().ToString() +
                            " reached the evaluator: " + cc.expr.ToString());
  }
  for (Datum* d : {&x, &y}) {
    if (d->type() == target) continue;
    TANDEM_ASSIGN_OR_RAISE(ColumnPtr c,
                           CastColumn(cc.expr, *d, target, d->is_scalar() ? 1 : cc.rows, false));
    *d = d->is_scalar() ? Datum::Scalar(DatumValue(Datum::Of(c), 0)) : Datum::Of(c);
  }
  return Status::OK();
}

Result<ColumnPtr> Comparison(const CallContext& cc, const std::vector<Datum>& in) {
  std::vector<Datum> args = in;
  TANDEM_RETURN_NOT_OK(Align(cc, &args));
  const int64_t n = cc.rows;
  auto values = AllocateOutput(DataType::Bool(), n);
  TANDEM_RETURN_NOT_OK(
      CompareValues(cc, CmpOf(cc.expr.name), args[0], args[1], values->mutable_data()));
  return MakeColumn(DataType::Bool(), n, CombineValidity({&args[0], &args[1]}, n),
                    std::move(values));
}

Result<ColumnPtr> Distinct(const CallContext& cc, const std::vector<Datum>& in) {
  std::vector<Datum> args = in;
  const int64_t n = cc.rows;
  const bool distinct = cc.expr.name == "is_distinct_from";
  auto values = AllocateOutput(DataType::Bool(), n);
  uint8_t* bits = values->mutable_data();
  if (args[0].is_null_scalar() || args[1].is_null_scalar()) {
    const Datum& other = args[0].is_null_scalar() ? args[1] : args[0];
    // Distinct exactly where the other side is not NULL.
    FillBits(bits, n, [&](int64_t i) { return other.IsValid(i) == distinct; });
    return MakeColumn(DataType::Bool(), n, Validity{}, std::move(values));
  }
  TANDEM_RETURN_NOT_OK(Align(cc, &args));
  TANDEM_RETURN_NOT_OK(CompareValues(cc, distinct ? Cmp::kNe : Cmp::kEq, args[0], args[1], bits));
  const Datum& x = args[0];
  const Datum& y = args[1];
  const bool any_nulls =
      (x.column && x.column->null_count() > 0) || (y.column && y.column->null_count() > 0);
  if (any_nulls) {
    for (int64_t i = 0; i < n; ++i) {
      const bool vx = x.IsValid(i), vy = y.IsValid(i);
      if (vx && vy) continue;
      // One NULL: distinct; both NULL: not distinct.
      bit_util::SetBitTo(bits, i, (vx != vy) == distinct);
    }
  }
  return MakeColumn(DataType::Bool(), n, Validity{}, std::move(values));
}

}  // namespace

void RegisterComparisonKernels(KernelMap* map) {
  for (const char* n : {"eq", "ne", "lt", "le", "gt", "ge"}) (*map)[n] = {Comparison, true};
  (*map)["is_distinct_from"] = {Distinct, false};
  (*map)["is_not_distinct_from"] = {Distinct, false};
}

}  // namespace tandem::cpu::internal
