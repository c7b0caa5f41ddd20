// The LZF block algorithm (Marc Lehmann's liblzf), which compress-lzf's LZFOutputStream uses for
// the compressed chunks of Spark's `lzf` codec. Written from the format: a block is a sequence
// of literal runs and back references into the output decoded so far, and every read and copy
// here is bounds-checked, because the bytes come from files we do not trust.
#pragma once

#include <cstddef>
#include <cstdint>

#include "tandem/common/status.h"

namespace tandem::qualify {

// Decodes one LZF block from in[0, in_size) into exactly out_size bytes at out. Like
// compress-lzf's ChunkDecoder it stops once the output is full (input bytes left over are not an
// error). An Invalid status says what is wrong ("a back reference reaches 12 bytes before the
// start of the chunk") without naming the file: the caller adds that.
Status LzfDecompress(const uint8_t* in, size_t in_size, uint8_t* out, size_t out_size);

}  // namespace tandem::qualify
