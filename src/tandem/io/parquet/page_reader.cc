// Page iteration, checksum verification and decompression for one column chunk.
#include "tandem/io/parquet/page_reader.h"

#include <zlib.h>

#include <cstring>
#include <string>

#include "tandem/io/parquet/codec.h"

namespace tandem::parquet {
namespace {

uint32_t Crc32(const uint8_t* data, int64_t size) {
  uLong crc = crc32(0L, Z_NULL, 0);
  while (size > 0) {
    const uInt chunk = static_cast<uInt>(size > (1 << 30) ? (1 << 30) : size);
    crc = crc32(crc, data, chunk);
    data += chunk;
    size -= chunk;
  }
  return static_cast<uint32_t>(crc);
}

// One decompression buffer per thread, reused across pages and chunks (not counted against the
// host budget: see decode/raw_buffer.h).
decode::RawBuffer& Scratch() {
  thread_local decode::RawBuffer scratch(decode::RawBuffer::Use::kScratch);
  return scratch;
}

}  // namespace

Status DecompressPageInto(const PageBody& body, uint8_t* out) {
  if (body.prefix > 0) std::memcpy(out, body.compressed, static_cast<size_t>(body.prefix));
  if (body.raw_size - body.prefix == 0 && body.compressed_size - body.prefix == 0) {
    return Status::OK();  // an empty values section (some writers omit even the codec frame)
  }
  return Decompress(body.codec, body.compressed + body.prefix, body.compressed_size - body.prefix,
                    out + body.prefix, body.raw_size - body.prefix);
}

Result<const uint8_t*> DecompressPage(const PageBody& body) {
  decode::RawBuffer& scratch = Scratch();
  try {
    scratch.Clear();
    scratch.Resize(body.raw_size);
  } catch (const std::bad_alloc&) {
    return Status::OutOfMemory("cannot allocate " + std::to_string(body.raw_size) + " bytes");
  }
  TANDEM_RETURN_NOT_OK(DecompressPageInto(body, scratch.data()));
  return static_cast<const uint8_t*>(scratch.data());
}

Result<bool> PageReader::Next(Page* page) {
  if (pos_ >= end_) return false;
  const int64_t index = index_++;
  auto fail = [](const Status& st) { return st; };
  int64_t header_size = 0;
  auto header = ParsePageHeader(pos_, end_ - pos_, &header_size);
  if (!header.ok()) return fail(header.status());
  page->header = std::move(header).value();
  page->index = index;
  const PageHeader& h = page->header;
  page->decompressed = false;
  pos_ += header_size;
  if (h.compressed_page_size > end_ - pos_) {
    return fail(Status::Invalid("compressed size " + std::to_string(h.compressed_page_size) +
                                " runs past the end of the column chunk"));
  }
  const uint8_t* body = pos_;
  const int64_t body_size = h.compressed_page_size;
  pos_ += body_size;

  if (h.crc.has_value()) {
    const uint32_t actual = Crc32(body, body_size);
    if (actual != static_cast<uint32_t>(*h.crc)) {
      return fail(Status::Invalid("CRC-32 checksum mismatch (header " +
                                  std::to_string(static_cast<uint32_t>(*h.crc)) + ", data " +
                                  std::to_string(actual) + ")"));
    }
  }

  const int64_t raw_size = h.uncompressed_page_size;
  bool compressed = codec_ != CompressionCodec::UNCOMPRESSED;
  int64_t prefix = 0;  // v2: uncompressed level bytes in front of the values
  if (h.type == PageType::DATA_PAGE_V2) {
    if (!h.data_page_header_v2) return fail(Status::Invalid("data page v2 without its header"));
    const DataPageHeaderV2& v2 = *h.data_page_header_v2;
    if (v2.definition_levels_byte_length < 0 || v2.repetition_levels_byte_length < 0) {
      return fail(Status::Invalid("negative level byte length"));
    }
    prefix = int64_t{v2.definition_levels_byte_length} + v2.repetition_levels_byte_length;
    if (prefix > body_size || prefix > raw_size) {
      return fail(Status::Invalid("level byte lengths exceed the page size"));
    }
    if (!v2.is_compressed) compressed = false;
  } else if (h.type != PageType::DATA_PAGE && h.type != PageType::DICTIONARY_PAGE) {
    // Index pages and unknown page types carry nothing to decode.
    page->data = body;
    page->size = 0;
    return true;
  }

  if (!compressed) {
    if (body_size != raw_size) {
      return fail(Status::Invalid("uncompressed page of " + std::to_string(body_size) +
                                  " bytes, header says " + std::to_string(raw_size)));
    }
    page->data = body;
    page->size = body_size;
    return true;
  }
  page->body = PageBody{body, body_size, raw_size, prefix, codec_};
  if (destination_ && destination_->Defer(h)) {
    page->data = nullptr;
    page->size = raw_size;
    return true;
  }
  if (uint8_t* out = destination_ ? destination_->For(h, raw_size) : nullptr) {
    TANDEM_RETURN_NOT_OK(fail(DecompressPageInto(page->body, out)));
    page->data = out;
  } else {
    auto data = DecompressPage(page->body);
    if (!data.ok()) return fail(data.status());
    page->data = *data;
  }
  page->size = raw_size;
  page->decompressed = true;
  return true;
}

}  // namespace tandem::parquet
