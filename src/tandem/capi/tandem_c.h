/* Tandem's C API (libtandem_c.so): file reading and writing with tables passed as Arrow C streams
 * (ArrowArrayStream), so that Python (pyarrow), the JVM or any Arrow consumer can call Tandem.
 *
 * Conventions:
 *   - Every function returns 0 on success. Otherwise it returns a non-zero Tandem status code
 *     (1 invalid input, 2 not supported yet, 3 out of memory, 4 I/O error, 5 internal error) and
 *     copies a NUL-terminated one-line message into err (truncated to err_len - 1 bytes; err may be
 *     NULL when err_len is 0).
 *   - Input streams are always consumed: their release callback has run when the call returns,
 *     whether it succeeded or not.
 *   - Output streams are filled only on success; the caller releases them.
 *   - No C++ exception escapes; no global state is kept.
 */
#ifndef TANDEM_CAPI_TANDEM_C_H_
#define TANDEM_CAPI_TANDEM_C_H_

#include <stddef.h>
#include <stdint.h>

#include "tandem/capi/arrow_c_abi.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TANDEM_C_EXPORT __attribute__((visibility("default")))

/* Imports `in` into Tandem batches and exports them again as `out` (tests the interface). */
TANDEM_C_EXPORT int tandem_roundtrip(struct ArrowArrayStream* in, struct ArrowArrayStream* out,
                                     char* err, size_t err_len);

/* Reads a Parquet file, directory or glob. columns_csv: comma-separated column names to read, or
 * NULL / "" for all. num_threads: 0 = all cores. */
TANDEM_C_EXPORT int tandem_read_parquet(const char* path, const char* columns_csv, int num_threads,
                                        struct ArrowArrayStream* out, char* err, size_t err_len);

/* Writes `in` to a Parquet file. codec: "none", "snappy", "gzip", "brotli",
 * "lz4_raw" or "zstd"; dictionary: 0 or 1;
 * row_group_rows: rows per row group, <= 0 for the default. */
TANDEM_C_EXPORT int tandem_write_parquet(struct ArrowArrayStream* in, const char* path,
                                         const char* codec, int dictionary, int64_t row_group_rows,
                                         char* err, size_t err_len);

/* Reads a CSV file with type inference; header: 0 or 1. */
TANDEM_C_EXPORT int tandem_read_csv(const char* path, char delimiter, int header,
                                    struct ArrowArrayStream* out, char* err, size_t err_len);

/* Writes `in` as a CSV file with a header line, ',' delimiter, empty fields for NULL. */
TANDEM_C_EXPORT int tandem_write_csv(struct ArrowArrayStream* in, const char* path, char* err,
                                     size_t err_len);

#ifdef __cplusplus
}
#endif

#endif /* TANDEM_CAPI_TANDEM_C_H_ */
