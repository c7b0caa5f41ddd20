// A chunk staged with deferred decompression (chunk_staging.h) carried through on the host as
// the GPU carries it: the device staging's image laid out from `staging` (direct bytes,
// decompressed pages, the compressed bytes), each compressed page decompressed by the host codec
// into its place, the plans checked against the image as ParseChunksOnDevice checks them
// (CheckPagePlans), and every page parsed by ParsePage (the GPU parse's own per-page function). The
// image is exactly the device staging's size, so under ASan a parse that would read past the device
// buffer fails. Used by the GPU Parquet tests and by the staging damage test (tests/unit).
#pragma once

#include <cstring>
#include <string>
#include <vector>

#include "tandem/common/bit_util.h"
#include "tandem/io/parquet/codec.h"
#include "tandem/io/parquet/gpu/chunk_staging.h"
#include "tandem/io/parquet/gpu/page_batch.h"
#include "tandem/io/parquet/gpu/page_parse.h"

namespace tandem::parquet {

// A chunk with ref's types and dictionary and nothing else (its tables are filled in after).
inline gpu_decode::StagedChunk DescribedLike(const gpu_decode::StagedChunk& ref) {
  gpu_decode::StagedChunk out;
  out.on_gpu = true;
  out.type = ref.type;
  out.kind = ref.kind;
  out.conversion = ref.conversion;
  out.physical_width = ref.physical_width;
  out.out_width = ref.out_width;
  out.num_rows = ref.num_rows;
  out.has_dictionary = ref.has_dictionary;
  out.dictionary_size = ref.dictionary_size;
  out.dictionary_values = ref.dictionary_values;
  out.dictionary_offsets = ref.dictionary_offsets;
  out.dictionary_bytes = ref.dictionary_bytes;
  return out;
}

// "" with *out the carried chunk (runs, positions and validity from ParsePage over the image),
// or why the GPU would refuse it (a page nvCOMP could not decompress, a plan outside the staging,
// a page that does not parse).
inline std::string CarryDeferredOnHost(const gpu_decode::StagedChunk& d,
                                       gpu_decode::StagedChunk* out) {
  using gpu_decode::DevicePagePlan;
  const int64_t compressed = d.staging_bytes - d.direct_bytes;
  const int64_t total = d.direct_bytes + d.decompressed_bytes + compressed;
  std::vector<uint8_t> image(static_cast<size_t>(total), 0);
  std::memcpy(image.data(), d.staging, static_cast<size_t>(d.direct_bytes));
  std::memcpy(image.data() + d.direct_bytes + d.decompressed_bytes, d.staging + d.direct_bytes,
              static_cast<size_t>(compressed));
  for (const auto& page : d.compressed_pages) {
    const int64_t from = d.decompressed_bytes + page.from;  // in the image
    const Status st = Decompress(d.codec, image.data() + from, page.bytes, image.data() + page.to,
                                 page.out_bytes);
    if (!st.ok()) return "decompression: " + st.ToString();
  }
  const Status plans = gpu_decode::CheckPagePlans(d.page_plans, total, d.num_rows);
  if (!plans.ok()) return "page plans: " + plans.message();
  int width = 0;
  while ((int64_t{1} << width) <= d.parse.max_definition_level) ++width;
  *out = DescribedLike(d);
  out->validity.assign(static_cast<size_t>((d.num_rows + 63) / 64 * 8), 0);
  int64_t dense = 0;
  for (const DevicePagePlan& p : d.page_plans) {
    int64_t defined = 0;
    const auto r = gpu_decode::ParsePage(
        image.data(), p, d.parse, width, dense, static_cast<int64_t>(out->plain_positions.size()),
        &defined,
        [&](const gpu_decode::ValueRun& run, int64_t count) {
          uint8_t* bits = out->validity.data();
          const int64_t row = p.first_row + run.first;
          gpu_decode::DefinedRowsOfRun(
              run, count, image.data(), d.parse.max_definition_level,
              [&](int64_t first, int64_t n) { bit_util::SetBitsTo(bits, row + first, n, true); },
              [&](int64_t first, uint32_t set, int take) {
                for (int k = 0; k < take; ++k) {
                  if ((set >> k) & 1) bit_util::SetBit(bits, row + first + k);
                }
              });
        },
        [&](const gpu_decode::ValueRun& run) { out->runs.push_back(run); },
        [&](int64_t position) { out->plain_positions.push_back(position); });
    if (r.error != gpu_decode::PageParseError::kNone) {
      return std::string("page parse: ") + gpu_decode::PageParseErrorText(r.error, r.runs);
    }
    if (!p.has_levels) bit_util::SetBitsTo(out->validity.data(), p.first_row, p.num_values, true);
    dense += defined;
  }
  out->num_valid = dense;
  if (dense == d.num_rows) out->validity.clear();
  out->pageable = std::move(image);
  out->staging = out->pageable.data();
  out->staging_bytes = total;
  return "";
}

}  // namespace tandem::parquet
