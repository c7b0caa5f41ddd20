// TableSource constructors: schema and row estimates from Parquet footers or CSV inference.
#include "tandem/catalog/table_source.h"

#include "tandem/io/file_listing.h"
#include "tandem/io/parquet/dataset.h"
#include "tandem/io/parquet/reader.h"

namespace tandem {

Result<std::shared_ptr<TableSource>> TableSource::Parquet(const std::string& name,
                                                          const std::string& path) {
  TANDEM_ASSIGN_OR_RAISE(auto listing, io::ListFiles(path));
  auto src = std::make_shared<TableSource>();
  src->kind = Kind::kParquet;
  src->name = name;
  src->path = path;
  int64_t rows = 0;
  for (size_t i = 0; i < listing.files.size(); ++i) {
    TANDEM_ASSIGN_OR_RAISE(auto file, parquet::ParquetFile::Open(listing.files[i].path));
    rows += file->metadata().num_rows;
    if (i == 0) src->schema = file->schema();
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
  src->estimated_rows = rows;
  return src;
}

Result<std::shared_ptr<TableSource>> TableSource::Csv(const std::string& name,
                                                      const std::string& path,
                                                      const csv::CsvReadOptions& options) {
  // The schema comes from inference over the sample (or the explicit schema).
  csv::CsvReadOptions probe = options;
  TANDEM_ASSIGN_OR_RAISE(auto reader, csv::CsvReader::Open(path, probe));
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
  src->memory = std::move(table);
  return src;
}

}  // namespace tandem
