// The GPU evaluator's compiled form of an expression: a postfix program for a stack machine that
// one generic interpreter kernel (interpreter.cuh) runs, one thread per row. Plain C++ (no CUDA
// types), so the compiler (compile.cc) also runs in builds without nvcc and serves as the support
// check: an expression is supported on the GPU exactly when it compiles (ExprUnsupported).
//
// Values on the stack are tagged by their static class, known at compile time:
//   kInt  int64 (all integers incl. uint64 as its bit pattern, bool 0/1, date32 days,
//         timestamp micros), kDec int128 unscaled decimal (64- and 128-bit decimals alike),
//   kFlt  double (float32 values held exactly; float32 results rounded to float),
//   kStr  a view (pointer + length) into input or constant bytes, with a case-fold flag
//         (upper/lower are lazy: readers fold bytes as they go).
// Strings that need new bytes (concat) are produced only at the root, in two passes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tandem/expr/expr.h"
#include "tandem/expr/gpu/program_code.h"

namespace tandem::gpu::internal {

struct Program {
  std::vector<Instr> code;
  std::vector<ConstVal> consts;
  std::vector<uint8_t> pool;  // string constant bytes and LIKE tokens (8-byte aligned entries)
  std::vector<int> columns;   // input column indexes read (kColumn imm indexes the batch)
  int max_stack = 0;
  DataType result_type;
  VClass result_class = VClass::kInt;
  bool concat_root = false;  // the last instruction is kConcat
  // UDF calls compiled as reads of column -1: the support check's view. Evaluate replaces each
  // call by a column holding its result before it compiles a program it runs (evaluate.cu).
  bool udf_placeholders = false;
};

// Deepest stack the interpreter kernel provides.
constexpr int kMaxStack = 24;

// Compiles `expr` to a program; "" on success, else the reason it cannot run on the GPU.
// With `selection`, the program computes the predicate as a filter does: the top-level AND's
// conjuncts in the CPU filter's order (cheap comparisons first), each evaluated only on rows all
// earlier ones kept, the result TRUE or FALSE (never NULL).
std::string Compile(const Expr& expr, bool selection, Program* out);

// The first UDF call in `e` (pre-order), or null.
const Expr* FindUdfCall(const Expr& e);

}  // namespace tandem::gpu::internal
