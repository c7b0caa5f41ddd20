// Aggregate state kernels: typed per-group state arrays and their update/merge/finalize loops.
#include "tandem/exec/cpu/aggregate_states.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "tandem/memory/grow_array.h"
#include "tandem/types/decimal.h"
#include "tandem/types/type_dispatch.h"

namespace tandem::cpu::agg {
namespace {

// Calls f(r) for every selected row whose argument is not NULL (arg == nullptr: every row).
template <typename F>
inline void VisitRows(const Column* arg, const int32_t* rows, int64_t n, F&& f) {
  const uint8_t* valid = arg && arg->null_count() > 0 ? arg->validity_bits() : nullptr;
  if (rows) {
    if (valid) {
      for (int64_t k = 0; k < n; ++k) {
        if (bit_util::GetBit(valid, rows[k])) f(rows[k]);
      }
    } else {
      for (int64_t k = 0; k < n; ++k) f(rows[k]);
    }
  } else if (valid) {
    for (int64_t r = 0; r < n; ++r) {
      if (bit_util::GetBit(valid, r)) f(r);
    }
  } else {
    for (int64_t r = 0; r < n; ++r) f(r);
  }
}

inline uint32_t SrcGroup(const uint32_t* src_groups, int64_t k) {
  return src_groups ? src_groups[k] : static_cast<uint32_t>(k);
}

// Builds a fixed-width column of `type` (storage T) from get(g, &value) -> valid.
template <typename T, typename F>
ColumnPtr BuildFixed(const DataType& type, int64_t n, F&& get) {
  auto values = Buffer::AllocateUninitialized(n * static_cast<int64_t>(sizeof(T)));  // all written
  auto validity = Buffer::Allocate(bit_util::BytesForBits(n));
  T* out = values->mutable_data_as<T>();
  uint8_t* bits = validity->mutable_data();
  int64_t nulls = 0;
  for (int64_t g = 0; g < n; ++g) {
    T v{};
    if (get(g, &v)) {
      out[g] = v;
      bit_util::SetBit(bits, g);
    } else {
      out[g] = T{};
      ++nulls;
    }
  }
  if (nulls == 0) validity.reset();
  return std::make_shared<Column>(type, n, nulls, validity, values);
}

template <typename F>
ColumnPtr BuildBool(int64_t n, F&& get) {
  auto values = Buffer::Allocate(bit_util::BytesForBits(n));
  auto validity = Buffer::Allocate(bit_util::BytesForBits(n));
  int64_t nulls = 0;
  for (int64_t g = 0; g < n; ++g) {
    bool v = false;
    if (get(g, &v)) {
      bit_util::SetBit(validity->mutable_data(), g);
      if (v) bit_util::SetBit(values->mutable_data(), g);
    } else {
      ++nulls;
    }
  }
  if (nulls == 0) validity.reset();
  return std::make_shared<Column>(DataType::Bool(), n, nulls, validity, values);
}

// Writes an exact 128-bit result into a column of `type` (int64, or decimal of its storage);
// decimals are checked against their precision where `check_precision`.
template <typename F>
Result<ColumnPtr> BuildExact(const DataType& type, int64_t n, const std::string& name,
                             bool check_precision, F&& get) {
  bool overflow = false;
  ColumnPtr col;
  if (type.is_decimal()) {
    auto fits = [&](int128_t v) {
      if (check_precision && !decimal::FitsPrecision(v, type.precision)) overflow = true;
    };
    if (type.is_wide_decimal()) {
      col = BuildFixed<int128_t>(type, n, [&](int64_t g, int128_t* v) {
        if (!get(g, v)) return false;
        fits(*v);
        return true;
      });
    } else {
      col = BuildFixed<int64_t>(type, n, [&](int64_t g, int64_t* v) {
        int128_t w;
        if (!get(g, &w)) return false;
        fits(w);
        *v = static_cast<int64_t>(w);
        return true;
      });
    }
    if (overflow) return Status::Invalid("decimal overflow in " + name);
    return col;
  }
  if (type.id == TypeId::kInt64) {
    col = BuildFixed<int64_t>(type, n, [&](int64_t g, int64_t* v) {
      int128_t w;
      if (!get(g, &w)) return false;
      if (w > INT64_MAX || w < INT64_MIN) overflow = true;
      *v = static_cast<int64_t>(w);
      return true;
    });
    if (overflow) return Status::Invalid("integer overflow in " + name);
    return col;
  }
  if (type.id == TypeId::kFloat64) {
    return BuildFixed<double>(type, n, [&](int64_t g, double* v) {
      int128_t w;
      if (!get(g, &w)) return false;
      *v = static_cast<double>(w);
      return true;
    });
  }
  return Status::Internal("unexpected result type " + type.ToString() + " of " + name);
}

// Calls fn(T{}) with T the storage type of a fixed-width numeric/temporal/decimal type.
template <typename Fn>
Status DispatchNumeric(const DataType& t, Fn&& fn) {
  return VisitStorage(
      t, Overloaded{[&]<typename T>(Tag<T>) -> Status { return fn(T{}); },
                    [&](auto) { return Status::Internal("not a numeric type: " + t.ToString()); }});
}

// ---- count ---------------------------------------------------------------------------------

class CountState final : public AggState {
 public:
  explicit CountState(bool star) : star_(star) {}
  void Resize(int64_t groups) override {
    counts_.resize(groups);
    Charge(HeapBytes(counts_));
  }
  Status Update(const uint32_t* gids, const Column* arg, const int32_t* rows, int64_t n) override {
    int64_t* c = counts_.data();
    VisitRows(star_ ? nullptr : arg, rows, n, [&](int64_t r) { ++c[gids[r]]; });
    return Status::OK();
  }
  void Merge(const AggState& src, const uint32_t* sg, const uint32_t* dst, int64_t n) override {
    const auto& s = static_cast<const CountState&>(src);
    for (int64_t k = 0; k < n; ++k) counts_[dst[k]] += s.counts_[SrcGroup(sg, k)];
  }
  Result<ColumnPtr> Finalize(int64_t groups) override {
    counts_.resize(groups);
    return std::make_shared<Column>(DataType::Int64(), groups, 0, nullptr, TakeArray(counts_));
  }

 private:
  bool star_;
  GrowArray<int64_t> counts_;
};

// ---- exact sums and averages (integers, decimals) ------------------------------------------

// Sum or average of an integer or decimal argument with storage In, accumulated in 128 bits.
template <typename In>
class ExactSumState final : public AggState {
 public:
  ExactSumState(const AggregateCall& call, const DataType& arg_type)
      : avg_(call.kind == AggregateKind::kAvg),
        result_(call.type),
        arg_scale_(arg_type.is_decimal() ? arg_type.scale : 0),
        name_(call.name),
        check_precision_(call.check_precision) {}
  void Resize(int64_t groups) override {
    sums_.resize(groups);
    counts_.resize(groups);
    Charge(HeapBytes(sums_) + HeapBytes(counts_));
  }
  Status Update(const uint32_t* gids, const Column* arg, const int32_t* rows, int64_t n) override {
    const In* v = arg->values_as<In>();
    int128_t* s = sums_.data();
    int64_t* c = counts_.data();
    if constexpr (std::is_same_v<In, int128_t>) {
      bool overflow = false;
      VisitRows(arg, rows, n, [&](int64_t r) {
        const uint32_t g = gids[r];
        overflow |= __builtin_add_overflow(s[g], v[r], &s[g]);
        ++c[g];
      });
      if (overflow) return Status::Invalid("decimal overflow in " + name_);
    } else {
      VisitRows(arg, rows, n, [&](int64_t r) {
        const uint32_t g = gids[r];
        s[g] += static_cast<int128_t>(v[r]);
        ++c[g];
      });
    }
    return Status::OK();
  }
  void Merge(const AggState& src, const uint32_t* sg, const uint32_t* dst, int64_t n) override {
    const auto& o = static_cast<const ExactSumState&>(src);
    for (int64_t k = 0; k < n; ++k) {
      const uint32_t g = SrcGroup(sg, k);
      if (__builtin_add_overflow(sums_[dst[k]], o.sums_[g], &sums_[dst[k]])) overflow_ = true;
      counts_[dst[k]] += o.counts_[g];
    }
  }
  Result<ColumnPtr> Finalize(int64_t groups) override {
    if (overflow_) return Status::Invalid("decimal overflow in " + name_);
    if (!avg_) {
      const int up = result_.is_decimal() ? result_.scale - arg_scale_ : 0;
      if (up == 0 && result_.is_wide_decimal()) return FinalizeSumInPlace(groups);
      bool overflow = false;
      auto col = BuildExact(result_, groups, name_, check_precision_, [&](int64_t g, int128_t* v) {
        if (counts_[g] == 0) return false;
        if (!decimal::Rescale(sums_[g], 0, up, v)) overflow = true;
        return true;
      });
      if (overflow) return Status::Invalid("decimal overflow in " + name_);
      return col;
    }
    if (result_.is_decimal()) {
      const int up = result_.scale - arg_scale_;
      bool overflow = false;
      auto col = BuildExact(result_, groups, name_, check_precision_, [&](int64_t g, int128_t* v) {
        if (counts_[g] == 0) return false;
        if (up >= 0) {
          if (!decimal::DivideScaled(sums_[g], up, counts_[g], v)) overflow = true;
        } else {
          int128_t q;
          if (!decimal::DivideScaled(sums_[g], 0, counts_[g], &q)) overflow = true;
          *v = decimal::DivPow10Round(q, -up);
        }
        return true;
      });
      if (overflow) return Status::Invalid("decimal overflow in " + name_);
      return col;
    }
    // avg of integers (or decimals asked for as double): sum / count in double.
    const double scale = std::pow(10.0, arg_scale_);
    return BuildFixed<double>(DataType::Float64(), groups, [&](int64_t g, double* v) {
      if (counts_[g] == 0) return false;
      *v = static_cast<double>(sums_[g]) / scale / static_cast<double>(counts_[g]);
      return true;
    });
  }

 private:
  bool avg_;
  DataType result_;
  int arg_scale_;
  std::string name_;
  bool check_precision_;
  bool overflow_ = false;
  // A sum at the argument's scale into a 128-bit decimal: the sums are the result's values
  // already, and become its buffer without a copy.
  Result<ColumnPtr> FinalizeSumInPlace(int64_t groups) {
    sums_.resize(groups);
    int128_t* sums = sums_.data();
    int64_t nulls = 0;
    bool overflow = false;
    for (int64_t g = 0; g < groups; ++g) {
      if (counts_[g] == 0) {
        sums[g] = 0;
        ++nulls;
      } else if (check_precision_ && !decimal::FitsPrecision(sums[g], result_.precision)) {
        overflow = true;
      }
    }
    if (overflow) return Status::Invalid("decimal overflow in " + name_);
    std::shared_ptr<Buffer> validity;
    if (nulls > 0) {
      validity = Buffer::Allocate(bit_util::BytesForBits(groups));
      for (int64_t g = 0; g < groups; ++g) {
        if (counts_[g] != 0) bit_util::SetBit(validity->mutable_data(), g);
      }
    }
    return std::make_shared<Column>(result_, groups, nulls, validity, TakeArray(sums_));
  }

  GrowArray<int128_t> sums_;
  GrowArray<int64_t> counts_;
};

// ---- float sums and averages ---------------------------------------------------------------

template <typename In>
class FloatSumState final : public AggState {
 public:
  explicit FloatSumState(const AggregateCall& call)
      : avg_(call.kind == AggregateKind::kAvg), result_(call.type) {}
  void Resize(int64_t groups) override {
    sums_.resize(groups);
    counts_.resize(groups);
    Charge(HeapBytes(sums_) + HeapBytes(counts_));
  }
  Status Update(const uint32_t* gids, const Column* arg, const int32_t* rows, int64_t n) override {
    const In* v = arg->values_as<In>();
    double* s = sums_.data();
    int64_t* c = counts_.data();
    VisitRows(arg, rows, n, [&](int64_t r) {
      s[gids[r]] += static_cast<double>(v[r]);
      ++c[gids[r]];
    });
    return Status::OK();
  }
  void Merge(const AggState& src, const uint32_t* sg, const uint32_t* dst, int64_t n) override {
    const auto& o = static_cast<const FloatSumState&>(src);
    for (int64_t k = 0; k < n; ++k) {
      sums_[dst[k]] += o.sums_[SrcGroup(sg, k)];
      counts_[dst[k]] += o.counts_[SrcGroup(sg, k)];
    }
  }
  Result<ColumnPtr> Finalize(int64_t groups) override {
    auto get = [&](int64_t g, double* v) {
      if (counts_[g] == 0) return false;
      *v = avg_ ? sums_[g] / static_cast<double>(counts_[g]) : sums_[g];
      return true;
    };
    if (result_.id == TypeId::kFloat32) {
      return BuildFixed<float>(result_, groups, [&](int64_t g, float* v) {
        double d;
        if (!get(g, &d)) return false;
        *v = static_cast<float>(d);
        return true;
      });
    }
    return BuildFixed<double>(DataType::Float64(), groups, get);
  }

 private:
  bool avg_;
  DataType result_;
  GrowArray<double> sums_;
  GrowArray<int64_t> counts_;
};

// ---- variance and standard deviation -------------------------------------------------------

template <typename In>
class VarianceState final : public AggState {
 public:
  VarianceState(const AggregateCall& call, const DataType& arg_type)
      : kind_(call.kind), divisor_(arg_type.is_decimal() ? std::pow(10.0, arg_type.scale) : 1.0) {}
  void Resize(int64_t groups) override {
    n_.resize(groups);
    mean_.resize(groups);
    m2_.resize(groups);
    Charge(HeapBytes(n_) + HeapBytes(mean_) + HeapBytes(m2_));
  }
  Status Update(const uint32_t* gids, const Column* arg, const int32_t* rows, int64_t n) override {
    const In* v = arg->values_as<In>();
    VisitRows(arg, rows, n, [&](int64_t r) {
      const uint32_t g = gids[r];
      const double x = static_cast<double>(v[r]) / divisor_;
      n_[g] += 1;
      const double delta = x - mean_[g];
      mean_[g] += delta / n_[g];
      m2_[g] += delta * (x - mean_[g]);
    });
    return Status::OK();
  }
  void Merge(const AggState& src, const uint32_t* sg, const uint32_t* dst, int64_t n) override {
    const auto& o = static_cast<const VarianceState&>(src);
    for (int64_t k = 0; k < n; ++k) {
      const uint32_t s = SrcGroup(sg, k);
      const uint32_t d = dst[k];
      if (o.n_[s] == 0) continue;
      if (n_[d] == 0) {
        n_[d] = o.n_[s];
        mean_[d] = o.mean_[s];
        m2_[d] = o.m2_[s];
        continue;
      }
      const double total = n_[d] + o.n_[s];
      const double delta = o.mean_[s] - mean_[d];
      mean_[d] += delta * o.n_[s] / total;
      m2_[d] += o.m2_[s] + delta * delta * n_[d] * o.n_[s] / total;
      n_[d] = total;
    }
  }
  Result<ColumnPtr> Finalize(int64_t groups) override {
    const bool sample = kind_ == AggregateKind::kVarSamp || kind_ == AggregateKind::kStddevSamp;
    const bool root = kind_ == AggregateKind::kStddevSamp || kind_ == AggregateKind::kStddevPop;
    return BuildFixed<double>(DataType::Float64(), groups, [&](int64_t g, double* v) {
      const double count = n_[g];
      if (count == 0 || (sample && count < 2)) return false;
      double var = m2_[g] / (sample ? count - 1 : count);
      if (var < 0) var = 0;
      *v = root ? std::sqrt(var) : var;
      return true;
    });
  }

 private:
  AggregateKind kind_;
  double divisor_;
  GrowArray<double> n_, mean_, m2_;
};

// ---- min, max, any_value -------------------------------------------------------------------

enum class PickMode { kMin, kMax, kAny };

template <typename T>
inline bool Less(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(b)) return !std::isnan(a);
    if (std::isnan(a)) return false;
  }
  return a < b;
}

template <PickMode kMode, typename T>
inline bool Better(T candidate, T current) {
  if constexpr (kMode == PickMode::kMin) return Less(candidate, current);
  if constexpr (kMode == PickMode::kMax) return Less(current, candidate);
  return false;
}

template <PickMode kMode, typename T>
class PickState final : public AggState {
 public:
  explicit PickState(const DataType& type) : type_(type) {}
  void Resize(int64_t groups) override {
    vals_.resize(groups);
    has_.resize(groups);
    Charge(HeapBytes(vals_) + HeapBytes(has_));
  }
  Status Update(const uint32_t* gids, const Column* arg, const int32_t* rows, int64_t n) override {
    const T* v = arg->values_as<T>();
    T* vals = vals_.data();
    uint8_t* has = has_.data();
    VisitRows(arg, rows, n, [&](int64_t r) {
      const uint32_t g = gids[r];
      if (!has[g] || Better<kMode>(v[r], vals[g])) {
        vals[g] = v[r];
        has[g] = 1;
      }
    });
    return Status::OK();
  }
  void Merge(const AggState& src, const uint32_t* sg, const uint32_t* dst, int64_t n) override {
    const auto& o = static_cast<const PickState&>(src);
    for (int64_t k = 0; k < n; ++k) {
      const uint32_t s = SrcGroup(sg, k);
      const uint32_t d = dst[k];
      if (o.has_[s] && (!has_[d] || Better<kMode>(o.vals_[s], vals_[d]))) {
        vals_[d] = o.vals_[s];
        has_[d] = 1;
      }
    }
  }
  Result<ColumnPtr> Finalize(int64_t groups) override {
    return BuildFixed<T>(type_, groups, [&](int64_t g, T* v) {
      *v = vals_[g];
      return has_[g] != 0;
    });
  }

 private:
  DataType type_;
  GrowArray<T> vals_;
  GrowArray<uint8_t> has_;
};

template <PickMode kMode>
class BoolPickState final : public AggState {
 public:
  void Resize(int64_t groups) override {
    vals_.resize(groups);  // 0 none, 1 false, 2 true
    Charge(HeapBytes(vals_));
  }
  Status Update(const uint32_t* gids, const Column* arg, const int32_t* rows, int64_t n) override {
    uint8_t* vals = vals_.data();
    const uint8_t* bits = arg->values()->data();
    VisitRows(arg, rows, n, [&](int64_t r) {
      const uint8_t x = bit_util::GetBit(bits, r) ? 2 : 1;
      Fold(&vals[gids[r]], x);
    });
    return Status::OK();
  }
  void Merge(const AggState& src, const uint32_t* sg, const uint32_t* dst, int64_t n) override {
    const auto& o = static_cast<const BoolPickState&>(src);
    for (int64_t k = 0; k < n; ++k) {
      const uint8_t x = o.vals_[SrcGroup(sg, k)];
      if (x) Fold(&vals_[dst[k]], x);
    }
  }
  Result<ColumnPtr> Finalize(int64_t groups) override {
    return BuildBool(groups, [&](int64_t g, bool* v) {
      *v = vals_[g] == 2;
      return vals_[g] != 0;
    });
  }

 private:
  static void Fold(uint8_t* cur, uint8_t x) {
    if (*cur == 0) {
      *cur = x;
    } else if constexpr (kMode == PickMode::kMin) {
      *cur = std::min(*cur, x);
    } else if constexpr (kMode == PickMode::kMax) {
      *cur = std::max(*cur, x);
    }
  }
  GrowArray<uint8_t> vals_;
};

template <PickMode kMode>
class StringPickState final : public AggState {
 public:
  explicit StringPickState(const DataType& type) : type_(type) {}
  void Resize(int64_t groups) override {
    vals_.resize(groups);
    has_.resize(groups);
    // The strings' own heap bytes are not counted (short ones live inside std::string).
    Charge(HeapBytes(vals_) + HeapBytes(has_));
  }
  Status Update(const uint32_t* gids, const Column* arg, const int32_t* rows, int64_t n) override {
    VisitRows(arg, rows, n, [&](int64_t r) { Fold(gids[r], arg->GetString(r)); });
    return Status::OK();
  }
  void Merge(const AggState& src, const uint32_t* sg, const uint32_t* dst, int64_t n) override {
    const auto& o = static_cast<const StringPickState&>(src);
    for (int64_t k = 0; k < n; ++k) {
      const uint32_t s = SrcGroup(sg, k);
      if (o.has_[s]) Fold(dst[k], o.vals_[s]);
    }
  }
  Result<ColumnPtr> Finalize(int64_t groups) override {
    int64_t bytes = 0;
    for (int64_t g = 0; g < groups; ++g) bytes += static_cast<int64_t>(vals_[g].size());
    const bool large = bytes > INT32_MAX;
    auto offsets = Buffer::Allocate((groups + 1) * (large ? 8 : 4));
    auto data = Buffer::Allocate(bytes);
    auto validity = Buffer::Allocate(bit_util::BytesForBits(groups));
    int64_t pos = 0;
    int64_t nulls = 0;
    for (int64_t g = 0; g <= groups; ++g) {
      if (large) {
        offsets->mutable_data_as<int64_t>()[g] = pos;
      } else {
        offsets->mutable_data_as<int32_t>()[g] = static_cast<int32_t>(pos);
      }
      if (g == groups) break;
      if (!has_[g]) {
        ++nulls;
        continue;
      }
      bit_util::SetBit(validity->mutable_data(), g);
      if (!vals_[g].empty()) {  // all empty: the data buffer has no bytes (nullptr)
        std::memcpy(data->mutable_data() + pos, vals_[g].data(), vals_[g].size());
      }
      pos += static_cast<int64_t>(vals_[g].size());
    }
    if (nulls == 0) validity.reset();
    return std::make_shared<Column>(type_, groups, nulls, validity, offsets, data, large);
  }

 private:
  void Fold(uint32_t g, std::string_view v) {
    bool take = !has_[g];
    if (!take && kMode == PickMode::kMin) take = v < std::string_view(vals_[g]);
    if (!take && kMode == PickMode::kMax) take = std::string_view(vals_[g]) < v;
    if (take) {
      vals_[g].assign(v.data(), v.size());
      has_[g] = 1;
    }
  }
  DataType type_;
  std::vector<std::string> vals_;
  GrowArray<uint8_t> has_;
};

template <PickMode kMode>
Result<std::unique_ptr<AggState>> MakePick(const DataType& t) {
  using Out = std::unique_ptr<AggState>;
  return VisitStorage(
      t, Overloaded{[](BoolTag) { return Out(new BoolPickState<kMode>()); },
                    [&](StringTag) { return Out(new StringPickState<kMode>(t)); },
                    [&]<typename T>(Tag<T>) { return Out(new PickState<kMode, T>(t)); }});
}

}  // namespace

Result<std::unique_ptr<AggState>> MakeAggState(const AggregateCall& call, const DataType& arg) {
  const std::string what = " of " + arg.ToString() + " in " + call.name;
  std::unique_ptr<AggState> out;
  switch (call.kind) {
    case AggregateKind::kCountStar:
      return std::unique_ptr<AggState>(new CountState(true));
    case AggregateKind::kCount:
      return std::unique_ptr<AggState>(new CountState(false));
    case AggregateKind::kSum:
    case AggregateKind::kAvg: {
      if (!(arg.is_integer() || arg.is_decimal() || arg.is_floating())) {
        return Status::Invalid("cannot aggregate" + what);
      }
      TANDEM_RETURN_NOT_OK(DispatchNumeric(arg, [&](auto tag) {
        using In = decltype(tag);
        if constexpr (std::is_floating_point_v<In>) {
          out.reset(new FloatSumState<In>(call));
        } else {
          out.reset(new ExactSumState<In>(call, arg));
        }
        return Status::OK();
      }));
      return out;
    }
    case AggregateKind::kStddevSamp:
    case AggregateKind::kStddevPop:
    case AggregateKind::kVarSamp:
    case AggregateKind::kVarPop: {
      if (!(arg.is_integer() || arg.is_decimal() || arg.is_floating())) {
        return Status::Invalid("cannot aggregate" + what);
      }
      TANDEM_RETURN_NOT_OK(DispatchNumeric(arg, [&](auto tag) {
        out.reset(new VarianceState<decltype(tag)>(call, arg));
        return Status::OK();
      }));
      return out;
    }
    case AggregateKind::kMin:
      return MakePick<PickMode::kMin>(arg);
    case AggregateKind::kMax:
      return MakePick<PickMode::kMax>(arg);
    case AggregateKind::kAnyValue:
      return MakePick<PickMode::kAny>(arg);
    case AggregateKind::kBoolAnd:
    case AggregateKind::kBoolOr:
      if (arg.id != TypeId::kBool) {
        return Status::Invalid("cannot aggregate" + what);
      }
      if (call.kind == AggregateKind::kBoolAnd) {
        return std::unique_ptr<AggState>(new BoolPickState<PickMode::kMin>());
      }
      return std::unique_ptr<AggState>(new BoolPickState<PickMode::kMax>());
  }
  return Status::Internal("unknown aggregate kind in " + call.name);
}

}  // namespace tandem::cpu::agg
