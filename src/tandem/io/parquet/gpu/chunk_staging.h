// Host half of GPU Parquet decoding: one column chunk's pages are walked (headers, CRC,
// decompression by PageReader) and turned into a StagedChunk that GPU kernels decode in parallel:
//   - the values sections of the data pages, in one (pinned) staging buffer (compressed pages are
//     decompressed straight into it);
//   - a run table over the chunk's dense (non-NULL) values: each run says where its values come
//     from (a repeated RLE value, bit-packed values at a bit offset, or PLAIN values at a byte
//     offset), so any value is found by a binary search of the run starts;
//   - the validity bitmap, decoded from the definition levels on the host (cheap);
//   - the dictionary, converted to the output type on the host with the host decoder's
//     conversions (small);
//   - for PLAIN strings, the staging offset of every value's bytes (one pointer walk per page).
// Chunks the GPU kernels do not handle (encodings other than PLAIN / dictionary / RLE booleans,
// INT96, byte-array and fixed-length decimals, FLOAT16, fixed binary) and chunks with anything
// unexpected (bad lengths, counts, headers) are marked for host decoding, which then either
// decodes them or reports the error exactly as ReadParquet does.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tandem/gpu/runtime.h"
#include "tandem/io/parquet/gpu/hybrid_runs.h"
#include "tandem/io/parquet/gpu/page_parse_kernels.h"
#include "tandem/io/parquet/metadata.h"
#include "tandem/io/parquet/type_mapping.h"

namespace tandem::parquet::gpu_decode {

// What the kernels produce.
enum class OutputKind : int32_t {
  kFixed = 0,    // dense values are dictionary indexes (dictionary gather) or PLAIN values
  kBool = 1,     // dense values are the booleans themselves (bit width 1), one byte out
  kStrings = 2,  // dictionary strings or PLAIN byte arrays
};

struct StagedChunk {
  bool on_gpu = false;      // false: decode this chunk on the host
  std::string host_reason;  // why not (for tests and statistics)

  DataType type;
  OutputKind kind = OutputKind::kFixed;
  Conversion conversion = Conversion::kCopy;
  int physical_width = 0;  // bytes of a PLAIN fixed-width value
  int out_width = 0;       // bytes of an output value (fixed kinds)
  int64_t num_rows = 0;
  int64_t num_valid = 0;

  // Values sections of the pages: compressed data pages are decompressed here whole (levels
  // included) and their sections lie where they are in the page; sections copied in (uncompressed
  // pages) start 8-byte aligned. The kernels read bytes, so no section needs an alignment.
  uint8_t* staging = nullptr;
  int64_t staging_bytes = 0;
  gpu::PinnedBuffer pinned;       // holds `staging` when staged for the device
  std::vector<uint8_t> pageable;  // holds `staging` otherwise (tests)

  // Decompression left to the GPU (StageColumnChunk's defer_decompression): the data pages stay
  // compressed and nothing of them is parsed on the host. `staging` then holds [the bytes placed
  // in device staging as they are (pages stored uncompressed, v2 pages' levels): direct_bytes |
  // the compressed bytes]; the device staging is [direct_bytes | decompressed_bytes of pages
  // decompressed by nvCOMP | the compressed bytes], page_plans point into it, and the runs,
  // validity and num_valid come from the GPU page parse (page_parse_kernels.h).
  struct CompressedPage {
    int64_t from = 0;       // offset in `staging` of its compressed bytes
    int64_t bytes = 0;      // their count
    int64_t to = 0;         // offset in the device staging of its decompressed bytes
    int64_t out_bytes = 0;  // their count
  };
  bool deferred = false;
  CompressionCodec codec = CompressionCodec::UNCOMPRESSED;
  int64_t direct_bytes = 0;
  int64_t decompressed_bytes = 0;
  std::vector<CompressedPage> compressed_pages;
  std::vector<DevicePagePlan> page_plans;
  DeviceColumnParse parse;

  std::vector<ValueRun> runs;
  std::vector<uint8_t> validity;  // LSB bitmap of num_rows bits (padded to 8 bytes); empty if
                                  // every row is valid
  bool has_dictionary = false;
  int64_t dictionary_size = 0;
  std::vector<uint8_t> dictionary_values;   // fixed: dictionary_size * out_width bytes
  std::vector<int64_t> dictionary_offsets;  // strings: dictionary_size + 1 offsets
  std::vector<uint8_t> dictionary_bytes;    // strings: the bytes
  std::vector<int64_t> plain_positions;     // strings: staging offset of each PLAIN value

  // When staged for the device: the run table, validity, dictionary and positions packed into
  // one pinned buffer (16-byte aligned sections at these offsets), so that every upload is a
  // pinned, asynchronous copy.
  struct AuxLayout {
    int64_t runs = 0, validity = 0, dictionary_values = 0, dictionary_offsets = 0,
            dictionary_bytes = 0, plain_positions = 0, total = 0;
  } aux_layout;
  gpu::PinnedBuffer aux;
};

// Stages one chunk: `chunk` holds its bytes (first page header first), `num_rows` the row group's
// rows. `pinned`: stage into pinned memory (for the device) or pageable memory (tests). Never
// fails: anything it cannot stage leaves on_gpu false with host_reason set.
// defer_decompression: leave compressed data pages compressed for the GPU (`deferred`; the
// caller checks that the GPU decompresses the chunk's codec); BIT_PACKED definition levels and
// value encodings the GPU page parse does not take leave the chunk to the host.
void StageColumnChunk(const uint8_t* chunk, int64_t size, const ColumnMetaData& meta,
                      const LeafColumn& leaf, int64_t num_rows, bool pinned, StagedChunk* out,
                      bool defer_decompression = false);

}  // namespace tandem::parquet::gpu_decode
