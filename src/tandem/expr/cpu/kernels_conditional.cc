// Conditional kernels: CASE's final gather, coalesce, nullif, greatest / least (NULLs skipped) and
// IN lists. Each decides per row which operand supplies the value (a small int array) and one typed
// gather builds the output. IN lists of constants probe a sorted array (or a hash set for
// strings); NULL semantics: no match and a NULL in the list (or a NULL probe) gives NULL. Floats
// follow SQL's total order (as the comparison kernels do): NaN equals NaN and is larger than every
// other value, -0.0 equals 0.0.
#include <algorithm>
#include <cmath>
#include <unordered_set>

#include "tandem/column/column_builder.h"
#include "tandem/expr/cpu/kernels.h"

namespace tandem::cpu::internal {
namespace {

// Output row i = sources[choice[i]] at row at(i) (a scalar source repeats); choice -1 = NULL.
// at(i) is pos[i] when pos is given (sources evaluated on a subset of the rows), else i.
ColumnPtr Choose(const DataType& type, int64_t n, const std::vector<const Datum*>& sources,
                 const std::vector<int32_t>& choice, const std::vector<int32_t>* pos = nullptr) {
  auto at = [pos](int64_t i) -> int64_t { return pos ? (*pos)[i] : i; };
  // Per source: its validity bits, or none with a constant answer (all valid / a NULL scalar).
  std::vector<const uint8_t*> valid_bits(sources.size(), nullptr);
  std::vector<uint8_t> all_valid(sources.size(), 1);
  for (size_t k = 0; k < sources.size(); ++k) {
    const Datum& d = *sources[k];
    if (d.is_scalar()) {
      all_valid[k] = !d.scalar.is_null;
    } else if (d.column->null_count() > 0 && d.column->validity()) {
      valid_bits[k] = d.column->validity_bits();
    }
  }
  auto valid = Buffer::AllocateUninitialized(bit_util::BytesForBits(n));
  uint8_t* vb = valid->mutable_data();
  FillBits(vb, n, [&](int64_t i) {
    const int32_t c = choice[i];
    if (c < 0) return false;
    return valid_bits[c] ? bit_util::GetBit(valid_bits[c], at(i)) : all_valid[c] != 0;
  });
  Validity v = MakeValidity(std::move(valid), n);
  if (type.is_string_like()) {
    ColumnBuilder b(type, n);
    for (int64_t i = 0; i < n; ++i) {
      if (v.null_count && !bit_util::GetBit(v.bits->data(), i)) {
        b.AppendNull();
        continue;
      }
      const Datum& d = *sources[choice[i]];
      b.AppendString(d.is_scalar() ? std::string_view(d.scalar.str) : d.column->GetString(at(i)));
    }
    return b.Finish();
  }
  auto values = AllocateOutput(type, n);  // every row written below
  if (type.id == TypeId::kBool) {
    FillBits(values->mutable_data(), n, [&](int64_t i) {
      if (choice[i] < 0) return false;
      const Datum& d = *sources[choice[i]];
      return d.is_scalar() ? d.scalar.AsBool() : d.column->GetBool(at(i));
    });
  } else {
    DispatchFixed(type, [&]<typename T>() {
      T* out = values->mutable_data_as<T>();
      std::vector<T> scalars(sources.size());
      std::vector<const T*> arrays(sources.size());
      for (size_t k = 0; k < sources.size(); ++k) {
        if (sources[k]->is_scalar()) {
          scalars[k] = sources[k]->scalar.is_null ? T{} : ScalarAs<T>(sources[k]->scalar);
        } else {
          arrays[k] = sources[k]->column->values_as<T>();
        }
      }
      for (int64_t i = 0; i < n; ++i) {
        const int32_t c = choice[i];
        out[i] = c < 0 ? T{} : (arrays[c] ? arrays[c][at(i)] : scalars[c]);
      }
    });
  }
  return MakeColumn(type, n, v, std::move(values));
}

// Makes every operand exactly `type` (scalars of other types are cast; columns must match).
Status Conform(const CallContext& cc, std::vector<Datum>* args, size_t from, size_t step) {
  for (size_t k = from; k < args->size(); k += step) {
    Datum& d = (*args)[k];
    if (d.type() == cc.expr.type) continue;
    if (d.is_null_scalar()) {
      d.scalar.type = cc.expr.type;
      continue;
    }
    TANDEM_ASSIGN_OR_RAISE(
        ColumnPtr c, CastColumn(cc.expr, d, cc.expr.type, d.is_scalar() ? 1 : cc.rows, false));
    d = d.is_scalar() ? Datum::Scalar(DatumValue(Datum::Of(c), 0)) : Datum::Of(c);
  }
  return Status::OK();
}

Result<ColumnPtr> Coalesce(const CallContext& cc, const std::vector<Datum>& in) {
  std::vector<Datum> args = in;
  TANDEM_RETURN_NOT_OK(Conform(cc, &args, 0, 1));
  const int64_t n = cc.rows;
  std::vector<int32_t> choice(static_cast<size_t>(n), -1);
  std::vector<const Datum*> src;
  for (const Datum& d : args) src.push_back(&d);
  for (int64_t i = 0; i < n; ++i) {
    for (size_t k = 0; k < args.size(); ++k) {
      if (args[k].IsValid(i)) {
        choice[i] = static_cast<int32_t>(k);
        break;
      }
    }
  }
  return Choose(cc.expr.type, n, src, choice);
}

Result<ColumnPtr> NullIf(const CallContext& cc, const std::vector<Datum>& in) {
  std::vector<Datum> args = in;
  TANDEM_RETURN_NOT_OK(Conform(cc, &args, 0, 1));
  const int64_t n = cc.rows;
  // eq(a, b) via the comparison kernel.
  Expr eq = cc.expr;
  eq.name = "eq";
  eq.type = DataType::Bool();
  CallContext ecc{eq, n, cc.eval};
  std::vector<int32_t> choice(static_cast<size_t>(n), 0);
  if (!args[1].is_null_scalar() && !args[0].is_null_scalar()) {
    TANDEM_ASSIGN_OR_RAISE(ColumnPtr same,
                           FindKernel("eq")->fn(ecc, {Datum::Of(ToColumn(args[0], n)), args[1]}));
    for (int64_t i = 0; i < n; ++i) {
      if (same->IsValid(i) && same->GetBool(i)) choice[i] = -1;
    }
  }
  return Choose(cc.expr.type, n, {&args[0]}, choice);
}

Result<ColumnPtr> GreatestLeast(const CallContext& cc, const std::vector<Datum>& in) {
  std::vector<Datum> args = in;
  TANDEM_RETURN_NOT_OK(Conform(cc, &args, 0, 1));
  const bool greatest = cc.expr.name == "greatest";
  const int64_t n = cc.rows;
  std::vector<int32_t> choice(static_cast<size_t>(n), -1);
  std::vector<const Datum*> src;
  for (const Datum& d : args) src.push_back(&d);
  const DataType& t = cc.expr.type;
  for (int64_t i = 0; i < n; ++i) {
    int32_t best = -1;
    for (size_t k = 0; k < args.size(); ++k) {
      if (!args[k].IsValid(i)) continue;
      if (best < 0) {
        best = static_cast<int32_t>(k);
        continue;
      }
      int ord = 0;
      const Datum& a = args[k];
      const Datum& b = args[best];
      if (t.is_string_like()) {
        auto s = [&](const Datum& d) {
          return d.is_scalar() ? std::string_view(d.scalar.str) : d.column->GetString(i);
        };
        ord = s(a).compare(s(b));
      } else if (t.id == TypeId::kBool) {
        auto g = [&](const Datum& d) {
          return d.is_scalar() ? d.scalar.AsBool() : d.column->GetBool(i);
        };
        ord = static_cast<int>(g(a)) - static_cast<int>(g(b));
      } else {
        DispatchFixed(t, [&]<typename T>() {
          auto g = [&](const Datum& d) {
            return d.is_scalar() ? ScalarAs<T>(d.scalar) : d.column->values_as<T>()[i];
          };
          const T x = g(a), y = g(b);
          ord = x < y ? -1 : (y < x ? 1 : 0);
          if constexpr (std::is_floating_point_v<T>) {  // NaN is the largest value
            if (std::isnan(x) || std::isnan(y)) ord = std::isnan(x) - std::isnan(y);
          }
        });
      }
      if (greatest ? ord > 0 : ord < 0) best = static_cast<int32_t>(k);
    }
    choice[i] = best;
  }
  return Choose(t, n, src, choice);
}

// Fixed-width IN probe over constant values.
// A NaN key is kept apart (as has_nan) so the sorted keys are ordinary numbers; a NaN probe
// matches exactly when the list holds a NaN.
template <typename T>
void ProbeFixed(const Datum& x, const std::vector<Value>& list, int64_t n, uint8_t* bits) {
  std::vector<T> keys;
  bool has_nan = false;
  for (const Value& v : list) {
    const T k = ScalarAs<T>(v);
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(k)) {
        has_nan = true;
        continue;
      }
    }
    keys.push_back(k);
  }
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  const T* a = x.column->values_as<T>();
  auto is_nan = [](T v) {
    if constexpr (std::is_floating_point_v<T>) {
      return v != v;
    } else {
      return false;
    }
  };
  if (keys.size() <= 8) {
    FillBits(bits, n, [&](int64_t i) {
      bool hit = has_nan && is_nan(a[i]);
      for (const T& k : keys) hit |= a[i] == k;
      return hit;
    });
  } else {
    FillBits(bits, n, [&](int64_t i) {
      if (is_nan(a[i])) return has_nan;
      return std::binary_search(keys.begin(), keys.end(), a[i]);
    });
  }
}

// SQL equality of two non-NULL values of one type: for floats NaN equals NaN, -0.0 equals 0.0.
bool SqlEquals(const Value& a, const Value& b) {
  if (a.type.is_floating() && std::isnan(a.f64) && std::isnan(b.f64)) return true;
  return a == b;
}

}  // namespace

Result<ColumnPtr> EvaluateInListKernel(const CallContext& cc, const std::vector<Datum>& in) {
  const int64_t n = cc.rows;
  std::vector<Datum> args = in;
  const DataType t = args[0].type();
  // Bring list items to the probe's type.
  Expr conform = cc.expr;
  conform.type = t;
  CallContext ccc{conform, n, cc.eval};
  TANDEM_RETURN_NOT_OK(Conform(ccc, &args, 1, 1));
  bool all_scalar = true, list_has_null = false;
  std::vector<Value> list;
  for (size_t k = 1; k < args.size(); ++k) {
    all_scalar &= args[k].is_scalar();
    if (args[k].is_scalar()) {
      if (args[k].scalar.is_null) {
        list_has_null = true;
      } else {
        list.push_back(args[k].scalar);
      }
    }
  }
  auto values = AllocateValues(DataType::Bool(), n);
  uint8_t* bits = values->mutable_data();
  auto valid = Buffer::Allocate(bit_util::BytesForBits(n));
  uint8_t* vb = valid->mutable_data();
  const Datum& x = args[0];
  if (all_scalar && !x.is_scalar()) {
    if (t.is_string_like()) {
      std::unordered_set<std::string_view> keys;
      for (const Value& v : list) keys.insert(v.str);
      const Column& c = *x.column;
      FillBits(bits, n, [&](int64_t i) { return keys.count(c.GetString(i)) > 0; });
    } else if (t.id == TypeId::kBool) {
      bool has_t = false, has_f = false;
      for (const Value& v : list) (v.AsBool() ? has_t : has_f) = true;
      FillBits(bits, n, [&](int64_t i) { return x.column->GetBool(i) ? has_t : has_f; });
    } else {
      DispatchFixed(t, [&]<typename T>() { ProbeFixed<T>(x, list, n, bits); });
    }
    FillBits(vb, n, [&](int64_t i) {
      return x.IsValid(i) && (bit_util::GetBit(bits, i) || !list_has_null);
    });
  } else {
    // General form: compare row by row.
    for (int64_t i = 0; i < n; ++i) {
      const Value probe = DatumValue(x, i);
      if (probe.is_null) continue;
      bool hit = false, saw_null = false;
      for (size_t k = 1; k < args.size() && !hit; ++k) {
        Value item = DatumValue(args[k], i);
        if (item.is_null) {
          saw_null = true;
          continue;
        }
        item.type = probe.type;
        hit = SqlEquals(item, probe);
      }
      if (hit) bit_util::SetBit(bits, i);
      if (hit || !saw_null) bit_util::SetBit(vb, i);
    }
  }
  if (cc.expr.negated) {
    const int64_t bytes = bit_util::BytesForBits(n);
    for (int64_t i = 0; i < bytes; ++i) bits[i] = static_cast<uint8_t>(~bits[i]);
  }
  return MakeColumn(DataType::Bool(), n, MakeValidity(std::move(valid), n), std::move(values));
}

Result<ColumnPtr> AssembleCase(const CallContext& cc, std::vector<CaseBranch>* branches) {
  const int64_t n = cc.rows;
  std::vector<int32_t> choice(static_cast<size_t>(n), -1);
  std::vector<int32_t> pos(static_cast<size_t>(n), 0);
  std::vector<const Datum*> src;
  for (size_t k = 0; k < branches->size(); ++k) {
    CaseBranch& b = (*branches)[k];
    Datum& d = b.value;
    if (d.type() != cc.expr.type) {  // results take the CASE's type
      if (d.is_null_scalar()) {
        d.scalar.type = cc.expr.type;
      } else {
        const int64_t len = d.is_scalar() ? 1 : d.column->length();
        TANDEM_ASSIGN_OR_RAISE(ColumnPtr c, CastColumn(cc.expr, d, cc.expr.type, len, false));
        d = d.is_scalar() ? Datum::Scalar(DatumValue(Datum::Of(c), 0)) : Datum::Of(c);
      }
    }
    src.push_back(&d);
    const int32_t* rows = b.rows.data();
    const int64_t m = static_cast<int64_t>(b.rows.size());
    for (int64_t j = 0; j < m; ++j) {
      choice[rows[j]] = static_cast<int32_t>(k);
      pos[rows[j]] = b.full_length ? rows[j] : static_cast<int32_t>(j);
    }
  }
  return Choose(cc.expr.type, n, src, choice, &pos);
}

void RegisterConditionalKernels(KernelMap* map) {
  (*map)["coalesce"] = {Coalesce, false};
  (*map)["nullif"] = {NullIf, false};
  (*map)["greatest"] = {GreatestLeast, false};
  (*map)["least"] = {GreatestLeast, false};
}

}  // namespace tandem::cpu::internal
