// SUM/AVG/COUNT/MIN/MAX over window frames in O(n log n) or better: COUNT, SUM and AVG of
// integers and decimals from exact int128 prefix sums; float SUM and AVG never subtract (an inf or
// a huge value leaving a sliding frame must not poison or swamp later frames): NaN, +inf and -inf
// are prefix-counted and the finite values summed in long double, by a running sum per partition
// when every frame starts at its partition's start, else by a segment tree. MIN and MAX come from
// a running best or a segment tree of row indexes. Results are in the layout's sorted order (see
// window_functions.h).
#include <cmath>
#include <cstring>
#include <limits>
#include <string_view>
#include <type_traits>

#include "tandem/column/column_builder.h"
#include "tandem/column/take.h"
#include "tandem/exec/cpu/window_functions.h"
#include "tandem/types/decimal_core.h"
#include "tandem/types/type_dispatch.h"

namespace tandem::cpu {
namespace {

// Integer, unscaled decimal, date (days) or timestamp (microseconds) value of row i as int128;
// 0 for floats and strings.
int128_t ExactValue(const Column& c, int64_t i) {
  auto exact = Overloaded{[&](BoolTag) -> int128_t { return c.GetBool(i); },
                          [&](StringTag) -> int128_t { return 0; },
                          [&]<typename T>(Tag<T>) -> int128_t {
                            if constexpr (std::is_floating_point_v<T>) {
                              return 0;
                            } else {
                              return c.Value<T>(i);
                            }
                          }};
  return VisitStorage(c.type(), exact);
}

long double FloatValue(const Column& c, int64_t i) {
  return c.type().id == TypeId::kFloat32 ? c.Value<float>(i) : c.Value<double>(i);
}

bool FramesAnchored(const WindowLayout& L, const std::vector<int64_t>& fs) {
  for (int64_t i = 0; i < L.size(); ++i) {
    if (fs[i] != L.part_start[i]) return false;
  }
  return true;
}

// SUM of each frame's non-NULL float values with IEEE semantics: NaN if the frame holds a NaN or
// both infinities, +-inf if it holds only that infinity, else the sum of its finite values.
std::vector<long double> FloatFrameSums(const Column& arg, const WindowLayout& L,
                                        const std::vector<int64_t>& fs,
                                        const std::vector<int64_t>& fe) {
  const int64_t n = L.size();
  std::vector<long double> finite(static_cast<size_t>(n), 0);
  bool any_special = false;
  for (int64_t i = 0; i < n; ++i) {
    if (!arg.IsValid(i)) continue;
    const long double v = FloatValue(arg, i);
    if (std::isfinite(v)) {
      finite[i] = v;
    } else {
      any_special = true;
    }
  }
  // Prefix counts of NaN, +inf and -inf (only when there are any).
  std::vector<int64_t> nans, pinfs, ninfs;
  if (any_special) {
    nans.assign(static_cast<size_t>(n + 1), 0);
    pinfs.assign(static_cast<size_t>(n + 1), 0);
    ninfs.assign(static_cast<size_t>(n + 1), 0);
    for (int64_t i = 0; i < n; ++i) {
      long double v = 0;
      if (arg.IsValid(i)) v = FloatValue(arg, i);
      nans[i + 1] = nans[i] + (std::isnan(v) ? 1 : 0);
      pinfs[i + 1] = pinfs[i] + (std::isinf(v) && v > 0 ? 1 : 0);
      ninfs[i + 1] = ninfs[i] + (std::isinf(v) && v < 0 ? 1 : 0);
    }
  }
  std::vector<long double> out(static_cast<size_t>(n), 0);
  if (FramesAnchored(L, fs)) {  // running sum restarting at each partition: frame = [ps, fe)
    std::vector<long double> running(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      running[i] = (i == L.part_start[i] ? 0 : running[i - 1]) + finite[i];
    }
    for (int64_t i = 0; i < n; ++i) out[i] = fe[i] > fs[i] ? running[fe[i] - 1] : 0;
  } else {  // segment tree over the finite values: O(log n) per frame, no cancellation
    std::vector<long double> tree(static_cast<size_t>(2 * n), 0);
    for (int64_t i = 0; i < n; ++i) tree[n + i] = finite[i];
    for (int64_t i = n - 1; i > 0; --i) tree[i] = tree[2 * i] + tree[2 * i + 1];
    for (int64_t i = 0; i < n; ++i) {
      long double left = 0, right = 0;  // added in frame order: left part, then right part
      for (int64_t l = fs[i] + n, r = fe[i] + n; l < r; l >>= 1, r >>= 1) {
        if (l & 1) left += tree[l++];
        if (r & 1) right = tree[--r] + right;
      }
      out[i] = left + right;
    }
  }
  if (any_special) {
    for (int64_t i = 0; i < n; ++i) {
      const int64_t s = fs[i], e = fe[i];
      out[i] = FloatFrameValue(out[i], nans[e] > nans[s], pinfs[e] > pinfs[s], ninfs[e] > ninfs[s]);
    }
  }
  return out;
}

// Best (min or max) row index per frame. Better(a, b): a's value is strictly better than b's.
template <typename Better>
std::vector<int64_t> BestIndexes(const Column& arg, const WindowLayout& L,
                                 const std::vector<int64_t>& fs, const std::vector<int64_t>& fe,
                                 Better better) {
  const int64_t n = L.size();
  std::vector<int64_t> out(static_cast<size_t>(n), -1);
  auto pick = [&](int64_t a, int64_t b) {  // -1 = none; NULLs never win
    if (a < 0) return b;
    if (b < 0) return a;
    return better(b, a) ? b : a;
  };
  auto valid = [&](int64_t i) { return arg.IsValid(i) ? i : int64_t{-1}; };
  if (FramesAnchored(L, fs)) {  // running best within each partition
    std::vector<int64_t> running(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      running[i] = i == L.part_start[i] ? valid(i) : pick(running[i - 1], valid(i));
    }
    for (int64_t i = 0; i < n; ++i) out[i] = fe[i] > fs[i] ? running[fe[i] - 1] : -1;
    return out;
  }
  std::vector<int64_t> tree(static_cast<size_t>(2 * n), -1);
  for (int64_t i = 0; i < n; ++i) tree[n + i] = valid(i);
  for (int64_t i = n - 1; i > 0; --i) tree[i] = pick(tree[2 * i], tree[2 * i + 1]);
  for (int64_t i = 0; i < n; ++i) {
    int64_t best = -1;
    for (int64_t l = fs[i] + n, r = fe[i] + n; l < r; l >>= 1, r >>= 1) {
      if (l & 1) best = pick(best, tree[l++]);
      if (r & 1) best = pick(best, tree[--r]);
    }
    out[i] = best;
  }
  return out;
}

Result<ColumnPtr> MinMax(const WindowCall& call, const Column& arg, const WindowLayout& L,
                         const std::vector<int64_t>& fs, const std::vector<int64_t>& fe) {
  const bool is_min = call.aggregate == AggregateKind::kMin;
  std::vector<int64_t> idx;
  const DataType& t = arg.type();
  if (t.is_string_like()) {
    idx = BestIndexes(arg, L, fs, fe, [&](int64_t a, int64_t b) {
      const int c = arg.GetString(a).compare(arg.GetString(b));
      return is_min ? c < 0 : c > 0;
    });
  } else if (t.is_floating()) {
    auto key = [&](int64_t i) {  // ordered bits: NaN above every number, -0.0 == 0.0
      double d = t.id == TypeId::kFloat32 ? arg.Value<float>(i) : arg.Value<double>(i);
      if (d == 0) d = 0;
      uint64_t u = 0x7FF8000000000000ULL;
      if (!std::isnan(d)) std::memcpy(&u, &d, 8);
      return (u >> 63) ? ~u : (u | (1ULL << 63));
    };
    idx = BestIndexes(arg, L, fs, fe, [&](int64_t a, int64_t b) {
      return is_min ? key(a) < key(b) : key(a) > key(b);
    });
  } else {
    idx = BestIndexes(arg, L, fs, fe, [&](int64_t a, int64_t b) {
      const int128_t x = ExactValue(arg, a), y = ExactValue(arg, b);
      return is_min ? x < y : x > y;
    });
  }
  return Take(arg, idx.data(), L.size());
}

}  // namespace

Result<ColumnPtr> ComputeWindowAggregate(const WindowCall& call, const WindowLayout& L,
                                         const std::vector<ColumnPtr>& args,
                                         const std::vector<int64_t>& fs,
                                         const std::vector<int64_t>& fe) {
  const int64_t n = L.size();
  const AggregateKind kind = call.aggregate;
  if (kind == AggregateKind::kCountStar) {
    std::vector<int64_t> out(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) out[i] = fe[i] - fs[i];
    return WindowIntColumn(call.type, out);
  }
  if (args.empty()) {
    return Status::Invalid(std::string(AggregateKindName(kind)) + " OVER needs an argument");
  }
  const Column& arg = *args[0];
  if (kind == AggregateKind::kMin || kind == AggregateKind::kMax) {
    return MinMax(call, arg, L, fs, fe);
  }
  // Prefix counts of non-NULL values.
  std::vector<int64_t> count(static_cast<size_t>(n + 1), 0);
  for (int64_t i = 0; i < n; ++i) count[i + 1] = count[i] + (arg.IsValid(i) ? 1 : 0);
  if (kind == AggregateKind::kCount) {
    std::vector<int64_t> out(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) out[i] = count[fe[i]] - count[fs[i]];
    return WindowIntColumn(call.type, out);
  }
  if (kind != AggregateKind::kSum && kind != AggregateKind::kAvg) {
    return Status::Unsupported(std::string(AggregateKindName(kind)) + " as a window function");
  }
  ColumnBuilder b(call.type, n);
  const DataType& t = arg.type();
  if (t.is_floating()) {
    const std::vector<long double> sum = FloatFrameSums(arg, L, fs, fe);
    for (int64_t i = 0; i < n; ++i) {
      const int64_t c = count[fe[i]] - count[fs[i]];
      if (c == 0) {
        b.AppendNull();
        continue;
      }
      const long double s = sum[i];
      b.Append<double>(static_cast<double>(kind == AggregateKind::kAvg ? s / c : s));
    }
    return b.Finish();
  }
  if (!t.is_integer() && !t.is_decimal()) {
    return Status::Invalid(std::string("cannot ") + AggregateKindName(kind) + " " + t.ToString());
  }
  std::vector<int128_t> sum(static_cast<size_t>(n + 1), 0);
  for (int64_t i = 0; i < n; ++i) sum[i + 1] = sum[i] + (arg.IsValid(i) ? ExactValue(arg, i) : 0);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t c = count[fe[i]] - count[fs[i]];
    if (c == 0) {
      b.AppendNull();
      continue;
    }
    TANDEM_RETURN_NOT_OK(AppendExactSumOrAverage(call, t, sum[fe[i]] - sum[fs[i]], c, &b));
  }
  return b.Finish();
}

Status AppendExactSumOrAverage(const WindowCall& call, const DataType& arg_type, int128_t sum,
                               int64_t count, ColumnBuilder* out) {
  const AggregateKind kind = call.aggregate;
  const DataType& rt = call.type;
  int128_t v = sum;
  if (kind == AggregateKind::kAvg) {
    if (rt.id == TypeId::kFloat64) {
      double d = static_cast<double>(sum) / static_cast<double>(count);
      if (arg_type.is_decimal()) d /= static_cast<double>(decimal::Pow10(arg_type.scale));
      out->Append<double>(d);
      return Status::OK();
    }
    const int shift = rt.is_decimal() && arg_type.is_decimal() ? rt.scale - arg_type.scale : 0;
    // Exact through 256 bits (types/decimal_core.h), rounded half away from zero.
    if (!decimal::DivideScaled(sum, std::max(shift, 0), count, &v)) {
      return Status::Invalid(call.name + ": integer overflow in window " + AggregateKindName(kind));
    }
  }
  if (rt.id == TypeId::kFloat64) {
    out->Append<double>(static_cast<double>(v));
  } else if (rt.is_wide_decimal()) {
    out->Append<int128_t>(v);
  } else {
    if (v > INT64_MAX || v < INT64_MIN) {
      return Status::Invalid(call.name + ": integer overflow in window " + AggregateKindName(kind));
    }
    out->Append<int64_t>(static_cast<int64_t>(v));
  }
  return Status::OK();
}

long double FloatFrameValue(long double finite_sum, bool nan, bool pinf, bool ninf) {
  if (nan || (pinf && ninf)) return std::numeric_limits<long double>::quiet_NaN();
  if (pinf) return std::numeric_limits<long double>::infinity();
  if (ninf) return -std::numeric_limits<long double>::infinity();
  return finite_sum;
}

int128_t WindowExactValue(const Column& c, int64_t i) { return ExactValue(c, i); }
long double WindowFloatValue(const Column& c, int64_t i) { return FloatValue(c, i); }

}  // namespace tandem::cpu
