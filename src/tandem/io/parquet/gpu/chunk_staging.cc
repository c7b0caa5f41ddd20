// StageColumnChunk (chunk_staging.h): the page walk mirrors the host decoder (DecodeColumnChunk)
// check for check, but where the host decodes values this stages the values sections (compressed
// data pages are decompressed straight into staging, the rest copied there) and records runs. Any
// check that fails, and any encoding the kernels do not handle, sends the chunk to the host
// decoder, so errors keep the host's exact wording.
#include "tandem/io/parquet/gpu/chunk_staging.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <new>

#include "tandem/common/bit_util.h"
#include "tandem/io/parquet/codec.h"
#include "tandem/io/parquet/decode/bit_unpack.h"
#include "tandem/io/parquet/decode/convert.h"
#include "tandem/io/parquet/decode/msb_bit_unpack.h"
#include "tandem/io/parquet/gpu/page_parse.h"
#include "tandem/io/parquet/page_reader.h"

namespace tandem::parquet::gpu_decode {
namespace {

using decode::BitWidthOf;
using decode::LoadLE32;

// Conversions the kernels implement for PLAIN and dictionary values.
bool KernelConversion(Conversion c) {
  switch (c) {
    case Conversion::kCopy:
    case Conversion::kInt32ToInt8:
    case Conversion::kInt32ToInt16:
    case Conversion::kInt32ToInt64:
    case Conversion::kInt32ToInt128:
    case Conversion::kInt64ToInt128:
    case Conversion::kMillisToMicros:
    case Conversion::kNanosToMicros:
      return true;
    default:
      return false;
  }
}

// A Status that is not OK means "decode on the host"; its message says why.
Status Host(const std::string& why) { return Status::Unsupported(why); }

class Stager : public PageDestination {
 public:
  Stager(const ColumnMetaData& meta, const LeafColumn& leaf, int64_t num_rows, StagedChunk* out)
      : meta_(meta), leaf_(leaf), num_rows_(num_rows), out_(*out) {}

  Status Run(const uint8_t* chunk, int64_t size, bool pinned, bool defer);

  // A compressed data page decompresses straight into staging (its values section is then
  // staged where it lies, without a copy); a dictionary page into the thread's scratch (it is
  // converted on the host).
  uint8_t* For(const PageHeader& header, int64_t raw_size) override;
  // With deferred decompression, compressed data pages are left for the GPU.
  bool Defer(const PageHeader& header) override {
    return defer_ && (header.type == PageType::DATA_PAGE || header.type == PageType::DATA_PAGE_V2);
  }

 private:
  Status Classify();
  Status AllocateStaging(int64_t chunk_size, bool pinned);
  // Copies bytes into staging at an 8-byte aligned offset, returned in *offset.
  Status Append(const uint8_t* p, int64_t n, int64_t* offset);
  Status DictionaryPage(const Page& page);
  Status DataPage(const Page& page);
  // Definition levels into validity bits (RLE levels through page_parse.h's ParseLevels).
  Status Levels(const uint8_t* data, int64_t size, int64_t n, bool bit_packed, int64_t* n_valid);
  // The values section into runs (page_parse.h), staged first where it does not lie already.
  Status Values(Encoding enc, const uint8_t* p, int64_t size, int64_t n_valid);
  Status PackAuxiliary();
  // Deferred decompression: a data page's plan, from its header alone (its bytes are recorded,
  // compressed or as stored, and copied into staging by FinishDeferred).
  Status DeferredDataPage(const Page& page);
  int64_t Direct(const uint8_t* p, int64_t n);
  int64_t Compressed(const uint8_t* p, int64_t n, int64_t out_bytes);
  Status FinishDeferred(bool pinned);

  const ColumnMetaData& meta_;
  const LeafColumn& leaf_;
  int64_t num_rows_;
  StagedChunk& out_;
  int64_t capacity_ = 0;
  int64_t rows_ = 0;
  int64_t dense_ = 0;
  std::vector<uint8_t> levels_;  // BIT_PACKED levels
  bool defer_ = false;
  // Deferred decompression: pieces to copy into staging (direct, then compressed), and which
  // plans' bodies lie in the decompressed region (offsets counted from its start until then).
  struct Piece {
    const uint8_t* from;
    int64_t bytes;
    int64_t at;
  };
  std::vector<Piece> direct_, compressed_;
  std::vector<bool> body_decompressed_;
};

Status Stager::Classify() {
  if (!leaf_.unsupported.empty()) return Host(leaf_.unsupported);
  if (!CodecSupported(meta_.codec)) return Host("codec");
  if (num_rows_ <= 0) return Host("empty row group");
  if (meta_.type != leaf_.physical) return Host("physical type mismatch");
  if (leaf_.max_repetition_level != 0) return Host("repeated column");
  out_.type = leaf_.type;
  out_.conversion = leaf_.conversion;
  out_.physical_width = decode::PhysicalWidth(leaf_.physical, leaf_.type_length);
  out_.out_width = leaf_.type.byte_width();
  out_.num_rows = num_rows_;
  if (leaf_.type.id == TypeId::kBool) {
    if (leaf_.physical != PhysicalType::BOOLEAN) return Host("boolean from another type");
    out_.kind = OutputKind::kBool;
    out_.out_width = 1;
    return Status::OK();
  }
  if (leaf_.type.is_string_like()) {
    if (leaf_.conversion != Conversion::kByteArray || leaf_.physical != PhysicalType::BYTE_ARRAY) {
      return Host("fixed-length binary");
    }
    out_.kind = OutputKind::kStrings;
    return Status::OK();
  }
  out_.kind = OutputKind::kFixed;
  if (!KernelConversion(leaf_.conversion)) return Host("conversion");
  const PhysicalType p = leaf_.physical;
  if (p != PhysicalType::INT32 && p != PhysicalType::INT64 && p != PhysicalType::FLOAT &&
      p != PhysicalType::DOUBLE) {
    return Host("physical type");
  }
  if (leaf_.conversion == Conversion::kCopy && out_.out_width != out_.physical_width) {
    return Host("copy between widths");
  }
  return Status::OK();
}

Status Stager::AllocateStaging(int64_t chunk_size, bool pinned) {
  // The values sections are part of the uncompressed pages, so the chunk's uncompressed size
  // bounds them (the footer's claim is checked as pages arrive). Each page may add 7 bytes of
  // alignment, and the header of a page takes more than that.
  const int64_t claimed = meta_.total_uncompressed_size;
  if (claimed < 0 || claimed > chunk_size * 1024 + (int64_t{1} << 20)) {
    return Host("implausible uncompressed size");
  }
  capacity_ = claimed + 64;
  if (pinned) {
    auto buffer = gpu::PinnedBuffer::Allocate(capacity_);
    if (!buffer.ok()) return Host("pinned memory: " + buffer.status().message());
    out_.pinned = std::move(buffer).value();
    out_.staging = out_.pinned.data();
  } else {
    out_.pageable.resize(static_cast<size_t>(capacity_));
    out_.staging = out_.pageable.data();
  }
  return Status::OK();
}

uint8_t* Stager::For(const PageHeader& header, int64_t raw_size) {
  if (header.type != PageType::DATA_PAGE && header.type != PageType::DATA_PAGE_V2) return nullptr;
  const int64_t at = (out_.staging_bytes + 7) / 8 * 8;
  if (raw_size < 0 || at > capacity_ || raw_size > capacity_ - at) return nullptr;
  out_.staging_bytes = at + raw_size;
  return out_.staging + at;
}

Status Stager::Append(const uint8_t* p, int64_t n, int64_t* offset) {
  // Bytes of a page decompressed into staging (For) are staged where they lie.
  const auto addr = reinterpret_cast<uintptr_t>(p);
  const auto base = reinterpret_cast<uintptr_t>(out_.staging);
  if (n >= 0 && out_.staging && addr >= base &&
      addr - base <= static_cast<uintptr_t>(out_.staging_bytes) &&
      static_cast<uintptr_t>(n) <= static_cast<uintptr_t>(out_.staging_bytes) - (addr - base)) {
    *offset = static_cast<int64_t>(addr - base);
    return Status::OK();
  }
  const int64_t at = (out_.staging_bytes + 7) / 8 * 8;
  if (n < 0 || at + n > capacity_) return Host("values exceed the chunk's uncompressed size");
  if (n > 0) std::memcpy(out_.staging + at, p, static_cast<size_t>(n));
  out_.staging_bytes = at + n;
  *offset = at;
  return Status::OK();
}

Status Stager::DictionaryPage(const Page& page) {
  if (out_.has_dictionary) return Host("second dictionary page");
  if (!page.header.dictionary_page_header) return Host("dictionary page without its header");
  const DictionaryPageHeader& dh = *page.header.dictionary_page_header;
  if (dh.encoding != Encoding::PLAIN && dh.encoding != Encoding::PLAIN_DICTIONARY) {
    return Host("dictionary page encoding");
  }
  const int64_t n = dh.num_values;
  const uint8_t* p = page.data;
  const int64_t size = page.size;
  if (n < 0) return Host("negative dictionary size");
  if (out_.kind == OutputKind::kBool) return Host("dictionary-encoded BOOLEAN column");
  if (out_.kind == OutputKind::kFixed) {
    const int w = out_.physical_width;
    if (w <= 0 || n > size / w) return Host("dictionary page too short");
    out_.dictionary_values.resize(static_cast<size_t>(n * out_.out_width));
    TANDEM_RETURN_NOT_OK(decode::ConvertFixed(leaf_.conversion, p, n, leaf_.type_length,
                                              out_.out_width, out_.dictionary_values.data()));
  } else {
    if (n > size / 4) return Host("dictionary page too short");
    out_.dictionary_offsets.resize(static_cast<size_t>(n) + 1);
    out_.dictionary_offsets[0] = 0;
    out_.dictionary_bytes.reserve(static_cast<size_t>(size));
    int64_t q = 0;
    for (int64_t i = 0; i < n; ++i) {
      if (size - q < 4) return Host("dictionary byte arrays end early");
      const uint32_t len = LoadLE32(p + q);
      q += 4;
      if (len > static_cast<uint64_t>(size - q)) return Host("dictionary byte array too long");
      out_.dictionary_bytes.insert(out_.dictionary_bytes.end(), p + q, p + q + len);
      q += len;
      out_.dictionary_offsets[i + 1] = static_cast<int64_t>(out_.dictionary_bytes.size());
    }
  }
  out_.has_dictionary = true;
  out_.dictionary_size = n;
  return Status::OK();
}

Status Stager::Levels(const uint8_t* data, int64_t size, int64_t n, bool bit_packed,
                      int64_t* n_valid) {
  const int max_def = leaf_.max_definition_level;
  uint8_t* bits = out_.validity.data();
  if (bit_packed) {  // the deprecated MSB-first encoding: decoded here only
    levels_.resize(static_cast<size_t>(n));
    TANDEM_RETURN_NOT_OK(
        decode::UnpackMsbFirst(data, size, BitWidthOf(max_def), n, levels_.data()));
    int64_t count = 0;
    for (int64_t i = 0; i < n; ++i) {
      const uint8_t level = levels_[i];
      if (level > max_def) return Host("definition level above the column's maximum");
      if (level == max_def) {
        bit_util::SetBit(bits, rows_ + i);
        ++count;
      }
    }
    *n_valid = count;
    return Status::OK();
  }
  const PageParseResult r = ParseLevels(data, size, 0, data, max_def, BitWidthOf(max_def), n,
                                        n_valid, [&](const ValueRun& run, int64_t rows) {
                                          const int64_t row = rows_ + run.first;
                                          DefinedRowsOfRun(
                                              run, rows, data, max_def,
                                              [&](int64_t first, int64_t count) {
                                                bit_util::SetBitsTo(bits, row + first, count, true);
                                              },
                                              [&](int64_t first, uint32_t set, int take) {
                                                for (int k = 0; k < take; ++k) {
                                                  if ((set >> k) & 1)
                                                    bit_util::SetBit(bits, row + first + k);
                                                }
                                              });
                                        });
  if (r.error != PageParseError::kNone) return Host(PageParseErrorText(r.error, r.runs));
  return Status::OK();
}

Status Stager::Values(Encoding enc, const uint8_t* p, int64_t size, int64_t n_valid) {
  if (n_valid == 0) return Status::OK();
  int64_t offset = 0;  // where the values section lies in staging (copied there if it is not)
  TANDEM_RETURN_NOT_OK(Append(p, size, &offset));
  const ValueShape shape = out_.kind == OutputKind::kBool      ? ValueShape::kBool
                           : out_.kind == OutputKind::kStrings ? ValueShape::kStrings
                                                               : ValueShape::kFixed;
  const PageParseResult r = ParseValues(
      static_cast<PageEncoding>(enc), shape, p, size, offset, n_valid, dense_,
      static_cast<int64_t>(out_.plain_positions.size()), out_.physical_width,
      out_.has_dictionary ? out_.dictionary_size : -1,
      [&](const ValueRun& run) { out_.runs.push_back(run); },
      [&](int64_t position) { out_.plain_positions.push_back(position); });
  if (r.error != PageParseError::kNone) return Host(PageParseErrorText(r.error, r.runs));
  dense_ += n_valid;
  return Status::OK();
}

Status Stager::DataPage(const Page& page) {
  const PageHeader& h = page.header;
  const uint8_t* p = page.data;
  int64_t size = page.size;
  int64_t n = 0;
  Encoding enc;
  const uint8_t* def_data = nullptr;
  int64_t def_size = 0;
  bool levels_present = leaf_.max_definition_level > 0;
  bool bit_packed = false;
  if (h.type == PageType::DATA_PAGE) {
    if (!h.data_page_header) return Host("data page without its header");
    const DataPageHeader& d = *h.data_page_header;
    n = d.num_values;
    enc = d.encoding;
    if (n < 0) return Host("negative value count");
    if (levels_present && d.definition_level_encoding == Encoding::BIT_PACKED) {
      const int64_t len = bit_util::BytesForBits(n * BitWidthOf(leaf_.max_definition_level));
      if (len > size) return Host("BIT_PACKED definition levels run past the page");
      def_data = p;
      def_size = len;
      bit_packed = true;
      p += len;
      size -= len;
    } else if (levels_present) {
      if (d.definition_level_encoding != Encoding::RLE) return Host("definition level encoding");
      if (size < 4) return Host("definition levels without their length");
      const uint32_t len = LoadLE32(p);
      if (len > size - 4) return Host("definition levels run past the page");
      def_data = p + 4;
      def_size = len;
      p += 4 + int64_t{len};
      size -= 4 + int64_t{len};
    }
  } else {
    const DataPageHeaderV2& d = *h.data_page_header_v2;
    n = d.num_values;
    enc = d.encoding;
    if (d.num_rows != d.num_values) return Host("data page v2 values differ from rows");
    def_data = p + d.repetition_levels_byte_length;
    def_size = d.definition_levels_byte_length;
    const int64_t prefix = def_size + d.repetition_levels_byte_length;
    p += prefix;
    size -= prefix;
    if (levels_present && def_size == 0 && d.num_nulls == 0) levels_present = false;
  }
  if (n < 0) return Host("negative value count");
  if (n > num_rows_ - rows_) return Host("pages hold more values than the row group");
  int64_t n_valid = n;
  if (levels_present) {
    TANDEM_RETURN_NOT_OK(Levels(def_data, def_size, n, bit_packed, &n_valid));
  } else if (leaf_.max_definition_level > 0) {
    bit_util::SetBitsTo(out_.validity.data(), rows_, n, true);
  }
  TANDEM_RETURN_NOT_OK(Values(enc, p, size, n_valid));
  rows_ += n;
  return Status::OK();
}

Status Stager::Run(const uint8_t* chunk, int64_t size, bool pinned, bool defer) {
  TANDEM_RETURN_NOT_OK(Classify());
  defer_ = defer;
  if (!defer_) TANDEM_RETURN_NOT_OK(AllocateStaging(size, pinned));
  if (leaf_.max_definition_level > 0 && !defer_) {
    out_.validity.assign(static_cast<size_t>((num_rows_ + 63) / 64 * 8), 0);
  }
  PageReader reader(chunk, size, meta_.codec, this);
  Page page;
  while (rows_ < num_rows_ || reader.pages_read() == 0) {
    auto more = reader.Next(&page);
    if (!more.ok()) return Host(more.status().message());
    if (!*more) break;
    if (page.header.type == PageType::DICTIONARY_PAGE) {
      TANDEM_RETURN_NOT_OK(DictionaryPage(page));
    } else if (page.header.type == PageType::DATA_PAGE ||
               page.header.type == PageType::DATA_PAGE_V2) {
      TANDEM_RETURN_NOT_OK(defer_ ? DeferredDataPage(page) : DataPage(page));
    }
  }
  if (rows_ != num_rows_) return Host("chunk rows differ from the row group's");
  if (defer_) return FinishDeferred(pinned);
  out_.num_valid = dense_;
  if (dense_ == num_rows_) out_.validity.clear();
  return pinned ? PackAuxiliary() : Status::OK();
}

// ---- deferred decompression ------------------------------------------------------------

int64_t Stager::Direct(const uint8_t* p, int64_t n) {
  const int64_t at = out_.direct_bytes;
  direct_.push_back({p, n, at});
  out_.direct_bytes = (at + n + 7) / 8 * 8;
  return at;
}

int64_t Stager::Compressed(const uint8_t* p, int64_t n, int64_t out_bytes) {
  const int64_t at = out_.decompressed_bytes;
  if (out_bytes == 0) return at;  // nothing to decompress (an empty v2 values section)
  // 16-byte aligned inputs and outputs (nvCOMP's batched decompressors ask for up to 8).
  const int64_t from =
      compressed_.empty() ? 0 : (compressed_.back().at + compressed_.back().bytes + 15) / 16 * 16;
  compressed_.push_back({p, n, from});
  out_.compressed_pages.push_back({from, n, at, out_bytes});
  out_.decompressed_bytes = (at + out_bytes + 15) / 16 * 16;
  return at;
}

Status Stager::DeferredDataPage(const Page& page) {
  const PageHeader& h = page.header;
  const bool compressed = page.data == nullptr;  // left for the GPU
  const uint8_t* body = compressed ? page.body.compressed : page.data;
  const int64_t stored = compressed ? page.body.compressed_size : page.size;
  DevicePagePlan plan;
  Encoding enc;
  int64_t n = 0;
  bool in_decompressed = false;
  if (h.type == PageType::DATA_PAGE) {
    if (!h.data_page_header) return Host("data page without its header");
    const DataPageHeader& d = *h.data_page_header;
    n = d.num_values;
    enc = d.encoding;
    plan.has_levels = leaf_.max_definition_level > 0;
    if (plan.has_levels && d.definition_level_encoding != Encoding::RLE) {
      return Host("definition level encoding (BIT_PACKED levels are read on the host)");
    }
    plan.body_bytes = page.size;
    in_decompressed = compressed;
    plan.body = compressed ? Compressed(body, stored, page.size) : Direct(body, stored);
  } else {
    const DataPageHeaderV2& d = *h.data_page_header_v2;
    n = d.num_values;
    enc = d.encoding;
    if (d.num_rows != d.num_values) return Host("data page v2 values differ from rows");
    const int64_t rep = d.repetition_levels_byte_length;
    const int64_t def = d.definition_levels_byte_length;
    plan.v2 = 1;
    plan.has_levels = leaf_.max_definition_level > 0 && !(def == 0 && d.num_nulls == 0);
    plan.v2_levels = Direct(body + rep, def);
    plan.v2_levels_bytes = def;
    plan.body_bytes = page.size - rep - def;
    in_decompressed = compressed;
    plan.body = compressed ? Compressed(body + rep + def, stored - rep - def, plan.body_bytes)
                           : Direct(body + rep + def, stored - rep - def);
  }
  if (n < 0) return Host("negative value count");
  if (n > num_rows_ - rows_) return Host("pages hold more values than the row group");
  const bool dictionary = enc == Encoding::PLAIN_DICTIONARY || enc == Encoding::RLE_DICTIONARY;
  if (!(enc == Encoding::PLAIN || dictionary ||
        (enc == Encoding::RLE && out_.kind == OutputKind::kBool))) {
    return Host("encoding");
  }
  if (dictionary && !out_.has_dictionary) {
    return Host("dictionary-encoded page but no dictionary page");
  }
  plan.encoding = static_cast<PageEncoding>(enc);
  plan.num_values = n;
  plan.first_row = rows_;
  rows_ += n;
  out_.page_plans.push_back(plan);
  body_decompressed_.push_back(in_decompressed);
  return Status::OK();
}

Status Stager::FinishDeferred(bool pinned) {
  out_.deferred = true;
  out_.codec = meta_.codec;
  out_.direct_bytes = (out_.direct_bytes + 15) / 16 * 16;
  const int64_t direct = out_.direct_bytes;
  const int64_t compressed =
      compressed_.empty() ? 0 : (compressed_.back().at + compressed_.back().bytes + 15) / 16 * 16;
  // 8 bytes past the end: hybrid runs read whole bytes past a value's last bit.
  const int64_t total = direct + compressed + 8;
  if (pinned) {
    auto buffer = gpu::PinnedBuffer::Allocate(total);
    if (!buffer.ok()) return Host("pinned memory: " + buffer.status().message());
    out_.pinned = std::move(buffer).value();
    out_.staging = out_.pinned.data();
  } else {
    out_.pageable.assign(static_cast<size_t>(total), 0);
    out_.staging = out_.pageable.data();
  }
  out_.staging_bytes = total;
  for (const Piece& d : direct_) {
    if (d.bytes > 0) std::memcpy(out_.staging + d.at, d.from, static_cast<size_t>(d.bytes));
  }
  for (const Piece& c : compressed_) {
    if (c.bytes > 0) {
      std::memcpy(out_.staging + direct + c.at, c.from, static_cast<size_t>(c.bytes));
    }
  }
  for (auto& page : out_.compressed_pages) {
    page.from += direct;
    page.to += direct;
  }
  for (size_t i = 0; i < out_.page_plans.size(); ++i) {
    if (body_decompressed_[i]) out_.page_plans[i].body += direct;
  }
  DeviceColumnParse& parse = out_.parse;
  parse.max_definition_level = leaf_.max_definition_level;
  parse.shape = out_.kind == OutputKind::kBool      ? ValueShape::kBool
                : out_.kind == OutputKind::kStrings ? ValueShape::kStrings
                                                    : ValueShape::kFixed;
  parse.physical_width = out_.physical_width;
  parse.dictionary_size = out_.has_dictionary ? out_.dictionary_size : -1;
  out_.num_valid = -1;  // known once the GPU has parsed the pages
  return pinned ? PackAuxiliary() : Status::OK();
}

Status Stager::PackAuxiliary() {
  StagedChunk::AuxLayout& l = out_.aux_layout;
  int64_t at = 0;
  auto section = [&](int64_t bytes) {
    const int64_t start = at;
    at = (at + bytes + 15) / 16 * 16;
    return start;
  };
  l.runs = section(static_cast<int64_t>(out_.runs.size() * sizeof(ValueRun)));
  l.validity = section(static_cast<int64_t>(out_.validity.size()));
  l.dictionary_values = section(static_cast<int64_t>(out_.dictionary_values.size()));
  l.dictionary_offsets = section(static_cast<int64_t>(out_.dictionary_offsets.size() * 8));
  l.dictionary_bytes = section(static_cast<int64_t>(out_.dictionary_bytes.size()));
  l.plain_positions = section(static_cast<int64_t>(out_.plain_positions.size() * 8));
  l.total = std::max<int64_t>(at, 16);
  auto buffer = gpu::PinnedBuffer::Allocate(l.total);
  if (!buffer.ok()) return Host("pinned memory: " + buffer.status().message());
  out_.aux = std::move(buffer).value();
  uint8_t* base = out_.aux.data();
  auto put = [&](int64_t offset, const void* src, size_t bytes) {
    if (bytes > 0) std::memcpy(base + offset, src, bytes);
  };
  put(l.runs, out_.runs.data(), out_.runs.size() * sizeof(ValueRun));
  put(l.validity, out_.validity.data(), out_.validity.size());
  put(l.dictionary_values, out_.dictionary_values.data(), out_.dictionary_values.size());
  put(l.dictionary_offsets, out_.dictionary_offsets.data(), out_.dictionary_offsets.size() * 8);
  put(l.dictionary_bytes, out_.dictionary_bytes.data(), out_.dictionary_bytes.size());
  put(l.plain_positions, out_.plain_positions.data(), out_.plain_positions.size() * 8);
  return Status::OK();
}

}  // namespace

void StageColumnChunk(const uint8_t* chunk, int64_t size, const ColumnMetaData& meta,
                      const LeafColumn& leaf, int64_t num_rows, bool pinned, StagedChunk* out,
                      bool defer_decompression) {
  Status st;
  try {
    Stager stager(meta, leaf, num_rows, out);
    st = stager.Run(chunk, size, pinned, defer_decompression);
  } catch (const std::bad_alloc&) {
    st = Host("out of memory while staging");
  }
  out->on_gpu = st.ok();
  if (!st.ok()) {
    out->host_reason = st.message();
    // The host decodes this chunk: give the staging memory back now.
    out->pinned = gpu::PinnedBuffer();
    out->pageable = std::vector<uint8_t>();
    out->staging = nullptr;
    out->runs.clear();
    out->validity.clear();
    out->plain_positions.clear();
    out->compressed_pages.clear();
    out->page_plans.clear();
    out->aux = gpu::PinnedBuffer();
  }
}

}  // namespace tandem::parquet::gpu_decode
