/* Tandem scalar user-defined functions: the public ABI a UDF library implements.
 *
 * A scalar UDF receives whole columns (one batch: its argument columns, all of `rows` values)
 * and returns one column of `rows` values. Everything here is plain C (fixed-width integers,
 * pointers, function pointers), so a library built with another compiler or standard library
 * still matches; the optional C++ helpers at the end are inline and need nothing from Tandem.
 *
 * A library exports one C entry point per function, returning its descriptor:
 *     extern "C" const TandemUdf* my_function(void);
 * and, for `tandem sql --udf lib.so`, optionally a listing of all of them:
 *     extern "C" const TandemUdf* const* tandem_udf_list(int32_t* count);
 * Descriptors and everything they point to must live as long as the library (static data).
 *
 * Memory: argument columns are read-only views valid during the call. Every buffer of the result
 * comes from ctx->alloc (host) or ctx->alloc (device, GPU functions): the engine owns it, knows
 * its size and checks the result against it. Returning anything else is an error.
 *
 * Errors: return TANDEM_UDF_OK (0) on success; otherwise call ctx->set_error with a message and
 * return TANDEM_UDF_ERROR. A C++ exception thrown by the function is caught by the engine and
 * reported the same way. Every error becomes a query error naming the function.
 *
 * Layout (host, tandem::Column): Arrow. validity is an LSB-first bitmap (1 = valid), NULL when
 * the column has no nulls; booleans are bit-packed; strings/binary have length + 1 offsets,
 * int32 unless large_offsets (then int64), and data holds the bytes. Decimals up to precision
 * 18 are int64 unscaled values, wider ones __int128; date32 int32 days; timestamps int64
 * microseconds. Layout (device, GPU functions): the same, except booleans are one byte (0/1)
 * and string offsets are always int64.
 */
#ifndef TANDEM_UDF_UDF_H_
#define TANDEM_UDF_UDF_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TANDEM_UDF_ABI_VERSION 1u

#define TANDEM_UDF_OK 0
#define TANDEM_UDF_ERROR 1

/* Type identifiers (stable ABI numbers). */
enum {
  TANDEM_UDF_BOOL = 1,
  TANDEM_UDF_INT8 = 2,
  TANDEM_UDF_INT16 = 3,
  TANDEM_UDF_INT32 = 4,
  TANDEM_UDF_INT64 = 5,
  TANDEM_UDF_UINT8 = 6,
  TANDEM_UDF_UINT16 = 7,
  TANDEM_UDF_UINT32 = 8,
  TANDEM_UDF_UINT64 = 9,
  TANDEM_UDF_FLOAT32 = 10,
  TANDEM_UDF_FLOAT64 = 11,
  TANDEM_UDF_DECIMAL = 12,   /* precision 1..38, scale 0..precision */
  TANDEM_UDF_DATE32 = 13,    /* days since 1970-01-01 */
  TANDEM_UDF_TIMESTAMP = 14, /* microseconds since the epoch; utc = 1: with time zone */
  TANDEM_UDF_STRING = 15,    /* UTF-8 */
  TANDEM_UDF_BINARY = 16
};

typedef struct TandemUdfType {
  int32_t id;        /* TANDEM_UDF_* */
  int32_t precision; /* decimals only, else 0 */
  int32_t scale;     /* decimals only, else 0 */
  int32_t utc;       /* timestamps only, else 0 */
} TandemUdfType;

/* ---- CPU ---------------------------------------------------------------------------------- */

/* One argument column (host memory, read-only). */
typedef struct TandemUdfColumn {
  TandemUdfType type;
  int64_t length;
  int64_t null_count;
  const uint8_t* validity; /* NULL: no nulls */
  const void* values;      /* fixed-width values, boolean bits, or string offsets */
  const uint8_t* data;     /* string/binary bytes (may be NULL when there are none) */
  int32_t large_offsets;   /* strings: 1 = int64 offsets, 0 = int32 */
} TandemUdfColumn;

/* The result the function fills in. Buffers come from ctx->alloc. */
typedef struct TandemUdfOutput {
  TandemUdfType type;    /* must equal the declared result type */
  int64_t length;        /* must equal ctx->rows */
  int64_t null_count;    /* must equal the number of 0 bits of validity (0 when it is NULL) */
  uint8_t* validity;     /* NULL: all valid */
  void* values;          /* required */
  uint8_t* data;         /* strings/binary: the bytes (NULL allowed when there are none) */
  int32_t large_offsets; /* strings: 1 = int64 offsets, 0 = int32 */
} TandemUdfOutput;

typedef struct TandemUdfContext TandemUdfContext;
struct TandemUdfContext {
  int64_t rows; /* rows of this batch (also for functions without arguments) */
  void* engine; /* opaque; do not touch */
  /* Zero-filled, 64-byte aligned host memory owned by the engine; NULL when out of memory. */
  void* (*alloc)(TandemUdfContext* ctx, int64_t bytes);
  /* Records the error message (copied) that the engine reports when the call fails. */
  void (*set_error)(TandemUdfContext* ctx, const char* message);
};

typedef int32_t (*TandemUdfCpuFn)(TandemUdfContext* ctx, const TandemUdfColumn* args,
                                  int32_t num_args, TandemUdfOutput* out);

/* ---- GPU (optional) ----------------------------------------------------------------------- */

/* One argument column in device memory (booleans one byte, string offsets int64). */
typedef struct TandemUdfDeviceColumn {
  TandemUdfType type;
  int64_t length;
  int64_t null_count;
  const uint8_t* validity; /* device pointer; NULL: no nulls */
  const void* values;      /* device pointer */
  const uint8_t* data;     /* device pointer: string bytes */
  int64_t data_bytes;      /* size of data */
} TandemUdfDeviceColumn;

typedef struct TandemUdfDeviceOutput {
  TandemUdfType type;
  int64_t length;
  int64_t null_count; /* must match validity */
  uint8_t* validity;  /* device memory from ctx->alloc, or NULL: all valid */
  void* values;       /* device memory from ctx->alloc */
  uint8_t* data;      /* strings: device memory from ctx->alloc */
  int64_t data_bytes; /* strings: bytes used */
} TandemUdfDeviceOutput;

typedef struct TandemUdfDeviceContext TandemUdfDeviceContext;
struct TandemUdfDeviceContext {
  int64_t rows;
  void* engine; /* opaque */
  void* stream; /* the cudaStream_t to run on; the engine synchronizes it after the call */
  /* Device memory owned by the engine (not zero-filled); NULL when out of memory. */
  void* (*alloc)(TandemUdfDeviceContext* ctx, int64_t bytes);
  void (*set_error)(TandemUdfDeviceContext* ctx, const char* message);
};

typedef int32_t (*TandemUdfGpuFn)(TandemUdfDeviceContext* ctx, const TandemUdfDeviceColumn* args,
                                  int32_t num_args, TandemUdfDeviceOutput* out);

/* ---- the descriptor ----------------------------------------------------------------------- */

typedef struct TandemUdf {
  uint32_t abi_version; /* TANDEM_UDF_ABI_VERSION */
  const char* name;     /* the SQL name (lower case letters, digits, _) */
  int32_t num_args;
  const TandemUdfType* arg_types; /* num_args entries */
  TandemUdfType result_type;
  int32_t deterministic;  /* 1: same arguments, same result (may be folded, moved, reused) */
  double cost_ns_per_row; /* declared CPU cost for the planner; 0 = unknown */
  TandemUdfCpuFn cpu;     /* required */
  TandemUdfGpuFn gpu;     /* optional: NULL for CPU-only functions */
} TandemUdf;

typedef const TandemUdf* (*TandemUdfEntryFn)(void);
typedef const TandemUdf* const* (*TandemUdfListFn)(int32_t* count);

#define TANDEM_UDF_LIST_SYMBOL "tandem_udf_list"

/* Marks an entry point as exported (also with -fvisibility=hidden):
 *     TANDEM_UDF_EXPORT const TandemUdf* my_function(void) { return &kMyFunction; } */
#ifdef __cplusplus
#define TANDEM_UDF_EXPORT extern "C" __attribute__((visibility("default")))
#else
#define TANDEM_UDF_EXPORT __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
} /* extern "C" */

/* ---- optional C++ helpers (inline, header-only) -------------------------------------------- */
namespace tandem_udf {

inline bool IsValid(const TandemUdfColumn& c, int64_t i) {
  return c.validity == nullptr || ((c.validity[i >> 3] >> (i & 7)) & 1) != 0;
}

template <typename T>
inline T ValueAt(const TandemUdfColumn& c, int64_t i) {
  return static_cast<const T*>(c.values)[i];
}

inline bool BoolAt(const TandemUdfColumn& c, int64_t i) {
  return ((static_cast<const uint8_t*>(c.values)[i >> 3] >> (i & 7)) & 1) != 0;
}

inline int64_t StringOffset(const TandemUdfColumn& c, int64_t i) {
  return c.large_offsets ? static_cast<const int64_t*>(c.values)[i]
                         : static_cast<const int32_t*>(c.values)[i];
}

/* Pointer and length of string i (valid rows only). */
inline const char* StringAt(const TandemUdfColumn& c, int64_t i, int64_t* length) {
  const int64_t begin = StringOffset(c, i);
  *length = StringOffset(c, i + 1) - begin;
  return c.data ? reinterpret_cast<const char*>(c.data) + begin : "";
}

/* Marks row i of an output validity bitmap (allocated zero-filled, so rows start NULL). */
inline void SetValid(uint8_t* validity, int64_t i) {
  validity[i >> 3] = static_cast<uint8_t>(validity[i >> 3] | (1u << (i & 7)));
}

inline int64_t BitmapBytes(int64_t rows) { return (rows + 7) / 8; }

inline TandemUdfType MakeType(int32_t id, int32_t precision = 0, int32_t scale = 0,
                              int32_t utc = 0) {
  TandemUdfType t;
  t.id = id;
  t.precision = precision;
  t.scale = scale;
  t.utc = utc;
  return t;
}

}  // namespace tandem_udf
#endif /* __cplusplus */

#endif /* TANDEM_UDF_UDF_H_ */
