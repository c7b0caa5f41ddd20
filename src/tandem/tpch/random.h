// Counter-based random numbers for the TPC-H generator: every value is a pure function of
// (stream, row), where a stream names one table column (or one draw of it). Rows can therefore be
// generated in any order and on any number of threads with identical results.
#pragma once

#include <cstdint>

namespace tandem::tpch {

// SplitMix64's finalizer: a bijective 64-bit mixer with good avalanche.
inline uint64_t Mix64(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

// 64 random bits for draw `row` of stream `stream`.
inline uint64_t RandomBits(uint64_t stream, uint64_t row) {
  return Mix64(row * 0x9e3779b97f4a7c15ULL + Mix64(stream + 0x632be59bd9b4e019ULL));
}

// Uniform integer in [lo, hi] (inclusive), by multiply-high (no modulo bias worth measuring).
inline int64_t RandomRange(uint64_t stream, uint64_t row, int64_t lo, int64_t hi) {
  const uint64_t span = static_cast<uint64_t>(hi - lo) + 1;
  const uint64_t bits = RandomBits(stream, row);
  return lo + static_cast<int64_t>((static_cast<unsigned __int128>(bits) * span) >> 64);
}

// Stream identifiers: one per randomly generated column (and per extra draw within a row).
// Values are part of the output's definition: changing one changes the generated data.
enum Stream : uint64_t {
  kPartName = 100,  // draws 0.. : colour picks
  kPartMfgr,
  kPartBrand,
  kPartType,
  kPartSize,
  kPartContainer,
  kPartComment,  // draw 2*r: length, 2*r+1: offset
  kPsAvailQty = 200,
  kPsSupplyCost,
  kPsComment,
  kSuppAddress = 300,
  kSuppNation,
  kSuppPhone,  // draws 3*r .. 3*r+2
  kSuppAcctBal,
  kSuppComment,
  kSuppBbb,  // Better Business Bureau comment: selection, kind, noise length, position
  kCustAddress = 400,
  kCustNation,
  kCustPhone,
  kCustAcctBal,
  kCustSegment,
  kCustComment,
  kOrderCust = 500,
  kOrderDate,
  kOrderPriority,
  kOrderClerk,
  kOrderComment,
  kOrderLineCount,
  kLinePart = 600,
  kLineSuppIndex,
  kLineQuantity,
  kLineDiscount,
  kLineTax,
  kLineShipDelay,
  kLineCommitDelay,
  kLineReceiptDelay,
  kLineReturnFlag,
  kLineInstruct,
  kLineMode,
  kLineComment,
  kNationComment = 700,
  kRegionComment = 800,
};

}  // namespace tandem::tpch
