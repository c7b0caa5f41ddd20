// The C API of libtandem_c.so: thin extern "C" wrappers that import/export Arrow C streams around
// Tandem's readers and writers, turning every Status (and every exception) into a code + message.
#include "tandem/capi/tandem_c.h"

#include <cstring>
#include <exception>
#include <new>
#include <string>
#include <vector>

#include "tandem/capi/arrow_export.h"
#include "tandem/capi/arrow_import.h"
#include "tandem/io/csv/csv.h"
#include "tandem/io/parquet/reader.h"
#include "tandem/io/parquet/writer.h"

namespace {

using tandem::Result;
using tandem::Status;
using tandem::Table;

void CopyMessage(const std::string& message, char* err, size_t err_len) {
  if (err == nullptr || err_len == 0) return;
  const size_t n = message.size() < err_len - 1 ? message.size() : err_len - 1;
  std::memcpy(err, message.data(), n);
  err[n] = '\0';
}

int Report(const Status& status, char* err, size_t err_len) {
  if (status.ok()) return 0;
  CopyMessage(status.ToString(), err, err_len);
  return static_cast<int>(status.code());
}

// Runs `body` (returning Status), converting any escaping exception into an error code.
template <typename Body>
int Guarded(char* err, size_t err_len, Body&& body) {
  try {
    return Report(body(), err, err_len);
  } catch (const std::bad_alloc&) {
    return Report(Status::OutOfMemory("out of memory"), err, err_len);
  } catch (const std::exception& e) {
    return Report(Status::Internal(std::string("unexpected exception: ") + e.what()), err, err_len);
  } catch (...) {
    return Report(Status::Internal("unexpected exception"), err, err_len);
  }
}

// Releases an input stream on every way out unless ImportStream already took it.
struct ConsumeOnExit {
  ArrowArrayStream* stream;
  ~ConsumeOnExit() {
    if (stream != nullptr && stream->release != nullptr) stream->release(stream);
  }
};

Status CheckOut(ArrowArrayStream* out) {
  return out == nullptr ? Status::Invalid("output stream pointer is NULL") : Status::OK();
}

std::vector<std::string> SplitColumns(const char* csv) {
  std::vector<std::string> names;
  if (csv == nullptr || *csv == '\0') return names;
  std::string current;
  for (const char* p = csv;; ++p) {
    if (*p == ',' || *p == '\0') {
      names.push_back(current);
      current.clear();
      if (*p == '\0') break;
    } else {
      current.push_back(*p);
    }
  }
  return names;
}

Result<tandem::parquet::CompressionCodec> ParseCodec(const char* codec) {
  const std::string name = codec ? codec : "snappy";
  if (name == "none" || name == "uncompressed") {
    return tandem::parquet::CompressionCodec::UNCOMPRESSED;
  }
  if (name == "snappy") return tandem::parquet::CompressionCodec::SNAPPY;
  if (name == "zstd") return tandem::parquet::CompressionCodec::ZSTD;
  if (name == "gzip") return tandem::parquet::CompressionCodec::GZIP;
  if (name == "brotli") return tandem::parquet::CompressionCodec::BROTLI;
  if (name == "lz4_raw") return tandem::parquet::CompressionCodec::LZ4_RAW;
  return Status::Invalid("unknown codec '" + name +
                         "' (expected none, snappy, gzip, brotli, lz4_raw or zstd)");
}

}  // namespace

extern "C" {

int tandem_roundtrip(ArrowArrayStream* in, ArrowArrayStream* out, char* err, size_t err_len) {
  return Guarded(err, err_len, [&]() -> Status {
    ConsumeOnExit consume{in};
    if (in == nullptr) return Status::Invalid("input stream pointer is NULL");
    TANDEM_RETURN_NOT_OK(CheckOut(out));
    TANDEM_ASSIGN_OR_RAISE(Table table, tandem::capi::ImportStream(in));
    return tandem::capi::ExportTable(std::move(table), out);
  });
}

int tandem_read_parquet(const char* path, const char* columns_csv, int num_threads,
                        ArrowArrayStream* out, char* err, size_t err_len) {
  return Guarded(err, err_len, [&]() -> Status {
    TANDEM_RETURN_NOT_OK(CheckOut(out));
    if (path == nullptr) return Status::Invalid("path is NULL");
    tandem::parquet::ReadOptions options;
    options.columns = SplitColumns(columns_csv);
    options.num_threads = num_threads;
    TANDEM_ASSIGN_OR_RAISE(Table table, tandem::parquet::ReadParquet(path, options));
    return tandem::capi::ExportTable(std::move(table), out);
  });
}

int tandem_write_parquet(ArrowArrayStream* in, const char* path, const char* codec, int dictionary,
                         int64_t row_group_rows, char* err, size_t err_len) {
  return Guarded(err, err_len, [&]() -> Status {
    ConsumeOnExit consume{in};
    if (in == nullptr) return Status::Invalid("input stream pointer is NULL");
    if (path == nullptr) return Status::Invalid("path is NULL");
    TANDEM_ASSIGN_OR_RAISE(auto parsed_codec, ParseCodec(codec));
    TANDEM_ASSIGN_OR_RAISE(Table table, tandem::capi::ImportStream(in));
    tandem::parquet::WriteOptions options;
    options.codec = parsed_codec;
    options.dictionary = dictionary != 0;
    if (row_group_rows > 0) options.row_group_rows = row_group_rows;
    return tandem::parquet::WriteParquet(path, table, options);
  });
}

int tandem_read_csv(const char* path, char delimiter, int header, ArrowArrayStream* out, char* err,
                    size_t err_len) {
  return Guarded(err, err_len, [&]() -> Status {
    TANDEM_RETURN_NOT_OK(CheckOut(out));
    if (path == nullptr) return Status::Invalid("path is NULL");
    tandem::csv::CsvReadOptions options;
    options.delimiter = delimiter;
    options.header = header != 0;
    TANDEM_ASSIGN_OR_RAISE(Table table, tandem::csv::ReadCsv(path, options));
    return tandem::capi::ExportTable(std::move(table), out);
  });
}

int tandem_write_csv(ArrowArrayStream* in, const char* path, char* err, size_t err_len) {
  return Guarded(err, err_len, [&]() -> Status {
    ConsumeOnExit consume{in};
    if (in == nullptr) return Status::Invalid("input stream pointer is NULL");
    if (path == nullptr) return Status::Invalid("path is NULL");
    TANDEM_ASSIGN_OR_RAISE(Table table, tandem::capi::ImportStream(in));
    return tandem::csv::WriteCsv(path, table);
  });
}

}  // extern "C"
