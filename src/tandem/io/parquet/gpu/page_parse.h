// One decompressed Parquet data page of a flat column turned into the run tables the decode
// kernels read, by code that compiles for the host and the GPU alike: the host staging
// (chunk_staging.cc) parses every page with it, and a GPU page parse can run it on pages it
// decompressed itself (nvCOMP), one thread per page, since nothing here needs the host.
//   - definition levels -> level runs over the page's rows (ParseHybridRuns with the levels'
//     bit width), and from them the count of defined (non-NULL) values;
//   - the values section -> value runs over the page's dense values: dictionary indexes and RLE
//     booleans as hybrid runs, PLAIN fixed-width values and PLAIN booleans as one run, PLAIN byte
//     arrays as one run over the positions of each value's bytes (one walk over the lengths).
// Errors are codes; PageParseErrorText gives the words the host staging reports (a chunk with an
// error goes to the host decoder, which reports the real error).
#pragma once

#include <cstdint>

#include "tandem/io/parquet/gpu/hybrid_runs.h"

namespace tandem::parquet::gpu_decode {

enum class PageParseError : int32_t {
  kNone = 0,
  kRuns,  // a hybrid run error: see the HybridRunError beside it
  kLevelsWithoutLength,
  kLevelsPastPage,
  kLevelAboveMaximum,
  kDictionaryBooleans,
  kNoDictionary,
  kEmptyIndexData,
  kIndexBitWidth,
  kPlainBooleansTooShort,
  kBooleanEncoding,
  kRleBooleansWithoutLength,
  kRleBooleansPastPage,
  kEncoding,
  kPlainTooShort,
  kByteArraysEndEarly,
  kByteArrayTooLong,
};

inline const char* PageParseErrorText(PageParseError e, HybridRunError runs) {
  switch (e) {
    case PageParseError::kNone:
      return "";
    case PageParseError::kRuns:
      return HybridRunErrorText(runs);
    case PageParseError::kLevelsWithoutLength:
      return "definition levels without their length";
    case PageParseError::kLevelsPastPage:
      return "definition levels run past the page";
    case PageParseError::kLevelAboveMaximum:
      return "definition level above the column's maximum";
    case PageParseError::kDictionaryBooleans:
      return "dictionary booleans";
    case PageParseError::kNoDictionary:
      return "dictionary-encoded page but no dictionary page";
    case PageParseError::kEmptyIndexData:
      return "dictionary index data is empty";
    case PageParseError::kIndexBitWidth:
      return "dictionary index bit width";
    case PageParseError::kPlainBooleansTooShort:
      return "PLAIN BOOLEAN data too short";
    case PageParseError::kBooleanEncoding:
      return "boolean encoding";
    case PageParseError::kRleBooleansWithoutLength:
      return "RLE BOOLEAN data without its length";
    case PageParseError::kRleBooleansPastPage:
      return "RLE BOOLEAN length runs past the page";
    case PageParseError::kEncoding:
      return "encoding";
    case PageParseError::kPlainTooShort:
      return "PLAIN data too short";
    case PageParseError::kByteArraysEndEarly:
      return "PLAIN byte array data ends early";
    case PageParseError::kByteArrayTooLong:
      return "PLAIN byte array too long";
  }
  return "page is damaged";
}

// The value encodings a page parse tells apart (Parquet's numbers, as metadata.h's Encoding).
enum class PageEncoding : int32_t {
  kPlain = 0,
  kPlainDictionary = 2,
  kRle = 3,
  kRleDictionary = 8,
};

// What the values are, for the parse.
enum class ValueShape : int32_t {
  kFixed = 0,    // fixed width (physical_width bytes a PLAIN value), or dictionary indexes
  kBool = 1,     // booleans (PLAIN bit-packed or RLE)
  kStrings = 2,  // byte arrays (PLAIN length-prefixed) or dictionary indexes
};

struct PageParseResult {
  PageParseError error = PageParseError::kNone;
  HybridRunError runs = HybridRunError::kNone;
};

// Bits [bit, bit + width) of an LSB-first packed stream (width 0-32).
TANDEM_PARQUET_HD inline uint32_t PackedBits(const uint8_t* base, int64_t bit, int width) {
  if (width == 0) return 0;
  const uint8_t* p = base + (bit >> 3);
  const int shift = static_cast<int>(bit & 7);
  const int nbytes = (shift + width + 7) / 8;
  uint64_t v = 0;
  for (int i = 0; i < nbytes; ++i) v |= static_cast<uint64_t>(p[i]) << (8 * i);
  return static_cast<uint32_t>((v >> shift) & ((uint64_t{1} << width) - 1));
}

TANDEM_PARQUET_HD inline uint32_t LittleEndian32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
         static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
}

TANDEM_PARQUET_HD inline int PopCount64(uint64_t x) {
#if defined(__CUDA_ARCH__)
  return __popcll(x);
#else
  return __builtin_popcountll(x);
#endif
}

// Set bits among bits [bit, bit + count) of an LSB-first stream, a word at a time.
TANDEM_PARQUET_HD inline int64_t CountSetBits(const uint8_t* base, int64_t bit, int64_t count) {
  int64_t set = 0;
  while (count > 0 && (bit & 7) != 0) {  // up to the next byte
    set += (base[bit >> 3] >> (bit & 7)) & 1;
    ++bit;
    --count;
  }
  const uint8_t* p = base + (bit >> 3);
  for (; count >= 64; count -= 64, p += 8, bit += 64) {
    uint64_t word = 0;
    for (int i = 0; i < 8; ++i) word |= static_cast<uint64_t>(p[i]) << (8 * i);
    set += PopCount64(word);
  }
  for (int64_t i = 0; i < count; ++i) set += (base[(bit + i) >> 3] >> ((bit + i) & 7)) & 1;
  return set;
}

// Defined values (level == max_def) among the first `count` levels of a level run; `base` is the
// buffer its payload's bit offsets point into. *above is set when a level exceeds max_def.
// Levels of one bit (a flat optional column) are counted a word at a time.
TANDEM_PARQUET_HD inline int64_t DefinedInRun(const ValueRun& run, int64_t count,
                                              const uint8_t* base, int max_def, bool* above) {
  if (run.kind == RunKind::kRepeat) {
    if (run.payload > max_def) *above = true;
    return run.payload == max_def ? count : 0;
  }
  if (run.bit_width == 1 && max_def == 1) return CountSetBits(base, run.payload, count);
  int64_t defined = 0;
  for (int64_t i = 0; i < count; ++i) {
    const uint32_t level = PackedBits(base, run.payload + i * run.bit_width, run.bit_width);
    if (static_cast<int64_t>(level) > max_def) *above = true;
    defined += static_cast<int64_t>(level) == static_cast<int64_t>(max_def);
  }
  return defined;
}

// The definition levels of a page's n rows, RLE-encoded in [data, data + size), which lie at
// byte `staging_offset` of `base`: each run goes to sink(run, rows) with the rows of the page it
// covers (runs numbered from row 0 of the page; the last may hold more levels than are left), and
// *defined counts the defined rows.
template <typename Sink>
TANDEM_PARQUET_HD PageParseResult ParseLevels(const uint8_t* data, int64_t size,
                                              int64_t staging_offset, const uint8_t* base,
                                              int max_def, int bit_width, int64_t n,
                                              int64_t* defined, Sink&& sink) {
  PageParseResult r;
  int64_t count = 0;
  bool above = false;
  bool have_previous = false;
  ValueRun previous;
  auto finish = [&](int64_t end) {
    const int64_t rows = end - previous.first;
    count += DefinedInRun(previous, rows, base, max_def, &above);
    sink(previous, rows);
  };
  r.runs =
      ParseHybridRuns(data, size, staging_offset, bit_width, n, 0, -1, [&](const ValueRun& run) {
        if (have_previous) finish(run.first);
        previous = run;
        have_previous = true;
      });
  if (r.runs != HybridRunError::kNone) {
    r.error = PageParseError::kRuns;
    return r;
  }
  if (have_previous) finish(n);
  if (above) r.error = PageParseError::kLevelAboveMaximum;
  *defined = count;
  return r;
}

// The defined rows (level == max_def) among the first `rows` of a level run, for a validity
// bitmap, numbered from the run's first row: set_range(first, count) for a repeated run of
// max_def; set_bits(first, bits, take) for up to 32 rows of one-bit levels at a time (the levels
// are the validity bits); set_bits(row, 1, 1) row by row for wider levels.
template <typename SetRange, typename SetBits>
TANDEM_PARQUET_HD void DefinedRowsOfRun(const ValueRun& run, int64_t rows, const uint8_t* base,
                                        int max_def, SetRange&& set_range, SetBits&& set_bits) {
  if (run.kind == RunKind::kRepeat) {
    if (run.payload == max_def) set_range(int64_t{0}, rows);
    return;
  }
  if (run.bit_width == 1 && max_def == 1) {
    for (int64_t i = 0; i < rows; i += 32) {
      const int take = rows - i < 32 ? static_cast<int>(rows - i) : 32;
      set_bits(i, PackedBits(base, run.payload + i, take), take);
    }
    return;
  }
  for (int64_t i = 0; i < rows; ++i) {
    const uint32_t level = PackedBits(base, run.payload + i * run.bit_width, run.bit_width);
    if (static_cast<int>(level) == max_def) set_bits(i, 1u, 1);
  }
}

// The values section [p, p + size) of a page with n_valid defined values, lying at byte
// `staging_offset` of the staging buffer. Value runs (numbered from `first_dense`) go to
// run_sink(run); for PLAIN byte arrays, the staging offset of each value's bytes goes to
// position_sink(offset), and the run's payload is `first_position` (the positions before it).
// dictionary_size: the dictionary's values, or -1 without a dictionary page.
template <typename RunSink, typename PositionSink>
TANDEM_PARQUET_HD PageParseResult ParseValues(PageEncoding enc, ValueShape shape, const uint8_t* p,
                                              int64_t size, int64_t staging_offset, int64_t n_valid,
                                              int64_t first_dense, int64_t first_position,
                                              int physical_width, int64_t dictionary_size,
                                              RunSink&& run_sink, PositionSink&& position_sink) {
  PageParseResult r;
  if (n_valid == 0) return r;
  auto hybrid = [&](const uint8_t* data, int64_t bytes, int64_t offset, int width,
                    int64_t dictionary) {
    r.runs =
        ParseHybridRuns(data, bytes, offset, width, n_valid, first_dense, dictionary, run_sink);
    if (r.runs != HybridRunError::kNone) r.error = PageParseError::kRuns;
    return r;
  };
  if (enc == PageEncoding::kPlainDictionary || enc == PageEncoding::kRleDictionary) {
    if (shape == ValueShape::kBool) return {PageParseError::kDictionaryBooleans};
    if (dictionary_size < 0) return {PageParseError::kNoDictionary};
    if (size < 1) return {PageParseError::kEmptyIndexData};
    const int bit_width = p[0];
    if (bit_width > 32) return {PageParseError::kIndexBitWidth};
    return hybrid(p + 1, size - 1, staging_offset + 1, bit_width, dictionary_size);
  }
  if (shape == ValueShape::kBool) {
    if (enc == PageEncoding::kPlain) {
      if ((n_valid + 7) / 8 > size) return {PageParseError::kPlainBooleansTooShort};
      ValueRun run;
      run.first = first_dense;
      run.payload = staging_offset * 8;
      run.kind = RunKind::kPacked;
      run.bit_width = 1;
      run_sink(run);
      return r;
    }
    if (enc != PageEncoding::kRle) return {PageParseError::kBooleanEncoding};
    if (size < 4) return {PageParseError::kRleBooleansWithoutLength};
    const uint32_t len = LittleEndian32(p);
    if (len > size - 4) return {PageParseError::kRleBooleansPastPage};
    return hybrid(p + 4, len, staging_offset + 4, 1, -1);
  }
  if (enc != PageEncoding::kPlain) return {PageParseError::kEncoding};
  ValueRun run;
  run.first = first_dense;
  run.kind = RunKind::kPlain;
  if (shape == ValueShape::kFixed) {
    if (n_valid > size / physical_width) return {PageParseError::kPlainTooShort};
    run.payload = staging_offset;
    run_sink(run);
    return r;
  }
  // PLAIN byte arrays: one walk over the lengths finds where each value's bytes start.
  int64_t q = 0;
  for (int64_t j = 0; j < n_valid; ++j) {
    if (size - q < 4) return {PageParseError::kByteArraysEndEarly};
    const uint32_t len = LittleEndian32(p + q);
    q += 4;
    if (len > static_cast<uint64_t>(size - q)) return {PageParseError::kByteArrayTooLong};
    position_sink(staging_offset + q);
    q += len;
  }
  run.payload = first_position;
  run_sink(run);
  return r;
}

// One data page as its header describes it; its bytes lie in the device staging buffer.
struct DevicePagePlan {
  int64_t body = 0;        // staging offset of the uncompressed body: v1, the definition levels
                           // (with their 4-byte length) then the values; v2, the values only
  int64_t body_bytes = 0;  // its size
  int64_t num_values = 0;  // the page's rows (flat column)
  int64_t first_row = 0;   // the chunk row it starts at (pages in order)
  int32_t v2 = 0;          // data page v2: the definition levels lie apart (below)
  int32_t has_levels = 0;  // the page has definition levels to read
  int64_t v2_levels = 0;   // v2: staging offset of the definition levels
  int64_t v2_levels_bytes = 0;
  PageEncoding encoding = PageEncoding::kPlain;
};

// What every page of the chunk shares.
struct DeviceColumnParse {
  int max_definition_level = 0;
  ValueShape shape = ValueShape::kFixed;
  int physical_width = 0;        // bytes of a PLAIN fixed-width value
  int64_t dictionary_size = -1;  // -1: no dictionary page
};

// Where a page's definition levels and values lie in staging.
struct PageSections {
  int64_t levels = 0, levels_bytes = 0;
  int64_t values = 0, values_bytes = 0;
};

// A plan's sections: v2 pages say where their levels are; a v1 page with levels starts with
// their 4-byte length, read from staging.
TANDEM_PARQUET_HD inline PageParseError FindPageSections(const uint8_t* staging,
                                                         const DevicePagePlan& p, PageSections* s) {
  s->values = p.body;
  s->values_bytes = p.body_bytes;
  if (p.v2) {
    s->levels = p.v2_levels;
    s->levels_bytes = p.v2_levels_bytes;
    return PageParseError::kNone;
  }
  if (!p.has_levels) return PageParseError::kNone;
  if (p.body_bytes < 4) return PageParseError::kLevelsWithoutLength;
  const uint32_t len = LittleEndian32(staging + p.body);
  if (len > p.body_bytes - 4) return PageParseError::kLevelsPastPage;
  s->levels = p.body + 4;
  s->levels_bytes = len;
  s->values = p.body + 4 + int64_t{len};
  s->values_bytes = p.body_bytes - 4 - int64_t{len};
  return PageParseError::kNone;
}

// A whole data page whose bytes lie in `staging` as `p` says: its level runs go to
// level_sink(run, rows) with the rows each covers (numbered from the page's first row), its
// value runs (numbered from first_dense) to run_sink, PLAIN byte-array positions (numbered
// from first_position) to position_sink; *defined counts its defined values. The GPU parse runs
// this per page, once counting and once writing; the host tests run it too.
template <typename LevelSink, typename RunSink, typename PositionSink>
TANDEM_PARQUET_HD PageParseResult ParsePage(const uint8_t* staging, const DevicePagePlan& p,
                                            const DeviceColumnParse& column, int level_width,
                                            int64_t first_dense, int64_t first_position,
                                            int64_t* defined, LevelSink&& level_sink,
                                            RunSink&& run_sink, PositionSink&& position_sink) {
  PageParseResult r;
  PageSections s;
  r.error = FindPageSections(staging, p, &s);
  if (r.error != PageParseError::kNone) return r;
  *defined = p.num_values;
  if (p.has_levels) {
    r = ParseLevels(staging + s.levels, s.levels_bytes, s.levels, staging,
                    column.max_definition_level, level_width, p.num_values, defined, level_sink);
    if (r.error != PageParseError::kNone) return r;
  }
  return ParseValues(p.encoding, column.shape, staging + s.values, s.values_bytes, s.values,
                     *defined, first_dense, first_position, column.physical_width,
                     column.dictionary_size, run_sink, position_sink);
}

}  // namespace tandem::parquet::gpu_decode
