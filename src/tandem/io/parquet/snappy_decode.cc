// Raw snappy block decompression (see snappy_decode.h). The format: a varint with the
// uncompressed length, then tags. The low two bits of a tag byte give its kind: 0 a literal
// (length-1 in the upper six bits, or in the 1-4 bytes that follow when those bits say 60-63),
// 1 a copy of 4-11 bytes with an 11-bit offset, 2 and 3 copies of 1-64 bytes with a 16- or
// 32-bit offset. A copy's offset counts back from the current output position and may be
// shorter than its length (the copied bytes repeat).
#include "tandem/io/parquet/snappy_decode.h"

#include <bit>
#include <cstring>

namespace tandem::parquet {
namespace {

static_assert(std::endian::native == std::endian::little, "snappy offsets are read as LE words");

// Bytes of output room below which copies take the checked byte-wise path: a fast copy of at
// most 64 bytes may write up to 16 bytes past its end.
constexpr int64_t kFastRoom = 80;

inline void Copy8(uint8_t* dst, const uint8_t* src) {
  uint64_t v;
  std::memcpy(&v, src, 8);
  std::memcpy(dst, &v, 8);
}

inline void Copy16(uint8_t* dst, const uint8_t* src) {
  uint8_t v[16];
  std::memcpy(v, src, 16);
  std::memcpy(dst, v, 16);
}

inline void Copy64(uint8_t* dst, const uint8_t* src) {
  uint8_t v[64];
  std::memcpy(v, src, 64);
  std::memcpy(dst, v, 64);
}

// Parses the preamble; returns its size in bytes, or 0 if it is damaged.
int ParseLength(const uint8_t* in, int64_t in_size, uint64_t* length) {
  uint64_t v = 0;
  for (int i = 0; i < 5; ++i) {
    if (i >= in_size) return 0;
    const uint8_t b = in[i];
    v |= static_cast<uint64_t>(b & 0x7f) << (7 * i);
    if ((b & 0x80) == 0) {
      if (v > 0xffffffffull) return 0;
      *length = v;
      return i + 1;
    }
  }
  return 0;
}

// Copies n bytes from op - offset to op where at least kFastRoom bytes of output remain and
// n <= 64. Chunk copies read at least their own width behind where they write, so they read
// only finished bytes; the pattern-widening steps for offsets below 8 also read bytes not yet
// written, but use only the finished prefix of what they store.
inline void FastCopy(uint8_t* op, size_t offset, size_t n) {
  const uint8_t* src = op - offset;
  if (n <= 16 && offset >= 16) {
    Copy16(op, src);
    return;
  }
  if (offset >= n) {
    // The source ends where the destination starts or before: load all 64 bytes, then store
    // them. Bytes past n are scratch that later tags overwrite; loading before storing keeps a
    // load from waiting on (and failing to forward from) a store it partly overlaps.
    Copy64(op, src);
    return;
  }
  if (offset >= 16) {
    for (size_t k = 0; k < n; k += 16) Copy16(op + k, src + k);
    return;
  }
  uint8_t* d = op;
  uint8_t* const end = op + n;
  if (offset < 8) {
    // Widen the repeating pattern: each step writes 8 bytes, of which the first d - src are
    // right, so the distance back to src doubles until it is at least 8.
    while (d - src < 8 && d < end) {
      Copy8(d, src);
      d += d - src;
    }
  }
  const size_t distance = static_cast<size_t>(d - src);
  if (distance == 8) {
    // The commonest repeat (one 8-byte value, or a pattern of 1, 2 or 4 bytes widened to 8):
    // store it from a register, so no load waits for the store before it.
    uint64_t pattern;
    std::memcpy(&pattern, d - 8, 8);
    for (; d < end; d += 8) std::memcpy(d, &pattern, 8);
    return;
  }
  for (; d < end; d += 8) Copy8(d, d - distance);
}

}  // namespace

bool SnappyUncompressedLength(const uint8_t* in, int64_t in_size, int64_t* length) {
  uint64_t v = 0;
  if (ParseLength(in, in_size, &v) == 0) return false;
  *length = static_cast<int64_t>(v);
  return true;
}

bool SnappyDecompressBlock(const uint8_t* in, int64_t in_size, uint8_t* out, int64_t out_size) {
  uint64_t announced = 0;
  const int header = ParseLength(in, in_size, &announced);
  if (header == 0 || static_cast<int64_t>(announced) != out_size) return false;
  const uint8_t* ip = in + header;
  const uint8_t* const ip_end = in + in_size;
  uint8_t* op = out;
  uint8_t* const op_end = out + out_size;
  while (ip < ip_end) {
    const uint8_t tag = *ip++;
    const int kind = tag & 3;
    if (kind == 0) {
      size_t n = static_cast<size_t>(tag >> 2) + 1;
      if (n > 60) {
        const size_t extra = n - 60;
        if (static_cast<size_t>(ip_end - ip) < extra) return false;
        uint32_t v = 0;
        for (size_t k = 0; k < extra; ++k) v |= static_cast<uint32_t>(ip[k]) << (8 * k);
        ip += extra;
        n = static_cast<uint32_t>(v + 1);  // 32-bit, as libsnappy: 2^32 - 1 + 1 is empty
      }
      if (static_cast<size_t>(ip_end - ip) < n || static_cast<size_t>(op_end - op) < n) {
        return false;
      }
      if (n <= 16 && ip_end - ip >= 16 && op_end - op >= 16) {
        Copy16(op, ip);
      } else if (n <= 64 && ip_end - ip >= 64 && op_end - op >= 64) {
        Copy64(op, ip);
      } else if (n > 0) {  // n is 0 only for the wrapped length; out may then be null
        std::memcpy(op, ip, n);
      }
      op += n;
      ip += n;
      continue;
    }
    size_t n, offset;
    if (kind == 1) {
      if (ip >= ip_end) return false;
      n = 4 + ((tag >> 2) & 7);
      offset = (static_cast<size_t>(tag >> 5) << 8) | *ip++;
    } else if (kind == 2) {
      if (ip_end - ip < 2) return false;
      n = static_cast<size_t>(tag >> 2) + 1;
      offset = static_cast<size_t>(ip[0]) | (static_cast<size_t>(ip[1]) << 8);
      ip += 2;
    } else {
      if (ip_end - ip < 4) return false;
      n = static_cast<size_t>(tag >> 2) + 1;
      uint32_t v;
      std::memcpy(&v, ip, 4);
      offset = v;
      ip += 4;
    }
    if (offset == 0 || offset > static_cast<size_t>(op - out) ||
        n > static_cast<size_t>(op_end - op)) {
      return false;
    }
    if (op_end - op >= kFastRoom) {
      FastCopy(op, offset, n);
    } else {
      const uint8_t* src = op - offset;
      for (size_t k = 0; k < n; ++k) op[k] = src[k];
    }
    op += n;
  }
  return op == op_end;
}

}  // namespace tandem::parquet
