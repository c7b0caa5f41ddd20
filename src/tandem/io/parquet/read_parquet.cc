// ReadParquet: a file, directory, glob or hive-partitioned tree read as one table. Planning
// (read_plan.h) lists and opens the files, checks their schemas, resolves the projection and skips
// row groups whose statistics rule out the predicates; here every (row group, column) pair is
// decoded as one task on the thread pool and the batches are assembled in file, then row-group
// order, with partition columns appended as constants.
#include <algorithm>
#include <atomic>
#include <charconv>
#include <limits>
#include <optional>

#include "tandem/column/take.h"
#include "tandem/common/query_progress.h"
#include "tandem/common/thread_pool.h"
#include "tandem/io/parquet/read_plan.h"

namespace tandem::parquet {

bool ParsePartitionInt64(const std::string& text, int64_t* value) {
  if (text.empty()) return false;
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  if (*begin == '+') ++begin;
  if (begin == end) return false;
  auto [ptr, ec] = std::from_chars(begin, end, *value);
  return ec == std::errc() && ptr == end;
}

Result<Table> ReadParquet(const std::string& path, const ReadOptions& options) {
  return ReadParquet(path, options, nullptr);
}

Result<Table> ReadParquet(const std::string& path, const ReadOptions& options, ReadStats* stats) {
  ReadStats local_stats;
  ReadStats& st = stats ? *stats : local_stats;
  st = ReadStats{};
  TANDEM_ASSIGN_OR_RAISE(ParquetReadPlan plan, PlanParquetRead(path, options, &st));
  const std::vector<PartitionColumn>& partitions = plan.partitions;
  const std::vector<std::unique_ptr<ParquetFile>>& files = plan.files;
  const Schema& file_schema = plan.file_schema;
  const Schema& out_schema = plan.out_schema;
  const std::vector<int>& projection = plan.projection;
  const std::vector<int>& file_columns = plan.file_columns;
  const std::vector<KeptRowGroup>& row_groups = plan.row_groups;
  ThreadPool& pool = ThreadPool::Default();

  // Decode every (row group, file column) pair in parallel; results land in fixed slots. The
  // biggest chunks start first (longest-processing-time-first), so that no large chunk is left
  // to run alone at the end while the other cores idle. With a per-row-group callback, row groups
  // go one after another instead (biggest chunk first within each), so that each is complete,
  // transformed and freed early.
  const size_t ncols = file_columns.size();
  std::vector<ColumnPtr> decoded(row_groups.size() * ncols);
  std::vector<Status> slot_status(decoded.size());
  auto chunk_bytes = [&](size_t slot) -> int64_t {
    return plan.ChunkUncompressedBytes(slot / ncols, file_columns[slot % ncols]);
  };
  std::vector<size_t> order(decoded.size());
  std::vector<int64_t> cost(decoded.size());
  for (size_t t = 0; t < order.size(); ++t) {
    order[t] = t;
    cost[t] = chunk_bytes(t);
  }
  const bool streaming = options.per_row_group || options.per_numbered_batch;
  // The number of each row group's first row among the rows read, for per_numbered_batch.
  std::vector<int64_t> first_row(row_groups.size() + 1, 0);
  for (size_t r = 0; r < row_groups.size(); ++r)
    first_row[r + 1] = first_row[r] + row_groups[r].rows;
  // `rows`: the rows of the row group (from `offset`) that the batch holds, when the row
  // conditions dropped the others.
  auto hand_on = [&](size_t r, int64_t offset, BatchPtr batch,
                     const std::vector<int32_t>* rows = nullptr) {
    return options.per_numbered_batch
               ? options.per_numbered_batch(std::move(batch), first_row[r] + offset, rows)
               : options.per_row_group(std::move(batch));
  };
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (streaming && a / ncols != b / ncols) return a / ncols < b / ncols;
    return cost[a] > cost[b];
  });

  // Row conditions (row groups streamed whole, or in pieces held for speed): the condition on
  // each file column, if any; such columns are read as dictionary codes where their chunks allow.
  std::vector<const RowCondition*> condition_of(ncols, nullptr);
  if (streaming && (options.piece_rows == 0 || options.piece_hold_pages)) {
    for (const RowCondition& condition : options.row_conditions) {
      const int index = file_schema.FieldIndex(condition.column);
      const size_t slot =
          std::find(file_columns.begin(), file_columns.end(), index) - file_columns.begin();
      if (index >= 0 && slot < ncols && condition.keep &&
          file_schema.field(index).type.id != TypeId::kBool && condition_of[slot] == nullptr) {
        condition_of[slot] = &condition;
      }
    }
  }
  const bool any_condition =
      std::any_of(condition_of.begin(), condition_of.end(), [](auto* c) { return c != nullptr; });
  std::vector<std::optional<DictionaryCodes>> codes(any_condition ? decoded.size() : 0);
  std::atomic<int64_t> chunks_as_codes{0}, rows_dropped{0};
  // Rows of the row groups tested so far, and of those that went on whole because their
  // conditions kept too many rows to be worth gathering: once most rows tested go whole (over at
  // least kProbeRows), the later chunks are decoded as usual.
  constexpr int64_t kProbeRows = 1 << 20;
  std::atomic<int64_t> tested_rows{0}, whole_rows{0};
  auto conditions_pay = [&] {
    const int64_t tested = tested_rows.load(std::memory_order_relaxed);
    return tested < kProbeRows || whole_rows.load(std::memory_order_relaxed) * 2 <= tested;
  };

  // The batch of row group r from its decoded columns (partition columns added as constants),
  // only the rows at `rows` when given.
  auto assemble = [&](size_t r, const std::vector<int32_t>* rows = nullptr) {
    const KeptRowGroup& rg = row_groups[r];
    const int64_t n = rows ? static_cast<int64_t>(rows->size()) : rg.rows;
    auto batch = std::make_shared<Batch>();
    batch->schema = out_schema;
    batch->num_rows = n;
    for (int index : projection) {
      if (index < file_schema.num_fields()) {
        const size_t slot =
            std::find(file_columns.begin(), file_columns.end(), index) - file_columns.begin();
        const size_t t = r * ncols + slot;
        if (!codes.empty() && codes[t]) {
          batch->columns.push_back(MaterializeCodes(*codes[t], rows));
        } else if (rows) {
          batch->columns.push_back(Take(*decoded[t], rows->data(), n));
        } else {
          batch->columns.push_back(decoded[t]);
        }
      } else {
        const size_t k = static_cast<size_t>(index - file_schema.num_fields());
        batch->columns.push_back(
            PartitionColumnValues(partitions[k].type, plan.PartitionValue(r, k), n));
      }
    }
    return batch;
  };
  // The rows of row group r that meet the conditions of its columns read as codes; nullopt when
  // the row group goes on whole (no column read as codes, every row kept, or too many kept to be
  // worth gathering).
  auto rows_kept = [&](size_t r) -> Result<std::optional<std::vector<int32_t>>> {
    std::vector<const RowCondition*> tested;
    std::vector<const DictionaryCodes*> tested_codes;
    for (size_t c = 0; c < ncols && any_condition; ++c) {
      if (condition_of[c] && codes[r * ncols + c]) {
        tested.push_back(condition_of[c]);
        tested_codes.push_back(&*codes[r * ncols + c]);
      }
    }
    if (tested.empty()) return std::optional<std::vector<int32_t>>();
    chunks_as_codes.fetch_add(static_cast<int64_t>(tested.size()), std::memory_order_relaxed);
    bool all = false;
    TANDEM_ASSIGN_OR_RAISE(std::vector<int32_t> rows,
                           RowsMeetingConditions(tested, tested_codes, row_groups[r].rows, &all));
    // Gathering the rows kept pays when it spares building most strings, or when few rows are
    // kept (the filter above copies the rows it keeps again, or hands on a selection); else the
    // row group goes on whole and the filter drops the rest.
    const int64_t n = row_groups[r].rows;
    const int64_t kept = all ? n : static_cast<int64_t>(rows.size());
    bool strings = false;
    for (const DictionaryCodes* c : tested_codes) strings |= c->dictionary->type().is_string_like();
    const double max_share = options.row_conditions_max_kept_share > 0
                                 ? options.row_conditions_max_kept_share
                                 : (strings ? 0.5 : 0.25);
    const bool whole = all || static_cast<double>(kept) > max_share * static_cast<double>(n);
    tested_rows.fetch_add(n, std::memory_order_relaxed);
    if (whole) whole_rows.fetch_add(n, std::memory_order_relaxed);
    if (whole) return std::optional<std::vector<int32_t>>();
    rows_dropped.fetch_add(row_groups[r].rows - static_cast<int64_t>(rows.size()),
                           std::memory_order_relaxed);
    return std::optional<std::vector<int32_t>>(std::move(rows));
  };
  auto length_error = [&](const KeptRowGroup& rg, int column) {
    return Status::Invalid(files[rg.file]->path() + ": row group " + std::to_string(rg.row_group) +
                           ", column " + file_schema.field(column).name +
                           ": decoded length differs from the row group's row count " +
                           std::to_string(rg.rows));
  };
  std::vector<std::vector<BatchPtr>> transformed(streaming ? row_groups.size() : 0);
  std::vector<Status> transform_status(transformed.size());
  std::unique_ptr<std::atomic<size_t>[]> columns_left(
      new std::atomic<size_t>[streaming ? row_groups.size() : 0]);
  for (size_t r = 0; r < transformed.size(); ++r) columns_left[r] = ncols;
  auto finish_row_group = [&](size_t r) -> Status {
    // The rows that meet the conditions of its columns read as codes (nullopt: every row).
    Result<std::optional<std::vector<int32_t>>> kept = rows_kept(r);
    BatchPtr batch;
    if (kept.ok() && !(*kept && (*kept)->empty())) batch = assemble(r, *kept ? &**kept : nullptr);
    for (size_t c = 0; c < ncols; ++c) {
      decoded[r * ncols + c].reset();  // the batch holds what it needs
      if (!codes.empty()) codes[r * ncols + c].reset();
    }
    if (!kept.ok()) {
      transform_status[r] = kept.status();
      return transform_status[r];
    }
    if (!batch) return Status::OK();  // no row met the conditions
    auto result = hand_on(r, 0, std::move(batch), *kept ? &**kept : nullptr);
    if (!result.ok()) {
      transform_status[r] = result.status();
      return transform_status[r];
    }
    transformed[r] = std::move(result).value();
    return Status::OK();
  };
  // A row group without file columns (only partition columns) is complete from the start.
  if (streaming && ncols == 0) {
    for (size_t r = 0; r < row_groups.size(); ++r) TANDEM_RETURN_NOT_OK(finish_row_group(r));
  }

  // A row group read in pieces whose conditions keep few rows: its condition columns as codes,
  // its other columns whole, only the kept rows gathered and transformed, as the whole path does.
  // False when it goes on in pieces (no column as codes, or too many rows kept). Its slots are
  // released on every path.
  auto release_slots = [&](size_t r) {
    for (size_t c = 0; c < ncols; ++c) {
      codes[r * ncols + c].reset();
      decoded[r * ncols + c].reset();
    }
  };
  auto gather_kept_rows_in = [&](size_t r) -> Result<bool> {
    const KeptRowGroup& rg = row_groups[r];
    const ParquetFile& file = *files[rg.file];
    bool any = false;
    for (size_t c = 0; c < ncols; ++c) {
      if (!condition_of[c]) continue;
      TANDEM_ASSIGN_OR_RAISE(std::optional<DictionaryCodes> as_codes,
                             file.ReadColumnCodes(rg.row_group, file_columns[c]));
      if (!as_codes) continue;
      if (as_codes->num_rows != rg.rows) return length_error(rg, file_columns[c]);
      codes[r * ncols + c] = std::move(as_codes);
      any = true;
    }
    if (!any) return false;
    TANDEM_ASSIGN_OR_RAISE(std::optional<std::vector<int32_t>> rows, rows_kept(r));
    if (!rows) return false;
    if (!rows->empty()) {
      for (size_t c = 0; c < ncols; ++c) {
        if (codes[r * ncols + c]) continue;
        TANDEM_ASSIGN_OR_RAISE(BatchPtr batch, file.ReadRowGroup(rg.row_group, {file_columns[c]}));
        if (!batch || batch->num_columns() != 1 || batch->column(0)->length() != rg.rows) {
          return length_error(rg, file_columns[c]);
        }
        decoded[r * ncols + c] = batch->column(0);
      }
      BatchPtr batch = assemble(r, &*rows);
      release_slots(r);  // the batch holds what it needs
      TANDEM_ASSIGN_OR_RAISE(transformed[r], hand_on(r, 0, std::move(batch), &*rows));
    }
    query_progress::AddDone(rg.rows * static_cast<int64_t>(ncols));
    return true;
  };
  auto gather_kept_rows = [&](size_t r) -> Result<bool> {
    Result<bool> gathered = gather_kept_rows_in(r);
    release_slots(r);
    return gathered;
  };

  // Row groups in pieces: one row group per task, its pieces transformed as they come.
  if (streaming && options.piece_rows > 0 && ncols > 0) {
    Status piece_status = pool.ParallelFor(
        static_cast<int64_t>(row_groups.size()),
        [&](int64_t r) -> Status {
          const KeptRowGroup& rg = row_groups[r];
          const ParquetFile& file = *files[rg.file];
          if (any_condition && rg.rows <= std::numeric_limits<int32_t>::max() && conditions_pay()) {
            Result<bool> gathered = gather_kept_rows(r);
            if (!gathered.ok()) {
              transform_status[r] = gathered.status();
              return transform_status[r];
            }
            if (*gathered) return Status::OK();
          }
          int64_t piece_offset = 0;  // the piece's first row within the row group
          Status st = file.ReadRowGroupPieces(
              rg.row_group, file_columns, options.piece_rows,
              [&](BatchPtr piece) -> Status {
                auto batch = std::make_shared<Batch>();
                batch->schema = out_schema;
                batch->num_rows = piece->num_rows;
                for (int index : projection) {
                  if (index < file_schema.num_fields()) {
                    const size_t slot = std::find(file_columns.begin(), file_columns.end(), index) -
                                        file_columns.begin();
                    batch->columns.push_back(piece->columns[slot]);
                  } else {
                    const size_t k = static_cast<size_t>(index - file_schema.num_fields());
                    batch->columns.push_back(PartitionColumnValues(
                        partitions[k].type, plan.PartitionValue(r, k), piece->num_rows));
                  }
                }
                const int64_t rows = piece->num_rows;
                piece.reset();
                TANDEM_ASSIGN_OR_RAISE(std::vector<BatchPtr> out,
                                       hand_on(r, piece_offset, std::move(batch)));
                piece_offset += rows;
                for (auto& b : out) transformed[r].push_back(std::move(b));
                query_progress::AddDone(rows * static_cast<int64_t>(ncols));
                return Status::OK();
              },
              options.piece_hold_pages);
          transform_status[r] = st;
          return st;
        },
        options.num_threads);
    if (!piece_status.ok()) {
      for (const Status& s : transform_status) {
        if (!s.ok()) return s;
      }
      return piece_status;
    }
  }

  Status decode_status =
      streaming && options.piece_rows > 0 && ncols > 0
          ? Status::OK()
          : pool.ParallelFor(
                static_cast<int64_t>(order.size()),
                [&](int64_t i) -> Status {
                  const size_t t = order[i];
                  const KeptRowGroup& rg = row_groups[t / ncols];
                  const int column = file_columns[t % ncols];
                  const ParquetFile& file = *files[rg.file];
                  if (any_condition && condition_of[t % ncols] &&
                      rg.rows <= std::numeric_limits<int32_t>::max() && conditions_pay()) {
                    auto as_codes = file.ReadColumnCodes(rg.row_group, column);
                    if (!as_codes.ok()) {
                      slot_status[t] = as_codes.status();
                      return slot_status[t];
                    }
                    if (*as_codes) {
                      if ((*as_codes)->num_rows != rg.rows) {
                        slot_status[t] = length_error(rg, column);
                        return slot_status[t];
                      }
                      codes[t] = std::move(*as_codes);
                      query_progress::AddDone(rg.rows);
                      if (columns_left[t / ncols].fetch_sub(1) == 1) {
                        return finish_row_group(t / ncols);
                      }
                      return Status::OK();
                    }
                  }
                  auto batch = file.ReadRowGroup(rg.row_group, {column});
                  if (!batch.ok()) {
                    slot_status[t] = batch.status();
                  } else if (!*batch || (*batch)->num_columns() != 1 ||
                             (*batch)->column(0)->length() != rg.rows) {
                    slot_status[t] = length_error(rg, column);
                  } else {
                    decoded[t] = (*batch)->column(0);
                  }
                  if (!slot_status[t].ok()) return slot_status[t];
                  query_progress::AddDone(rg.rows);
                  if (streaming && columns_left[t / ncols].fetch_sub(1) == 1) {
                    return finish_row_group(t / ncols);
                  }
                  return Status::OK();
                },
                options.num_threads);
  if (!decode_status.ok()) {
    // Report the failure that comes first in file / row-group / column order.
    for (const Status& s : slot_status) {
      if (!s.ok()) return s;
    }
    for (const Status& s : transform_status) {
      if (!s.ok()) return s;
    }
    return decode_status;  // an exception turned into a Status
  }

  st.chunks_as_codes = chunks_as_codes.load();
  st.rows_dropped_by_conditions = rows_dropped.load();
  Table table;
  table.schema = out_schema;
  table.batches.reserve(row_groups.size());
  for (size_t r = 0; r < row_groups.size(); ++r) {
    const KeptRowGroup& rg = row_groups[r];
    for (int column : file_columns) st.bytes_read += plan.ChunkCompressedBytes(r, column);
    st.rows += rg.rows;
    if (streaming) {
      for (auto& b : transformed[r]) table.batches.push_back(std::move(b));
    } else {
      table.batches.push_back(assemble(r));
    }
  }
  return table;
}

}  // namespace tandem::parquet
