// TableSource constructors: schema, row estimates and column statistics from Parquet footers,
// or CSV inference.
#include "tandem/catalog/table_source.h"

#include <algorithm>
#include <limits>
#include <variant>

#include "tandem/io/file_listing.h"
#include "tandem/io/parquet/dataset.h"
#include "tandem/io/parquet/reader.h"
#include "tandem/io/parquet/statistics.h"

namespace tandem {
namespace {

// Types whose distinct values are at most max - min + 1 in the storage domain.
bool IsIntegerLike(const DataType& t) {
  return t.is_integer() || t.is_decimal() || t.id == TypeId::kDate32 ||
         t.id == TypeId::kTimestamp || t.id == TypeId::kBool;
}

// Folds the column-chunk statistics of one column over every row group of every file.
class ColumnStatsAccumulator {
 public:
  void AddUnknown(int64_t num_values) {
    non_null_ += num_values;
    nulls_known_ = bounds_known_ = distinct_known_ = false;
  }

  void Add(const parquet::ColumnStatistics& st, int64_t num_values) {
    if (st.null_count && *st.null_count <= num_values) {
      nulls_ += *st.null_count;
      non_null_ += num_values - *st.null_count;
    } else {
      nulls_known_ = false;
      non_null_ += num_values;
    }
    const bool all_null = st.null_count && *st.null_count >= num_values;
    if (st.distinct_count) {
      dc_max_ = std::max(dc_max_, static_cast<double>(*st.distinct_count));
      dc_sum_ += static_cast<double>(*st.distinct_count);
    } else if (!all_null) {
      distinct_known_ = false;
    }
    if (!st.min || !st.max) {
      if (!all_null) bounds_known_ = false;
      return;
    }
    if (std::holds_alternative<std::string>(*st.min)) {
      const auto& lo = std::get<std::string>(*st.min);
      const auto& hi = std::get<std::string>(*st.max);
      if (!any_string_) {
        max_of_string_mins_ = lo;
        min_of_string_maxes_ = hi;
      }
      max_of_string_mins_ = std::max(max_of_string_mins_, lo);
      min_of_string_maxes_ = std::min(min_of_string_maxes_, hi);
      any_string_ = true;
      return;
    }
    const double lo = AsDouble(*st.min), hi = AsDouble(*st.max);
    min_ = std::min(min_, lo);
    max_ = std::max(max_, hi);
    max_of_mins_ = std::max(max_of_mins_, lo);
    min_of_maxes_ = std::min(min_of_maxes_, hi);
    any_numeric_ = true;
  }

  SourceColumnStats Finish(const DataType& type) const {
    SourceColumnStats out;
    if (nulls_known_) out.null_count = nulls_;
    out.has_bounds = bounds_known_ && any_numeric_ && !any_string_;
    if (out.has_bounds) {
      out.min = min_;
      out.max = max_;
    }
    double distinct = std::numeric_limits<double>::infinity();
    if (distinct_known_ && (any_numeric_ || any_string_ || dc_sum_ > 0)) {
      // Row groups whose value ranges all overlap probably share their values (a column in no
      // particular order); disjoint ones (a sorted column) hold different values.
      const bool overlap =
          bounds_known_ && (any_string_ ? max_of_string_mins_ <= min_of_string_maxes_
                                        : max_of_mins_ <= min_of_maxes_);
      distinct = overlap ? dc_max_ : dc_sum_;
    }
    if (out.has_bounds && IsIntegerLike(type)) distinct = std::min(distinct, max_ - min_ + 1);
    if (distinct != std::numeric_limits<double>::infinity()) {
      out.distinct_count = std::max(0.0, std::min(distinct, static_cast<double>(non_null_)));
    }
    return out;
  }

 private:
  static double AsDouble(const parquet::StatValue& v) {
    if (const auto* i = std::get_if<__int128>(&v)) return static_cast<double>(*i);
    if (const auto* d = std::get_if<double>(&v)) return *d;
    return 0;
  }

  int64_t nulls_ = 0, non_null_ = 0;
  bool nulls_known_ = true, bounds_known_ = true, distinct_known_ = true;
  bool any_numeric_ = false, any_string_ = false;
  double min_ = std::numeric_limits<double>::infinity();
  double max_ = -std::numeric_limits<double>::infinity();
  double max_of_mins_ = -std::numeric_limits<double>::infinity();
  double min_of_maxes_ = std::numeric_limits<double>::infinity();
  std::string max_of_string_mins_, min_of_string_maxes_;
  double dc_max_ = 0, dc_sum_ = 0;
};

// Adds every row group of one file to the accumulators of the schema's fields (by name).
void AccumulateFileStats(const parquet::FileMetaData& meta, const Schema& schema,
                         std::vector<ColumnStatsAccumulator>* acc) {
  const std::vector<parquet::LeafPath> leaves = parquet::LeafPaths(meta);
  std::vector<int> leaf_of_field(acc->size(), -1);
  for (size_t f = 0; f < acc->size(); ++f) {
    for (size_t l = 0; l < leaves.size(); ++l) {
      if (leaves[l].path == schema.field(static_cast<int>(f)).name) {
        leaf_of_field[f] = static_cast<int>(l);
        break;
      }
    }
  }
  for (const auto& rg : meta.row_groups) {
    if (rg.num_rows <= 0) continue;
    for (size_t f = 0; f < acc->size(); ++f) {
      const int leaf = leaf_of_field[f];
      if (leaf < 0 || leaf >= static_cast<int>(rg.columns.size()) || !rg.columns[leaf].meta_data ||
          !rg.columns[leaf].meta_data->statistics || rg.columns[leaf].meta_data->num_values < 0) {
        (*acc)[f].AddUnknown(rg.num_rows);
        continue;
      }
      const auto& chunk = *rg.columns[leaf].meta_data;
      const auto& schema_index = leaves[leaf].schema_index;
      if (schema_index < 0 || schema_index >= static_cast<int>(meta.schema.size())) {
        (*acc)[f].AddUnknown(rg.num_rows);
        continue;
      }
      (*acc)[f].Add(parquet::DecodeStatistics(*chunk.statistics, meta.schema[schema_index],
                                              schema.field(static_cast<int>(f)).type),
                    chunk.num_values);
    }
  }
}

// Min and max of the valid values of an integer column of storage type T.
template <typename T>
void ExtendBounds(const Column& column, double* lo, double* hi) {
  const T* v = column.values_as<T>();
  const int64_t n = column.length();
  T mn = std::numeric_limits<T>::max(), mx = std::numeric_limits<T>::lowest();
  if (column.null_count() == 0) {
    for (int64_t i = 0; i < n; ++i) {
      mn = std::min(mn, v[i]);
      mx = std::max(mx, v[i]);
    }
  } else {
    for (int64_t i = 0; i < n; ++i) {
      if (!column.IsValid(i)) continue;
      mn = std::min(mn, v[i]);
      mx = std::max(mx, v[i]);
    }
  }
  if (column.null_count() < n) {
    *lo = std::min(*lo, static_cast<double>(mn));
    *hi = std::max(*hi, static_cast<double>(mx));
  }
}

// Bounds, null count and distinct bound of an integer-like column of an in-memory table.
SourceColumnStats MemoryColumnStats(const Table& table, int field) {
  SourceColumnStats out;
  const DataType& type = table.schema.field(field).type;
  const int width = type.byte_width();
  const bool supported = (type.is_integer() || type.id == TypeId::kDate32 ||
                          type.id == TypeId::kTimestamp || (type.is_decimal() && width == 8)) &&
                         (width == 1 || width == 2 || width == 4 || width == 8);
  if (!supported) return out;
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  int64_t nulls = 0, rows = 0;
  for (const auto& batch : table.batches) {
    if (field >= batch->num_columns() || !batch->column(field)) return out;
    const Column& c = *batch->column(field);
    if (c.length() > 0 && !c.values()) return out;
    nulls += c.null_count();
    rows += c.length();
    const bool is_unsigned = type.is_unsigned();
    switch (width) {
      case 1:
        is_unsigned ? ExtendBounds<uint8_t>(c, &lo, &hi) : ExtendBounds<int8_t>(c, &lo, &hi);
        break;
      case 2:
        is_unsigned ? ExtendBounds<uint16_t>(c, &lo, &hi) : ExtendBounds<int16_t>(c, &lo, &hi);
        break;
      case 4:
        is_unsigned ? ExtendBounds<uint32_t>(c, &lo, &hi) : ExtendBounds<int32_t>(c, &lo, &hi);
        break;
      default:
        is_unsigned ? ExtendBounds<uint64_t>(c, &lo, &hi) : ExtendBounds<int64_t>(c, &lo, &hi);
        break;
    }
  }
  out.null_count = nulls;
  if (lo <= hi) {
    out.has_bounds = true;
    out.min = lo;
    out.max = hi;
    out.distinct_count = std::min(hi - lo + 1, static_cast<double>(rows - nulls));
  } else {
    out.distinct_count = 0;
  }
  return out;
}

}  // namespace

Result<std::shared_ptr<TableSource>> TableSource::Parquet(const std::string& name,
                                                          const std::string& path) {
  TANDEM_ASSIGN_OR_RAISE(auto listing, io::ListFiles(path));
  auto src = std::make_shared<TableSource>();
  src->kind = Kind::kParquet;
  src->name = name;
  src->path = path;
  int64_t rows = 0;
  std::vector<ColumnStatsAccumulator> stats;
  for (size_t i = 0; i < listing.files.size(); ++i) {
    TANDEM_ASSIGN_OR_RAISE(auto file, parquet::ParquetFile::Open(listing.files[i].path));
    rows += file->metadata().num_rows;
    if (i == 0) {
      src->schema = file->schema();
      stats.resize(static_cast<size_t>(src->schema.num_fields()));
    }
    AccumulateFileStats(file->metadata(), src->schema, &stats);
  }
  for (size_t f = 0; f < stats.size(); ++f) {
    src->column_stats.push_back(stats[f].Finish(src->schema.field(static_cast<int>(f)).type));
  }
  for (size_t k = 0; k < listing.partition_keys.size(); ++k) {
    bool all_int = true;
    for (const auto& f : listing.files) {
      int64_t ignored;
      const auto& v = f.partition_values[k];
      if (v && !parquet::ParsePartitionInt64(*v, &ignored)) all_int = false;
    }
    src->schema.fields.push_back(
        {listing.partition_keys[k], all_int ? DataType::Int64() : DataType::String(), true});
  }
  src->column_stats.resize(static_cast<size_t>(src->schema.num_fields()));  // partition keys
  src->estimated_rows = rows;
  return src;
}

Result<std::shared_ptr<TableSource>> TableSource::Csv(const std::string& name,
                                                      const std::string& path,
                                                      const csv::CsvReadOptions& options) {
  // The schema comes from inference over the sample (or the explicit schema).
  csv::CsvReadOptions probe = options;
  TANDEM_ASSIGN_OR_RAISE(auto reader, csv::CsvReader::Open(path, probe));
  if (reader->schema().num_fields() == 0) {
    return Status::Invalid("file " + path + ": the CSV file is empty (no header, no rows)");
  }
  auto src = std::make_shared<TableSource>();
  src->kind = Kind::kCsv;
  src->name = name;
  src->path = path;
  src->csv_options = options;
  src->schema = reader->schema();
  return src;
}

std::shared_ptr<TableSource> TableSource::Memory(const std::string& name,
                                                 std::shared_ptr<const Table> table) {
  auto src = std::make_shared<TableSource>();
  src->kind = Kind::kMemory;
  src->name = name;
  src->schema = table->schema;
  src->estimated_rows = table->num_rows();
  for (int f = 0; f < table->schema.num_fields(); ++f) {
    src->column_stats.push_back(MemoryColumnStats(*table, f));
  }
  src->memory = std::move(table);
  return src;
}

}  // namespace tandem
