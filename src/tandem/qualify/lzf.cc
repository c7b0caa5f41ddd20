// LZF decoding. Each step starts with a control byte c:
//   c < 32:  a literal run: the next c + 1 input bytes are copied to the output.
//   c >= 32: a back reference: length field L = c >> 5 (1..6, or 7 meaning "7 plus the next
//            byte"), then the low 8 bits of the offset; the high 5 bits are c & 31. It copies
//            L + 2 bytes starting ((c & 31) << 8 | low) + 1 bytes back in the output; source and
//            destination may overlap (a run), so the copy goes byte by byte.
#include "tandem/qualify/lzf.h"

#include <cstring>
#include <string>

namespace tandem::qualify {

Status LzfDecompress(const uint8_t* in, size_t in_size, uint8_t* out, size_t out_size) {
  size_t ip = 0, op = 0;
  const auto overrun = [&](const char* what) {
    return Status::Invalid(std::string("the lzf data ends inside a ") + what + " at input byte " +
                           std::to_string(ip) + " after " + std::to_string(op) + " of " +
                           std::to_string(out_size) + " bytes");
  };
  while (op < out_size) {
    if (ip >= in_size) return overrun("chunk");
    const unsigned ctrl = in[ip++];
    if (ctrl < 32) {
      const size_t run = ctrl + 1;
      if (run > in_size - ip) return overrun("literal run");
      if (run > out_size - op) {
        return Status::Invalid("a literal run of " + std::to_string(run) + " bytes overflows the " +
                               std::to_string(out_size) + "-byte chunk at output byte " +
                               std::to_string(op));
      }
      std::memcpy(out + op, in + ip, run);
      ip += run;
      op += run;
      continue;
    }
    size_t len = ctrl >> 5;
    if (len == 7) {
      if (ip >= in_size) return overrun("back reference");
      len += in[ip++];
    }
    if (ip >= in_size) return overrun("back reference");
    const size_t distance = ((static_cast<size_t>(ctrl & 31) << 8) | in[ip++]) + 1;
    len += 2;
    if (distance > op) {
      return Status::Invalid("a back reference at output byte " + std::to_string(op) + " reaches " +
                             std::to_string(distance - op) +
                             " bytes before the start of the chunk");
    }
    if (len > out_size - op) {
      return Status::Invalid("a back reference of " + std::to_string(len) +
                             " bytes overflows the " + std::to_string(out_size) +
                             "-byte chunk at output byte " + std::to_string(op));
    }
    const uint8_t* from = out + op - distance;
    uint8_t* to = out + op;
    if (distance >= len) {
      std::memcpy(to, from, len);
    } else {
      for (size_t i = 0; i < len; ++i) to[i] = from[i];
    }
    op += len;
  }
  return Status::OK();
}

}  // namespace tandem::qualify
