// Parquet reading: one file (ParquetFile) or a table of many (ReadParquet over a file, a
// directory, a glob, hive-style key=value/ folders). Values become Tandem columns:
//   BOOLEAN -> bool; INT32/INT64 -> int8..int64 / uint8..uint64 per their logical type;
//   INT96 -> timestamp (us); FLOAT/DOUBLE -> float32/float64; BYTE_ARRAY -> string or binary;
//   decimals (INT32, INT64, BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY) -> decimal(p,s);
//   DATE -> date32; TIMESTAMP millis/micros/nanos -> timestamp (us), utc per isAdjustedToUTC.
// Errors name the file, and where it matters the row group, column and page.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tandem/column/table.h"
#include "tandem/io/parquet/column_chunk_reader.h"
#include "tandem/io/parquet/metadata.h"
#include "tandem/io/parquet/row_conditions.h"
#include "tandem/io/parquet/scan_predicate.h"

namespace tandem::parquet {

struct ReadOptions {
  std::vector<std::string> columns;       // projection by name; empty means every column
  std::vector<ScanPredicate> predicates;  // conjunction; row groups that cannot match are skipped
  int num_threads = 0;                    // 0 = all hardware threads
  // A byte range of the file (Spark's file splits): only the row groups whose midpoint (first
  // column chunk's offset plus half the row group's compressed size, parquet-mr's rule) lies in
  // [split_start, split_start + split_length) are read, so every row group of a file split into
  // ranges is read exactly once. split_length < 0: the whole file.
  int64_t split_start = 0;
  int64_t split_length = -1;
  // One of slice_count consecutive runs of the row groups left after the split and pruning
  // (about equal counts): a GPU scan's slices (docs/gpu.md, GPU slices). 1: all of them.
  int slice_index = 0;
  int slice_count = 1;
  // GPU reads (device_reader.h): compressed data pages go to the GPU compressed and are
  // decompressed there with nvCOMP and parsed there (tandem.io.parquet.gpuDecompress), for the
  // codecs nvCOMP reads; otherwise host threads decompress and parse them.
  bool gpu_decompress = false;
  // Optional: called once per row group, on the worker thread that decoded its last column, with
  // the assembled batch (projected columns, partition columns included); what it returns takes
  // the row group's place in the result (any number of batches, in order). A scan passes its
  // filter here so that unfiltered row groups are freed while still in the caches, never all
  // held at once. Row groups are then decoded one after another (columns in parallel).
  std::function<Result<std::vector<std::shared_ptr<Batch>>>(std::shared_ptr<Batch>)> per_row_group;
  // Instead of per_row_group: the same, also given the number of the batch's first row among
  // all the rows the read covers, from 0 (the row groups left after the split and pruning, in
  // order), so that the caller can line the batch up with rows it holds (a table cached in
  // part: exec/cpu/scan_cached_part.h). Where row_conditions dropped rows, the third argument
  // lists the rows the batch holds (ascending, counted from that number); else it is null and
  // the batch holds consecutive rows.
  std::function<Result<std::vector<std::shared_ptr<Batch>>>(std::shared_ptr<Batch>, int64_t,
                                                            const std::vector<int32_t>*)>
      per_numbered_batch;
  // With per_row_group: > 0 decodes each row group in pieces of about this many rows, each
  // handed to per_row_group as soon as it is decoded (row groups then run in parallel, one per
  // thread), so that a scan holds a piece per thread instead of whole row groups: for queries
  // that run out of memory otherwise, or to keep each piece in the caches through the pipeline.
  // 0: whole row groups.
  int64_t piece_rows = 0;
  // With piece_rows: keep a compressed page's values decompressed across the pieces it serves
  // (false: decompress it again for each, holding less memory).
  bool piece_hold_pages = false;
  // With per_row_group (whole row groups, or pieces with piece_hold_pages) or per_numbered_batch:
  // conditions on single columns that a row must meet to reach it, tested on each
  // dictionary-encoded chunk's dictionary rather than on every row (io/parquet/row_conditions.h).
  // The rows they drop are never built.
  std::vector<RowCondition> row_conditions;
  // With row_conditions: above 0, a row group goes on whole (every row, the conditions left to
  // the caller's filter) when its conditions keep more than this share of its rows; 0, the
  // reader's own rule (half where a string column was tested, else a quarter). A caller whose
  // other columns cost nothing to pass on whole but must be gathered otherwise (a table cached
  // in part) sets less.
  double row_conditions_max_kept_share = 0;
};

// One open Parquet file: footer parsed, schema converted, column chunks readable.
class ParquetFile {
 public:
  static Result<std::unique_ptr<ParquetFile>> Open(const std::string& path);
  // The same over a whole Parquet file held in memory, decoded in place (no copy of the file);
  // `display_name` stands for the path in path() and error messages. The first form keeps the
  // buffer alive; with the second the caller keeps `data` alive as long as the ParquetFile.
  static Result<std::unique_ptr<ParquetFile>> OpenBuffer(std::shared_ptr<Buffer> buffer,
                                                         std::string display_name);
  static Result<std::unique_ptr<ParquetFile>> OpenBuffer(const uint8_t* data, int64_t size,
                                                         std::string display_name);
  virtual ~ParquetFile() = default;

  virtual const std::string& path() const = 0;
  virtual const FileMetaData& metadata() const = 0;
  // The Tandem schema of the file's leaf columns (flat schemas only; nested ones fail at Open
  // only when a nested column is read: ReadRowGroup names it).
  virtual const Schema& schema() const = 0;
  virtual int num_row_groups() const = 0;
  // Reads the given columns (indexes into schema()) of one row group into a batch.
  virtual Result<BatchPtr> ReadRowGroup(int row_group, const std::vector<int>& columns) const = 0;
  // The same in pieces of `piece_rows` rows (rounded up to a multiple of 8; the last piece holds
  // the rest), each handed to `each` in order as soon as it is decoded: a row group then never
  // needs to be in memory whole (only its compressed chunks and one piece of each column; with
  // `hold_pages` also a decompressed page per column, decompressed once).
  virtual Status ReadRowGroupPieces(int row_group, const std::vector<int>& columns,
                                    int64_t piece_rows, const std::function<Status(BatchPtr)>& each,
                                    bool hold_pages = false) const = 0;
  // One string or binary column of a row group as its dictionary and the rows' codes; nullopt
  // when the chunk is not dictionary-encoded throughout (read it with ReadRowGroup).
  virtual Result<std::optional<DictionaryCodes>> ReadColumnCodes(int row_group,
                                                                 int column) const = 0;
};

// Reads a file, directory, glob or hive-partitioned tree as one table. Batches come in file
// order, then row-group order; decoding runs on all cores.
Result<Table> ReadParquet(const std::string& path, const ReadOptions& options = {});

}  // namespace tandem::parquet
