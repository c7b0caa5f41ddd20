// Statistics decoding and row-group pruning. Decoding maps each Parquet encoding of a bound
// (PLAIN little-endian numbers, big-endian two's-complement decimals, raw bytes) into the Tandem
// storage domain; pruning compares predicate constants with those bounds, conservatively.
#include "tandem/io/parquet/statistics.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace tandem::parquet {
namespace {

using int128 = __int128;

template <typename T>
std::optional<T> LoadLittleEndian(const std::string& bytes) {
  if (bytes.size() != sizeof(T)) return std::nullopt;
  T v;
  std::memcpy(&v, bytes.data(), sizeof(T));
  return v;
}

// Big-endian two's complement of 1..16 bytes (longer only when the extra bytes are sign fill).
std::optional<int128> LoadBigEndianSigned(const std::string& bytes) {
  if (bytes.empty()) return std::nullopt;
  size_t skip = 0;
  const bool negative = static_cast<uint8_t>(bytes[0]) & 0x80;
  while (bytes.size() - skip > 16) {
    if (static_cast<uint8_t>(bytes[skip]) != (negative ? 0xFF : 0x00)) return std::nullopt;
    ++skip;
  }
  uint128_t v = negative ? ~uint128_t{0} : 0;
  for (size_t i = skip; i < bytes.size(); ++i) v = (v << 8) | static_cast<uint8_t>(bytes[i]);
  return static_cast<int128>(v);
}

double HalfToDouble(uint16_t h) {
  const int sign = h >> 15;
  const int exponent = (h >> 10) & 0x1F;
  const int mantissa = h & 0x3FF;
  double v;
  if (exponent == 0) {
    v = std::ldexp(mantissa, -24);
  } else if (exponent == 31) {
    v = mantissa ? std::numeric_limits<double>::quiet_NaN()
                 : std::numeric_limits<double>::infinity();
  } else {
    v = std::ldexp(mantissa + 1024, exponent - 25);
  }
  return sign ? -v : v;
}

enum class TimeUnitScale { kMillis, kMicros, kNanos, kNone };

TimeUnitScale TimestampUnit(const SchemaElement& leaf) {
  if (leaf.logical_type && leaf.logical_type->kind == LogicalType::Kind::kTimestamp) {
    switch (leaf.logical_type->unit) {
      case LogicalType::TimeUnit::kMillis:
        return TimeUnitScale::kMillis;
      case LogicalType::TimeUnit::kMicros:
        return TimeUnitScale::kMicros;
      case LogicalType::TimeUnit::kNanos:
        return TimeUnitScale::kNanos;
    }
  }
  if (leaf.converted_type == ConvertedType::TIMESTAMP_MILLIS) return TimeUnitScale::kMillis;
  if (leaf.converted_type == ConvertedType::TIMESTAMP_MICROS) return TimeUnitScale::kMicros;
  return TimeUnitScale::kNone;
}

bool IsFloat16(const SchemaElement& leaf) {
  return leaf.logical_type && leaf.logical_type->kind == LogicalType::Kind::kFloat16;
}

// One bound; is_max picks the rounding direction where a conversion loses precision.
std::optional<StatValue> DecodeBound(const std::string& bytes, const SchemaElement& leaf,
                                     const DataType& type, bool is_max) {
  if (!leaf.type) return std::nullopt;
  const PhysicalType physical = *leaf.type;
  switch (physical) {
    case PhysicalType::BOOLEAN:
      if (bytes.size() != 1 || type.id != TypeId::kBool) return std::nullopt;
      return StatValue(int128{bytes[0] != 0});
    case PhysicalType::INT32: {
      auto v = LoadLittleEndian<int32_t>(bytes);
      if (!v) return std::nullopt;
      if (type.is_floating() || type.is_string_like() || type.id == TypeId::kBool) {
        return std::nullopt;
      }
      if (type.is_unsigned()) return StatValue(int128{static_cast<uint32_t>(*v)});
      return StatValue(int128{*v});
    }
    case PhysicalType::INT64: {
      auto v = LoadLittleEndian<int64_t>(bytes);
      if (!v) return std::nullopt;
      if (type.is_floating() || type.is_string_like() || type.id == TypeId::kBool) {
        return std::nullopt;
      }
      if (type.is_unsigned()) return StatValue(int128{static_cast<uint64_t>(*v)});
      if (type.id == TypeId::kTimestamp) {
        int128 x = *v;
        switch (TimestampUnit(leaf)) {
          case TimeUnitScale::kMillis:
            x *= 1000;
            break;
          case TimeUnitScale::kMicros:
            break;
          case TimeUnitScale::kNanos: {
            int128 q = x / 1000, r = x % 1000;
            if (r != 0 && (x < 0) != is_max) q += is_max ? 1 : -1;  // floor for min, ceil for max
            x = q;
            break;
          }
          case TimeUnitScale::kNone:
            return std::nullopt;
        }
        return StatValue(x);
      }
      return StatValue(int128{*v});
    }
    case PhysicalType::INT96:
      return std::nullopt;  // sort order undefined by the spec
    case PhysicalType::FLOAT: {
      auto v = LoadLittleEndian<float>(bytes);
      if (!v || !type.is_floating()) return std::nullopt;
      return StatValue(double{*v});
    }
    case PhysicalType::DOUBLE: {
      auto v = LoadLittleEndian<double>(bytes);
      if (!v || !type.is_floating()) return std::nullopt;
      return StatValue(*v);
    }
    case PhysicalType::BYTE_ARRAY:
    case PhysicalType::FIXED_LEN_BYTE_ARRAY:
      if (type.is_decimal()) {
        auto v = LoadBigEndianSigned(bytes);
        if (!v) return std::nullopt;
        return StatValue(*v);
      }
      if (IsFloat16(leaf)) {
        if (bytes.size() != 2 || !type.is_floating()) return std::nullopt;
        uint16_t h = static_cast<uint8_t>(bytes[0]) | (static_cast<uint8_t>(bytes[1]) << 8);
        return StatValue(HalfToDouble(h));
      }
      if (type.is_string_like()) return StatValue(bytes);
      return std::nullopt;
  }
  return std::nullopt;
}

// Whether the deprecated (signed-order) min/max may be used for this column.
bool DeprecatedOrderIsSafe(const SchemaElement& leaf, const DataType& type) {
  if (!leaf.type) return false;
  switch (*leaf.type) {
    case PhysicalType::BOOLEAN:
    case PhysicalType::INT32:
    case PhysicalType::INT64:
    case PhysicalType::FLOAT:
    case PhysicalType::DOUBLE:
      return !type.is_unsigned();
    default:
      return false;
  }
}

int Compare(const StatValue& a, const StatValue& b) {
  if (a.index() != b.index()) return 0;  // not reached: callers convert first
  if (auto* x = std::get_if<int128>(&a)) {
    const int128 y = std::get<int128>(b);
    return *x < y ? -1 : (*x > y ? 1 : 0);
  }
  if (auto* x = std::get_if<double>(&a)) {
    const double y = std::get<double>(b);
    return *x < y ? -1 : (*x > y ? 1 : 0);
  }
  if (auto* x = std::get_if<std::string>(&a)) {
    const int c = x->compare(std::get<std::string>(b));  // bytewise, unsigned (memcmp)
    return c < 0 ? -1 : (c > 0 ? 1 : 0);
  }
  return 0;
}

// The predicate constant in the bounds' domain, or monostate when it cannot be compared safely.
StatValue ConstantFor(const ScanPredicate& predicate, const DataType& type) {
  const auto& v = predicate.value;
  if (type.is_floating()) {
    if (auto* d = std::get_if<double>(&v)) return *d;
    constexpr int64_t kExact = int64_t{1} << 53;
    if (auto* i = std::get_if<int64_t>(&v); i && *i >= -kExact && *i <= kExact) {
      return static_cast<double>(*i);
    }
    return {};
  }
  if (type.is_string_like()) {
    if (auto* s = std::get_if<std::string>(&v)) return *s;
    return {};
  }
  if (auto* i = std::get_if<int64_t>(&v)) return int128{*i};
  if (auto* i = std::get_if<int128>(&v)) return *i;
  return {};
}

}  // namespace

ColumnStatistics DecodeStatistics(const Statistics& stats, const SchemaElement& leaf,
                                  const DataType& type) {
  ColumnStatistics out;
  if (stats.null_count && *stats.null_count >= 0) out.null_count = stats.null_count;
  if (stats.distinct_count && *stats.distinct_count >= 0) out.distinct_count = stats.distinct_count;
  std::optional<StatValue> min, max;
  if (stats.min_value && stats.max_value) {
    min = DecodeBound(*stats.min_value, leaf, type, false);
    max = DecodeBound(*stats.max_value, leaf, type, true);
  } else if (stats.min && stats.max && DeprecatedOrderIsSafe(leaf, type)) {
    min = DecodeBound(*stats.min, leaf, type, false);
    max = DecodeBound(*stats.max, leaf, type, true);
    out.from_deprecated_fields = true;
  }
  if (!min || !max) {
    out.from_deprecated_fields = false;
    return out;
  }
  if (auto* lo = std::get_if<double>(&*min)) {
    double hi = std::get<double>(*max);
    if (std::isnan(*lo) || std::isnan(hi)) {
      out.from_deprecated_fields = false;
      return out;
    }
    // The spec: a +0 minimum may hide -0 values and a -0 maximum may hide +0 values.
    if (*lo == 0.0) min = StatValue(-0.0);
    if (hi == 0.0) max = StatValue(0.0);
  }
  if (Compare(*min, *max) > 0) {  // inconsistent bounds: trust neither
    out.from_deprecated_fields = false;
    return out;
  }
  out.min = std::move(min);
  out.max = std::move(max);
  return out;
}

bool BoundsMayMatch(const ColumnStatistics& stats, int64_t num_values, const DataType& type,
                    const ScanPredicate& predicate) {
  using Op = ScanPredicate::Op;
  const bool all_null = stats.null_count && num_values >= 0 && *stats.null_count >= num_values;
  switch (predicate.op) {
    case Op::kIsNull:
      return !(stats.null_count && *stats.null_count == 0);
    case Op::kIsNotNull:
      return !all_null;
    default:
      break;
  }
  if (all_null) return false;  // comparisons with NULL are never true
  if (!stats.min || !stats.max) return true;
  const StatValue c = ConstantFor(predicate, type);
  if (std::holds_alternative<std::monostate>(c) || c.index() != stats.min->index()) return true;
  if (auto* d = std::get_if<double>(&c); d && std::isnan(*d)) return true;
  if (type.is_floating()) {
    // NaN values are left out of min/max, and depending on the engine's NaN semantics they may
    // satisfy >, >= or !=; only the predicates NaN can never satisfy are decided by the bounds.
    if (predicate.op == Op::kGt || predicate.op == Op::kGe || predicate.op == Op::kNe) return true;
  }
  const int vs_min = Compare(c, *stats.min);
  const int vs_max = Compare(c, *stats.max);
  switch (predicate.op) {
    case Op::kEq:
      return vs_min >= 0 && vs_max <= 0;
    case Op::kNe:
      return !(vs_min == 0 && vs_max == 0);
    case Op::kLt:
      return vs_min > 0;  // some value < c  <=>  min < c
    case Op::kLe:
      return vs_min >= 0;  // min <= c
    case Op::kGt:
      return vs_max < 0;  // max > c
    case Op::kGe:
      return vs_max <= 0;  // max >= c
    default:
      return true;
  }
}

std::vector<LeafPath> LeafPaths(const FileMetaData& metadata) {
  std::vector<LeafPath> leaves;
  const auto& schema = metadata.schema;
  if (schema.empty()) return leaves;
  // Iterative depth-first walk: a stack of (children left, path prefix) per open group.
  struct Open {
    int64_t children_left;
    std::string prefix;
  };
  std::vector<Open> stack;
  stack.push_back({schema[0].num_children.value_or(0), ""});
  size_t i = 1;
  while (!stack.empty() && i < schema.size()) {
    if (stack.back().children_left <= 0) {
      stack.pop_back();
      continue;
    }
    --stack.back().children_left;
    const SchemaElement& e = schema[i];
    std::string path = stack.back().prefix.empty() ? e.name : stack.back().prefix + "." + e.name;
    const int64_t children = e.num_children.value_or(0);
    if (children > 0) {
      if (stack.size() >= 1000) return leaves;  // absurdly deep: surely malformed
      stack.push_back({children, std::move(path)});
    } else if (e.type) {
      leaves.push_back({std::move(path), static_cast<int>(i)});
    }
    ++i;
  }
  return leaves;
}

bool RowGroupMayMatch(const FileMetaData& metadata, int row_group, const Schema& schema,
                      const std::vector<ScanPredicate>& predicates) {
  if (predicates.empty()) return true;
  if (row_group < 0 || row_group >= static_cast<int>(metadata.row_groups.size())) return true;
  const RowGroup& rg = metadata.row_groups[row_group];
  if (rg.num_rows == 0) return false;
  const std::vector<LeafPath> leaves = LeafPaths(metadata);
  for (const auto& predicate : predicates) {
    const int field = schema.FieldIndex(predicate.column);
    if (field < 0) continue;
    int leaf = -1;
    for (size_t i = 0; i < leaves.size(); ++i) {
      if (leaves[i].path == predicate.column) {
        leaf = static_cast<int>(i);
        break;
      }
    }
    if (leaf < 0 || leaf >= static_cast<int>(rg.columns.size())) continue;
    const auto& chunk_meta = rg.columns[leaf].meta_data;
    if (!chunk_meta || !chunk_meta->statistics) continue;
    const ColumnStatistics stats =
        DecodeStatistics(*chunk_meta->statistics, metadata.schema[leaves[leaf].schema_index],
                         schema.field(field).type);
    if (!BoundsMayMatch(stats, chunk_meta->num_values, schema.field(field).type, predicate)) {
      return false;
    }
  }
  return true;
}

}  // namespace tandem::parquet
