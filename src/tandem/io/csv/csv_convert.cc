// CSV value conversion and type inference. One tight loop per (column, type): the type switch
// happens once per column and chunk, never per value.
#include "tandem/io/csv/csv_convert.h"

#include <limits>
#include <type_traits>

#include "tandem/column/column_builder.h"
#include "tandem/io/csv/csv_value_parse.h"
#include "tandem/types/type_dispatch.h"

namespace tandem::csv::internal {
namespace {

// Decides whether a field is NULL: unquoted and equal to one of the markers.
class NullMatcher {
 public:
  explicit NullMatcher(const std::vector<std::string>& markers) : markers_(markers) {
    only_empty_ = markers.size() == 1 && markers[0].empty();
  }
  bool IsNull(const FieldRef& field, std::string_view text) const {
    if (field.flags & kFieldQuoted) return false;
    if (only_empty_) return text.empty();
    for (const std::string& m : markers_) {
      if (text == m) return true;
    }
    return false;
  }

 private:
  const std::vector<std::string>& markers_;
  bool only_empty_;
};

std::string Quoted(std::string_view text) {
  constexpr size_t kMax = 60;
  std::string out = "'";
  if (text.size() > kMax) {
    out.append(text.substr(0, kMax));
    out.append("...");
  } else {
    out.append(text);
  }
  out.push_back('\'');
  return out;
}

Status ParseError(const ConvertContext& ctx, const OutputColumn& column, int64_t line,
                  std::string_view text, const char* detail) {
  std::string msg = "file " + ctx.file_name + ", line " + std::to_string(line) + ", column " +
                    std::to_string(column.source_index + 1) + " (" + column.field.name +
                    "): cannot parse " + Quoted(text) + " as " + column.field.type.ToString();
  if (detail != nullptr) {
    msg += ": ";
    msg += detail;
  }
  return Status::Invalid(std::move(msg));
}

template <typename T>
bool ParseIntegerAs(std::string_view text, T* out) {
  if constexpr (std::is_signed_v<T>) {
    int64_t v;
    if (!ParseInt64(text, &v)) return false;
    if (v < std::numeric_limits<T>::min() || v > std::numeric_limits<T>::max()) return false;
    *out = static_cast<T>(v);
  } else {
    uint64_t v;
    if (!ParseUInt64(text, &v)) return false;
    if (v > std::numeric_limits<T>::max()) return false;
    *out = static_cast<T>(v);
  }
  return true;
}

// Fixed-width values: parse(text, T*, const char** detail) -> bool.
template <typename T, typename Parse>
Status ConvertFixed(const RowChunk& chunk, const OutputColumn& column, const ConvertContext& ctx,
                    ColumnBuilder* builder, Parse parse) {
  const int64_t n = chunk.rows.num_rows();
  const int nf = chunk.rows.num_fields;
  const char* block = chunk.block->data();
  NullMatcher nulls(ctx.null_markers);
  std::string scratch;
  T* out = reinterpret_cast<T*>(builder->AppendUninitialized(n));
  for (int64_t r = 0; r < n; ++r) {
    const FieldRef& f = chunk.rows.fields[r * nf + column.source_index];
    const std::string_view text = FieldText(block, f, ctx.dialect, &scratch);
    if (nulls.IsNull(f, text)) {
      out[r] = T{};
      builder->SetNull(r);
      continue;
    }
    const char* detail = nullptr;
    if (!parse(text, &out[r], &detail)) {
      return ParseError(ctx, column, chunk.rows.lines[r], text, detail);
    }
  }
  return Status::OK();
}

Status ConvertBool(const RowChunk& chunk, const OutputColumn& column, const ConvertContext& ctx,
                   ColumnBuilder* builder) {
  const int64_t n = chunk.rows.num_rows();
  const int nf = chunk.rows.num_fields;
  NullMatcher nulls(ctx.null_markers);
  std::string scratch;
  for (int64_t r = 0; r < n; ++r) {
    const FieldRef& f = chunk.rows.fields[r * nf + column.source_index];
    const std::string_view text = FieldText(chunk.block->data(), f, ctx.dialect, &scratch);
    bool v;
    if (nulls.IsNull(f, text)) {
      builder->AppendNull();
    } else if (ParseBool(text, true, &v)) {
      builder->AppendBool(v);
    } else {
      return ParseError(ctx, column, chunk.rows.lines[r], text, nullptr);
    }
  }
  return Status::OK();
}

Status ConvertString(const RowChunk& chunk, const OutputColumn& column, const ConvertContext& ctx,
                     ColumnBuilder* builder) {
  const int64_t n = chunk.rows.num_rows();
  const int nf = chunk.rows.num_fields;
  int64_t bytes = 0;
  for (int64_t r = 0; r < n; ++r) bytes += chunk.rows.fields[r * nf + column.source_index].size;
  builder->ReserveBytes(bytes);
  NullMatcher nulls(ctx.null_markers);
  std::string scratch;
  for (int64_t r = 0; r < n; ++r) {
    const FieldRef& f = chunk.rows.fields[r * nf + column.source_index];
    const std::string_view text = FieldText(chunk.block->data(), f, ctx.dialect, &scratch);
    if (nulls.IsNull(f, text)) {
      builder->AppendNull();
    } else {
      builder->AppendString(text);
    }
  }
  return Status::OK();
}

Status ConvertColumn(const RowChunk& chunk, const OutputColumn& column, const ConvertContext& ctx,
                     ColumnBuilder* b) {
  const DataType type = column.field.type;
  if (type.id == TypeId::kDecimal) {
    const int precision = type.precision;
    const int scale = type.scale;
    if (type.is_wide_decimal()) {
      return ConvertFixed<int128_t>(chunk, column, ctx, b,
                                    [=](std::string_view s, int128_t* out, const char** detail) {
                                      *detail = ParseDecimal(s, precision, scale, out);
                                      return *detail == nullptr;
                                    });
    }
    return ConvertFixed<int64_t>(chunk, column, ctx, b,
                                 [=](std::string_view s, int64_t* out, const char** detail) {
                                   int128_t v = 0;
                                   *detail = ParseDecimal(s, precision, scale, &v);
                                   *out = static_cast<int64_t>(v);
                                   return *detail == nullptr;
                                 });
  }
  if (type.id == TypeId::kDate32) {
    return ConvertFixed<int32_t>(
        chunk, column, ctx, b,
        [](std::string_view s, int32_t* out, const char**) { return ParseDate(s, out); });
  }
  if (type.id == TypeId::kTimestamp) {
    const bool utc = type.utc;
    return ConvertFixed<int64_t>(chunk, column, ctx, b,
                                 [=](std::string_view s, int64_t* out, const char** detail) {
                                   bool has_zone = false;
                                   if (!ParseTimestamp(s, out, &has_zone)) return false;
                                   if (has_zone && !utc) {
                                     *detail = "a time zone in a column without one";
                                     return false;
                                   }
                                   return true;
                                 });
  }
  // The other types by how their values are stored: integers, floats, booleans, strings.
  return VisitStorage(
      type,
      Overloaded{[&](BoolTag) { return ConvertBool(chunk, column, ctx, b); },
                 [&](StringTag) { return ConvertString(chunk, column, ctx, b); },
                 [&](auto tag) -> Status {
                   using T = typename decltype(tag)::type;
                   if constexpr (std::is_same_v<T, float>) {
                     return ConvertFixed<float>(chunk, column, ctx, b,
                                                [](std::string_view s, float* out, const char**) {
                                                  return ParseFloat(s, out);
                                                });
                   } else if constexpr (std::is_same_v<T, double>) {
                     return ConvertFixed<double>(chunk, column, ctx, b,
                                                 [](std::string_view s, double* out, const char**) {
                                                   return ParseDouble(s, out);
                                                 });
                   } else if constexpr (std::is_integral_v<T>) {
                     return ConvertFixed<T>(chunk, column, ctx, b,
                                            [](std::string_view s, T* out, const char**) {
                                              return ParseIntegerAs<T>(s, out);
                                            });
                   } else {
                     return Status::Internal("CSV conversion: unknown type " + type.ToString());
                   }
                 }});
}

enum Candidate : unsigned {
  kCandBool = 1,
  kCandInt64 = 2,
  kCandFloat64 = 4,
  kCandDate = 8,
  kCandTimestamp = 16,
  kCandAll = 31,
};

}  // namespace

Result<BatchPtr> ConvertChunk(const RowChunk& chunk, const ConvertContext& ctx) {
  auto batch = std::make_shared<Batch>();
  batch->schema = ctx.schema;
  batch->num_rows = chunk.rows.num_rows();
  for (const OutputColumn& column : ctx.columns) {
    ColumnBuilder builder(column.field.type, batch->num_rows);
    TANDEM_RETURN_NOT_OK(ConvertColumn(chunk, column, ctx, &builder));
    batch->columns.push_back(builder.Finish());
  }
  return batch;
}

DataType InferColumnType(const std::deque<RowChunk>& sample, int source_index, int64_t max_rows,
                         const ConvertContext& ctx) {
  unsigned candidates = kCandAll;
  bool any_value = false;
  bool any_zone = false;
  int64_t seen = 0;
  NullMatcher nulls(ctx.null_markers);
  std::string scratch;
  for (const RowChunk& chunk : sample) {
    const int nf = chunk.rows.num_fields;
    for (int64_t r = 0; r < chunk.rows.num_rows() && seen < max_rows && candidates; ++r, ++seen) {
      const FieldRef& f = chunk.rows.fields[r * nf + source_index];
      const std::string_view text = FieldText(chunk.block->data(), f, ctx.dialect, &scratch);
      if (nulls.IsNull(f, text)) continue;
      any_value = true;
      bool b;
      int64_t i;
      double d;
      int32_t day;
      int64_t ts;
      bool zone = false;
      if ((candidates & kCandBool) && !ParseBool(text, false, &b)) candidates &= ~kCandBool;
      if ((candidates & kCandInt64) && !ParseInt64(text, &i)) candidates &= ~kCandInt64;
      if ((candidates & kCandFloat64) && !ParseDouble(text, &d)) candidates &= ~kCandFloat64;
      if ((candidates & kCandDate) && !ParseDate(text, &day)) candidates &= ~kCandDate;
      if (candidates & kCandTimestamp) {
        if (!ParseTimestamp(text, &ts, &zone)) {
          candidates &= ~kCandTimestamp;
        } else {
          any_zone |= zone;
        }
      }
    }
  }
  if (!any_value) return DataType::String();
  if (candidates & kCandBool) return DataType::Bool();
  if (candidates & kCandInt64) return DataType::Int64();
  if (candidates & kCandFloat64) return DataType::Float64();
  if (candidates & kCandDate) return DataType::Date32();
  if (candidates & kCandTimestamp) return DataType::Timestamp(any_zone);
  return DataType::String();
}

}  // namespace tandem::csv::internal
