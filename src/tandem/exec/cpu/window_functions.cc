// Ranking (ROW_NUMBER, RANK, DENSE_RANK, PERCENT_RANK, CUME_DIST, NTILE) and navigation (LAG,
// LEAD, FIRST_VALUE, LAST_VALUE, NTH_VALUE) window functions (see window_functions.h).
#include "tandem/exec/cpu/window_functions.h"

#include "tandem/column/column_builder.h"
#include "tandem/column/take.h"
#include "tandem/memory/buffer.h"

namespace tandem::cpu {
namespace {

// A constant integer argument (the value of its first row), or `fallback` when absent.
Result<int64_t> ConstantIntArg(const std::vector<ColumnPtr>& args, size_t i, int64_t fallback,
                               const char* what) {
  if (args.size() <= i || args[i]->length() == 0) return fallback;
  const Value v = GetValue(*args[i], 0);
  if (v.is_null) return Status::Invalid(std::string(what) + " must not be NULL");
  if (!v.type.is_integer()) return Status::Invalid(std::string(what) + " must be an integer");
  return v.i64;
}

// Values at idx (-1: the default column's value at that position, or NULL).
ColumnPtr TakeWithDefault(const Column& values, const std::vector<int64_t>& idx,
                          const Column* fallback) {
  const int64_t n = static_cast<int64_t>(idx.size());
  if (!fallback) return Take(values, idx.data(), n);
  ColumnBuilder b(values.type(), n);
  for (int64_t i = 0; i < n; ++i) {
    if (idx[i] >= 0) {
      b.AppendFrom(values, idx[i]);
    } else {
      b.AppendFrom(*fallback, i);
    }
  }
  return b.Finish();
}

// A column of n values of `type` (int32, float64, else int64) without NULLs, value i being
// value_of(i) converted: written straight into the column's buffer.
template <typename ValueOf>
ColumnPtr IntColumnOf(const DataType& type, int64_t n, const ValueOf& value_of) {
  auto fill = [&](auto zero) {
    using T = decltype(zero);
    std::shared_ptr<Buffer> values = Buffer::AllocateUninitialized(n * int64_t{sizeof(T)});
    T* out = values->mutable_data_as<T>();
    for (int64_t i = 0; i < n; ++i) out[i] = static_cast<T>(value_of(i));
    return std::make_shared<Column>(type, n, 0, nullptr, std::move(values));
  };
  switch (type.id) {
    case TypeId::kInt32:
      return fill(int32_t{0});
    case TypeId::kFloat64:
      return fill(double{0});
    default:
      return fill(int64_t{0});
  }
}

}  // namespace

ColumnPtr WindowIntColumn(const DataType& type, const std::vector<int64_t>& values) {
  return IntColumnOf(type, static_cast<int64_t>(values.size()),
                     [&](int64_t i) { return values[static_cast<size_t>(i)]; });
}

ColumnPtr WindowDoubleColumn(const std::vector<double>& values) {
  return IntColumnOf(DataType::Float64(), static_cast<int64_t>(values.size()),
                     [&](int64_t i) { return values[static_cast<size_t>(i)]; });
}

Result<ColumnPtr> ComputeWindowFunction(const WindowCall& call, const WindowLayout& L,
                                        const std::vector<ColumnPtr>& args,
                                        const std::vector<int64_t>& fs,
                                        const std::vector<int64_t>& fe) {
  const int64_t n = L.size();
  // Indexes of the rows whose values LAG, LEAD and the value picks take (-1: none).
  std::vector<int64_t> out;
  switch (call.kind) {
    case WindowFunctionKind::kRowNumber:
      return IntColumnOf(call.type, n, [&](int64_t i) { return i - L.part_start[i] + 1; });
    case WindowFunctionKind::kRank:
      return IntColumnOf(call.type, n,
                         [&](int64_t i) { return L.peer_start[i] - L.part_start[i] + 1; });
    case WindowFunctionKind::kDenseRank: {
      int64_t rank = 0;  // the rows are filled in order
      return IntColumnOf(call.type, n, [&](int64_t i) {
        if (i == L.part_start[i]) rank = 0;
        if (i == L.peer_start[i]) ++rank;
        return rank;
      });
    }
    case WindowFunctionKind::kPercentRank:
    case WindowFunctionKind::kCumeDist: {
      const bool cume = call.kind == WindowFunctionKind::kCumeDist;
      return IntColumnOf(DataType::Float64(), n, [&](int64_t i) {
        const double size = static_cast<double>(L.part_end[i] - L.part_start[i]);
        if (cume) return static_cast<double>(L.peer_end[i] - L.part_start[i]) / size;
        return size > 1 ? static_cast<double>(L.peer_start[i] - L.part_start[i]) / (size - 1) : 0.0;
      });
    }
    case WindowFunctionKind::kNtile: {
      TANDEM_ASSIGN_OR_RAISE(int64_t buckets, ConstantIntArg(args, 0, 1, "NTILE bucket count"));
      if (buckets <= 0) return Status::Invalid("NTILE bucket count must be positive");
      return IntColumnOf(call.type, n, [&](int64_t i) {
        const int64_t size = L.part_end[i] - L.part_start[i];
        const int64_t j = i - L.part_start[i];
        const int64_t q = size / buckets, r = size % buckets;
        return j < r * (q + 1) ? j / (q + 1) + 1 : r + (j - r * (q + 1)) / q + 1;
      });
    }
    case WindowFunctionKind::kLag:
    case WindowFunctionKind::kLead: {
      out.resize(static_cast<size_t>(n));
      if (args.empty()) return Status::Invalid("LAG/LEAD needs a value argument");
      TANDEM_ASSIGN_OR_RAISE(int64_t offset, ConstantIntArg(args, 1, 1, "LAG/LEAD offset"));
      if (call.kind == WindowFunctionKind::kLag) offset = -offset;
      for (int64_t i = 0; i < n; ++i) {
        const int64_t j = i + offset;
        out[i] = (j >= L.part_start[i] && j < L.part_end[i]) ? j : -1;
      }
      const Column* fallback = args.size() > 2 ? args[2].get() : nullptr;
      if (fallback && fallback->type() != args[0]->type()) {
        return Status::Internal("LAG/LEAD default type " + fallback->type().ToString() +
                                " differs from the value type " + args[0]->type().ToString());
      }
      return TakeWithDefault(*args[0], out, fallback);
    }
    case WindowFunctionKind::kFirstValue:
    case WindowFunctionKind::kLastValue:
    case WindowFunctionKind::kNthValue: {
      if (args.empty()) return Status::Invalid("FIRST_VALUE/LAST_VALUE/NTH_VALUE needs a value");
      out.resize(static_cast<size_t>(n));
      int64_t nth = 1;
      if (call.kind == WindowFunctionKind::kNthValue) {
        TANDEM_ASSIGN_OR_RAISE(nth, ConstantIntArg(args, 1, 1, "NTH_VALUE position"));
        if (nth <= 0) return Status::Invalid("NTH_VALUE position must be positive");
      }
      for (int64_t i = 0; i < n; ++i) {
        if (fs[i] >= fe[i]) {
          out[i] = -1;
        } else if (call.kind == WindowFunctionKind::kLastValue) {
          out[i] = fe[i] - 1;
        } else {
          out[i] = fe[i] - fs[i] >= nth ? fs[i] + nth - 1 : -1;
        }
      }
      return Take(*args[0], out.data(), n);
    }
    case WindowFunctionKind::kAggregate:
      return ComputeWindowAggregate(call, L, args, fs, fe);
  }
  return Status::Internal("unknown window function");
}

}  // namespace tandem::cpu
