// libFuzzer target for the Parquet reader: the input bytes are opened in place as a Parquet file
// (ParquetFile::OpenBuffer, so AddressSanitizer sees any read past the input) and every column
// of every row group decoded, one column at a time so that an unsupported column does not hide
// the others, then again in pieces of 1000 rows. Any crash, sanitizer report, timeout or memory
// blow-up is a bug; error Statuses are the expected outcome for most inputs. Decoded batches must
// be consistent. Seeds: fuzz/seeds/parquet_reader_fuzz (small files from apache/parquet-testing).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "tandem/io/parquet/reader.h"
#include "tandem/io/parquet/row_conditions.h"
#include "tandem/io/parquet/statistics.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto file = tandem::parquet::ParquetFile::OpenBuffer(data, static_cast<int64_t>(size), "fuzz");
  if (!file.ok()) return 0;
  const auto& parquet_file = **file;
  // Statistics decoding, formatting and pruning see the same damaged footer.
  const auto& meta = parquet_file.metadata();
  const auto& schema = parquet_file.schema();
  const auto leaves = tandem::parquet::LeafPaths(meta);
  for (int rg = 0; rg < parquet_file.num_row_groups(); ++rg) {
    const auto& chunks = meta.row_groups[rg].columns;
    for (size_t c = 0; c < chunks.size() && c < leaves.size(); ++c) {
      if (!chunks[c].meta_data || !chunks[c].meta_data->statistics ||
          static_cast<int>(c) >= schema.num_fields()) {
        continue;
      }
      const auto& type = schema.field(static_cast<int>(c)).type;
      auto stats = tandem::parquet::DecodeStatistics(*chunks[c].meta_data->statistics,
                                                     meta.schema[leaves[c].schema_index], type);
      if (stats.min) tandem::parquet::FormatStatValue(*stats.min, type);
      std::vector<tandem::parquet::ScanPredicate> predicates = {
          {schema.field(static_cast<int>(c)).name, tandem::parquet::ScanPredicate::Op::kGt,
           int64_t{0}},
          {schema.field(static_cast<int>(c)).name,
           tandem::parquet::ScanPredicate::Op::kIsNull,
           {}}};
      tandem::parquet::RowGroupMayMatch(meta, rg, schema, predicates);
    }
  }
  for (int rg = 0; rg < parquet_file.num_row_groups(); ++rg) {
    for (int c = 0; c < parquet_file.schema().num_fields(); ++c) {
      auto batch = parquet_file.ReadRowGroup(rg, {c});
      if (!batch.ok()) continue;
      if (!(*batch)->Validate().ok()) {
        std::fprintf(stderr, "inconsistent batch: %s\n", (*batch)->Validate().message().c_str());
        std::abort();
      }
      // The same column as dictionary codes (what a scan with conditions reads): a valid
      // dictionary, a code per row within it, the values built from them consistent.
      auto codes = parquet_file.ReadColumnCodes(rg, c);
      if (codes.ok() && *codes) {
        const tandem::parquet::DictionaryCodes& dc = **codes;
        if (!dc.dictionary->Validate().ok() || dc.num_rows != (*batch)->num_rows) {
          std::fprintf(stderr, "inconsistent dictionary codes\n");
          std::abort();
        }
        const tandem::ColumnPtr values = tandem::parquet::MaterializeCodes(dc, nullptr);
        if (!values->Validate().ok() || values->length() != dc.num_rows) {
          std::fprintf(stderr, "inconsistent values from codes: %s\n",
                       values->Validate().message().c_str());
          std::abort();
        }
      }
      // The same column in pieces (what a scan reads after running out of memory, and with its
      // pages held, what it reads by choice): every piece consistent, and as many rows in all as
      // the whole read.
      for (const bool hold_pages : {false, true}) {
        int64_t rows = 0;
        const tandem::Status pieces = parquet_file.ReadRowGroupPieces(
            rg, {c}, 1000,
            [&](std::shared_ptr<tandem::Batch> piece) {
              if (!piece->Validate().ok()) {
                std::fprintf(stderr, "inconsistent piece: %s\n",
                             piece->Validate().message().c_str());
                std::abort();
              }
              rows += piece->num_rows;
              return tandem::Status::OK();
            },
            hold_pages);
        if (pieces.ok() && rows != (*batch)->num_rows) {
          std::fprintf(stderr, "pieces hold %lld rows, the whole read %lld\n",
                       static_cast<long long>(rows), static_cast<long long>((*batch)->num_rows));
          std::abort();
        }
      }
    }
  }
  return 0;
}
