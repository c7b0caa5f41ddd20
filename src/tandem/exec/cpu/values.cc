// Values (kValues): the literal rows of a VALUES list (or a constant SELECT) as one batch. Each
// value is stored as its column's type; integers widen, decimals rescale exactly, and anything
// else that differs from the column type is an internal error (the binder casts literals).
#include <cmath>

#include "tandem/column/column_builder.h"
#include "tandem/exec/cpu/operators.h"
#include "tandem/types/decimal.h"
#include "tandem/types/type_dispatch.h"

namespace tandem::cpu {
namespace {

bool IsIntegerLike(const DataType& t) {
  return t.is_integer() || t.id == TypeId::kBool || t.id == TypeId::kDate32 ||
         t.id == TypeId::kTimestamp;
}

Status AppendValue(const Value& v, const Field& field, ColumnBuilder* b) {
  const DataType& t = field.type;
  if (v.is_null) {
    b->AppendNull();
    return Status::OK();
  }
  auto mismatch = [&] {
    return Status::Internal("VALUES column " + field.name + " is " + t.ToString() + " but got " +
                            v.type.ToString() + " value " + v.ToString());
  };
  if (t.is_integer() || t.id == TypeId::kDate32 || t.id == TypeId::kTimestamp) {
    if (!IsIntegerLike(v.type)) return mismatch();
    VisitStorage(t, Overloaded{[&]<typename T>(Tag<T>) { b->Append<T>(static_cast<T>(v.i64)); },
                               [](auto) {}});
    return Status::OK();
  }
  switch (t.id) {
    case TypeId::kBool:
      if (v.type.id != TypeId::kBool) return mismatch();
      b->AppendBool(v.i64 != 0);
      return Status::OK();
    case TypeId::kFloat32:
    case TypeId::kFloat64: {
      double d;
      if (v.type.is_floating()) {
        d = v.f64;
      } else if (v.type.is_integer()) {
        d = static_cast<double>(v.i64);
      } else if (v.type.is_decimal()) {
        d = decimal::ToDouble(v.DecimalUnscaled(), v.type.scale);
      } else {
        return mismatch();
      }
      if (t.id == TypeId::kFloat32) {
        b->Append<float>(static_cast<float>(d));
      } else {
        b->Append<double>(d);
      }
      return Status::OK();
    }
    case TypeId::kDecimal: {
      int128_t unscaled;
      int from_scale;
      if (v.type.is_decimal()) {
        unscaled = v.DecimalUnscaled();
        from_scale = v.type.scale;
      } else if (v.type.is_integer()) {
        unscaled = v.i64;
        from_scale = 0;
      } else {
        return mismatch();
      }
      int128_t out;
      if (!decimal::Rescale(unscaled, from_scale, t.scale, &out) ||
          !decimal::FitsPrecision(out, t.precision)) {
        return Status::Invalid("value " + v.ToString() + " does not fit " + t.ToString() +
                               " in VALUES column " + field.name);
      }
      if (t.is_wide_decimal()) {
        b->Append<int128_t>(out);
      } else {
        b->Append<int64_t>(static_cast<int64_t>(out));
      }
      return Status::OK();
    }
    case TypeId::kString:
    case TypeId::kBinary:
      if (!v.type.is_string_like()) return mismatch();
      b->AppendString(v.str);
      return Status::OK();
    default:  // integers, dates and timestamps: above
      break;
  }
  return mismatch();
}

}  // namespace

Result<Table> Values(const PlanNode& node, ExecContext& ctx) {
  Table out;
  out.schema = node.schema;
  const int64_t n = static_cast<int64_t>(node.rows.size());
  if (n == 0) return out;
  auto batch = std::make_shared<Batch>();
  batch->schema = node.schema;
  batch->num_rows = n;
  for (int c = 0; c < node.schema.num_fields(); ++c) {
    ColumnBuilder b(node.schema.field(c).type, n);
    for (const auto& row : node.rows) {
      if (static_cast<int>(row.size()) != node.schema.num_fields()) {
        return Status::Internal("VALUES row has " + std::to_string(row.size()) + " values for " +
                                std::to_string(node.schema.num_fields()) + " columns");
      }
      TANDEM_RETURN_NOT_OK(AppendValue(row[c], node.schema.field(c), &b));
    }
    batch->columns.push_back(b.Finish());
  }
  out.batches.push_back(std::move(batch));
  return out;
}

}  // namespace tandem::cpu
