// Import of Arrow data through the C Data Interface into Tandem batches and tables. Buffers whose
// layout matches Tandem's are wrapped zero copy (the ArrowArray is released when the last of them
// dies); others are copied: bitmaps at a bit offset that is not a multiple of 8, misaligned
// values, string offsets that do not start at 0, decimal128 of up to 18 digits (narrowed to 64
// bits, range checked), decimal32 (widened), timestamps in s/ms/ns (scaled to microseconds, exact
// only). Other formats (views, dictionaries, nested, time, float16 ...) fail with
// "not supported yet: Arrow format '<fmt>' (column <name>)".
#pragma once

#include <string>
#include <vector>

#include "tandem/capi/arrow_c_abi.h"
#include "tandem/column/table.h"

namespace tandem::capi {

// How one column is laid out on the Arrow side, where it differs from the Tandem type.
struct ArrowColumnLayout {
  std::string format;
  int source_width = 0;       // bytes per value (decimals, timestamps) or per offset (strings)
  int64_t us_multiplier = 1;  // timestamps: value * us_multiplier / us_divisor = microseconds
  int64_t us_divisor = 1;
};

struct ImportedSchema {
  Schema schema;
  std::vector<ArrowColumnLayout> layouts;  // one per field
};

// Reads a struct ("+s") schema without taking ownership of it.
Result<ImportedSchema> ParseArrowSchema(const ArrowSchema& schema);

// Takes ownership of `schema` (its release callback runs, also on error).
Result<Schema> ImportSchema(ArrowSchema* schema);

// Takes ownership of `array`, a struct array matching `schema` (released when the last buffer
// that wraps it dies, or at once on error). The batch is validated.
Result<BatchPtr> ImportBatch(ArrowArray* array, const ImportedSchema& schema);
// Same, reading the schema from `schema`, which stays owned by the caller.
Result<BatchPtr> ImportBatch(ArrowArray* array, const ArrowSchema& schema);

// Takes ownership of `stream` and reads it to the end.
Result<Table> ImportStream(ArrowArrayStream* stream);

}  // namespace tandem::capi
