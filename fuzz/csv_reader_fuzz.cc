// libFuzzer target: arbitrary bytes through the CSV reader (inferred and explicit schemas, both
// escape styles, tiny inference samples and batches). It must never crash, hang or read out of
// bounds; errors are fine. The first byte picks the options, the rest is the CSV text.
#include <cstddef>
#include <cstdint>
#include <string>

#include "tandem/io/csv/csv.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t mode = data[0];
  std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  tandem::csv::CsvReadOptions options;
  options.num_threads = 1;
  options.header = (mode & 1) != 0;
  if (mode & 2) options.escape = '\\';
  if (mode & 4) options.delimiter = ';';
  options.inference_rows = (mode & 8) ? 1 : 100;
  options.batch_rows = (mode & 16) ? 2 : 1000;
  if (mode & 32) options.null_markers = {"NA", ""};
  if (mode & 64) {
    using tandem::DataType;
    options.schema = tandem::Schema{{{"a", DataType::Decimal(38, 3)},
                                     {"b", DataType::Timestamp(true)},
                                     {"c", DataType::Int16()}}};
  }
  auto table = tandem::csv::ReadCsvBuffer(std::move(text), options, "fuzz.csv");
  if (table.ok()) {
    for (const auto& batch : table->batches) {
      if (!batch->Validate().ok()) __builtin_trap();  // a reader bug, not bad input
    }
  }
  return 0;
}
