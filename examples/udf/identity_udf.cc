// The identity UDFs of the example library: see identity_udf.h.
#include "identity_udf.h"

#include <cstring>

namespace tandem_example {
namespace {

using tandem_udf::BitmapBytes;
using tandem_udf::IsValid;
using tandem_udf::MakeType;
using tandem_udf::SetValid;

const TandemUdfType kDouble = MakeType(TANDEM_UDF_FLOAT64);
const TandemUdfType kDoubles[12] = {kDouble, kDouble, kDouble, kDouble, kDouble, kDouble,
                                    kDouble, kDouble, kDouble, kDouble, kDouble, kDouble};

int32_t OutOfMemory(TandemUdfContext* ctx) {
  ctx->set_error(ctx, "out of memory");
  return TANDEM_UDF_ERROR;
}

// The first argument's values; valid where every argument is valid.
int32_t IdentityOfFirst(TandemUdfContext* ctx, const TandemUdfColumn* args, int32_t num_args,
                        TandemUdfOutput* out) {
  const int64_t rows = ctx->rows;
  auto* values = static_cast<double*>(ctx->alloc(ctx, rows * 8));
  if (!values && rows > 0) return OutOfMemory(ctx);
  if (rows > 0) std::memcpy(values, args[0].values, static_cast<size_t>(rows) * 8);
  out->values = values;
  bool any_nulls = false;
  for (int32_t a = 0; a < num_args; ++a) any_nulls |= args[a].validity != nullptr;
  if (!any_nulls) return TANDEM_UDF_OK;
  auto* validity = static_cast<uint8_t*>(ctx->alloc(ctx, BitmapBytes(rows)));
  if (!validity) return OutOfMemory(ctx);
  int64_t nulls = 0;
  for (int64_t i = 0; i < rows; ++i) {
    bool valid = true;
    for (int32_t a = 0; a < num_args && valid; ++a) valid = IsValid(args[a], i);
    if (valid) {
      SetValid(validity, i);
    } else {
      ++nulls;
    }
  }
  out->validity = validity;
  out->null_count = nulls;
  return TANDEM_UDF_OK;
}

TandemUdf Identity(const char* name, int32_t num_args) {
  TandemUdf d{};
  d.abi_version = TANDEM_UDF_ABI_VERSION;
  d.name = name;
  d.num_args = num_args;
  d.arg_types = kDoubles;
  d.result_type = kDouble;
  d.deterministic = 1;
  d.cost_ns_per_row = 1;
  d.cpu = IdentityOfFirst;
  d.gpu = nullptr;
  return d;
}

}  // namespace

const TandemUdf kIdentityDouble = Identity("identity_double", 1);
const TandemUdf kIdentityDouble4 = Identity("identity_double_4", 4);
const TandemUdf kIdentityDouble8 = Identity("identity_double_8", 8);
const TandemUdf kIdentityDouble12 = Identity("identity_double_12", 12);

}  // namespace tandem_example

TANDEM_UDF_EXPORT const TandemUdf* identity_double(void) {
  return &tandem_example::kIdentityDouble;
}
TANDEM_UDF_EXPORT const TandemUdf* identity_double_4(void) {
  return &tandem_example::kIdentityDouble4;
}
TANDEM_UDF_EXPORT const TandemUdf* identity_double_8(void) {
  return &tandem_example::kIdentityDouble8;
}
TANDEM_UDF_EXPORT const TandemUdf* identity_double_12(void) {
  return &tandem_example::kIdentityDouble12;
}
