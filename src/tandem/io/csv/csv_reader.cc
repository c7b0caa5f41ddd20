// CSV reader: header, schema (explicit or inferred from a sample), projection, then batches.
// ReadCsv tokenizes on the calling thread and converts chunks to columns on worker threads.
#include <algorithm>
#include <deque>
#include <future>
#include <thread>

#include "tandem/io/csv/csv.h"
#include "tandem/io/csv/csv_convert.h"

namespace tandem::csv {
namespace {

using internal::ChunkSource;
using internal::ConvertContext;
using internal::RowChunk;

class CsvReaderImpl : public CsvReader {
 public:
  static Result<std::unique_ptr<CsvReaderImpl>> Make(std::unique_ptr<ChunkSource> source,
                                                     const CsvReadOptions& options);

  const Schema& schema() const override { return ctx_.schema; }
  Result<BatchPtr> Next() override {
    TANDEM_ASSIGN_OR_RAISE(auto chunk, NextChunk());
    if (!chunk) return BatchPtr();
    return internal::ConvertChunk(*chunk, ctx_);
  }

  // The next chunk of tokenized rows (from the inference sample first), or nullopt at the end.
  Result<std::optional<RowChunk>> NextChunk() {
    if (!pending_.empty()) {
      RowChunk chunk = std::move(pending_.front());
      pending_.pop_front();
      return std::optional<RowChunk>(std::move(chunk));
    }
    return source_->Next(batch_rows_);
  }
  const ConvertContext& context() const { return ctx_; }

 private:
  Status Init(const CsvReadOptions& options);

  std::unique_ptr<ChunkSource> source_;
  ConvertContext ctx_;
  std::deque<RowChunk> pending_;
  int64_t batch_rows_ = 1 << 16;
};

Result<std::unique_ptr<CsvReaderImpl>> CsvReaderImpl::Make(std::unique_ptr<ChunkSource> source,
                                                           const CsvReadOptions& options) {
  std::unique_ptr<CsvReaderImpl> reader(new CsvReaderImpl());
  reader->source_ = std::move(source);
  TANDEM_RETURN_NOT_OK(reader->Init(options));
  return reader;
}

Status CsvReaderImpl::Init(const CsvReadOptions& options) {
  const std::string& file = source_->name();
  if (options.delimiter == '\n' || options.delimiter == '\r' ||
      (options.quote != '\0' && options.delimiter == options.quote)) {
    return Status::Invalid("file " + file + ": the CSV delimiter cannot be a quote or line end");
  }
  if (options.batch_rows <= 0) return Status::Invalid("CSV batch_rows must be positive");
  batch_rows_ = options.batch_rows;
  ctx_.file_name = file;
  ctx_.dialect = {options.delimiter, options.quote, options.escape};
  ctx_.null_markers = options.null_markers;

  // Column names: the header row, or column_1..N from the first data row.
  std::vector<std::string> names;
  int num_fields = -1;
  if (options.header) {
    TANDEM_ASSIGN_OR_RAISE(auto header, source_->Next(1));
    if (header) {
      num_fields = header->rows.num_fields;
      std::string scratch;
      for (int i = 0; i < num_fields; ++i) {
        const auto& f = header->rows.fields[i];
        std::string name(internal::FieldText(header->block->data(), f, ctx_.dialect, &scratch));
        if (name.empty()) name = "column_" + std::to_string(i + 1);
        names.push_back(std::move(name));
      }
    }
  }
  // Inference sample (also tells the field count without a header).
  const bool infer = !options.schema.has_value();
  int64_t sampled = 0;
  const int64_t want = infer ? std::max<int64_t>(options.inference_rows, 1) : 1;
  while (sampled < want) {
    TANDEM_ASSIGN_OR_RAISE(auto chunk, source_->Next(batch_rows_));
    if (!chunk) break;
    sampled += chunk->rows.num_rows();
    if (num_fields < 0) num_fields = chunk->rows.num_fields;
    pending_.push_back(std::move(*chunk));
  }
  if (num_fields < 0) num_fields = options.schema ? options.schema->num_fields() : 0;
  if (!options.header) {
    for (int i = 0; i < num_fields; ++i) names.push_back("column_" + std::to_string(i + 1));
  }

  std::vector<Field> fields(num_fields);
  if (options.schema) {
    if (options.schema->num_fields() != num_fields) {
      return Status::Invalid("file " + file + ": the schema has " +
                             std::to_string(options.schema->num_fields()) +
                             " fields but the CSV has " + std::to_string(num_fields) + " columns");
    }
    fields = options.schema->fields;
  } else {
    for (int i = 0; i < num_fields; ++i) fields[i].name = names[i];
  }

  // Projection.
  std::vector<int> selected;
  if (options.columns.empty()) {
    for (int i = 0; i < num_fields; ++i) selected.push_back(i);
  } else {
    for (const std::string& name : options.columns) {
      int index = -1;
      for (int i = 0; i < num_fields; ++i) {
        if (fields[i].name == name) {
          index = i;
          break;
        }
      }
      if (index < 0) {
        std::string available;
        for (const Field& f : fields) available += (available.empty() ? "" : ", ") + f.name;
        return Status::Invalid("file " + file + ": no column '" + name +
                               "' (columns: " + available + ")");
      }
      selected.push_back(index);
    }
  }
  for (int index : selected) {
    internal::OutputColumn column{index, fields[index]};
    if (infer) {
      column.field.type = internal::InferColumnType(pending_, index, want, ctx_);
      column.field.nullable = true;
    }
    ctx_.columns.push_back(column);
    ctx_.schema.fields.push_back(column.field);
  }
  return Status::OK();
}

int DefaultThreads(int requested) {
  if (requested > 0) return requested;
  const unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : static_cast<int>(hw);
}

// Tokenizes on this thread, converts on up to num_threads others, keeps batches in file order.
// An error reported is the first in file order.
Result<Table> ReadAll(CsvReaderImpl* reader, int num_threads) {
  Table table;
  table.schema = reader->schema();
  const ConvertContext& ctx = reader->context();
  std::deque<std::future<Result<BatchPtr>>> in_flight;
  auto collect_one = [&]() -> Status {
    Result<BatchPtr> batch = in_flight.front().get();
    in_flight.pop_front();
    if (!batch.ok()) return batch.status();
    table.batches.push_back(std::move(batch).value());
    return Status::OK();
  };
  auto drain = [&](Status first) -> Status {
    while (!in_flight.empty()) {
      Status st = collect_one();
      if (first.ok() && !st.ok()) first = st;
    }
    return first;
  };
  while (true) {
    auto chunk = reader->NextChunk();
    if (!chunk.ok()) {
      // Earlier chunks' errors come first in the file.
      Status earlier = drain(Status::OK());
      return earlier.ok() ? chunk.status() : earlier;
    }
    if (!chunk->has_value()) break;
    if (num_threads <= 1) {
      TANDEM_ASSIGN_OR_RAISE(auto batch, internal::ConvertChunk(**chunk, ctx));
      table.batches.push_back(std::move(batch));
      continue;
    }
    auto task = [&ctx, c = std::move(**chunk)]() { return internal::ConvertChunk(c, ctx); };
    in_flight.push_back(std::async(std::launch::async, std::move(task)));
    if (static_cast<int>(in_flight.size()) >= num_threads) {
      Status st = collect_one();
      if (!st.ok()) return drain(st);
    }
  }
  TANDEM_RETURN_NOT_OK(drain(Status::OK()));
  return table;
}

}  // namespace

Result<std::unique_ptr<CsvReader>> CsvReader::Open(const std::string& path,
                                                   const CsvReadOptions& options) {
  TANDEM_ASSIGN_OR_RAISE(
      auto source, ChunkSource::OpenFile(path, {options.delimiter, options.quote, options.escape}));
  TANDEM_ASSIGN_OR_RAISE(auto reader, CsvReaderImpl::Make(std::move(source), options));
  return std::unique_ptr<CsvReader>(std::move(reader));
}

Result<std::unique_ptr<CsvReader>> CsvReader::OpenBuffer(std::string data,
                                                         const CsvReadOptions& options,
                                                         const std::string& name) {
  auto source = ChunkSource::FromBuffer(std::move(data), name,
                                        {options.delimiter, options.quote, options.escape});
  TANDEM_ASSIGN_OR_RAISE(auto reader, CsvReaderImpl::Make(std::move(source), options));
  return std::unique_ptr<CsvReader>(std::move(reader));
}

Result<Table> ReadCsv(const std::string& path, const CsvReadOptions& options) {
  TANDEM_ASSIGN_OR_RAISE(
      auto source, ChunkSource::OpenFile(path, {options.delimiter, options.quote, options.escape}));
  TANDEM_ASSIGN_OR_RAISE(auto reader, CsvReaderImpl::Make(std::move(source), options));
  return ReadAll(reader.get(), DefaultThreads(options.num_threads));
}

Result<Table> ReadCsvBuffer(std::string data, const CsvReadOptions& options,
                            const std::string& name) {
  auto source = ChunkSource::FromBuffer(std::move(data), name,
                                        {options.delimiter, options.quote, options.escape});
  TANDEM_ASSIGN_OR_RAISE(auto reader, CsvReaderImpl::Make(std::move(source), options));
  return ReadAll(reader.get(), DefaultThreads(options.num_threads));
}

}  // namespace tandem::csv
