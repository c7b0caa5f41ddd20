// Batch checks and concatenation.
#include "tandem/column/batch.h"

#include "tandem/column/column_builder.h"

namespace tandem {

Status Batch::Validate() const {
  if (static_cast<int>(columns.size()) != schema.num_fields()) {
    return Status::Invalid("batch has " + std::to_string(columns.size()) +
                           " columns but schema has " + std::to_string(schema.num_fields()));
  }
  for (int i = 0; i < num_columns(); ++i) {
    const auto& c = columns[i];
    const std::string where = "column " + schema.field(i).name;
    if (c->type() != schema.field(i).type) {
      return Status::Invalid(where + ": type " + c->type().ToString() + " differs from schema " +
                             schema.field(i).type.ToString());
    }
    if (c->length() != num_rows) return Status::Invalid(where + ": length differs from batch");
    TANDEM_RETURN_NOT_OK(c->Validate().WithContext(where));
  }
  return Status::OK();
}

Result<BatchPtr> ConcatenateBatches(const std::vector<BatchPtr>& batches, const Schema& schema) {
  auto out = std::make_shared<Batch>();
  out->schema = schema;
  int64_t total = 0;
  for (const auto& b : batches) total += b->num_rows;
  for (int c = 0; c < schema.num_fields(); ++c) {
    ColumnBuilder builder(schema.field(c).type, total);
    for (const auto& b : batches) {
      const Column& col = *b->columns[c];
      for (int64_t r = 0; r < b->num_rows; ++r) builder.AppendFrom(col, r);
    }
    out->columns.push_back(builder.Finish());
  }
  out->num_rows = total;
  return out;
}

}  // namespace tandem
