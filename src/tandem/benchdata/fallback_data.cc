// The fallback benchmark's tables: see fallback_data.h for the domains.
#include "tandem/benchdata/fallback_data.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <regex>
#include <set>
#include <system_error>

#include "tandem/column/column_builder.h"
#include "tandem/common/thread_pool.h"
#include "tandem/format/value_format.h"
#include "tandem/io/parquet/writer.h"
#include "tandem/tpch/random.h"

namespace tandem::benchdata {
namespace {

namespace fs = std::filesystem;
using tpch::RandomBits;

// Streams: one per random column (the value of each is part of the data's definition).
enum Stream : uint64_t {
  kCustomerId = 1,
  kOrderDate,
  kAmount,
  kQuantity,
  kDiscount,
  kStatus,
  kChannel,
  kSku,
  kNoteNull,
  kNoteLength,
  kNoteWord,      // draw row * 16 + k: word k of the note
  kMetric = 100,  // kMetric + m for metric m (0-based)
  kSegment = 200,
  kRegion,
  kRisk,
};

uint64_t Draw(uint64_t seed, uint64_t stream, uint64_t row) {
  return RandomBits(tpch::Mix64(seed) ^ stream, row);
}

// Uniform integer in [lo, hi].
int64_t DrawRange(uint64_t seed, uint64_t stream, uint64_t row, int64_t lo, int64_t hi) {
  const uint64_t span = static_cast<uint64_t>(hi - lo) + 1;
  const uint64_t bits = Draw(seed, stream, row);
  return lo + static_cast<int64_t>((static_cast<unsigned __int128>(bits) * span) >> 64);
}

const std::vector<std::string>& NoteWords() {
  static const std::vector<std::string> words = {
      "express", "delivery",  "customer",  "requested", "gift",     "wrap",     "fragile",
      "handle",  "with",      "care",      "leave",     "at",       "front",    "door",
      "call",    "before",    "arrival",   "invoice",   "attached", "priority", "standard",
      "return",  "policy",    "applies",   "bulk",      "order",    "discount", "approved",
      "by",      "manager",   "signature", "required",  "weekend",  "morning",  "evening",
      "office",  "warehouse", "backorder", "partial",   "shipment", "complete", "pending",
      "review",  "loyalty",   "member",    "coupon",    "applied",  "seasonal", "promotion",
      "repeat",  "buyer",     "new",       "account",   "verified", "address",  "changed",
      "contact", "support",   "if",        "damaged",   "replace",  "item",     "quickly",
      "thanks"};
  return words;
}

const int32_t kFirstDay = static_cast<int32_t>(format::DaysFromCivil(2020, 1, 1));
const int32_t kLastDay = static_cast<int32_t>(format::DaysFromCivil(2023, 12, 31));

std::string PartFileName(int64_t index) {
  char buf[40];
  std::snprintf(buf, sizeof(buf), "part-%05lld.parquet", static_cast<long long>(index));
  return buf;
}

parquet::WriteOptions ZstdOptions(int64_t row_group_rows) {
  parquet::WriteOptions options;
  options.codec = parquet::CompressionCodec::ZSTD;
  options.row_group_rows = row_group_rows;
  return options;
}

// Removes part-NNNNN.parquet files in `dir` other than `written` (left by an earlier run).
void RemoveStaleParts(const fs::path& dir, const std::set<std::string>& written) {
  static const std::regex kPartName(R"(part-[0-9]{5,}\.parquet)");
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (entry.is_regular_file(ec) && std::regex_match(name, kPartName) && !written.count(name)) {
      fs::remove(entry.path(), ec);
    }
  }
}

Status MakeDirectory(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir)) {
    return Status::IOError("cannot create directory '" + dir.string() +
                           "': " + (ec ? ec.message() : std::string("not a directory")));
  }
  return Status::OK();
}

// Writes rows [begin, end) of a table, in slices, to one Parquet file.
template <typename Generate>
Status WriteRows(const std::string& path, const Schema& schema, int64_t begin, int64_t end,
                 const FallbackDataOptions& options, Generate generate) {
  TANDEM_ASSIGN_OR_RAISE(auto writer, parquet::ParquetFileWriter::Open(
                                          path, schema, ZstdOptions(options.row_group_rows)));
  const int64_t slice = std::max<int64_t>(1, options.slice_rows);
  for (int64_t at = begin; at < end; at += slice) {
    const int64_t stop = std::min(end, at + slice);
    BatchPtr batch = generate(at, stop);
    TANDEM_RETURN_NOT_OK(writer->WriteBatch(*batch));
    if (options.progress) options.progress->Advance(stop - at);
  }
  return writer->Close();
}

}  // namespace

const std::vector<std::string>& FallbackSegments() {
  static const std::vector<std::string> v = {"consumer", "corporate", "enterprise", "public_sector",
                                             "small_business"};
  return v;
}

const std::vector<std::string>& FallbackRegions() {
  static const std::vector<std::string> v = {"central",  "coastal", "east",  "islands",
                                             "mountain", "north",   "south", "west"};
  return v;
}

const std::vector<std::string>& FallbackStatuses() {
  static const std::vector<std::string> v = {"cancelled", "open", "paid", "returned", "shipped"};
  return v;
}

const std::vector<std::string>& FallbackChannels() {
  static const std::vector<std::string> v = {"partner", "phone", "store", "web"};
  return v;
}

Schema FallbackFactSchema() {
  Schema s;
  s.fields = {{"order_id", DataType::Int64(), false},    {"customer_id", DataType::Int64(), false},
              {"order_date", DataType::Date32(), false}, {"amount", DataType::Float64(), false},
              {"quantity", DataType::Int32(), false},    {"discount", DataType::Float64(), false},
              {"status", DataType::String(), false},     {"channel", DataType::String(), false},
              {"sku", DataType::String(), false},        {"note", DataType::String(), true}};
  for (int m = 1; m <= kFallbackMetrics; ++m) {
    s.fields.push_back({"m" + std::to_string(m), DataType::Float64(), false});
  }
  return s;
}

Schema FallbackCustomerSchema() {
  Schema s;
  s.fields = {{"customer_id", DataType::Int64(), false},
              {"segment", DataType::String(), false},
              {"region", DataType::String(), false},
              {"risk", DataType::Float64(), false}};
  return s;
}

BatchPtr GenerateFactRows(int64_t begin, int64_t end, uint64_t seed) {
  const int64_t n = std::max<int64_t>(0, end - begin);
  std::vector<ColumnBuilder> b;
  const Schema schema = FallbackFactSchema();
  for (const Field& f : schema.fields) b.emplace_back(f.type, n);
  const auto& statuses = FallbackStatuses();
  const auto& channels = FallbackChannels();
  const auto& words = NoteWords();
  const int64_t num_words = static_cast<int64_t>(words.size());
  std::string text;
  for (int64_t r = begin; r < end; ++r) {
    const uint64_t row = static_cast<uint64_t>(r);
    b[0].Append<int64_t>(r + 1);
    b[1].Append<int64_t>(DrawRange(seed, kCustomerId, row, 1, kFallbackCustomers));
    b[2].Append<int32_t>(
        static_cast<int32_t>(DrawRange(seed, kOrderDate, row, kFirstDay, kLastDay)));
    b[3].Append<double>(static_cast<double>(DrawRange(seed, kAmount, row, 100, 100000)) / 100.0);
    b[4].Append<int32_t>(static_cast<int32_t>(DrawRange(seed, kQuantity, row, 1, 50)));
    b[5].Append<double>(static_cast<double>(DrawRange(seed, kDiscount, row, 0, 30)) / 100.0);
    b[6].AppendString(statuses[DrawRange(seed, kStatus, row, 0, 4)]);
    b[7].AppendString(channels[DrawRange(seed, kChannel, row, 0, 3)]);
    char sku[16];
    std::snprintf(sku, sizeof(sku), "SKU-%06lld",
                  static_cast<long long>(DrawRange(seed, kSku, row, 0, 999999)));
    b[8].AppendString(sku);
    if (DrawRange(seed, kNoteNull, row, 0, 99) == 0) {
      b[9].AppendNull();
    } else {
      const int64_t count = DrawRange(seed, kNoteLength, row, 3, 14);
      text.clear();
      for (int64_t k = 0; k < count; ++k) {
        if (k) text.push_back(' ');
        text += words[DrawRange(seed, kNoteWord, row * 16 + k, 0, num_words - 1)];
      }
      b[9].AppendString(text);
    }
    for (int m = 0; m < kFallbackMetrics; ++m) {
      // Metric m (0-based): hundredths in [-10 (m + 1) ^ 2, 10 (m + 1) ^ 2], so the columns
      // differ in spread and compress like real measurements rather than random bits.
      const int64_t limit = 1000 * (m + 1) * (m + 1);
      b[10 + m].Append<double>(
          static_cast<double>(DrawRange(seed, kMetric + m, row, -limit, limit)) / 100.0);
    }
  }
  auto batch = std::make_shared<Batch>();
  batch->schema = schema;
  batch->num_rows = n;
  for (auto& builder : b) batch->columns.push_back(builder.Finish());
  return batch;
}

BatchPtr GenerateCustomerRows(int64_t begin, int64_t end, uint64_t seed) {
  begin = std::clamp<int64_t>(begin, 0, kFallbackCustomers);
  end = std::clamp<int64_t>(end, begin, kFallbackCustomers);
  const int64_t n = end - begin;
  const Schema schema = FallbackCustomerSchema();
  ColumnBuilder id(DataType::Int64(), n), segment(DataType::String(), n),
      region(DataType::String(), n), risk(DataType::Float64(), n);
  const auto& segments = FallbackSegments();
  const auto& regions = FallbackRegions();
  for (int64_t r = begin; r < end; ++r) {
    const uint64_t row = static_cast<uint64_t>(r);
    id.Append<int64_t>(r + 1);
    segment.AppendString(segments[DrawRange(seed, kSegment, row, 0, 4)]);
    region.AppendString(regions[DrawRange(seed, kRegion, row, 0, 7)]);
    risk.Append<double>(static_cast<double>(DrawRange(seed, kRisk, row, 0, 1000)) / 1000.0);
  }
  auto batch = std::make_shared<Batch>();
  batch->schema = schema;
  batch->num_rows = n;
  batch->columns = {id.Finish(), segment.Finish(), region.Finish(), risk.Finish()};
  return batch;
}

std::vector<FallbackFilePlan> PlanFactFiles(int64_t rows, int64_t rows_per_file) {
  rows = std::max<int64_t>(0, rows);
  rows_per_file = std::max<int64_t>(1, rows_per_file);
  std::vector<FallbackFilePlan> files;
  const int64_t count = std::max<int64_t>(1, (rows + rows_per_file - 1) / rows_per_file);
  for (int64_t f = 0; f < count; ++f) {
    files.push_back(
        {f, std::min(rows, f * rows_per_file), std::min(rows, (f + 1) * rows_per_file)});
  }
  return files;
}

Result<FallbackDataResult> WriteFallbackData(const std::string& dir,
                                             const FallbackDataOptions& options) {
  if (options.rows < 0) return Status::Invalid("fallback data: rows must not be negative");
  const fs::path fact_dir = fs::path(dir) / "fact";
  const fs::path customer_dir = fs::path(dir) / "customers";
  TANDEM_RETURN_NOT_OK(MakeDirectory(fact_dir));
  TANDEM_RETURN_NOT_OK(MakeDirectory(customer_dir));

  const std::vector<FallbackFilePlan> files = PlanFactFiles(options.rows, options.rows_per_file);
  const uint64_t seed = options.seed;
  ThreadPool pool(options.threads);
  // Task 0 writes the customers; tasks 1.. the fact files.
  Status st = pool.ParallelFor(static_cast<int64_t>(files.size()) + 1, [&](int64_t task) {
    if (task == 0) {
      return WriteRows((customer_dir / PartFileName(0)).string(), FallbackCustomerSchema(), 0,
                       kFallbackCustomers, options,
                       [&](int64_t a, int64_t b) { return GenerateCustomerRows(a, b, seed); });
    }
    const FallbackFilePlan& plan = files[static_cast<size_t>(task - 1)];
    return WriteRows((fact_dir / PartFileName(plan.file_index)).string(), FallbackFactSchema(),
                     plan.begin, plan.end, options,
                     [&](int64_t a, int64_t b) { return GenerateFactRows(a, b, seed); });
  });
  TANDEM_RETURN_NOT_OK(st);

  std::set<std::string> written;
  for (const FallbackFilePlan& plan : files) written.insert(PartFileName(plan.file_index));
  RemoveStaleParts(fact_dir, written);
  RemoveStaleParts(customer_dir, {PartFileName(0)});
  FallbackDataResult result;
  result.fact_rows = options.rows;
  result.fact_files = static_cast<int64_t>(files.size());
  result.customer_rows = kFallbackCustomers;
  return result;
}

}  // namespace tandem::benchdata
