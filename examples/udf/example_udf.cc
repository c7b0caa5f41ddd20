// The example UDF library (libtandem_example_udf.so): what a Tandem scalar UDF looks like.
//   redact(string) -> string          CPU only: every ASCII digit becomes '*'.
//   risk_score(double, double) -> double
//                                     CPU and (when built with nvcc) GPU: log1p(|x|) * w.
// and, for the engine's tests, functions that misbehave on purpose (test_*): one throws, one
// returns an error status, one returns the wrong number of rows, one the wrong type, one a null
// count its bitmap contradicts, one a buffer it did not get from ctx->alloc; test_sequence is
// non-deterministic (a per-process counter). With nvcc the misbehaving ones also get GPU twins
// that misbehave alike (test_udf_gpu.cu). Needs only tandem/udf/udf.h; links against nothing.
// The identity functions for the fallback benchmark (identity_double, identity_double_4/_8/_12)
// are in identity_udf.cc; this file's listing includes them.
#include <atomic>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "identity_udf.h"
#include "tandem/udf/udf.h"

#ifdef TANDEM_EXAMPLE_UDF_GPU
extern "C" {
int32_t RiskScoreGpu(TandemUdfDeviceContext*, const TandemUdfDeviceColumn*, int32_t,
                     TandemUdfDeviceOutput*);
// test_udf_gpu.cu: the test functions' GPU twins, which misbehave the same way.
int32_t TestThrowsGpu(TandemUdfDeviceContext*, const TandemUdfDeviceColumn*, int32_t,
                      TandemUdfDeviceOutput*);
int32_t TestErrorGpu(TandemUdfDeviceContext*, const TandemUdfDeviceColumn*, int32_t,
                     TandemUdfDeviceOutput*);
int32_t TestWrongLengthGpu(TandemUdfDeviceContext*, const TandemUdfDeviceColumn*, int32_t,
                           TandemUdfDeviceOutput*);
int32_t TestWrongTypeGpu(TandemUdfDeviceContext*, const TandemUdfDeviceColumn*, int32_t,
                         TandemUdfDeviceOutput*);
int32_t TestBadNullsGpu(TandemUdfDeviceContext*, const TandemUdfDeviceColumn*, int32_t,
                        TandemUdfDeviceOutput*);
int32_t TestForeignBufferGpu(TandemUdfDeviceContext*, const TandemUdfDeviceColumn*, int32_t,
                             TandemUdfDeviceOutput*);
}
#define TANDEM_EXAMPLE_GPU_TWIN(fn) fn
#else
#define TANDEM_EXAMPLE_GPU_TWIN(fn) nullptr
#endif

namespace {

using tandem_udf::BitmapBytes;
using tandem_udf::IsValid;
using tandem_udf::MakeType;
using tandem_udf::SetValid;

const TandemUdfType kString = MakeType(TANDEM_UDF_STRING);
const TandemUdfType kDouble = MakeType(TANDEM_UDF_FLOAT64);
const TandemUdfType kBigint = MakeType(TANDEM_UDF_INT64);

int32_t Fail(TandemUdfContext* ctx, const char* message) {
  ctx->set_error(ctx, message);
  return TANDEM_UDF_ERROR;
}

// A validity bitmap for the rows where every argument is valid (NULL in -> NULL out), or
// nullptr when no argument has nulls; counts the nulls.
uint8_t* AndValidity(TandemUdfContext* ctx, const TandemUdfColumn* args, int32_t n,
                     int64_t* null_count, bool* failed) {
  *null_count = 0;
  *failed = false;
  bool any = false;
  for (int32_t a = 0; a < n; ++a) any |= args[a].validity != nullptr;
  if (!any) return nullptr;
  auto* bits = static_cast<uint8_t*>(ctx->alloc(ctx, BitmapBytes(ctx->rows)));
  if (!bits) {
    *failed = true;
    return nullptr;
  }
  for (int64_t i = 0; i < ctx->rows; ++i) {
    bool valid = true;
    for (int32_t a = 0; a < n; ++a) valid &= IsValid(args[a], i);
    if (valid) {
      SetValid(bits, i);
    } else {
      ++*null_count;
    }
  }
  return bits;
}

// ---- redact -------------------------------------------------------------------------------

int32_t Redact(TandemUdfContext* ctx, const TandemUdfColumn* args, int32_t num_args,
               TandemUdfOutput* out) {
  const TandemUdfColumn& s = args[0];
  const int64_t rows = ctx->rows;
  bool failed = false;
  out->validity = AndValidity(ctx, args, 1, &out->null_count, &failed);
  if (failed) return Fail(ctx, "out of memory");
  // Same bytes as the input (digits are replaced one for one), same offset width.
  const bool large = s.large_offsets != 0;
  int64_t total = 0;
  for (int64_t i = 0; i < rows; ++i) {
    int64_t len = 0;
    if (IsValid(s, i)) tandem_udf::StringAt(s, i, &len);
    total += len;
  }
  void* offsets = ctx->alloc(ctx, (rows + 1) * (large ? 8 : 4));
  auto* bytes = static_cast<uint8_t*>(ctx->alloc(ctx, total));
  if (!offsets || !bytes) return Fail(ctx, "out of memory");
  int64_t at = 0;
  for (int64_t i = 0; i < rows; ++i) {
    if (large) {
      static_cast<int64_t*>(offsets)[i] = at;
    } else {
      static_cast<int32_t*>(offsets)[i] = static_cast<int32_t>(at);
    }
    if (!IsValid(s, i)) continue;
    int64_t len = 0;
    const char* text = tandem_udf::StringAt(s, i, &len);
    for (int64_t k = 0; k < len; ++k) {
      const char c = text[k];
      bytes[at + k] = static_cast<uint8_t>(c >= '0' && c <= '9' ? '*' : c);
    }
    at += len;
  }
  if (large) {
    static_cast<int64_t*>(offsets)[rows] = at;
  } else {
    static_cast<int32_t*>(offsets)[rows] = static_cast<int32_t>(at);
  }
  out->values = offsets;
  out->data = bytes;
  out->large_offsets = large ? 1 : 0;
  return TANDEM_UDF_OK;
}

// ---- risk_score ---------------------------------------------------------------------------

int32_t RiskScore(TandemUdfContext* ctx, const TandemUdfColumn* args, int32_t num_args,
                  TandemUdfOutput* out) {
  const int64_t rows = ctx->rows;
  bool failed = false;
  out->validity = AndValidity(ctx, args, 2, &out->null_count, &failed);
  auto* values = static_cast<double*>(ctx->alloc(ctx, rows * 8));
  if (failed || !values) return Fail(ctx, "out of memory");
  const auto* x = static_cast<const double*>(args[0].values);
  const auto* w = static_cast<const double*>(args[1].values);
  for (int64_t i = 0; i < rows; ++i) values[i] = std::log1p(std::fabs(x[i])) * w[i];
  out->values = values;
  return TANDEM_UDF_OK;
}

// ---- misbehaving functions for the tests ----------------------------------------------------

// Copies a bigint argument (the well-behaved part the broken ones start from).
int32_t CopyBigint(TandemUdfContext* ctx, const TandemUdfColumn& in, TandemUdfOutput* out) {
  const int64_t rows = ctx->rows;
  auto* values = static_cast<int64_t*>(ctx->alloc(ctx, rows * 8));
  if (!values) return Fail(ctx, "out of memory");
  std::memcpy(values, in.values, static_cast<size_t>(rows * 8));
  bool failed = false;
  out->validity = AndValidity(ctx, &in, 1, &out->null_count, &failed);
  if (failed) return Fail(ctx, "out of memory");
  out->values = values;
  return TANDEM_UDF_OK;
}

int32_t Throws(TandemUdfContext*, const TandemUdfColumn*, int32_t, TandemUdfOutput*) {
  throw std::runtime_error("test_throws always throws");
}

int32_t ErrorStatus(TandemUdfContext* ctx, const TandemUdfColumn*, int32_t, TandemUdfOutput*) {
  return Fail(ctx, "test_error refuses every batch");
}

int32_t WrongLength(TandemUdfContext* ctx, const TandemUdfColumn* args, int32_t,
                    TandemUdfOutput* out) {
  const int32_t rc = CopyBigint(ctx, args[0], out);
  out->length = ctx->rows + 1;
  return rc;
}

int32_t WrongType(TandemUdfContext* ctx, const TandemUdfColumn* args, int32_t,
                  TandemUdfOutput* out) {
  const int32_t rc = CopyBigint(ctx, args[0], out);
  out->type = kDouble;  // declared bigint
  return rc;
}

int32_t BadNulls(TandemUdfContext* ctx, const TandemUdfColumn* args, int32_t,
                 TandemUdfOutput* out) {
  const int32_t rc = CopyBigint(ctx, args[0], out);
  out->null_count += 1;  // more nulls than the bitmap has
  return rc;
}

int32_t ForeignBuffer(TandemUdfContext* ctx, const TandemUdfColumn* args, int32_t,
                      TandemUdfOutput* out) {
  static int64_t scratch[1 << 16];
  if (ctx->rows > (1 << 16)) return Fail(ctx, "batch too large for test_foreign_buffer");
  std::memcpy(scratch, args[0].values, static_cast<size_t>(ctx->rows * 8));
  out->values = scratch;  // not from ctx->alloc: the engine must refuse it
  return TANDEM_UDF_OK;
}

std::atomic<int64_t> g_sequence{0};

int32_t Sequence(TandemUdfContext* ctx, const TandemUdfColumn*, int32_t, TandemUdfOutput* out) {
  auto* values = static_cast<int64_t*>(ctx->alloc(ctx, ctx->rows * 8));
  if (!values) return Fail(ctx, "out of memory");
  const int64_t base = g_sequence.fetch_add(ctx->rows);
  for (int64_t i = 0; i < ctx->rows; ++i) values[i] = base + i;
  out->values = values;
  return TANDEM_UDF_OK;
}

// ---- descriptors ----------------------------------------------------------------------------

const TandemUdfType kRedactArgs[] = {kString};
const TandemUdfType kRiskArgs[] = {kDouble, kDouble};
const TandemUdfType kBigintArg[] = {kBigint};

TandemUdf Describe(const char* name, int32_t num_args, const TandemUdfType* args,
                   TandemUdfType result, TandemUdfCpuFn cpu, double cost = 0,
                   bool deterministic = true) {
  TandemUdf d{};
  d.abi_version = TANDEM_UDF_ABI_VERSION;
  d.name = name;
  d.num_args = num_args;
  d.arg_types = args;
  d.result_type = result;
  d.deterministic = deterministic ? 1 : 0;
  d.cost_ns_per_row = cost;
  d.cpu = cpu;
  d.gpu = nullptr;
  return d;
}

TandemUdf WithGpu(TandemUdf d, TandemUdfGpuFn gpu) {
  d.gpu = gpu;
  return d;
}

const TandemUdf kRedact = Describe("redact", 1, kRedactArgs, kString, Redact, 25);
const TandemUdf kRiskScore = WithGpu(Describe("risk_score", 2, kRiskArgs, kDouble, RiskScore, 12),
                                     TANDEM_EXAMPLE_GPU_TWIN(RiskScoreGpu));
const TandemUdf kThrows = WithGpu(Describe("test_throws", 1, kBigintArg, kBigint, Throws),
                                  TANDEM_EXAMPLE_GPU_TWIN(TestThrowsGpu));
const TandemUdf kError = WithGpu(Describe("test_error", 1, kBigintArg, kBigint, ErrorStatus),
                                 TANDEM_EXAMPLE_GPU_TWIN(TestErrorGpu));
const TandemUdf kWrongLength =
    WithGpu(Describe("test_wrong_length", 1, kBigintArg, kBigint, WrongLength),
            TANDEM_EXAMPLE_GPU_TWIN(TestWrongLengthGpu));
const TandemUdf kWrongType =
    WithGpu(Describe("test_wrong_type", 1, kBigintArg, kBigint, WrongType),
            TANDEM_EXAMPLE_GPU_TWIN(TestWrongTypeGpu));
const TandemUdf kBadNulls = WithGpu(Describe("test_bad_nulls", 1, kBigintArg, kBigint, BadNulls),
                                    TANDEM_EXAMPLE_GPU_TWIN(TestBadNullsGpu));
const TandemUdf kForeign =
    WithGpu(Describe("test_foreign_buffer", 1, kBigintArg, kBigint, ForeignBuffer),
            TANDEM_EXAMPLE_GPU_TWIN(TestForeignBufferGpu));
const TandemUdf kSequence = Describe("test_sequence", 0, nullptr, kBigint, Sequence, 1, false);

const TandemUdf* const kAll[] = {&kRedact,
                                 &kRiskScore,
                                 &kThrows,
                                 &kError,
                                 &kWrongLength,
                                 &kWrongType,
                                 &kBadNulls,
                                 &kForeign,
                                 &kSequence,
                                 &tandem_example::kIdentityDouble,
                                 &tandem_example::kIdentityDouble4,
                                 &tandem_example::kIdentityDouble8,
                                 &tandem_example::kIdentityDouble12};

}  // namespace

TANDEM_UDF_EXPORT const TandemUdf* redact(void) { return &kRedact; }
TANDEM_UDF_EXPORT const TandemUdf* risk_score(void) { return &kRiskScore; }
TANDEM_UDF_EXPORT const TandemUdf* test_throws(void) { return &kThrows; }
TANDEM_UDF_EXPORT const TandemUdf* test_error(void) { return &kError; }
TANDEM_UDF_EXPORT const TandemUdf* test_wrong_length(void) { return &kWrongLength; }
TANDEM_UDF_EXPORT const TandemUdf* test_wrong_type(void) { return &kWrongType; }
TANDEM_UDF_EXPORT const TandemUdf* test_bad_nulls(void) { return &kBadNulls; }
TANDEM_UDF_EXPORT const TandemUdf* test_foreign_buffer(void) { return &kForeign; }
TANDEM_UDF_EXPORT const TandemUdf* test_sequence(void) { return &kSequence; }

TANDEM_UDF_EXPORT const TandemUdf* const* tandem_udf_list(int32_t* count) {
  *count = static_cast<int32_t>(sizeof(kAll) / sizeof(kAll[0]));
  return kAll;
}
