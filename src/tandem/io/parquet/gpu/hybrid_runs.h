// The run table of Parquet's RLE / bit-packed hybrid encoding, parsed by code that compiles for
// the host and the GPU alike: the host staging (chunk_staging.cc) parses dictionary indexes and
// RLE booleans with it today, and a GPU page parse can run the same function on pages it
// decompressed itself, one thread per page. A run says where its values come from (one repeated
// value, or bit-packed values at a bit offset), so any value is found without decoding the runs
// before it. Errors are codes (device code builds no strings); HybridRunErrorText gives the
// words the host staging reports.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define TANDEM_PARQUET_HD __host__ __device__
#else
#define TANDEM_PARQUET_HD
#endif

namespace tandem::parquet::gpu_decode {

enum class RunKind : int32_t {
  kRepeat = 0,  // every value is `payload`
  kPacked = 1,  // value i of the run: bits [payload + i * bit_width, +bit_width) of staging
  kPlain = 2,   // fixed width: at staging byte payload + i * physical width; strings: the value
                // whose bytes start at plain_positions[payload + i]
};

// One run of dense values; runs are sorted by `first` and cover [0, num_valid).
struct ValueRun {
  int64_t first = 0;    // dense index of the run's first value
  int64_t payload = 0;  // see RunKind
  RunKind kind = RunKind::kRepeat;
  int32_t bit_width = 0;
};

enum class HybridRunError : int32_t {
  kNone = 0,
  kEndsEarly,         // the data ends before n values
  kBadPackedLength,   // a bit-packed run of 0 or more than 2^31 groups
  kEndsInsidePacked,  // the data ends before a bit-packed run's first value
  kBadRepeatLength,   // a repeated run of 0 or more than 2^40 values
  kEndsInsideRepeat,  // the data ends inside a repeated run's value
  kValueTooWide,      // a repeated value wider than the bit width
  kIndexOutOfRange,   // a repeated dictionary index at or past the dictionary's size
};

inline const char* HybridRunErrorText(HybridRunError e) {
  switch (e) {
    case HybridRunError::kNone:
      return "";
    case HybridRunError::kEndsEarly:
      return "RLE data ends before all values were decoded";
    case HybridRunError::kBadPackedLength:
      return "bad bit-packed run length";
    case HybridRunError::kEndsInsidePacked:
      return "RLE data ends inside a bit-packed run";
    case HybridRunError::kBadRepeatLength:
      return "bad RLE run length";
    case HybridRunError::kEndsInsideRepeat:
      return "RLE data ends inside a repeated run";
    case HybridRunError::kValueTooWide:
      return "RLE value wider than its width";
    case HybridRunError::kIndexOutOfRange:
      return "dictionary index out of range";
  }
  return "RLE data is damaged";
}

// Reads an unsigned LEB128 varint at *pos (before end); false when it runs past end or 64 bits.
TANDEM_PARQUET_HD inline bool ReadVarint(const uint8_t** pos, const uint8_t* end, uint64_t* value) {
  uint64_t result = 0;
  const uint8_t* p = *pos;
  for (int shift = 0; shift < 64; shift += 7) {
    if (p >= end) return false;
    const uint8_t byte = *p++;
    result |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) {
      *pos = p;
      *value = result;
      return true;
    }
  }
  return false;
}

// Parses the runs of n values of hybrid data [data, data + size) of `bit_width` (0-32) bits,
// whose first byte lies at byte `staging_offset` of the buffer the packed runs' payloads point
// into. Runs number their values from `first_dense`. `dictionary_size` >= 0 checks repeated
// values against it (bit-packed indexes are checked as they are decoded); -1 checks nothing.
// Calls sink(run) for every run, in order; a run may hold more values than are left (the last
// run of a page often does), and the caller's next run starts n values on. A bit-packed run cut
// short by the end of the data keeps the values whose bits are there.
template <typename Sink>
TANDEM_PARQUET_HD HybridRunError ParseHybridRuns(const uint8_t* data, int64_t size,
                                                 int64_t staging_offset, int bit_width, int64_t n,
                                                 int64_t first_dense, int64_t dictionary_size,
                                                 Sink&& sink) {
  const uint8_t* pos = data;
  const uint8_t* const end = data + size;
  int64_t left = n;
  int64_t dense = first_dense;
  while (left > 0) {
    uint64_t header;
    if (pos >= end || !ReadVarint(&pos, end, &header)) return HybridRunError::kEndsEarly;
    ValueRun run;
    run.first = dense;
    run.bit_width = bit_width;
    int64_t count;
    if (header & 1) {
      const uint64_t groups = header >> 1;
      if (groups == 0 || groups > (uint64_t{1} << 31)) return HybridRunError::kBadPackedLength;
      const int64_t full_bytes = static_cast<int64_t>(groups) * bit_width;
      const int64_t bytes = full_bytes < end - pos ? full_bytes : end - pos;
      const int64_t all = static_cast<int64_t>(groups) * 8;
      count = bit_width == 0 ? all : bytes * 8 / bit_width;
      if (count > all) count = all;
      if (count == 0) return HybridRunError::kEndsInsidePacked;
      run.kind = RunKind::kPacked;
      run.payload = (staging_offset + (pos - data)) * 8;
      pos += bytes;
    } else {
      const uint64_t repeat = header >> 1;
      if (repeat == 0 || repeat > (uint64_t{1} << 40)) return HybridRunError::kBadRepeatLength;
      const int nbytes = (bit_width + 7) / 8;
      if (end - pos < nbytes) return HybridRunError::kEndsInsideRepeat;
      uint64_t v = 0;
      for (int i = 0; i < nbytes; ++i) v |= static_cast<uint64_t>(pos[i]) << (8 * i);
      pos += nbytes;
      if (bit_width < 32 && (v >> bit_width) != 0) return HybridRunError::kValueTooWide;
      if (dictionary_size >= 0 && static_cast<int64_t>(v) >= dictionary_size) {
        return HybridRunError::kIndexOutOfRange;
      }
      run.kind = RunKind::kRepeat;
      run.payload = static_cast<int64_t>(v);
      count = static_cast<int64_t>(repeat);
    }
    const int64_t take = count < left ? count : left;
    sink(run);
    dense += take;
    left -= take;
  }
  return HybridRunError::kNone;
}

}  // namespace tandem::parquet::gpu_decode
