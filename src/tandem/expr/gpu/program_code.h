// The instructions of a compiled GPU expression (program.h): opcodes, their operands and the
// constants they read. Apart from program.h because run-time generated kernels (kernel_gen.h)
// include it through NVRTC, which has no C++ standard library beyond <cstdint>.
#pragma once

#include <cstdint>

#include "tandem/types/type_id.h"

namespace tandem::gpu::internal {

enum class VClass : uint8_t { kInt, kDec, kFlt, kStr };

enum class Op : int32_t {
  kColumn,      // push column `imm` (a = TypeId)
  kConst,       // push constant `imm` (b = VClass)
  kDrop,        // pops a values
  kArithInt,    // a = ArithOp, b = TypeId of operands and result
  kArithFloat,  // a = ArithOp, b = 1 when float32
  kArithDec,    // a = ArithOp; c = result precision; imm = scales (a | b << 8 | r << 16)
  kDateArith,   // a = ArithOp (add/sub), b = 1: date - date -> int64 days
  kNegate,      // b = TypeId
  kAbs,         // b = TypeId
  kSign,        // b = TypeId
  kCompare,     // a = CmpOp, b = CmpClass
  kDistinct,    // a = 1 for is_distinct_from, b = CmpClass
  kAnd,
  kOr,
  kNot,
  kIsNull,
  kIsNotNull,
  kJumpIfNotTrue,  // pops; jumps to imm unless TRUE
  kJump,           // jumps to imm
  kCoalesce,       // a = argument count
  kNullIf,         // b = CmpClass
  kGreatestLeast,  // a = count, b = CmpClass, c = 1 greatest
  kInList,         // a = item count, b = CmpClass, c = negated
  kCastNum,        // numeric/bool to numeric/bool: a = from TypeId, b = to TypeId,
                   // imm = from scale | to precision << 8 | to scale << 16, c = try_cast
  kCastDateToTs,
  kCastTsToDate,
  kLike,       // imm = token offset in the pool (uint16 tokens), imm2 = token count, a = ilike
  kSubstring,  // a = has length
  kTrim,       // a = 1 left, 2 right, 3 both; b = has chars argument
  kLeftRight,  // a = 1 left
  kFold,       // a = 1 upper, 2 lower
  kLength,     // a = 1 bytes (octet_length)
  kStrpos,
  kAffix,        // a = 0 starts_with, 1 ends_with, 2 contains
  kExtract,      // a = DateField, b = 1 timestamp operand
  kDateTrunc,    // a = TruncUnit (compiled in; pops the value only), b = 1 timestamp
  kAddInterval,  // a = months per unit, imm = micros per unit, b = timestamp in, c = ts out
  kDateAddSub,   // a = 1 subtract
  kDateDiff2,    // Spark datediff(end, start)
  kDateDiff3,    // DuckDB datediff(unit, a, b): a = TruncUnit (compiled in), b = 1 timestamps
  kFloorCeil,    // a = 1 ceil, b = VClass, imm = input scale
  kRoundFloat,   // a = has digits
  kRoundExact,   // a = has digits; b = result TypeId; imm = input scale | result precision << 8
                 // | result scale << 16; c = 1 when the input is a decimal
  kMath,         // a = MathFn
  kPower,
  kConcat,  // a = argument count; only as the last instruction (root)
};

enum ArithOp : int32_t { kAdd, kSub, kMul, kDiv, kMod };
enum CmpOp : int32_t { kEq, kNe, kLt, kLe, kGt, kGe };
enum CmpClass : int32_t { kCmpSigned, kCmpUnsigned, kCmpFloat, kCmpDec, kCmpStr };
enum DateField : int32_t {
  kYear,
  kQuarter,
  kMonth,
  kWeek,
  kDay,
  kDayOfWeek,
  kIsoDow,
  kDayOfYear,
  kHour,
  kMinute,
  kSecond,
  kMillisecond,
  kMicrosecond,
  kEpoch
};
enum TruncUnit : int32_t {
  kTYear,
  kTQuarter,
  kTMonth,
  kTWeek,
  kTDay,
  kTHour,
  kTMinute,
  kTSecond,
  kTMillisecond,
  kTMicrosecond
};
enum MathFn : int32_t { kSqrt, kExp, kCbrt, kLn, kLog10, kLog2 };

// LIKE pattern tokens (uint16): bytes 0..255, then these.
constexpr uint16_t kLikeAny = 256;   // '_': one UTF-8 character
constexpr uint16_t kLikeStar = 257;  // '%': any characters

struct Instr {
  Op op = Op::kConst;
  int32_t a = 0, b = 0, c = 0;
  int64_t imm = 0, imm2 = 0;
};

// A constant operand (literals, folded current_date ...).
struct ConstVal {
  __int128 dec = 0;
  int64_t i = 0;
  double f = 0;
  int64_t str_offset = 0;  // into the byte pool
  int64_t str_length = 0;
  uint8_t is_null = 1;
};

}  // namespace tandem::gpu::internal
