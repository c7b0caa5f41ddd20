// Column chunk decoding. Values are decoded straight into the output buffers when a page has no
// nulls and the physical type is the storage type; otherwise densely into scratch and then
// converted and scattered. Dictionaries are converted to the output type once, so a dictionary
// page costs one gather per row. Every count, length and index from the file is checked.
#include "tandem/io/parquet/column_chunk_reader.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <limits>
#include <new>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "tandem/column/slice.h"
#include "tandem/common/bit_util.h"
#include "tandem/common/out_of_memory.h"
#include "tandem/io/parquet/codec.h"
#include "tandem/io/parquet/decode/bit_unpack.h"
#include "tandem/io/parquet/decode/convert.h"
#include "tandem/io/parquet/decode/delta.h"
#include "tandem/io/parquet/decode/msb_bit_unpack.h"
#include "tandem/io/parquet/decode/raw_buffer.h"
#include "tandem/io/parquet/decode/rle_decoder.h"
#include "tandem/io/parquet/page_reader.h"

namespace tandem::parquet {
namespace {

using decode::ByteArrays;
using decode::RawBuffer;

enum class OutKind { kFixed, kBool, kBytes };

// String bytes past which a column switches from int32 to int64 offsets (tests lower it).
std::atomic<int64_t> large_offset_threshold{std::numeric_limits<int32_t>::max()};

using decode::BitWidthOf;
using decode::LoadLE32;

Status UnsupportedEncoding(Encoding e, const LeafColumn& leaf) {
  return Status::Unsupported(std::string(EncodingName(e)) + " encoding for " +
                             PhysicalTypeName(leaf.physical) + " values");
}

// Parses n PLAIN byte arrays (4-byte length + bytes) into a compact owned copy.
Status ParsePlainByteArrays(const uint8_t* p, int64_t size, int64_t n, ByteArrays* out) {
  // Each value takes at least its 4-byte length: a count beyond that is damage, and is caught
  // before it sizes an allocation.
  if (n < 0 || n > size / 4) {
    return Status::Invalid(std::to_string(n) + " PLAIN byte arrays cannot fit in " +
                           std::to_string(size) + " bytes");
  }
  out->offsets.resize(static_cast<size_t>(n) + 1);
  out->offsets[0] = 0;
  out->owned.Clear();
  out->owned.Reserve(size);
  const uint8_t* end = p + size;
  int64_t pos = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (end - p < 4)
      return Status::Invalid("PLAIN byte array data ends at value " + std::to_string(i));
    const uint32_t len = LoadLE32(p);
    p += 4;
    if (len > static_cast<uint64_t>(end - p)) {
      return Status::Invalid("PLAIN byte array length " + std::to_string(len) +
                             " runs past the page");
    }
    std::memcpy(out->owned.data() + pos, p, len);
    p += len;
    pos += len;
    out->offsets[i + 1] = pos;
  }
  out->owned.Resize(pos);
  out->base = out->owned.data();
  return Status::OK();
}

template <int W>
void GatherFixed(const uint8_t* dict, const uint32_t* idx, int64_t n, uint8_t* dst) {
  for (int64_t i = 0; i < n; ++i)
    std::memcpy(dst + i * W, dict + static_cast<int64_t>(idx[i]) * W, W);
}

// Dictionary values of `width` bytes gathered by index.
Status GatherFixedWidth(int width, const uint8_t* dict, const uint32_t* idx, int64_t n,
                        uint8_t* dst) {
  switch (width) {
    case 1:
      GatherFixed<1>(dict, idx, n, dst);
      break;
    case 2:
      GatherFixed<2>(dict, idx, n, dst);
      break;
    case 4:
      GatherFixed<4>(dict, idx, n, dst);
      break;
    case 8:
      GatherFixed<8>(dict, idx, n, dst);
      break;
    case 16:
      GatherFixed<16>(dict, idx, n, dst);
      break;
    default:
      return Status::Internal("unexpected value width");
  }
  return Status::OK();
}

class ChunkDecoder {
 public:
  // Keep a decompressed page's PLAIN values (one page per column) rather than decompress the
  // page again for each later part: for speed where memory is not short.
  void set_hold_pages(bool hold) { hold_pages_ = hold; }
  // Decompressed data pages stay where they are until the next page is read (a reader that
  // decompresses into its own buffer, not the thread's scratch): a page decoded in parts is read
  // there, in place.
  void set_stable_pages(bool stable) { stable_pages_ = stable; }
  // `codes_only`: a string or binary chunk is decoded into its dictionary and one code per row
  // (FinishCodes) instead of its values; a page that is not dictionary-encoded stops it
  // (not_dictionary()).
  ChunkDecoder(const ColumnMetaData& meta, const LeafColumn& leaf, int64_t num_rows,
               bool codes_only = false)
      : codes_only_(codes_only),
        meta_(meta),
        leaf_(leaf),
        num_rows_(num_rows),
        large_threshold_(std::min<int64_t>(large_offset_threshold.load(std::memory_order_relaxed),
                                           std::numeric_limits<int32_t>::max())) {
    if (leaf.type.id == TypeId::kBool) {
      kind_ = OutKind::kBool;
    } else if (leaf.type.is_string_like()) {
      kind_ = OutKind::kBytes;
    } else {
      kind_ = OutKind::kFixed;
    }
    width_ = leaf.type.byte_width();
    phys_width_ = decode::PhysicalWidth(leaf.physical, leaf.type_length);
  }

  int64_t rows() const { return rows_; }
  // Codes only: a data page was not dictionary-encoded, so the chunk has no codes for every row.
  bool not_dictionary() const { return not_dictionary_; }

  // `chunk_size`: the bytes of the (possibly compressed) chunk. The row group's row count is a
  // claim from the footer, so the first allocation is also bounded by the chunk (64 rows per
  // byte: only extremely compressible chunks grow later); pages then grow the column to the
  // values they hold. Uncompressed string bytes are bounded by the chunk; compressed ones start
  // with at most 1 GiB of room and grow.
  // `rows_wanted`: the rows the first piece needs (the whole row group when read at once), which
  // bounds the first allocation too.
  Status Init(int64_t chunk_size, int64_t rows_wanted) {
    try {
      constexpr int64_t kMinRows = 64 * 1024, kRowsPerByte = 64;
      const int64_t first = std::min(num_rows_, rows_wanted);
      const int64_t rows = std::min(first, std::max(kMinRows, chunk_size * kRowsPerByte));
      if (codes_only_) {  // room for the codes (DecodeCodes appends page by page, no regrowth)
        codes_.Reserve(rows * 4);
        return Status::OK();
      }
      GrowRows(rows);
      if (kind_ == OutKind::kBytes && !codes_only_) {
        offsets()[0] = 0;
        const int64_t bound =
            meta_.codec == CompressionCodec::UNCOMPRESSED ? chunk_size : int64_t{1} << 30;
        // A piece of the row group reserves its share of the chunk's uncompressed bytes.
        const double share =
            num_rows_ > 0 ? static_cast<double>(first) / static_cast<double>(num_rows_) : 1.0;
        const auto bytes = static_cast<int64_t>(static_cast<double>(meta_.total_uncompressed_size) *
                                                std::min(1.0, share));
        data_.Reserve(std::clamp<int64_t>(bytes, 64, std::max<int64_t>(bound, 64)));
      }
    } catch (const std::bad_alloc& e) {
      return Status::OutOfMemory("cannot allocate the column for " +
                                 std::to_string(std::min(num_rows_, rows_wanted)) +
                                 " rows: " + OutOfMemoryText(e));
    }
    return Status::OK();
  }

  Status DecodeDictionaryPage(const Page& page);
  // Decodes a data page; with max_rows below its row count, only its first max_rows rows where
  // the encoding allows (PLAIN and dictionary values), the rest waiting for DecodePending.
  Status DecodeDataPage(const Page& page, int64_t max_rows = INT64_MAX);
  // A dictionary or data page (DecodeDataPage's max_rows); other pages (index pages) are skipped.
  Status DecodePage(const Page& page, int64_t max_rows = INT64_MAX) {
    switch (page.header.type) {
      case PageType::DICTIONARY_PAGE:
        return DecodeDictionaryPage(page);
      case PageType::DATA_PAGE:
      case PageType::DATA_PAGE_V2:
        return DecodeDataPage(page, max_rows);
      default:
        return Status::OK();
    }
  }
  // Whether part of a page waits, and decodes up to `rows` more of its rows.
  bool pending() const { return pending_.rows > 0; }
  int64_t pending_rows() const { return pending_.rows; }
  // Whether the part of a page still to decode reads the chunk's bytes (values or indices read
  // in place, or decompressed again).
  bool pending_reads_chunk() const { return pending_.rows > 0 && pending_.reads_chunk; }
  Status DecodePending(int64_t rows);
  Result<ColumnPtr> Finish();
  // Codes only: the dictionary and every row's code, once all rows are decoded.
  Result<DictionaryCodes> FinishCodes();
  // The rows decoded so far as a column (a block that pieces are cut from); decoding then goes
  // on into fresh buffers. Throws std::bad_alloc.
  ColumnPtr FinishBlock();
  // Takes rows [from, end) of a finished block back into the (empty) buffers, in front of the
  // pages still to come: the part of a block too short for the next piece. Throws bad_alloc.
  void CarryOver(const Column& block, int64_t from);
  // Rows finished into blocks (and not carried over) so far.
  int64_t done() const { return done_; }

 private:
  int32_t* offsets() { return reinterpret_cast<int32_t*>(values_.data()); }
  // Makes the output buffers hold `rows` rows (at most the row group's), growing geometrically;
  // bitmaps are zero-filled. Throws std::bad_alloc.
  void EnsureRows(int64_t rows) {
    if (rows > capacity_rows_) {
      GrowRows(std::min(num_rows_ - done_, std::max(rows, capacity_rows_ * 2)));
    }
  }
  void GrowRows(int64_t rows) {
    if (kind_ == OutKind::kFixed) {
      values_.Resize(rows * width_);
    } else if (kind_ == OutKind::kBool) {
      GrowZeroed(&values_, bit_util::BytesForBits(rows));
    } else {
      values_.Resize((rows + 1) * (large_ ? 8 : 4));
    }
    if (leaf_.max_definition_level > 0) GrowZeroed(&validity_, bit_util::BytesForBits(rows));
    capacity_rows_ = rows;
  }
  static void GrowZeroed(RawBuffer* buffer, int64_t size) {
    const int64_t old_size = buffer->size();
    buffer->Resize(size);
    if (size > old_size) {
      std::memset(buffer->data() + old_size, 0, static_cast<size_t>(size - old_size));
    }
  }
  // Where row `row`'s end offset goes, as int32 or int64 (after PromoteOffsets).
  template <typename Off>
  Off* offsets_from(int64_t row) {
    return reinterpret_cast<Off*>(values_.data()) + row + 1;
  }
  Status DecodeLevels(const uint8_t* data, int64_t size, int64_t n, bool bit_packed,
                      int64_t* n_valid);
  // A page's dictionary indices (p: bit width, then runs): StartIndices checks the header and
  // readies `dec` (n: the indices the page holds), NextIndices decodes the next n into `out`,
  // checked against the dictionary, DecodeIndices all n of them into indices_, GatherIndexed
  // the next n as the dictionary's fixed-width values into dst.
  Status StartIndices(const uint8_t* p, int64_t size, int64_t n, decode::RleBitPackedDecoder* dec);
  Status NextIndices(decode::RleBitPackedDecoder& dec, int64_t n, uint32_t* out);
  Status DecodeIndices(const uint8_t* p, int64_t size, int64_t n);
  Status GatherIndexed(decode::RleBitPackedDecoder& dec, int64_t n, uint8_t* dst);
  Status DecodeFixed(Encoding enc, const uint8_t* p, int64_t size, int64_t n, uint8_t* dst);
  Status DecodeBool(Encoding enc, const uint8_t* p, int64_t size, int64_t n, int64_t n_valid,
                    const uint8_t* valid);
  Status DecodeBytes(Encoding enc, const uint8_t* p, int64_t size, int64_t n, int64_t n_valid,
                     const uint8_t* valid);
  // Codes only: a page's dictionary indices scattered to its rows (0 where a row is NULL).
  Status DecodeCodes(Encoding enc, const uint8_t* p, int64_t size, int64_t n, int64_t n_valid,
                     const uint8_t* valid);
  // Makes room for up to `extra` more string bytes (plus `slack` bytes the copy loop may
  // touch). Called before every page's offsets are written: when the bytes could pass the
  // threshold, the offsets so far are widened to int64, once.
  Status ReserveData(int64_t extra, int64_t slack = 0) {
    const int64_t needed = data_.size() + extra;
    if (!large_ && needed > large_threshold_) PromoteOffsets();
    data_.Reserve(needed + slack);
    return Status::OK();
  }
  void PromoteOffsets() {
    RawBuffer wide;
    wide.Resize((capacity_rows_ + 1) * 8);
    const int32_t* narrow = offsets();
    int64_t* out = reinterpret_cast<int64_t*>(wide.data());
    for (int64_t i = 0; i <= rows_; ++i) out[i] = narrow[i];
    values_.Swap(wide);
    large_ = true;
  }
  // Appends n rows of strings; get(j) gives the j-th valid value as (pointer, length). The data
  // buffer must already hold room for every byte (plus RawBuffer's 64-byte slack).
  template <typename Get>
  void AppendStrings(int64_t n, const uint8_t* valid, Get get) {
    if (large_) {
      AppendStringsAs<int64_t>(n, valid, get);
    } else {
      AppendStringsAs<int32_t>(n, valid, get);
    }
  }
  template <typename Off, typename Get>
  void AppendStringsAs(int64_t n, const uint8_t* valid, Get get) {
    Off* off = offsets_from<Off>(rows_);
    uint8_t* d = data_.data();
    int64_t pos = data_.size();
    int64_t j = 0;
    for (int64_t i = 0; i < n; ++i) {
      if (valid == nullptr || valid[i]) {
        const auto [ptr, len] = get(j++);
        std::memcpy(d + pos, ptr, static_cast<size_t>(len));
        pos += len;
      }
      off[i] = static_cast<Off>(pos);
    }
    data_.Resize(pos);
  }
  template <typename Off>
  Status AppendPlainByteArrays(const uint8_t* p, int64_t size, int64_t n, const uint8_t* valid);
  template <typename Off>
  void AppendDictionaryStrings(int64_t n, const uint8_t* valid, const uint32_t* idx);
  Status AppendFixedAsBinary(const uint8_t* src, int64_t n, const uint8_t* valid, int64_t n_valid) {
    const int64_t w = leaf_.type_length;
    TANDEM_RETURN_NOT_OK(ReserveData(n_valid * w));
    AppendStrings(n, valid, [&](int64_t j) { return std::pair(src + j * w, w); });
    return Status::OK();
  }

  // Whether a page of this encoding can be decoded a part at a time: PLAIN fixed-width values
  // and byte arrays, and dictionary indices (the values are gathered per part).
  bool SplitsPages(Encoding enc) const;
  // Keeps what decoding the rest of a page needs: its levels, and where its dictionary indices
  // or PLAIN values lie (p: `size` bytes within `page`'s data). A page stored uncompressed, or
  // decompressed into stable pages, is read in place, its indices decoded a part at a time. A
  // page in the thread's scratch (reused by the next page read): its indices are decoded at once
  // and held; its PLAIN values are copied (hold_pages) or decompressed again for each later part,
  // so that a row group read in pieces holds a piece of each column, not a page. The chunk's
  // bytes must outlive the pending part.
  Status HoldPage(const Page& page, Encoding enc, const uint8_t* p, int64_t size, int64_t n,
                  int64_t n_valid, const uint8_t* valid);
  // The pending page's PLAIN values: in place, held, or decompressed again.
  Result<const uint8_t*> PendingValues();

  // The part of a data page not yet decoded (HoldPage, DecodePending).
  struct PendingPage {
    int64_t rows = 0;            // rows left
    int64_t row = 0;             // rows of the page decoded so far
    int64_t value = 0;           // valid values decoded so far
    bool dictionary = false;     // indices hold the values; else the PLAIN values below
    bool reads_chunk = false;    // in place in the chunk, or decompressed again from it
    std::vector<uint8_t> valid;  // per row, when the page has nulls
    // Dictionary indices of the valid values: decoded a part at a time from the page in place
    // (streams_indices), else all at once into `indices`.
    bool streams_indices = false;
    decode::RleBitPackedDecoder index_decoder;
    std::vector<uint32_t> indices;
    // PLAIN values: `values_size` bytes at `fresh` while the call that held the page runs, then
    // at `in_place` (stored uncompressed in the chunk) or `values_offset` into `body` decompressed.
    const uint8_t* fresh = nullptr;
    const uint8_t* in_place = nullptr;
    PageBody body;
    int64_t values_offset = 0;
    int64_t values_size = 0;
    int64_t plain_pos = 0;      // byte arrays: where the next value's length is
    std::vector<uint8_t> held;  // a decompressed page's PLAIN values, with hold_pages
  };
  PendingPage pending_;

  const bool codes_only_;
  bool hold_pages_ = false;
  bool stable_pages_ = false;
  bool not_dictionary_ = false;
  const ColumnMetaData& meta_;
  const LeafColumn& leaf_;
  int64_t num_rows_;
  int64_t large_threshold_;
  bool large_ = false;  // string offsets are int64
  OutKind kind_;
  int width_;
  int phys_width_;
  int64_t rows_ = 0;           // rows decoded into the buffers (of the current piece)
  int64_t done_ = 0;           // rows of earlier pieces
  int64_t capacity_rows_ = 0;  // rows the output buffers hold room for
  int64_t null_count_ = 0;
  RawBuffer values_, data_, validity_;
  RawBuffer codes_;  // codes only: one uint32 per row
  bool has_dict_ = false;
  int64_t dict_size_ = 0;
  RawBuffer dict_fixed_;
  ByteArrays dict_bytes_;
  std::vector<uint8_t> valid_;
  std::vector<uint32_t> indices_;
  RawBuffer dense_, physical_;
  ByteArrays arrays_;
};

Status ChunkDecoder::DecodeDictionaryPage(const Page& page) {
  if (has_dict_) return Status::Invalid("second dictionary page in one column chunk");
  if (!page.header.dictionary_page_header) {
    return Status::Invalid("dictionary page without its header");
  }
  const DictionaryPageHeader& dh = *page.header.dictionary_page_header;
  if (dh.encoding != Encoding::PLAIN && dh.encoding != Encoding::PLAIN_DICTIONARY) {
    return Status::Unsupported(std::string(EncodingName(dh.encoding)) + " dictionary page");
  }
  const int64_t n = dh.num_values;
  if (n < 0) return Status::Invalid("negative dictionary size");
  const uint8_t* p = page.data;
  const int64_t size = page.size;
  if (kind_ == OutKind::kBool) return Status::Unsupported("dictionary-encoded BOOLEAN column");
  if (kind_ == OutKind::kFixed) {
    if (leaf_.conversion == Conversion::kByteArrayDecimal) {
      TANDEM_RETURN_NOT_OK(ParsePlainByteArrays(p, size, n, &arrays_));
      dict_fixed_.Resize(n * width_);
      TANDEM_RETURN_NOT_OK(
          decode::ConvertByteArrayDecimals(arrays_, n, width_, dict_fixed_.data()));
    } else {
      if (phys_width_ <= 0 || n > size / phys_width_) {
        return Status::Invalid("dictionary of " + std::to_string(n) +
                               " values needs more than the " + std::to_string(size) +
                               " bytes of its page");
      }
      dict_fixed_.Resize(n * width_);
      TANDEM_RETURN_NOT_OK(decode::ConvertFixed(leaf_.conversion, p, n, leaf_.type_length, width_,
                                                dict_fixed_.data()));
    }
  } else if (leaf_.physical == PhysicalType::BYTE_ARRAY) {
    TANDEM_RETURN_NOT_OK(ParsePlainByteArrays(p, size, n, &dict_bytes_));
  } else {
    const int64_t w = leaf_.type_length;
    if (w <= 0 || n > size / w) return Status::Invalid("dictionary page too short");
    dict_bytes_.offsets.resize(static_cast<size_t>(n) + 1);
    for (int64_t i = 0; i <= n; ++i) dict_bytes_.offsets[i] = i * w;
    dict_bytes_.owned.Resize(n * w);
    if (n > 0) std::memcpy(dict_bytes_.owned.data(), p, static_cast<size_t>(n * w));
    dict_bytes_.base = dict_bytes_.owned.data();
  }
  has_dict_ = true;
  dict_size_ = n;
  return Status::OK();
}

Status ChunkDecoder::DecodeLevels(const uint8_t* data, int64_t size, int64_t n, bool bit_packed,
                                  int64_t* n_valid) {
  const int max_def = leaf_.max_definition_level;
  if (bit_packed) {
    valid_.resize(static_cast<size_t>(n));
    TANDEM_RETURN_NOT_OK(decode::UnpackMsbFirst(data, size, BitWidthOf(max_def), n, valid_.data()));
  } else {
    decode::RleBitPackedDecoder dec(data, size, BitWidthOf(max_def));
    // A page without nulls: its levels are one run of the maximum, and valid_ is not needed (the
    // caller reads n_valid == n as "no nulls").
    if (n > 0) {
      TANDEM_ASSIGN_OR_RAISE(const bool all_defined,
                             dec.SkipRepeats(n, static_cast<uint64_t>(max_def)));
      if (all_defined) {
        *n_valid = n;
        return Status::OK();
      }
    }
    valid_.resize(static_cast<size_t>(n));
    TANDEM_RETURN_NOT_OK(dec.GetBatch(valid_.data(), n));
  }
  // Two simple loops the compiler vectorizes: the largest level, then the flags and their count.
  uint8_t* levels = valid_.data();
  uint8_t highest = 0;
  for (int64_t i = 0; i < n; ++i) highest = std::max(highest, levels[i]);
  if (highest > max_def) return Status::Invalid("definition level above the column's maximum");
  const auto defined = static_cast<uint8_t>(max_def);
  int64_t count = 0;
  for (int64_t i = 0; i < n; ++i) {
    const uint8_t v = levels[i] == defined;
    levels[i] = v;
    count += v;
  }
  *n_valid = count;
  return Status::OK();
}

Status ChunkDecoder::StartIndices(const uint8_t* p, int64_t size, int64_t n,
                                  decode::RleBitPackedDecoder* dec) {
  if (!has_dict_) return Status::Invalid("dictionary-encoded page but no dictionary page");
  if (n == 0) return Status::OK();
  if (size < 1) return Status::Invalid("dictionary index data is empty");
  const int bit_width = p[0];
  if (bit_width > 32)
    return Status::Invalid("dictionary index bit width " + std::to_string(bit_width));
  *dec = decode::RleBitPackedDecoder(p + 1, size - 1, bit_width);
  return Status::OK();
}

Status ChunkDecoder::NextIndices(decode::RleBitPackedDecoder& dec, int64_t n, uint32_t* out) {
  TANDEM_RETURN_NOT_OK(dec.GetBatch(out, n));
  uint32_t max_index = 0;
  for (int64_t i = 0; i < n; ++i) max_index = std::max(max_index, out[i]);
  if (n > 0 && max_index >= dict_size_) {
    return Status::Invalid("dictionary index " + std::to_string(max_index) +
                           " out of range for a dictionary of " + std::to_string(dict_size_));
  }
  return Status::OK();
}

Status ChunkDecoder::DecodeIndices(const uint8_t* p, int64_t size, int64_t n) {
  decode::RleBitPackedDecoder dec;
  TANDEM_RETURN_NOT_OK(StartIndices(p, size, n, &dec));
  indices_.resize(static_cast<size_t>(n));
  return NextIndices(dec, n, indices_.data());
}

Status ChunkDecoder::GatherIndexed(decode::RleBitPackedDecoder& dec, int64_t n, uint8_t* dst) {
  // Indices a block at a time, each gathered at once while it is in L1: a page's index array
  // (4 bytes a row) never goes out to memory and back.
  constexpr int64_t kBlock = 1024;
  uint32_t block[kBlock];
  for (int64_t done = 0; done < n; done += kBlock) {
    const int64_t k = std::min(kBlock, n - done);
    TANDEM_RETURN_NOT_OK(NextIndices(dec, k, block));
    TANDEM_RETURN_NOT_OK(
        GatherFixedWidth(width_, dict_fixed_.data(), block, k, dst + done * width_));
  }
  return Status::OK();
}

Status ChunkDecoder::DecodeFixed(Encoding enc, const uint8_t* p, int64_t size, int64_t n,
                                 uint8_t* dst) {
  const Conversion conv = leaf_.conversion;
  switch (enc) {
    case Encoding::PLAIN:
      if (conv == Conversion::kByteArrayDecimal) {
        TANDEM_RETURN_NOT_OK(ParsePlainByteArrays(p, size, n, &arrays_));
        return decode::ConvertByteArrayDecimals(arrays_, n, width_, dst);
      }
      if (n > size / phys_width_) {
        return Status::Invalid("PLAIN data of " + std::to_string(size) +
                               " bytes holds fewer than " + std::to_string(n) + " values");
      }
      return decode::ConvertFixed(conv, p, n, leaf_.type_length, width_, dst);
    case Encoding::PLAIN_DICTIONARY:
    case Encoding::RLE_DICTIONARY: {
      decode::RleBitPackedDecoder dec;
      TANDEM_RETURN_NOT_OK(StartIndices(p, size, n, &dec));
      return GatherIndexed(dec, n, dst);
    }
    case Encoding::DELTA_BINARY_PACKED: {
      if (leaf_.physical != PhysicalType::INT32 && leaf_.physical != PhysicalType::INT64) break;
      decode::DeltaBinaryPackedDecoder dec;
      const bool is32 = leaf_.physical == PhysicalType::INT32;
      TANDEM_RETURN_NOT_OK(dec.Init(p, size, is32 ? 32 : 64));
      uint8_t* phys = dst;
      if (conv != Conversion::kCopy) {
        physical_.Resize(n * phys_width_);
        phys = physical_.data();
      }
      if (is32) {
        TANDEM_RETURN_NOT_OK(dec.Decode(reinterpret_cast<int32_t*>(phys), n));
      } else {
        TANDEM_RETURN_NOT_OK(dec.Decode(reinterpret_cast<int64_t*>(phys), n));
      }
      if (conv == Conversion::kCopy) return Status::OK();
      return decode::ConvertFixed(conv, phys, n, leaf_.type_length, width_, dst);
    }
    case Encoding::BYTE_STREAM_SPLIT: {
      if (phys_width_ <= 0 || leaf_.physical == PhysicalType::INT96) break;
      physical_.Resize(n * phys_width_);
      TANDEM_RETURN_NOT_OK(
          decode::DecodeByteStreamSplit(p, size, phys_width_, n, physical_.data()));
      return decode::ConvertFixed(conv, physical_.data(), n, leaf_.type_length, width_, dst);
    }
    case Encoding::DELTA_LENGTH_BYTE_ARRAY:
    case Encoding::DELTA_BYTE_ARRAY: {
      if (leaf_.physical != PhysicalType::BYTE_ARRAY &&
          leaf_.physical != PhysicalType::FIXED_LEN_BYTE_ARRAY) {
        break;
      }
      if (enc == Encoding::DELTA_LENGTH_BYTE_ARRAY) {
        TANDEM_RETURN_NOT_OK(decode::DecodeDeltaLengthByteArray(p, size, n, &arrays_));
      } else {
        TANDEM_RETURN_NOT_OK(decode::DecodeDeltaByteArray(p, size, n, &arrays_));
      }
      if (conv == Conversion::kByteArrayDecimal) {
        return decode::ConvertByteArrayDecimals(arrays_, n, width_, dst);
      }
      for (int64_t i = 0; i < n; ++i) {
        if (arrays_.offsets[i + 1] - arrays_.offsets[i] != phys_width_) {
          return Status::Invalid("FIXED_LEN_BYTE_ARRAY value of the wrong length");
        }
      }
      return decode::ConvertFixed(conv, arrays_.base, n, leaf_.type_length, width_, dst);
    }
    default:
      break;
  }
  return UnsupportedEncoding(enc, leaf_);
}

Status ChunkDecoder::DecodeBool(Encoding enc, const uint8_t* p, int64_t size, int64_t n,
                                int64_t n_valid, const uint8_t* valid) {
  uint8_t* bits = values_.data();
  if (enc == Encoding::PLAIN) {
    if (bit_util::BytesForBits(n_valid) > size)
      return Status::Invalid("PLAIN BOOLEAN data too short");
    if (valid == nullptr) {
      bit_util::CopyBits(p, 0, n, bits, rows_);
      return Status::OK();
    }
    int64_t j = 0;
    for (int64_t i = 0; i < n; ++i) {
      if (valid[i]) bit_util::SetBitTo(bits, rows_ + i, bit_util::GetBit(p, j++));
    }
    return Status::OK();
  }
  if (enc != Encoding::RLE) return UnsupportedEncoding(enc, leaf_);
  if (size < 4) return Status::Invalid("RLE BOOLEAN data without its length");
  const uint32_t len = LoadLE32(p);
  if (len > size - 4) return Status::Invalid("RLE BOOLEAN length runs past the page");
  dense_.Resize(n_valid);
  decode::RleBitPackedDecoder dec(p + 4, len, 1);
  TANDEM_RETURN_NOT_OK(dec.GetBatch(dense_.data(), n_valid));
  const uint8_t* d = dense_.data();
  int64_t j = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (valid == nullptr || valid[i]) bit_util::SetBitTo(bits, rows_ + i, d[j++] != 0);
  }
  return Status::OK();
}

Status ChunkDecoder::DecodeBytes(Encoding enc, const uint8_t* p, int64_t size, int64_t n,
                                 int64_t n_valid, const uint8_t* valid) {
  const bool fixed = leaf_.physical == PhysicalType::FIXED_LEN_BYTE_ARRAY;
  switch (enc) {
    case Encoding::PLAIN: {
      if (fixed) {
        if (n_valid > size / leaf_.type_length) return Status::Invalid("PLAIN data too short");
        return AppendFixedAsBinary(p, n, valid, n_valid);
      }
      // Every valid value carries a 4-byte length: the bytes are at most size - 4 * n_valid.
      const int64_t max_bytes = std::max<int64_t>(0, size - 4 * n_valid);
      TANDEM_RETURN_NOT_OK(ReserveData(max_bytes, size - max_bytes));
      return large_ ? AppendPlainByteArrays<int64_t>(p, size, n, valid)
                    : AppendPlainByteArrays<int32_t>(p, size, n, valid);
    }
    case Encoding::PLAIN_DICTIONARY:
    case Encoding::RLE_DICTIONARY: {
      TANDEM_RETURN_NOT_OK(DecodeIndices(p, size, n_valid));
      const int64_t* doff = dict_bytes_.offsets.data();
      const uint32_t* idx = indices_.data();
      int64_t total = 0;
      for (int64_t j = 0; j < n_valid; ++j) total += doff[idx[j] + 1] - doff[idx[j]];
      TANDEM_RETURN_NOT_OK(ReserveData(total, 32));
      if (large_) {
        AppendDictionaryStrings<int64_t>(n, valid, indices_.data());
      } else {
        AppendDictionaryStrings<int32_t>(n, valid, indices_.data());
      }
      return Status::OK();
    }
    case Encoding::DELTA_LENGTH_BYTE_ARRAY:
    case Encoding::DELTA_BYTE_ARRAY: {
      if (enc == Encoding::DELTA_LENGTH_BYTE_ARRAY) {
        TANDEM_RETURN_NOT_OK(decode::DecodeDeltaLengthByteArray(p, size, n_valid, &arrays_));
      } else {
        TANDEM_RETURN_NOT_OK(decode::DecodeDeltaByteArray(p, size, n_valid, &arrays_));
      }
      const int64_t* aoff = arrays_.offsets.data();
      if (fixed) {
        for (int64_t i = 0; i < n_valid; ++i) {
          if (aoff[i + 1] - aoff[i] != leaf_.type_length) {
            return Status::Invalid("FIXED_LEN_BYTE_ARRAY value of the wrong length");
          }
        }
      }
      TANDEM_RETURN_NOT_OK(ReserveData(aoff[n_valid]));
      const uint8_t* base = arrays_.base;
      AppendStrings(n, valid,
                    [&](int64_t j) { return std::pair(base + aoff[j], aoff[j + 1] - aoff[j]); });
      return Status::OK();
    }
    case Encoding::BYTE_STREAM_SPLIT: {
      if (!fixed) break;
      physical_.Resize(n_valid * leaf_.type_length);
      TANDEM_RETURN_NOT_OK(
          decode::DecodeByteStreamSplit(p, size, leaf_.type_length, n_valid, physical_.data()));
      return AppendFixedAsBinary(physical_.data(), n, valid, n_valid);
    }
    default:
      break;
  }
  return UnsupportedEncoding(enc, leaf_);
}

template <typename Off>
Status ChunkDecoder::AppendPlainByteArrays(const uint8_t* p, int64_t size, int64_t n,
                                           const uint8_t* valid) {
  Off* off = offsets_from<Off>(rows_);
  uint8_t* d = data_.data();
  int64_t pos = data_.size();
  const uint8_t* end = p + size;
  for (int64_t i = 0; i < n; ++i) {
    if (valid == nullptr || valid[i]) {
      if (end - p < 4) return Status::Invalid("PLAIN byte array data ends early");
      const uint32_t len = LoadLE32(p);
      p += 4;
      if (len > static_cast<uint64_t>(end - p)) {
        return Status::Invalid("PLAIN byte array length " + std::to_string(len) +
                               " runs past the page");
      }
      std::memcpy(d + pos, p, len);
      p += len;
      pos += len;
    }
    off[i] = static_cast<Off>(pos);
  }
  data_.Resize(pos);
  return Status::OK();
}

// Gathers dictionary strings by the indices in indices_ (already checked against the dictionary).
template <typename Off>
void ChunkDecoder::AppendDictionaryStrings(int64_t n, const uint8_t* valid, const uint32_t* idx) {
  const int64_t* doff = dict_bytes_.offsets.data();
  const uint8_t* base = dict_bytes_.base;
  Off* off = offsets_from<Off>(rows_);
  uint8_t* d = data_.data();
  int64_t pos = data_.size();
  int64_t j = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (valid == nullptr || valid[i]) {
      const uint32_t k = idx[j++];
      const int64_t begin = doff[k], len = doff[k + 1] - begin;
      // Short values: one fixed-size copy (both buffers carry 64 bytes of slack).
      if (len <= 16) {
        std::memcpy(d + pos, base + begin, 16);
      } else if (len <= 32) {
        std::memcpy(d + pos, base + begin, 32);
      } else {
        std::memcpy(d + pos, base + begin, static_cast<size_t>(len));
      }
      pos += len;
    }
    off[i] = static_cast<Off>(pos);
  }
  data_.Resize(pos);
}

Status ChunkDecoder::DecodeDataPage(const Page& page, int64_t max_rows) {
  const PageHeader& h = page.header;
  const uint8_t* p = page.data;
  int64_t size = page.size;
  int64_t n = 0;
  Encoding enc;
  const uint8_t* def_data = nullptr;
  int64_t def_size = 0;
  bool levels_present = leaf_.max_definition_level > 0;
  bool levels_bit_packed = false;
  if (h.type == PageType::DATA_PAGE) {
    if (!h.data_page_header) return Status::Invalid("data page without its header");
    const DataPageHeader& d = *h.data_page_header;
    n = d.num_values;
    enc = d.encoding;
    if (n < 0) return Status::Invalid("negative value count");
    if (levels_present && d.definition_level_encoding == Encoding::BIT_PACKED) {
      // Deprecated MSB-first packing: no length prefix, exactly ceil(n * width / 8) bytes.
      const int64_t len = bit_util::BytesForBits(n * BitWidthOf(leaf_.max_definition_level));
      if (len > size) return Status::Invalid("BIT_PACKED definition levels run past the page");
      def_data = p;
      def_size = len;
      levels_bit_packed = true;
      p += len;
      size -= len;
    } else if (levels_present) {
      if (d.definition_level_encoding != Encoding::RLE) {
        return Status::Unsupported(std::string(EncodingName(d.definition_level_encoding)) +
                                   " definition levels");
      }
      if (size < 4) return Status::Invalid("definition levels without their length");
      const uint32_t len = LoadLE32(p);
      if (len > size - 4) return Status::Invalid("definition levels run past the page");
      def_data = p + 4;
      def_size = len;
      p += 4 + int64_t{len};
      size -= 4 + int64_t{len};
    }
  } else {
    const DataPageHeaderV2& d = *h.data_page_header_v2;
    n = d.num_values;
    enc = d.encoding;
    if (d.num_rows != d.num_values) {
      return Status::Invalid("data page v2 has " + std::to_string(d.num_values) + " values but " +
                             std::to_string(d.num_rows) + " rows");
    }
    def_data = p + d.repetition_levels_byte_length;
    def_size = d.definition_levels_byte_length;
    const int64_t prefix = def_size + d.repetition_levels_byte_length;
    p += prefix;
    size -= prefix;
    if (levels_present && def_size == 0 && d.num_nulls == 0) levels_present = false;
  }
  if (n < 0) return Status::Invalid("negative value count");
  if (n > num_rows_ - done_ - rows_) {
    return Status::Invalid("pages hold more values than the row group's " +
                           std::to_string(num_rows_) + " rows");
  }
  int64_t n_valid = n;
  if (levels_present) {
    TANDEM_RETURN_NOT_OK(DecodeLevels(def_data, def_size, n, levels_bit_packed, &n_valid));
  }
  const uint8_t* valid = n_valid == n ? nullptr : valid_.data();
  if (codes_only_) return DecodeCodes(enc, p, size, n, n_valid, valid);
  if (max_rows < n && SplitsPages(enc)) {
    TANDEM_RETURN_NOT_OK(HoldPage(page, enc, p, size, n, n_valid, valid));
    return DecodePending(max_rows);
  }
  EnsureRows(rows_ + n);
  if (leaf_.max_definition_level > 0) {
    if (valid == nullptr) {
      bit_util::SetBitsTo(validity_.data(), rows_, n, true);
    } else {
      uint8_t* bits = validity_.data();
      for (int64_t i = 0; i < n; ++i) {
        if (valid[i]) bit_util::SetBit(bits, rows_ + i);
      }
    }
  }
  Status st;
  if (kind_ == OutKind::kFixed) {
    uint8_t* out = values_.data() + rows_ * width_;
    if (valid == nullptr) {
      st = DecodeFixed(enc, p, size, n, out);
    } else {
      dense_.Resize(n_valid * width_);
      st = DecodeFixed(enc, p, size, n_valid, dense_.data());
      if (st.ok()) decode::ScatterFixed(dense_.data(), valid, n, width_, out);
    }
  } else if (kind_ == OutKind::kBool) {
    st = DecodeBool(enc, p, size, n, n_valid, valid);
  } else {
    st = DecodeBytes(enc, p, size, n, n_valid, valid);
  }
  TANDEM_RETURN_NOT_OK(st);
  null_count_ += n - n_valid;
  rows_ += n;
  return Status::OK();
}

Status ChunkDecoder::DecodeCodes(Encoding enc, const uint8_t* p, int64_t size, int64_t n,
                                 int64_t n_valid, const uint8_t* valid) {
  if (enc != Encoding::PLAIN_DICTIONARY && enc != Encoding::RLE_DICTIONARY) {
    not_dictionary_ = true;
    return Status::OK();
  }
  codes_.Resize((rows_ + n) * 4);
  uint32_t* codes = reinterpret_cast<uint32_t*>(codes_.data()) + rows_;
  if (leaf_.max_definition_level > 0) GrowZeroed(&validity_, bit_util::BytesForBits(rows_ + n));
  if (valid == nullptr) {  // every row's code is its index: decoded in place
    decode::RleBitPackedDecoder dec;
    TANDEM_RETURN_NOT_OK(StartIndices(p, size, n, &dec));
    TANDEM_RETURN_NOT_OK(NextIndices(dec, n, codes));
    if (leaf_.max_definition_level > 0) bit_util::SetBitsTo(validity_.data(), rows_, n, true);
  } else {
    TANDEM_RETURN_NOT_OK(DecodeIndices(p, size, n_valid));
    uint8_t* bits = validity_.data();
    int64_t j = 0;
    for (int64_t i = 0; i < n; ++i) {
      if (valid[i]) {
        codes[i] = indices_[j++];
        bit_util::SetBit(bits, rows_ + i);
      } else {
        codes[i] = 0;
      }
    }
  }
  null_count_ += n - n_valid;
  rows_ += n;
  return Status::OK();
}

Result<DictionaryCodes> ChunkDecoder::FinishCodes() {
  if (rows_ != num_rows_) {
    return Status::Invalid("column chunk holds " + std::to_string(rows_) +
                           " values, its row group has " + std::to_string(num_rows_) + " rows");
  }
  DictionaryCodes out;
  out.num_rows = num_rows_;
  out.null_count = null_count_;
  out.validity = null_count_ > 0 ? validity_.Finish() : nullptr;
  out.codes = codes_.Finish();
  if (kind_ == OutKind::kFixed) {
    RawBuffer values;
    values.Resize(dict_size_ * width_);
    if (dict_size_ > 0) {
      std::memcpy(values.data(), dict_fixed_.data(), static_cast<size_t>(dict_size_ * width_));
    }
    out.dictionary = std::make_shared<Column>(leaf_.type, dict_size_, 0, nullptr, values.Finish());
    return out;
  }
  const int64_t n = dict_bytes_.size();
  const int64_t bytes = n > 0 ? dict_bytes_.offsets[static_cast<size_t>(n)] : 0;
  const bool large = bytes > std::numeric_limits<int32_t>::max();
  RawBuffer offsets, data;
  offsets.Resize((n + 1) * (large ? 8 : 4));
  for (int64_t i = 0; i <= n; ++i) {
    const int64_t o = n > 0 ? dict_bytes_.offsets[static_cast<size_t>(i)] : 0;
    if (large) {
      reinterpret_cast<int64_t*>(offsets.data())[i] = o;
    } else {
      reinterpret_cast<int32_t*>(offsets.data())[i] = static_cast<int32_t>(o);
    }
  }
  data.Resize(bytes);
  if (bytes > 0) std::memcpy(data.data(), dict_bytes_.base, static_cast<size_t>(bytes));
  out.dictionary =
      std::make_shared<Column>(leaf_.type, n, 0, nullptr, offsets.Finish(), data.Finish(), large);
  return out;
}

Result<ColumnPtr> ChunkDecoder::Finish() {
  if (rows_ != num_rows_) {
    return Status::Invalid("column chunk holds " + std::to_string(rows_) +
                           " values, its row group has " + std::to_string(num_rows_) + " rows");
  }
  std::shared_ptr<Buffer> validity = null_count_ > 0 ? validity_.Finish() : nullptr;
  if (kind_ == OutKind::kBytes) {
    auto offsets_buffer = values_.Finish();
    return std::make_shared<Column>(leaf_.type, num_rows_, null_count_, std::move(validity),
                                    std::move(offsets_buffer), data_.Finish(), large_);
  }
  return std::make_shared<Column>(leaf_.type, num_rows_, null_count_, std::move(validity),
                                  values_.Finish());
}

bool ChunkDecoder::SplitsPages(Encoding enc) const {
  const bool dictionary = enc == Encoding::PLAIN_DICTIONARY || enc == Encoding::RLE_DICTIONARY;
  if (kind_ == OutKind::kFixed) {
    return dictionary ||
           (enc == Encoding::PLAIN && leaf_.conversion != Conversion::kByteArrayDecimal);
  }
  if (kind_ == OutKind::kBytes) {
    return dictionary || (enc == Encoding::PLAIN && leaf_.physical == PhysicalType::BYTE_ARRAY);
  }
  return false;
}

Status ChunkDecoder::HoldPage(const Page& page, Encoding enc, const uint8_t* p, int64_t size,
                              int64_t n, int64_t n_valid, const uint8_t* valid) {
  PendingPage& h = pending_;
  h.rows = n;
  h.row = h.value = h.plain_pos = 0;
  h.dictionary = enc == Encoding::PLAIN_DICTIONARY || enc == Encoding::RLE_DICTIONARY;
  h.valid.clear();
  if (valid != nullptr) h.valid.assign(valid, valid + n);
  // Where the page's bytes stay put until its last part: in the chunk, or in stable pages.
  const bool in_place = !page.decompressed || stable_pages_;
  h.reads_chunk = !page.decompressed;
  h.fresh = h.in_place = nullptr;
  if (h.dictionary) {
    h.streams_indices = in_place;
    if (in_place) return StartIndices(p, size, n_valid, &h.index_decoder);
    h.reads_chunk = false;
    TANDEM_RETURN_NOT_OK(DecodeIndices(p, size, n_valid));
    h.indices.swap(indices_);
    return Status::OK();
  }
  if (kind_ == OutKind::kFixed && n_valid > size / phys_width_) {
    return Status::Invalid("PLAIN data of " + std::to_string(size) + " bytes holds fewer than " +
                           std::to_string(n_valid) + " values");
  }
  h.fresh = p;
  h.values_size = size;
  h.in_place = in_place ? p : nullptr;
  if (!in_place) h.reads_chunk = true;  // decompressed again from the chunk, unless held
  if (!in_place && hold_pages_) {       // a copy of the values, not decompressed again
    h.held.assign(p, p + size);
    h.in_place = h.held.data();
    h.reads_chunk = false;
  }
  h.body = page.body;
  h.values_offset = p - page.data;
  return Status::OK();
}

Result<const uint8_t*> ChunkDecoder::PendingValues() {
  PendingPage& h = pending_;
  if (h.fresh != nullptr) return h.fresh;
  if (h.in_place != nullptr) return h.in_place;
  TANDEM_ASSIGN_OR_RAISE(const uint8_t* page, DecompressPage(h.body));
  return page + h.values_offset;
}

Status ChunkDecoder::DecodePending(int64_t rows) {
  PendingPage& h = pending_;
  const int64_t k = std::min(rows, h.rows);
  const uint8_t* valid = h.valid.empty() ? nullptr : h.valid.data() + h.row;
  int64_t nv = k;
  if (valid != nullptr) nv = std::count(valid, valid + k, uint8_t{1});
  EnsureRows(rows_ + k);
  if (leaf_.max_definition_level > 0) {
    if (valid == nullptr) {
      bit_util::SetBitsTo(validity_.data(), rows_, k, true);
    } else {
      for (int64_t i = 0; i < k; ++i) {
        if (valid[i]) bit_util::SetBit(validity_.data(), rows_ + i);
      }
    }
  }
  if (kind_ == OutKind::kFixed) {
    uint8_t* out = values_.data() + rows_ * width_;
    uint8_t* dst = out;
    if (valid != nullptr) {
      dense_.Resize(nv * width_);
      dst = dense_.data();
    }
    if (h.streams_indices) {
      TANDEM_RETURN_NOT_OK(GatherIndexed(h.index_decoder, nv, dst));
    } else if (h.dictionary) {
      TANDEM_RETURN_NOT_OK(
          GatherFixedWidth(width_, dict_fixed_.data(), h.indices.data() + h.value, nv, dst));
    } else {
      TANDEM_ASSIGN_OR_RAISE(const uint8_t* plain, PendingValues());
      TANDEM_RETURN_NOT_OK(decode::ConvertFixed(leaf_.conversion, plain + h.value * phys_width_, nv,
                                                leaf_.type_length, width_, dst));
    }
    if (valid != nullptr) decode::ScatterFixed(dense_.data(), valid, k, width_, out);
  } else if (h.dictionary) {
    const int64_t* doff = dict_bytes_.offsets.data();
    const uint32_t* idx = nullptr;
    if (h.streams_indices) {  // this part's indices only
      indices_.resize(static_cast<size_t>(nv));
      TANDEM_RETURN_NOT_OK(NextIndices(h.index_decoder, nv, indices_.data()));
      idx = indices_.data();
    } else {
      idx = h.indices.data() + h.value;
    }
    int64_t total = 0;
    for (int64_t j = 0; j < nv; ++j) total += doff[idx[j] + 1] - doff[idx[j]];
    TANDEM_RETURN_NOT_OK(ReserveData(total, 32));
    if (large_) {
      AppendDictionaryStrings<int64_t>(k, valid, idx);
    } else {
      AppendDictionaryStrings<int32_t>(k, valid, idx);
    }
  } else {
    // The part's byte arrays: their lengths first (checked), then the copy.
    TANDEM_ASSIGN_OR_RAISE(const uint8_t* plain, PendingValues());
    const uint8_t* begin = plain + h.plain_pos;
    const uint8_t* end = plain + h.values_size;
    const uint8_t* q = begin;
    int64_t total = 0;
    for (int64_t j = 0; j < nv; ++j) {
      if (end - q < 4) return Status::Invalid("PLAIN byte array data ends early");
      const uint32_t len = LoadLE32(q);
      q += 4;
      if (len > static_cast<uint64_t>(end - q)) {
        return Status::Invalid("PLAIN byte array length " + std::to_string(len) +
                               " runs past the page");
      }
      q += len;
      total += len;
    }
    TANDEM_RETURN_NOT_OK(ReserveData(total));
    const Status st = large_ ? AppendPlainByteArrays<int64_t>(begin, q - begin, k, valid)
                             : AppendPlainByteArrays<int32_t>(begin, q - begin, k, valid);
    TANDEM_RETURN_NOT_OK(st);
    h.plain_pos += q - begin;
  }
  null_count_ += k - nv;
  rows_ += k;
  h.row += k;
  h.value += nv;
  h.rows -= k;
  h.fresh = nullptr;  // the thread's scratch may hold another page when the next part comes
  if (h.rows == 0) {  // the page is done: give its memory back
    std::vector<uint32_t>().swap(h.indices);
    std::vector<uint8_t>().swap(h.valid);
    std::vector<uint8_t>().swap(h.held);
    h.in_place = nullptr;
    h.streams_indices = h.reads_chunk = false;
  }
  return Status::OK();
}

ColumnPtr ChunkDecoder::FinishBlock() {
  // The buffers hold room for capacity_rows_; the block is rows_ long.
  if (leaf_.max_definition_level > 0) validity_.Resize(bit_util::BytesForBits(rows_));
  if (kind_ == OutKind::kFixed) {
    values_.Resize(rows_ * width_);
  } else if (kind_ == OutKind::kBool) {
    values_.Resize(bit_util::BytesForBits(rows_));
  } else {
    values_.Resize((rows_ + 1) * (large_ ? 8 : 4));
  }
  std::shared_ptr<Buffer> validity = null_count_ > 0 ? validity_.Finish() : nullptr;
  validity_.Clear();
  ColumnPtr column;
  if (kind_ == OutKind::kBytes) {
    auto offsets_buffer = values_.Finish();
    column = std::make_shared<Column>(leaf_.type, rows_, null_count_, std::move(validity),
                                      std::move(offsets_buffer), data_.Finish(), large_);
  } else {
    column = std::make_shared<Column>(leaf_.type, rows_, null_count_, std::move(validity),
                                      values_.Finish());
  }
  done_ += rows_;
  rows_ = capacity_rows_ = null_count_ = 0;
  CarryOver(*column, column->length());  // empty buffers ready for the next pages
  return column;
}

void ChunkDecoder::CarryOver(const Column& block, int64_t from) {
  const int64_t extra = block.length() - from;
  done_ -= extra;
  rows_ = capacity_rows_ = extra;
  null_count_ = 0;
  if (leaf_.max_definition_level > 0) {
    validity_.Clear();
    GrowZeroed(&validity_, bit_util::BytesForBits(extra));
    if (extra > 0 && block.null_count() > 0 && block.validity()) {
      std::memcpy(validity_.data(), block.validity()->data() + from / 8,
                  static_cast<size_t>(bit_util::BytesForBits(extra)));
      null_count_ = extra - bit_util::CountSetBits(validity_.data(), 0, extra);
    } else {
      bit_util::SetBitsTo(validity_.data(), 0, extra, true);
    }
  }
  if (kind_ == OutKind::kFixed) {
    values_.Resize(extra * width_);
    if (extra > 0) {
      std::memcpy(values_.data(), block.values()->data() + from * width_,
                  static_cast<size_t>(extra * width_));
    }
  } else if (kind_ == OutKind::kBool) {
    values_.Clear();
    GrowZeroed(&values_, bit_util::BytesForBits(extra));
    if (extra > 0) {
      std::memcpy(values_.data(), block.values()->data() + from / 8,
                  static_cast<size_t>(bit_util::BytesForBits(extra)));
    }
  } else {
    large_ = block.large_offsets();
    auto carry = [&](const auto* off) {
      using Off = std::remove_const_t<std::remove_pointer_t<decltype(off)>>;
      const Off base = off[from];
      values_.Resize((extra + 1) * static_cast<int64_t>(sizeof(Off)));
      Off* out = reinterpret_cast<Off*>(values_.data());
      for (int64_t i = 0; i <= extra; ++i) out[i] = off[from + i] - base;
      const auto tail = static_cast<int64_t>(off[from + extra] - base);
      data_.Clear();
      data_.Reserve(tail + 64);
      data_.Resize(tail);
      if (tail > 0)
        std::memcpy(data_.data(), block.data()->data() + base, static_cast<size_t>(tail));
    };
    if (large_) {
      carry(block.values_as<int64_t>());
    } else {
      carry(block.values_as<int32_t>());
    }
  }
}

}  // namespace

int64_t SetLargeOffsetThresholdForTesting(int64_t bytes) {
  return large_offset_threshold.exchange(bytes);
}

namespace {

// Feeds every page of a chunk to `decoder` until it holds the row group's rows (a codes-only
// decoder: or until a page is not dictionary-encoded). Errors name the page.
Status DecodePages(ChunkDecoder& decoder, const uint8_t* chunk, int64_t size,
                   CompressionCodec codec, int64_t num_rows, const std::string& context) {
  PageReader reader(chunk, size, codec);
  Page page;
  while (decoder.rows() < num_rows || reader.pages_read() == 0) {
    auto more = reader.Next(&page);
    if (!more.ok()) {
      return more.status().WithContext(context + ", page " +
                                       std::to_string(reader.pages_read() - 1));
    }
    if (!*more) break;
    Status st;
    try {
      st = decoder.DecodePage(page);
    } catch (const std::bad_alloc& e) {
      st = Status::OutOfMemory("out of memory decoding the page: " + OutOfMemoryText(e));
    }
    if (!st.ok()) return st.WithContext(context + ", page " + std::to_string(page.index));
    if (decoder.not_dictionary()) break;
  }
  return Status::OK();
}

}  // namespace

Result<ColumnPtr> DecodeColumnChunk(const uint8_t* chunk, int64_t size, const ColumnMetaData& meta,
                                    const LeafColumn& leaf, int64_t num_rows,
                                    const std::string& context) {
  if (!CodecSupported(meta.codec)) {
    return Status::Unsupported(std::string("compression codec ") + CodecName(meta.codec))
        .WithContext(context);
  }
  if (num_rows < 0) return Status::Invalid("negative row count").WithContext(context);
  ChunkDecoder decoder(meta, leaf, num_rows);
  TANDEM_RETURN_NOT_OK(decoder.Init(size, num_rows).WithContext(context));
  TANDEM_RETURN_NOT_OK(DecodePages(decoder, chunk, size, meta.codec, num_rows, context));
  auto column = decoder.Finish();
  if (!column.ok()) return column.status().WithContext(context);
  return column;
}

Result<std::optional<DictionaryCodes>> DecodeDictionaryCodes(const uint8_t* chunk, int64_t size,
                                                             const ColumnMetaData& meta,
                                                             const LeafColumn& leaf,
                                                             int64_t num_rows,
                                                             const std::string& context) {
  if (leaf.type.id == TypeId::kBool || num_rows <= 0 || !CodecSupported(meta.codec)) {
    return std::optional<DictionaryCodes>();
  }
  // Writers that record their pages' encodings tell ahead when a chunk fell back to PLAIN.
  for (const PageEncodingStats& e : meta.encoding_stats) {
    const bool data = e.page_type == PageType::DATA_PAGE || e.page_type == PageType::DATA_PAGE_V2;
    if (data && e.count > 0 && e.encoding != Encoding::PLAIN_DICTIONARY &&
        e.encoding != Encoding::RLE_DICTIONARY) {
      return std::optional<DictionaryCodes>();
    }
  }
  ChunkDecoder decoder(meta, leaf, num_rows, /*codes_only=*/true);
  TANDEM_RETURN_NOT_OK(decoder.Init(size, num_rows).WithContext(context));
  TANDEM_RETURN_NOT_OK(DecodePages(decoder, chunk, size, meta.codec, num_rows, context));
  if (decoder.not_dictionary()) return std::optional<DictionaryCodes>();
  try {
    Result<DictionaryCodes> codes = decoder.FinishCodes();
    if (!codes.ok()) return codes.status().WithContext(context);
    return std::optional<DictionaryCodes>(std::move(codes).value());
  } catch (const std::bad_alloc& e) {
    return Status::OutOfMemory("out of memory building the dictionary: " + OutOfMemoryText(e))
        .WithContext(context);
  }
}

// Where a column's compressed data pages are decompressed while read in pieces: one buffer,
// reused page after page, so that a page decoded in parts stays put (no copy of it held, and its
// dictionary indices decoded a part at a time). Dictionary pages go to the thread's scratch
// (the decoder copies them).
class PieceDestination : public PageDestination {
 public:
  uint8_t* For(const PageHeader& header, int64_t raw_size) override {
    if (header.type != PageType::DATA_PAGE && header.type != PageType::DATA_PAGE_V2) return nullptr;
    buffer_.Clear();  // no copy of the last page on growth
    buffer_.Resize(raw_size);
    return buffer_.data();
  }

 private:
  RawBuffer buffer_;
};

struct ColumnChunkPieces::State {
  State(const uint8_t* chunk, int64_t size, const ColumnMetaData& meta, const LeafColumn& leaf,
        int64_t num_rows, std::string where, bool hold_pages)
      : decoder(meta, leaf, num_rows),
        reader(chunk, size, meta.codec, hold_pages ? &destination : nullptr),
        chunk_size(size),
        num_rows(num_rows),
        codec(meta.codec),
        context(std::move(where)) {}
  ChunkDecoder decoder;
  PieceDestination destination;  // with hold_pages
  PageReader reader;
  int64_t chunk_size;
  int64_t num_rows;
  CompressionCodec codec;
  std::string context;
  bool started = false;
  bool ended = false;  // no page left
  ColumnPtr block;     // decoded rows that pieces are cut from (views), from `cursor` on
  int64_t cursor = 0;
  int64_t page = 0;  // the page read last, for error messages
  RawBuffer owned;   // the chunk's bytes when they were read from a file (not viewed in place)
};

ColumnChunkPieces::ColumnChunkPieces(const uint8_t* chunk, int64_t size, const ColumnMetaData& meta,
                                     const LeafColumn& leaf, int64_t num_rows, std::string context,
                                     decode::RawBuffer* owned, bool hold_pages)
    : state_(std::make_unique<State>(chunk, size, meta, leaf, num_rows, std::move(context),
                                     hold_pages)) {
  if (owned != nullptr) state_->owned.Swap(*owned);
  state_->decoder.set_hold_pages(hold_pages);
  state_->decoder.set_stable_pages(hold_pages);
}

ColumnChunkPieces::~ColumnChunkPieces() = default;

Result<ColumnPtr> ColumnChunkPieces::Next(int64_t rows) {
  State& s = *state_;
  ChunkDecoder& decoder = s.decoder;
  const int64_t in_block = s.block ? s.block->length() - s.cursor : 0;
  rows = std::min(rows, s.num_rows - (decoder.done() - in_block) - decoder.rows());
  // A page holds far more rows than a piece, often: its block serves several pieces as views.
  if (in_block >= rows) {
    ColumnPtr piece = SliceColumnView(s.block, s.cursor, rows);
    s.cursor += rows;
    return piece;
  }
  if (!s.started) {
    if (!CodecSupported(s.codec)) {
      return Status::Unsupported(std::string("compression codec ") + CodecName(s.codec))
          .WithContext(s.context);
    }
    if (s.num_rows < 0) return Status::Invalid("negative row count").WithContext(s.context);
    TANDEM_RETURN_NOT_OK(decoder.Init(s.chunk_size, rows).WithContext(s.context));
    s.started = true;
  }
  try {
    if (s.block) decoder.CarryOver(*s.block, s.cursor);  // fewer rows than the piece
    s.block.reset();
    s.cursor = 0;
    Page page;
    while (decoder.rows() < rows && (decoder.pending() || !s.ended)) {
      if (decoder.pending()) {
        const Status st = decoder.DecodePending(rows - decoder.rows());
        if (!st.ok()) return st.WithContext(s.context + ", page " + std::to_string(s.page));
        continue;
      }
      auto more = s.reader.Next(&page);
      if (!more.ok()) {
        return more.status().WithContext(s.context + ", page " +
                                         std::to_string(s.reader.pages_read() - 1));
      }
      if (!*more) {
        s.ended = true;
        break;
      }
      s.page = page.index;
      const Status st = decoder.DecodePage(page, rows - decoder.rows());
      if (!st.ok()) return st.WithContext(s.context + ", page " + std::to_string(page.index));
      // Every row of the chunk decoded, or held without its bytes (dictionary indices): the
      // chunk can go. A PLAIN page's rows still pending read them (HoldPage).
      if (s.owned.capacity() > 0 && !decoder.pending_reads_chunk() &&
          decoder.done() + decoder.rows() + decoder.pending_rows() >= s.num_rows) {
        RawBuffer none;
        s.owned.Swap(none);
        s.ended = true;
      }
    }
    if (decoder.rows() < rows) {
      return Status::Invalid("column chunk holds " +
                             std::to_string(decoder.done() + decoder.rows()) +
                             " values, its row group has " + std::to_string(s.num_rows) + " rows")
          .WithContext(s.context);
    }
    s.block = decoder.FinishBlock();
  } catch (const std::bad_alloc& e) {
    return Status::OutOfMemory("out of memory decoding a piece of " + std::to_string(rows) +
                               " rows: " + OutOfMemoryText(e))
        .WithContext(s.context);
  }
  s.cursor = rows;
  return SliceColumnView(s.block, 0, rows);
}

}  // namespace tandem::parquet
