// Differential fuzzing of Tandem's snappy block decoder against libsnappy: for any input both
// accept or both reject, and accepted blocks decode to the same bytes. ASan and UBSan catch any
// read or write outside the buffers.
#include <snappy.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "tandem/io/parquet/snappy_decode.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  size_t announced = 0;
  const char* block = reinterpret_cast<const char*>(data);
  const bool theirs_length = snappy::GetUncompressedLength(block, size, &announced);
  int64_t length = 0;
  const bool ours_length = tandem::parquet::SnappyUncompressedLength(data, size, &length);
  if (theirs_length != ours_length) std::abort();
  if (!ours_length || announced > (size_t{1} << 22)) return 0;
  if (static_cast<size_t>(length) != announced) std::abort();
  std::string ours(announced, '\0'), theirs(announced, '\0');
  const bool ours_ok = tandem::parquet::SnappyDecompressBlock(
      data, size, reinterpret_cast<uint8_t*>(ours.data()), length);
  const bool theirs_ok = snappy::RawUncompress(block, size, theirs.data());
  if (ours_ok != theirs_ok) std::abort();
  if (ours_ok && ours != theirs) std::abort();
  return 0;
}
