// CallCpu (see call_cpu.h).
#include "tandem/udf/call_cpu.h"

#include <string>

#include "tandem/column/column_builder.h"
#include "tandem/udf/call_checks.h"

namespace tandem::udf {
namespace {

struct Allocation {
  const void* ptr;
  int64_t bytes;
  std::shared_ptr<Buffer> buffer;
};

// The engine side of TandemUdfContext for one call: the buffers it handed out and the error.
struct CallState {
  TandemUdfContext ctx{};
  std::vector<Allocation> allocations;
  std::string error;
  bool error_set = false;
};

void* Alloc(TandemUdfContext* ctx, int64_t bytes) {
  if (!ctx || bytes < 0) return nullptr;
  auto* state = static_cast<CallState*>(ctx->engine);
  Result<std::shared_ptr<Buffer>> b = Buffer::TryAllocate(bytes > 0 ? bytes : 1);
  if (!b.ok()) return nullptr;
  void* p = (*b)->mutable_data();
  state->allocations.push_back({p, bytes, std::move(*b)});
  return p;
}

void SetError(TandemUdfContext* ctx, const char* message) {
  if (!ctx) return;
  auto* state = static_cast<CallState*>(ctx->engine);
  state->error = message ? message : "";
  state->error_set = true;
}

TandemUdfColumn View(const Column& c) {
  TandemUdfColumn v{};
  v.type = ToUdfType(c.type());
  v.length = c.length();
  v.null_count = c.null_count();
  v.validity = c.null_count() > 0 ? c.validity_bits() : nullptr;
  v.values = c.values() ? c.values()->data() : nullptr;
  v.data = c.data() ? c.data()->data() : nullptr;
  v.large_offsets = c.large_offsets() ? 1 : 0;
  return v;
}

// The engine buffer starting at `p`, or an error naming which result buffer is foreign.
Result<std::shared_ptr<Buffer>> Owned(const CallState& state, const void* p, const char* what,
                                      const std::string& fn) {
  if (!p) return std::shared_ptr<Buffer>();
  for (const Allocation& a : state.allocations) {
    if (a.ptr == p) return a.buffer;
  }
  return Status::Invalid("UDF " + fn + " returned a " + what +
                         " buffer that was not allocated with ctx->alloc");
}

}  // namespace

Result<ColumnPtr> CallCpu(const UdfFunction& f, const std::vector<ColumnPtr>& args, int64_t rows) {
  std::vector<ArgumentShape> shapes;
  for (const ColumnPtr& a : args) {
    shapes.push_back(a ? ArgumentShape{true, a->type(), a->length()} : ArgumentShape{});
  }
  TANDEM_RETURN_NOT_OK(CheckArguments(f, shapes, rows));
  std::vector<TandemUdfColumn> views;
  views.reserve(args.size());
  for (const ColumnPtr& a : args) views.push_back(View(*a));
  // An empty batch needs no call: the result is an empty column of the declared type.
  if (rows == 0) return ColumnBuilder(f.result_type).Finish();
  CallState state;
  state.ctx.rows = rows;
  state.ctx.engine = &state;
  state.ctx.alloc = Alloc;
  state.ctx.set_error = SetError;
  TandemUdfOutput out{};
  out.type = ToUdfType(f.result_type);
  out.length = rows;
  TANDEM_ASSIGN_OR_RAISE(const int32_t rc, CallCatching(f, [&] {
                           return f.cpu(&state.ctx, views.data(),
                                        static_cast<int32_t>(views.size()), &out);
                         }));
  TANDEM_ASSIGN_OR_RAISE(const DataType type,
                         CheckOutcome(f, rows, OutcomeOf(rc, state.error_set, state.error, out)));
  TANDEM_ASSIGN_OR_RAISE(auto validity, Owned(state, out.validity, "validity", f.name));
  TANDEM_ASSIGN_OR_RAISE(auto values, Owned(state, out.values, "values", f.name));
  TANDEM_ASSIGN_OR_RAISE(auto data, Owned(state, out.data, "data", f.name));
  if (validity) {
    if (validity->size() < bit_util::BytesForBits(rows)) {
      return Status::Invalid("UDF " + f.name + " returned a validity bitmap shorter than " +
                             std::to_string(rows) + " rows");
    }
    const int64_t nulls = rows - bit_util::CountSetBits(validity->data(), 0, rows);
    if (nulls != out.null_count) {
      return Status::Invalid("UDF " + f.name + " reported " + std::to_string(out.null_count) +
                             " nulls but its validity bitmap has " + std::to_string(nulls));
    }
    if (nulls == 0) validity = nullptr;
  }
  // Sizes are the allocation sizes the UDF asked for, not the buffers' (possibly larger) ones.
  auto sized = [&](std::shared_ptr<Buffer> b) -> std::shared_ptr<Buffer> {
    if (!b) return b;
    for (const Allocation& a : state.allocations) {
      if (a.buffer == b && a.bytes < b->size()) {
        return Buffer::Wrap(b->data(), a.bytes, [keep = b]() {});
      }
    }
    return b;
  };
  auto column = std::make_shared<Column>(type, rows, out.null_count, sized(validity), sized(values),
                                         sized(data), out.large_offsets != 0);
  if (Status st = column->Validate(); !st.ok()) {
    return Status::Invalid("UDF " + f.name + " returned a malformed column: " + st.message());
  }
  return ColumnPtr(std::move(column));
}

}  // namespace tandem::udf
