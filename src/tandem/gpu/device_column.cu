// Host <-> device column transfers (see device_column.h), staged through pinned chunks
// (pinned_stager.cuh). Layout changes happen on the host side of the staging copy, where the
// data is touched anyway: host bit-packed booleans become device bytes, int32/int64 string
// offsets become rebased int64 offsets across concatenated batches, validity bitmaps of batches
// of any length are concatenated bit-exactly; the reverse on the way back.
#include <algorithm>
#include <cstring>
#include <vector>

#include "tandem/common/bit_util.h"
#include "tandem/gpu/cuda_util.cuh"
#include "tandem/gpu/device_column.h"
#include "tandem/gpu/pinned_stager.cuh"

namespace tandem::gpu {
namespace {

// The pieces (one per host batch) that make one device column, with their row and string-byte
// starts in the concatenation.
struct ColumnPieces {
  std::vector<const Column*> pieces;
  std::vector<int64_t> row_start;   // pieces.size() + 1 entries
  std::vector<int64_t> byte_start;  // strings only, pieces.size() + 1 entries
  int64_t rows() const { return row_start.back(); }
  int64_t bytes() const { return byte_start.empty() ? 0 : byte_start.back(); }
};

ColumnPieces MakePieces(std::vector<const Column*> pieces, bool strings) {
  ColumnPieces p;
  p.pieces = std::move(pieces);
  p.row_start.push_back(0);
  if (strings) p.byte_start.push_back(0);
  for (const Column* c : p.pieces) {
    p.row_start.push_back(p.row_start.back() + c->length());
    if (strings) p.byte_start.push_back(p.byte_start.back() + c->string_bytes());
  }
  return p;
}

// Calls fn(piece, first_in_piece, count, first_out) for the parts of [begin, end) that fall in
// each piece, where `starts` are the pieces' first positions (rows or bytes).
template <typename Fn>
void ForEachPart(const std::vector<int64_t>& starts, int64_t begin, int64_t end, Fn&& fn) {
  size_t piece = std::upper_bound(starts.begin(), starts.end(), begin) - starts.begin() - 1;
  for (int64_t at = begin; at < end; ++piece) {
    const int64_t stop = std::min(end, starts[piece + 1]);
    if (stop > at) fn(piece, at - starts[piece], stop - at, at - begin);
    at = std::max(at, stop);
  }
}

Status UploadValidity(const ColumnPieces& p, int64_t null_count, DeviceColumn& out,
                      PinnedStager& stager, const Stream& stream) {
  if (null_count == 0) return Status::OK();
  const int64_t n = p.rows();
  std::vector<uint8_t> bits(static_cast<size_t>(bit_util::BytesForBits(n)), 0);
  for (size_t i = 0; i < p.pieces.size(); ++i) {
    const Column& c = *p.pieces[i];
    if (c.has_validity()) {
      bit_util::CopyBits(c.validity_bits(), 0, c.length(), bits.data(), p.row_start[i]);
    } else {
      bit_util::SetBitsTo(bits.data(), p.row_start[i], c.length(), true);
    }
  }
  TANDEM_ASSIGN_OR_RAISE(out.validity,
                         DeviceBuffer::Allocate(static_cast<int64_t>(bits.size()), stream));
  return stager.Upload(out.validity.data(), static_cast<int64_t>(bits.size()),
                       [&](int64_t offset, int64_t bytes, uint8_t* dst) {
                         std::memcpy(dst, bits.data() + offset, static_cast<size_t>(bytes));
                       });
}

Status UploadValues(const ColumnPieces& p, DeviceColumn& out, PinnedStager& stager,
                    const Stream& stream) {
  const int64_t n = p.rows();
  const DataType& type = out.type;
  if (type.is_string_like()) {
    TANDEM_ASSIGN_OR_RAISE(out.values, DeviceBuffer::Allocate((n + 1) * 8, stream));
    TANDEM_RETURN_NOT_OK(stager.Upload(
        out.values.data(), (n + 1) * 8, [&](int64_t offset, int64_t bytes, uint8_t* dst) {
          int64_t* o = reinterpret_cast<int64_t*>(dst);
          const int64_t first = offset / 8, end = std::min(n, (offset + bytes) / 8);
          ForEachPart(p.row_start, first, end,
                      [&](size_t piece, int64_t row, int64_t count, int64_t at) {
                        const Column& c = *p.pieces[piece];
                        const int64_t base = p.byte_start[piece];
                        for (int64_t i = 0; i < count; ++i)
                          o[at + i] = base + c.StringOffset(row + i);
                      });
          if ((offset + bytes) / 8 == n + 1) o[n - first] = p.bytes();  // the closing offset
        }));
    if (p.bytes() == 0) return Status::OK();
    TANDEM_ASSIGN_OR_RAISE(out.data, DeviceBuffer::Allocate(p.bytes(), stream));
    return stager.Upload(
        out.data.data(), p.bytes(), [&](int64_t offset, int64_t bytes, uint8_t* dst) {
          ForEachPart(p.byte_start, offset, offset + bytes,
                      [&](size_t piece, int64_t from, int64_t count, int64_t at) {
                        std::memcpy(dst + at, p.pieces[piece]->data()->data() + from,
                                    static_cast<size_t>(count));
                      });
        });
  }
  const int width = DeviceByteWidth(type);
  TANDEM_ASSIGN_OR_RAISE(out.values, DeviceBuffer::Allocate(n * width, stream));
  if (type.id == TypeId::kBool) {
    return stager.Upload(out.values.data(), n, [&](int64_t offset, int64_t bytes, uint8_t* dst) {
      ForEachPart(p.row_start, offset, offset + bytes,
                  [&](size_t piece, int64_t row, int64_t count, int64_t at) {
                    const Column& c = *p.pieces[piece];
                    for (int64_t i = 0; i < count; ++i) dst[at + i] = c.GetBool(row + i) ? 1 : 0;
                  });
    });
  }
  return stager.Upload(
      out.values.data(), n * width, [&](int64_t offset, int64_t bytes, uint8_t* dst) {
        ForEachPart(p.row_start, offset / width, (offset + bytes) / width,
                    [&](size_t piece, int64_t row, int64_t count, int64_t at) {
                      std::memcpy(dst + at * width, p.pieces[piece]->values()->data() + row * width,
                                  static_cast<size_t>(count * width));
                    });
      });
}

int64_t LargestTransfer(const ColumnPieces& p, const DataType& type) {
  const int64_t n = p.rows();
  if (type.is_string_like()) return std::max((n + 1) * 8, p.bytes());
  return std::max<int64_t>(n * DeviceByteWidth(type), bit_util::BytesForBits(n));
}

Result<DeviceColumnPtr> UploadColumn(const ColumnPieces& p, const DataType& type,
                                     PinnedStager& stager, const Stream& stream) {
  auto out = std::make_shared<DeviceColumn>();
  out->type = type;
  out->length = p.rows();
  for (const Column* c : p.pieces) out->null_count += c->null_count();
  TANDEM_RETURN_NOT_OK(UploadValidity(p, out->null_count, *out, stager, stream));
  TANDEM_RETURN_NOT_OK(UploadValues(p, *out, stager, stream));
  return out;
}

// ---- device -> host ----------------------------------------------------------------------------

// Every byte of the result is written by the download: no zero-fill first (a single-threaded
// memset of a fresh 267 MiB batch took most of a 167 ms DeviceToHost on the H200 host).
Result<std::shared_ptr<Buffer>> DownloadRaw(const void* src, int64_t bytes, PinnedStager& stager) {
  TANDEM_ASSIGN_OR_RAISE(auto buffer, Buffer::TryAllocateUninitialized(bytes));
  TANDEM_RETURN_NOT_OK(
      stager.Download(src, bytes, [&](int64_t offset, int64_t n, const uint8_t* in) {
        std::memcpy(buffer->mutable_data() + offset, in, static_cast<size_t>(n));
      }));
  return buffer;
}

Result<ColumnPtr> DownloadColumn(const DeviceColumn& column, int64_t string_bytes,
                                 PinnedStager& stager) {
  const int64_t n = column.length;
  std::shared_ptr<Buffer> validity;
  if (column.null_count > 0) {
    if (!column.has_validity())
      return Status::Internal("device column counts nulls but has no bitmap");
    TANDEM_ASSIGN_OR_RAISE(validity,
                           DownloadRaw(column.validity.data(), bit_util::BytesForBits(n), stager));
    if (n % 8 != 0) validity->mutable_data()[n / 8] &= static_cast<uint8_t>((1u << (n % 8)) - 1);
  }
  const DataType& type = column.type;
  if (type.is_string_like()) {
    const bool large = string_bytes > INT32_MAX;
    TANDEM_ASSIGN_OR_RAISE(auto offsets,
                           Buffer::TryAllocateUninitialized((n + 1) * (large ? 8 : 4)));
    TANDEM_RETURN_NOT_OK(stager.Download(
        column.values.data(), (n + 1) * 8, [&](int64_t offset, int64_t bytes, const uint8_t* in) {
          if (large) {
            std::memcpy(offsets->mutable_data() + offset, in, static_cast<size_t>(bytes));
            return;
          }
          const int64_t* src = reinterpret_cast<const int64_t*>(in);
          int32_t* dst = offsets->mutable_data_as<int32_t>() + offset / 8;
          for (int64_t i = 0; i < bytes / 8; ++i) dst[i] = static_cast<int32_t>(src[i]);
        }));
    std::shared_ptr<Buffer> data;
    if (string_bytes > 0) {
      TANDEM_ASSIGN_OR_RAISE(data, DownloadRaw(column.data.data(), string_bytes, stager));
    } else {
      data = Buffer::Allocate(0);
    }
    return std::make_shared<Column>(type, n, column.null_count, validity, offsets, data, large);
  }
  if (type.id == TypeId::kBool) {
    TANDEM_ASSIGN_OR_RAISE(auto bits, Buffer::TryAllocate(bit_util::BytesForBits(n)));
    TANDEM_RETURN_NOT_OK(stager.Download(
        column.values.data(), n, [&](int64_t offset, int64_t bytes, const uint8_t* in) {
          uint8_t* dst = bits->mutable_data() + offset / 8;  // offset is a multiple of 64
          for (int64_t i = 0; i < bytes; ++i) {
            if (in[i]) dst[i >> 3] |= static_cast<uint8_t>(1u << (i & 7));
          }
        }));
    return std::make_shared<Column>(type, n, column.null_count, validity, bits);
  }
  TANDEM_ASSIGN_OR_RAISE(auto values,
                         DownloadRaw(column.values.data(), n * DeviceByteWidth(type), stager));
  return std::make_shared<Column>(type, n, column.null_count, validity, values);
}

// The byte count of each string column (its last offset); one synchronization for all.
Result<std::vector<int64_t>> StringBytes(const std::vector<const DeviceColumn*>& columns,
                                         const Stream& stream) {
  std::vector<int64_t> bytes(columns.size(), 0);
  TANDEM_ASSIGN_OR_RAISE(PinnedBuffer host, PinnedBuffer::Allocate(8 * (columns.size() + 1)));
  int64_t* slots = reinterpret_cast<int64_t*>(host.data());
  bool any = false;
  for (size_t i = 0; i < columns.size(); ++i) {
    const DeviceColumn& c = *columns[i];
    if (!c.type.is_string_like()) continue;
    if (c.values.size() < (c.length + 1) * 8) {
      return Status::Internal("device string column has " + std::to_string(c.values.size()) +
                              " offset bytes for " + std::to_string(c.length) + " rows");
    }
    TANDEM_RETURN_NOT_OK(CopyToHost(&slots[i], c.values.data_as<int64_t>() + c.length, 8, stream));
    any = true;
  }
  if (!any) return bytes;
  TANDEM_RETURN_NOT_OK(stream.Synchronize());
  for (size_t i = 0; i < columns.size(); ++i) {
    if (columns[i]->type.is_string_like()) bytes[i] = slots[i];
  }
  return bytes;
}

int64_t LargestDownload(const DeviceColumn& c, int64_t string_bytes) {
  const int64_t n = c.length;
  if (c.type.is_string_like()) return std::max((n + 1) * 8, string_bytes);
  return std::max<int64_t>(n * DeviceByteWidth(c.type), bit_util::BytesForBits(n));
}

}  // namespace

int DeviceByteWidth(const DataType& type) {
  if (type.id == TypeId::kBool) return 1;
  if (type.is_string_like()) return 8;
  return type.byte_width();
}

Result<DeviceBatchPtr> ToDevice(const Table& table, const Stream& stream) {
  auto out = std::make_shared<DeviceBatch>();
  out->schema = table.schema;
  out->num_rows = table.num_rows();
  std::vector<ColumnPieces> columns;
  int64_t largest = 0;
  for (int c = 0; c < table.schema.num_fields(); ++c) {
    std::vector<const Column*> pieces;
    for (const auto& b : table.batches) {
      if (b->num_rows == 0) continue;
      if (c >= b->num_columns() || b->column(c)->length() != b->num_rows) {
        return Status::Invalid("ToDevice: batch does not match the table schema");
      }
      pieces.push_back(b->column(c).get());
    }
    columns.push_back(MakePieces(std::move(pieces), table.schema.field(c).type.is_string_like()));
    largest = std::max(largest, LargestTransfer(columns.back(), table.schema.field(c).type));
  }
  PinnedStager stager(stream);
  TANDEM_RETURN_NOT_OK(stager.Init(largest));
  for (int c = 0; c < table.schema.num_fields(); ++c) {
    TANDEM_ASSIGN_OR_RAISE(auto column,
                           UploadColumn(columns[c], table.schema.field(c).type, stager, stream));
    out->columns.push_back(std::move(column));
  }
  TANDEM_RETURN_NOT_OK(stager.Finish());
  return out;
}

Result<DeviceColumnPtr> ColumnToDevice(const Column& column, const Stream& stream) {
  const ColumnPieces pieces = MakePieces({&column}, column.type().is_string_like());
  PinnedStager stager(stream);
  TANDEM_RETURN_NOT_OK(stager.Init(LargestTransfer(pieces, column.type())));
  TANDEM_ASSIGN_OR_RAISE(auto out, UploadColumn(pieces, column.type(), stager, stream));
  TANDEM_RETURN_NOT_OK(stager.Finish());
  return out;
}

Result<Table> ToHost(const DeviceBatch& batch, const Stream& stream) {
  Table table;
  table.schema = batch.schema;
  if (batch.num_rows == 0) return table;
  std::vector<const DeviceColumn*> columns;
  for (const auto& c : batch.columns) columns.push_back(c.get());
  TANDEM_ASSIGN_OR_RAISE(std::vector<int64_t> string_bytes, StringBytes(columns, stream));
  int64_t largest = 0;
  for (size_t i = 0; i < columns.size(); ++i) {
    largest = std::max(largest, LargestDownload(*columns[i], string_bytes[i]));
  }
  PinnedStager stager(stream);
  TANDEM_RETURN_NOT_OK(stager.Init(largest));
  auto out = std::make_shared<Batch>();
  out->schema = batch.schema;
  out->num_rows = batch.num_rows;
  for (size_t i = 0; i < columns.size(); ++i) {
    TANDEM_ASSIGN_OR_RAISE(auto column, DownloadColumn(*columns[i], string_bytes[i], stager));
    out->columns.push_back(std::move(column));
  }
  TANDEM_RETURN_NOT_OK(stager.Finish());
  table.batches.push_back(std::move(out));
  return table;
}

Result<ColumnPtr> ColumnToHost(const DeviceColumn& column, const Stream& stream) {
  TANDEM_ASSIGN_OR_RAISE(std::vector<int64_t> string_bytes, StringBytes({&column}, stream));
  PinnedStager stager(stream);
  TANDEM_RETURN_NOT_OK(stager.Init(LargestDownload(column, string_bytes[0])));
  TANDEM_ASSIGN_OR_RAISE(auto out, DownloadColumn(column, string_bytes[0], stager));
  TANDEM_RETURN_NOT_OK(stager.Finish());
  return out;
}

int64_t DeviceBytes(const DeviceBatch& batch) {
  int64_t bytes = 0;
  for (const auto& c : batch.columns) {
    bytes += c->validity.size() + c->values.size() + c->data.size();
  }
  return bytes;
}

}  // namespace tandem::gpu
