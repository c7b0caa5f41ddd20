// Row gathering across batches and key evaluation helpers (see row_gather.h).
#include "tandem/exec/cpu/row_gather.h"

#include <cstring>

#include "tandem/column/column_builder.h"
#include "tandem/common/thread_pool.h"
#include "tandem/expr/cpu/evaluate.h"

namespace tandem::cpu {
namespace {

template <typename T>
void GatherFixed(const std::vector<const uint8_t*>& bases, const int64_t* refs, int64_t n, T* out) {
  for (int64_t i = 0; i < n; ++i) {
    const int64_t r = refs[i];
    out[i] = r < 0 ? T{} : reinterpret_cast<const T*>(bases[RefBatch(r)])[RefRow(r)];
  }
}

}  // namespace

std::vector<Morsel> MakeMorsels(const std::vector<BatchPtr>& batches, int64_t max_rows) {
  std::vector<Morsel> out;
  for (size_t b = 0; b < batches.size(); ++b) {
    const int64_t n = batches[b]->num_rows;
    for (int64_t begin = 0; begin < n; begin += max_rows) {
      out.push_back({static_cast<int>(b), begin, std::min(n, begin + max_rows)});
    }
  }
  return out;
}

ColumnPtr NullColumn(const DataType& type, int64_t count) {
  ColumnBuilder b(type, count);
  b.AppendNulls(count);
  return b.Finish();
}

GatherSource::GatherSource(const std::vector<BatchPtr>& batches, int column, DataType type)
    : type_(std::move(type)) {
  columns_.reserve(batches.size());
  values_.reserve(batches.size());
  for (const BatchPtr& b : batches) {
    const Column* c = b->columns[column].get();
    columns_.push_back(c);
    values_.push_back(c->values() ? c->values()->data() : nullptr);
    any_null_ |= c->null_count() > 0;
  }
}

std::vector<GatherSource> GatherSources(const Table& table) {
  std::vector<GatherSource> sources;
  sources.reserve(static_cast<size_t>(table.schema.num_fields()));
  for (int c = 0; c < table.schema.num_fields(); ++c) {
    sources.emplace_back(table.batches, c, table.schema.field(c).type);
  }
  return sources;
}

ColumnPtr GatherRows(const std::vector<BatchPtr>& batches, int column, const DataType& type,
                     const int64_t* refs, int64_t n) {
  return GatherRows(GatherSource(batches, column, type), refs, n);
}

ColumnPtr GatherRows(const GatherSource& source, const int64_t* refs, int64_t n) {
  const DataType& type = source.type();
  if (source.empty()) return NullColumn(type, n);
  const std::vector<const Column*>& cols = source.columns();

  // Validity.
  bool may_be_null = source.any_null();
  for (int64_t i = 0; i < n && !may_be_null; ++i) may_be_null = refs[i] < 0;
  std::shared_ptr<Buffer> validity;
  int64_t nulls = 0;
  if (may_be_null) {
    validity = Buffer::Allocate(bit_util::BytesForBits(n));
    uint8_t* bits = validity->mutable_data();
    for (int64_t i = 0; i < n; ++i) {
      const int64_t r = refs[i];
      if (r >= 0 && cols[RefBatch(r)]->IsValid(RefRow(r))) {
        bit_util::SetBit(bits, i);
      } else {
        ++nulls;
      }
    }
    if (nulls == 0) validity.reset();
  }

  if (type.id == TypeId::kBool) {
    auto values = Buffer::Allocate(bit_util::BytesForBits(n));
    uint8_t* out = values->mutable_data();
    for (int64_t i = 0; i < n; ++i) {
      const int64_t r = refs[i];
      if (r >= 0 && cols[RefBatch(r)]->GetBool(RefRow(r))) bit_util::SetBit(out, i);
    }
    return std::make_shared<Column>(type, n, nulls, validity, values);
  }
  if (type.is_string_like()) {
    int64_t bytes = 0;
    for (int64_t i = 0; i < n; ++i) {
      const int64_t r = refs[i];
      if (r < 0) continue;
      const Column* c = cols[RefBatch(r)];
      bytes += c->StringOffset(RefRow(r) + 1) - c->StringOffset(RefRow(r));
    }
    const bool large = bytes > INT32_MAX;
    auto offsets = Buffer::Allocate((n + 1) * (large ? 8 : 4));
    auto data = Buffer::Allocate(bytes);
    char* out = reinterpret_cast<char*>(data->mutable_data());
    int64_t pos = 0;
    int32_t* off32 = large ? nullptr : offsets->mutable_data_as<int32_t>();
    int64_t* off64 = large ? offsets->mutable_data_as<int64_t>() : nullptr;
    for (int64_t i = 0; i < n; ++i) {
      if (large) {
        off64[i] = pos;
      } else {
        off32[i] = static_cast<int32_t>(pos);
      }
      const int64_t r = refs[i];
      if (r < 0) continue;
      const std::string_view s = cols[RefBatch(r)]->GetString(RefRow(r));
      if (!s.empty()) std::memcpy(out + pos, s.data(), s.size());
      pos += static_cast<int64_t>(s.size());
    }
    if (large) {
      off64[n] = pos;
    } else {
      off32[n] = static_cast<int32_t>(pos);
    }
    return std::make_shared<Column>(type, n, nulls, validity, offsets, data, large);
  }
  const int w = type.byte_width();
  auto values = Buffer::Allocate(n * w);
  const std::vector<const uint8_t*>& bases = source.values();
  uint8_t* out = values->mutable_data();
  switch (w) {
    case 1:
      GatherFixed<uint8_t>(bases, refs, n, out);
      break;
    case 2:
      GatherFixed<uint16_t>(bases, refs, n, reinterpret_cast<uint16_t*>(out));
      break;
    case 4:
      GatherFixed<uint32_t>(bases, refs, n, reinterpret_cast<uint32_t*>(out));
      break;
    case 8:
      GatherFixed<uint64_t>(bases, refs, n, reinterpret_cast<uint64_t*>(out));
      break;
    case 16:
      GatherFixed<uint128_t>(bases, refs, n, reinterpret_cast<uint128_t*>(out));
      break;
    default:
      break;
  }
  return std::make_shared<Column>(type, n, nulls, validity, values);
}

Result<BatchPtr> GatherBatch(const std::vector<BatchPtr>& batches, const Schema& schema,
                             const int64_t* refs, int64_t count) {
  auto out = std::make_shared<Batch>();
  out->schema = schema;
  out->num_rows = count;
  out->columns.resize(schema.fields.size());
  TANDEM_RETURN_NOT_OK(
      ThreadPool::Default().ParallelFor(schema.num_fields(), [&](int64_t c) -> Status {
        out->columns[c] =
            GatherRows(batches, static_cast<int>(c), schema.field(c).type, refs, count);
        return Status::OK();
      }));
  return out;
}

Result<std::vector<ColumnPtr>> EvaluateColumns(const std::vector<ExprPtr>& exprs,
                                               const Batch& batch, EvalContext& ctx) {
  std::vector<ColumnPtr> out;
  out.reserve(exprs.size());
  for (const auto& e : exprs) {
    if (e->kind == ExprKind::kColumnRef && e->outer_depth == 0 && e->column_index >= 0 &&
        e->column_index < batch.num_columns()) {
      out.push_back(batch.columns[e->column_index]);
    } else {
      TANDEM_ASSIGN_OR_RAISE(ColumnPtr c, Evaluate(*e, batch, ctx));
      out.push_back(std::move(c));
    }
  }
  return out;
}

Result<std::vector<std::vector<ColumnPtr>>> EvaluateColumnsPerBatch(
    const std::vector<ExprPtr>& exprs, const std::vector<BatchPtr>& batches, EvalContext& ctx) {
  std::vector<std::vector<ColumnPtr>> out(batches.size());
  TANDEM_RETURN_NOT_OK(ThreadPool::Default().ParallelFor(
      static_cast<int64_t>(batches.size()), [&](int64_t b) -> Status {
        EvalContext local = ctx;
        TANDEM_ASSIGN_OR_RAISE(out[b], EvaluateColumns(exprs, *batches[b], local));
        return Status::OK();
      }));
  return out;
}

BatchPtr RelabelBatch(const BatchPtr& batch, const Schema& schema) {
  auto out = std::make_shared<Batch>(*batch);
  out->schema = schema;
  return out;
}

}  // namespace tandem::cpu
