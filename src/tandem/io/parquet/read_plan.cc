// PlanParquetRead (read_plan.h): listing, file skipping by partition predicates, parallel open,
// schema checks, projection and row-group pruning, moved out of ReadParquet unchanged so that the
// host and the GPU reader plan alike.
#include "tandem/io/parquet/read_plan.h"

#include <algorithm>
#include <cctype>
#include <limits>

#include "tandem/column/column_builder.h"
#include "tandem/common/text.h"
#include "tandem/common/thread_pool.h"
#include "tandem/io/parquet/statistics.h"

namespace tandem::parquet {
namespace {

Status UnknownColumn(const std::string& name, const Schema& schema, const std::string& where) {
  std::string best;
  size_t best_distance = std::numeric_limits<size_t>::max();
  for (const auto& f : schema.fields) {
    const size_t d = EditDistanceIgnoringCase(name, f.name);
    if (d < best_distance) {
      best_distance = d;
      best = f.name;
    }
  }
  std::string msg = "unknown column '" + name + "' in " + where;
  if (!best.empty() && best_distance <= std::max<size_t>(2, name.size() / 3)) {
    msg += "; did you mean '" + best + "'?";
  }
  msg += " (columns: ";
  constexpr int kMaxListed = 30;
  for (int i = 0; i < schema.num_fields() && i < kMaxListed; ++i) {
    msg += (i ? ", " : "") + schema.field(i).name;
  }
  if (schema.num_fields() > kMaxListed) {
    msg += ", ... " + std::to_string(schema.num_fields() - kMaxListed) + " more";
  }
  return Status::Invalid(msg + ")");
}

// Checks that `other` has the same columns (names and types, in order) as `first`.
Status CheckSameSchema(const Schema& first, const std::string& first_path, const Schema& other,
                       const std::string& other_path) {
  const std::string prefix = "file " + other_path + " has a different schema from " + first_path;
  for (int i = 0; i < std::min(first.num_fields(), other.num_fields()); ++i) {
    const Field& a = first.field(i);
    const Field& b = other.field(i);
    if (a.name != b.name) {
      return Status::Invalid(prefix + ": column " + std::to_string(i + 1) + " is '" + b.name +
                             "' there but '" + a.name + "' in the first file");
    }
    if (a.type != b.type) {
      return Status::Invalid(prefix + ": column '" + a.name + "' is " + b.type.ToString() +
                             " there but " + a.type.ToString() + " in the first file");
    }
  }
  if (first.num_fields() != other.num_fields()) {
    const Schema& longer = first.num_fields() > other.num_fields() ? first : other;
    const int extra = std::min(first.num_fields(), other.num_fields());
    return Status::Invalid(prefix + ": it has " + std::to_string(other.num_fields()) +
                           " columns, the first file " + std::to_string(first.num_fields()) +
                           " (column '" + longer.field(extra).name + "' is only in " +
                           (&longer == &first ? "the first file" : "it") + ")");
  }
  return Status::OK();
}

std::vector<PartitionColumn> PartitionColumns(const io::FileListing& listing) {
  std::vector<PartitionColumn> out;
  for (size_t k = 0; k < listing.partition_keys.size(); ++k) {
    bool all_int = true;
    bool any_value = false;
    bool has_null = false;
    for (const auto& f : listing.files) {
      const auto& v = f.partition_values[k];
      if (!v) {
        has_null = true;
        continue;
      }
      any_value = true;
      int64_t ignored;
      if (!ParsePartitionInt64(*v, &ignored)) all_int = false;
    }
    const DataType type = all_int && any_value ? DataType::Int64() : DataType::String();
    out.push_back({listing.partition_keys[k], type, has_null});
  }
  return out;
}

// Statistics of a file's partition value, as if the file were one row with that value.
ColumnStatistics PartitionValueStatistics(const DataType& type,
                                          const std::optional<std::string>& value) {
  ColumnStatistics s;
  if (!value) {
    s.null_count = 1;
    return s;
  }
  s.null_count = 0;
  if (type.id == TypeId::kInt64) {
    int64_t v = 0;
    ParsePartitionInt64(*value, &v);
    s.min = s.max = StatValue(__int128{v});
  } else {
    s.min = s.max = StatValue(*value);
  }
  return s;
}

}  // namespace

// The constant column of one partition value, `rows` long.
ColumnPtr PartitionColumnValues(const DataType& type, const std::optional<std::string>& value,
                                int64_t rows) {
  ColumnBuilder builder(type, rows);
  if (!value) {
    builder.AppendNulls(rows);
  } else if (type.id == TypeId::kInt64) {
    int64_t v = 0;
    ParsePartitionInt64(*value, &v);
    auto* out = reinterpret_cast<int64_t*>(builder.AppendUninitialized(rows));
    std::fill(out, out + rows, v);
  } else {
    builder.ReserveBytes(static_cast<int64_t>(value->size()) * rows);
    for (int64_t r = 0; r < rows; ++r) builder.AppendString(*value);
  }
  return builder.Finish();
}

int64_t ParquetReadPlan::ChunkCompressedBytes(size_t r, int column) const {
  const KeptRowGroup& rg = row_groups[r];
  const auto& chunks = files[rg.file]->metadata().row_groups[rg.row_group].columns;
  // Column chunk of a flat file column: same position as the leaf (checked by the reader).
  if (column >= static_cast<int>(chunks.size()) || !chunks[column].meta_data) return 0;
  return chunks[column].meta_data->total_compressed_size;
}

int64_t ParquetReadPlan::ChunkUncompressedBytes(size_t r, int column) const {
  const KeptRowGroup& rg = row_groups[r];
  const auto& chunks = files[rg.file]->metadata().row_groups[rg.row_group].columns;
  if (column >= static_cast<int>(chunks.size()) || !chunks[column].meta_data) return 0;
  return chunks[column].meta_data->total_uncompressed_size;
}

// Whether a row group belongs to the byte range [start, start + length): its midpoint does, as
// parquet-mr (and so Spark) decides (ParquetMetadataConverter's filter by midpoint).
bool RowGroupInSplit(const RowGroup& rg, int64_t start, int64_t length) {
  if (rg.columns.empty() || !rg.columns[0].meta_data) return start == 0;
  const ColumnMetaData& first = *rg.columns[0].meta_data;
  int64_t offset = first.data_page_offset;
  if (first.dictionary_page_offset && *first.dictionary_page_offset > 0 &&
      *first.dictionary_page_offset < offset) {
    offset = *first.dictionary_page_offset;
  }
  int64_t size = 0;
  for (const ColumnChunk& c : rg.columns) {
    if (c.meta_data) size += c.meta_data->total_compressed_size;
  }
  const int64_t midpoint = offset + size / 2;
  return midpoint >= start && midpoint < start + length;
}

Result<ParquetReadPlan> PlanParquetRead(const std::string& path, const ReadOptions& options,
                                        ReadStats* stats) {
  ReadStats local_stats;
  ReadStats& st = stats ? *stats : local_stats;
  ParquetReadPlan plan;
  TANDEM_ASSIGN_OR_RAISE(plan.listing, io::ListFiles(path));
  const io::FileListing& listing = plan.listing;
  st.files = static_cast<int64_t>(listing.files.size());
  plan.partitions = PartitionColumns(listing);
  const std::vector<PartitionColumn>& partitions = plan.partitions;

  // Predicates on partition columns decide whole files before any is opened.
  std::vector<size_t>& kept_files = plan.kept_files;
  for (size_t f = 0; f < listing.files.size(); ++f) {
    bool keep = true;
    for (const auto& p : options.predicates) {
      for (size_t k = 0; k < partitions.size() && keep; ++k) {
        if (partitions[k].name != p.column) continue;
        const auto s =
            PartitionValueStatistics(partitions[k].type, listing.files[f].partition_values[k]);
        keep = BoundsMayMatch(s, 1, partitions[k].type, p);
      }
    }
    if (keep) kept_files.push_back(f);
  }
  st.files_skipped = static_cast<int64_t>(listing.files.size() - kept_files.size());
  // With every file skipped, the first one still supplies the schema.
  std::vector<size_t> to_open = kept_files;
  if (to_open.empty()) to_open.push_back(0);

  ThreadPool& pool = ThreadPool::Default();
  std::vector<std::unique_ptr<ParquetFile>>& files = plan.files;
  files.resize(to_open.size());
  TANDEM_RETURN_NOT_OK(pool.ParallelFor(
      static_cast<int64_t>(to_open.size()),
      [&](int64_t i) -> Status {
        const std::string& file_path = listing.files[to_open[i]].path;
        auto opened = ParquetFile::Open(file_path);
        if (!opened.ok()) {
          const Status& s = opened.status();
          if (s.message().find(file_path) != std::string::npos) return s;
          return s.WithContext(file_path);
        }
        files[i] = std::move(opened).value();
        return Status::OK();
      },
      options.num_threads));

  // One schema for all files; nullable if nullable in any of them.
  plan.file_schema = files[0]->schema();
  Schema& file_schema = plan.file_schema;
  for (size_t i = 1; i < files.size(); ++i) {
    TANDEM_RETURN_NOT_OK(
        CheckSameSchema(file_schema, files[0]->path(), files[i]->schema(), files[i]->path()));
    for (int c = 0; c < file_schema.num_fields(); ++c) {
      file_schema.fields[c].nullable |= files[i]->schema().field(c).nullable;
    }
  }
  plan.full_schema = file_schema;
  Schema& full_schema = plan.full_schema;
  for (const auto& p : partitions) {
    if (file_schema.FieldIndex(p.name) >= 0) {
      return Status::Invalid("hive partition key '" + p.name + "' of " + path +
                             " is also a column in file " + files[0]->path());
    }
    full_schema.fields.push_back({p.name, p.type, p.has_null});
  }

  // Projection: indexes into full_schema (file columns first, then partition columns).
  std::vector<int>& projection = plan.projection;
  if (options.columns.empty()) {
    for (int i = 0; i < full_schema.num_fields(); ++i) projection.push_back(i);
  } else {
    for (const auto& name : options.columns) {
      const int index = full_schema.FieldIndex(name);
      if (index < 0) return UnknownColumn(name, full_schema, path);
      projection.push_back(index);
    }
  }
  for (const auto& p : options.predicates) {
    if (full_schema.FieldIndex(p.column) < 0) {
      return UnknownColumn(p.column, full_schema, path + " (scan predicate)");
    }
  }
  Schema& out_schema = plan.out_schema;
  std::vector<int>& file_columns = plan.file_columns;
  for (int index : projection) {
    out_schema.fields.push_back(full_schema.field(index));
    if (index < file_schema.num_fields() &&
        std::find(file_columns.begin(), file_columns.end(), index) == file_columns.end()) {
      file_columns.push_back(index);
    }
  }

  // Row groups that may hold matching rows, in file then row-group order.
  std::vector<KeptRowGroup>& row_groups = plan.row_groups;
  if (!kept_files.empty()) {
    for (size_t i = 0; i < files.size(); ++i) {
      const FileMetaData& meta = files[i]->metadata();
      const int n = files[i]->num_row_groups();
      st.row_groups += n;
      for (int rg = 0; rg < n; ++rg) {
        const int64_t rows = meta.row_groups[rg].num_rows;
        if (rows < 0) {
          return Status::Invalid(files[i]->path() + ": row group " + std::to_string(rg) +
                                 " has a negative row count");
        }
        if (options.split_length >= 0 &&
            !RowGroupInSplit(meta.row_groups[rg], options.split_start, options.split_length)) {
          continue;  // another split's row group: neither read nor counted as skipped
        }
        if (!RowGroupMayMatch(meta, rg, files[i]->schema(), options.predicates)) {
          ++st.row_groups_skipped;
          continue;
        }
        row_groups.push_back({i, rg, rows});
      }
    }
  }
  if (options.slice_count > 1) {
    const size_t n = row_groups.size();
    const size_t count = static_cast<size_t>(options.slice_count);
    const size_t index = static_cast<size_t>(std::max(0, options.slice_index));
    const size_t begin = std::min(n, n * index / count);
    const size_t end = std::min(n, n * (index + 1) / count);
    row_groups = std::vector<KeptRowGroup>(row_groups.begin() + static_cast<std::ptrdiff_t>(begin),
                                           row_groups.begin() + static_cast<std::ptrdiff_t>(end));
  }
  return plan;
}

}  // namespace tandem::parquet
