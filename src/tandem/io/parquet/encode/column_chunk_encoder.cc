// Column chunk encoding: page splitting, dictionary attempt with PLAIN fallback, definition
// levels, compression, page headers, statistics and the chunk's ColumnMetaData.
#include "tandem/io/parquet/encode/column_chunk_encoder.h"

#include <algorithm>
#include <climits>
#include <cstring>
#include <optional>
#include <type_traits>

#include "tandem/io/parquet/codec.h"
#include "tandem/io/parquet/encode/dictionary_builder.h"
#include "tandem/io/parquet/encode/rle_encoder.h"
#include "tandem/io/parquet/encode/statistics_builder.h"
#include "tandem/io/parquet/encode/value_ops.h"

namespace tandem::parquet {
namespace {

struct PageRange {
  int64_t row_begin = 0;
  int64_t rows = 0;
  int64_t value_begin = 0;
  int64_t values = 0;
  int64_t plain_bytes = 0;  // PLAIN size of the page's values
};

template <typename Ops>
constexpr bool kFixedSize = !std::is_same_v<typename Ops::Value, std::string_view>;

template <typename Ops>
class ChunkEncoder {
 public:
  using Value = typename Ops::Value;

  ChunkEncoder(const ChunkData& data, const Value* values, int64_t num_values, Ops ops,
               const ColumnWriteSpec& spec, const WriteOptions& options, EncodedChunk* out)
      : data_(data),
        values_(values),
        num_values_(num_values),
        ops_(ops),
        spec_(spec),
        options_(options),
        out_(out),
        chunk_stats_(ops) {}

  Status Encode() {
    ColumnMetaData& m = out_->meta;
    m.type = spec_.physical;
    m.path_in_schema = {spec_.name};
    m.codec = options_.codec;
    m.num_values = data_.num_rows;
    const std::vector<PageRange> pages = SplitPages();
    out_->pieces.reserve(pages.size() * 2 + 2);
    const size_t dictionary_pages = BuildDictionary(pages);
    if (dictionary_pages > 0) {
      m.dictionary_page_offset = out_->size;
      TANDEM_RETURN_NOT_OK(WriteDictionaryPage());
    }
    m.data_page_offset = out_->size;
    for (size_t p = 0; p < pages.size(); ++p) {
      TANDEM_RETURN_NOT_OK(WriteDataPage(pages[p], p < dictionary_pages));
    }
    // Encodings and encoding statistics.
    if (dictionary_pages > 0 || plain_pages_ > 0) m.encodings.push_back(Encoding::PLAIN);
    m.encodings.push_back(Encoding::RLE);
    if (dictionary_pages > 0) {
      m.encodings.push_back(Encoding::RLE_DICTIONARY);
      m.encoding_stats.push_back({PageType::DICTIONARY_PAGE, Encoding::PLAIN, 1});
      m.encoding_stats.push_back(
          {PageType::DATA_PAGE, Encoding::RLE_DICTIONARY, static_cast<int32_t>(dictionary_pages)});
    }
    if (plain_pages_ > 0) {
      m.encoding_stats.push_back({PageType::DATA_PAGE, Encoding::PLAIN, plain_pages_});
    }
    if (options_.statistics) {
      m.statistics = chunk_stats_.ToThrift(data_.null_count);
      // A chunk dictionary-encoded throughout holds exactly its dictionary's values: an exact
      // distinct count, which readers (our optimizer, DuckDB) use for cardinality estimates.
      if (m.statistics && dictionary_ && dictionary_pages == pages.size() && plain_pages_ == 0) {
        m.statistics->distinct_count = static_cast<int64_t>(dictionary_->size());
      }
    }
    return Status::OK();
  }

 private:
  bool IsValid(int64_t row) const {
    return data_.validity.empty() || bit_util::GetBit(data_.validity.data(), row);
  }

  // Rows per page so that each page's PLAIN values are about data_page_bytes.
  std::vector<PageRange> SplitPages() const {
    std::vector<PageRange> pages;
    const int64_t target = std::max<int64_t>(1, options_.data_page_bytes);
    PageRange page;
    int64_t bytes = 0;
    int64_t value = 0;
    if (data_.validity.empty() && kFixedSize<Ops>) {
      const int64_t width = ops_.PlainSize(Value{});
      const int64_t per_page =
          std::clamp<int64_t>((target + width - 1) / width, 1, kMaxRowsPerPage);
      for (int64_t row = 0; row < data_.num_rows; row += per_page) {
        const int64_t rows = std::min(per_page, data_.num_rows - row);
        pages.push_back(PageRange{row, rows, row, rows, rows * width});
      }
      if (pages.empty()) pages.push_back(PageRange{});
      return pages;
    }
    for (int64_t row = 0; row < data_.num_rows; ++row) {
      if (IsValid(row)) {
        bytes += ops_.PlainSize(values_[value]);
        ++value;
        ++page.values;
      }
      ++page.rows;
      if (bytes >= target || page.rows >= kMaxRowsPerPage) {
        page.plain_bytes = bytes;
        pages.push_back(page);
        page = PageRange{row + 1, 0, value, 0};
        bytes = 0;
      }
    }
    page.plain_bytes = bytes;
    if (page.rows > 0 || pages.empty()) pages.push_back(page);
    return pages;
  }

  // Dictionary-encodes pages from the first on while the dictionary stays within the limit;
  // returns how many pages are dictionary-encoded (0: no dictionary at all).
  size_t BuildDictionary(const std::vector<PageRange>& pages) {
    if constexpr (!Ops::kDictionary) {
      return 0;
    } else {
      if (!options_.dictionary || num_values_ == 0) return 0;
      dictionary_.emplace(ops_);
      indices_.resize(static_cast<size_t>(num_values_));
      size_t encoded = 0;
      for (const PageRange& page : pages) {
        const int64_t end = page.value_begin + page.values;
        for (int64_t v = page.value_begin; v < end; ++v) {
          indices_[v] = dictionary_->GetOrInsert(values_[v]);
          if (dictionary_->plain_bytes() > kDictionaryPageLimit) return encoded;
        }
        ++encoded;
      }
      return encoded;
    }
  }

  Status WriteDictionaryPage() {
    if constexpr (Ops::kDictionary) {
      const std::vector<Value>& entries = dictionary_->values();
      body_.clear();
      ops_.AppendPlain(entries.data(), static_cast<int64_t>(entries.size()), &body_);
      PageHeader header;
      header.type = PageType::DICTIONARY_PAGE;
      DictionaryPageHeader dict;
      dict.num_values = static_cast<int32_t>(entries.size());
      dict.encoding = Encoding::PLAIN;
      header.dictionary_page_header = dict;
      bit_width_ = BitWidthForDictionary(static_cast<int64_t>(entries.size()));
      return AppendPage(&header, "dictionary page");
    }
    return Status::OK();
  }

  Status WriteDataPage(const PageRange& page, bool dictionary_encoded) {
    body_.clear();
    if (spec_.nullable) {
      body_.append(4, '\0');
      EncodeDefinitionLevels(data_.validity.empty() ? nullptr : data_.validity.data(),
                             page.row_begin, page.rows, &body_);
      const uint32_t levels_bytes = static_cast<uint32_t>(body_.size() - 4);
      std::memcpy(body_.data(), &levels_bytes, 4);
    }
    const Value* values = values_ + page.value_begin;
    if (dictionary_encoded) {
      body_.push_back(static_cast<char>(bit_width_));
      EncodeRleBitPacked(indices_.data() + page.value_begin, page.values, bit_width_, &body_);
    } else {
      ops_.AppendPlain(values, page.values, &body_);
      ++plain_pages_;
    }
    PageHeader header;
    header.type = PageType::DATA_PAGE;
    DataPageHeader d;
    d.num_values = static_cast<int32_t>(page.rows);
    d.encoding = dictionary_encoded ? Encoding::RLE_DICTIONARY : Encoding::PLAIN;
    d.definition_level_encoding = Encoding::RLE;
    d.repetition_level_encoding = Encoding::RLE;
    StatisticsBuilder<Ops> page_stats(ops_);
    if (options_.statistics) PageStatistics(page, dictionary_encoded, &page_stats);
    chunk_stats_.Merge(page_stats);
    if (options_.statistics) d.statistics = page_stats.ToThrift(page.rows - page.values);
    header.data_page_header = std::move(d);
    return AppendPage(&header, "data page");
  }

  // Min/max of a page. A dictionary-encoded page with more values than dictionary entries looks
  // only at the entries it uses, which is much cheaper for strings.
  void PageStatistics(const PageRange& page, bool dictionary_encoded,
                      StatisticsBuilder<Ops>* stats) {
    if constexpr (Ops::kDictionary) {
      if (dictionary_encoded && dictionary_->size() <= page.values) {
        used_.assign(static_cast<size_t>(dictionary_->size()), 0);
        const uint32_t* indices = indices_.data() + page.value_begin;
        for (int64_t i = 0; i < page.values; ++i) used_[indices[i]] = 1;
        const std::vector<Value>& entries = dictionary_->values();
        for (size_t e = 0; e < entries.size(); ++e) {
          if (used_[e]) stats->Update(&entries[e], 1);
        }
        return;
      }
    }
    stats->Update(values_ + page.value_begin, page.values);
  }

  // Compresses body_ and appends header + body to the chunk.
  Status AppendPage(PageHeader* header, const char* what) {
    std::string* payload = &body_;
    if (options_.codec != CompressionCodec::UNCOMPRESSED) {
      compressed_.clear();
      Status st = Compress(options_.codec, reinterpret_cast<const uint8_t*>(body_.data()),
                           static_cast<int64_t>(body_.size()), &compressed_, options_.zstd_level);
      if (!st.ok()) return st.WithContext(std::string("column ") + spec_.name + ", " + what);
      payload = &compressed_;
    }
    if (body_.size() > INT32_MAX || payload->size() > INT32_MAX) {
      return Status::Invalid("column " + spec_.name + ": a " + what +
                             " is larger than 2 GiB (a single value too large for Parquet)");
    }
    header->uncompressed_page_size = static_cast<int32_t>(body_.size());
    header->compressed_page_size = static_cast<int32_t>(payload->size());
    std::string header_bytes;
    SerializePageHeader(*header, &header_bytes);
    const int64_t header_size = static_cast<int64_t>(header_bytes.size());
    const int64_t body_size = static_cast<int64_t>(body_.size());
    const int64_t payload_size = static_cast<int64_t>(payload->size());
    out_->pieces.push_back(std::move(header_bytes));
    out_->pieces.push_back(std::move(*payload));  // the next page starts a fresh buffer
    payload->clear();
    out_->size += header_size + payload_size;
    out_->meta.total_uncompressed_size += header_size + body_size;
    out_->meta.total_compressed_size += header_size + payload_size;
    return Status::OK();
  }

  const ChunkData& data_;
  const Value* values_;
  int64_t num_values_;
  Ops ops_;
  const ColumnWriteSpec& spec_;
  const WriteOptions& options_;
  EncodedChunk* out_;
  StatisticsBuilder<Ops> chunk_stats_;
  std::optional<DictionaryBuilder<Ops>> dictionary_;
  std::vector<uint32_t> indices_;
  std::vector<uint8_t> used_;  // dictionary entries seen in the current page
  int bit_width_ = 1;
  int32_t plain_pages_ = 0;
  std::string body_;
  std::string compressed_;
};

template <typename Ops, typename Value>
Status Run(const ChunkData& data, const std::vector<Value>& values, Ops ops,
           const ColumnWriteSpec& spec, const WriteOptions& options, EncodedChunk* out) {
  const Value* held =
      data.borrowed_values ? static_cast<const Value*>(data.borrowed_values) : values.data();
  ChunkEncoder<Ops> encoder(data, held, data.num_values, ops, spec, options, out);
  return encoder.Encode();
}

}  // namespace

Status EncodeColumnChunk(const ChunkData& data, const ColumnWriteSpec& spec,
                         const WriteOptions& options, EncodedChunk* out) {
  switch (spec.kind) {
    case ValueKind::kBool:
      return Run(data, data.bools, BoolOps{}, spec, options, out);
    case ValueKind::kInt32:
      return Run(data, data.i32, IntOps<int32_t, false>{}, spec, options, out);
    case ValueKind::kUInt32:
      return Run(data, data.i32, IntOps<int32_t, true>{}, spec, options, out);
    case ValueKind::kInt64:
      return Run(data, data.i64, IntOps<int64_t, false>{}, spec, options, out);
    case ValueKind::kUInt64:
      return Run(data, data.i64, IntOps<int64_t, true>{}, spec, options, out);
    case ValueKind::kFloat:
      return Run(data, data.f32, FloatOps<float>{}, spec, options, out);
    case ValueKind::kDouble:
      return Run(data, data.f64, FloatOps<double>{}, spec, options, out);
    case ValueKind::kDecimal128: {
      Decimal128Ops ops;
      ops.width = spec.flba_width;
      return Run(data, data.i128, ops, spec, options, out);
    }
    case ValueKind::kByteArray:
      return Run(data, data.bytes, ByteArrayOps{}, spec, options, out);
  }
  return Status::Internal("unknown value kind for column " + spec.name);
}

}  // namespace tandem::parquet
