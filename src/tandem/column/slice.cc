// Slices of columns and batches (see slice.h).
#include "tandem/column/slice.h"

#include <numeric>
#include <vector>

#include "tandem/column/take.h"
#include "tandem/common/bit_util.h"

namespace tandem {

BatchPtr SliceBatch(const Batch& batch, int64_t begin, int64_t length) {
  std::vector<int32_t> idx(static_cast<size_t>(length));
  std::iota(idx.begin(), idx.end(), static_cast<int32_t>(begin));
  auto out = TakeBatch(batch, idx.data(), length);
  out->num_rows = length;
  return out;
}

namespace {

// A buffer over `size` bytes at `data` inside `owner`, which it keeps alive.
std::shared_ptr<Buffer> ViewOf(const std::shared_ptr<Buffer>& owner, const uint8_t* data,
                               int64_t size) {
  return Buffer::Wrap(data, size, [keep = owner] {});
}

template <typename Offset>
ColumnPtr SliceStrings(const Column& c, std::shared_ptr<Buffer> validity, int64_t null_count,
                       int64_t begin, int64_t length) {
  const Offset* src = c.values_as<Offset>() + begin;
  const Offset base = src[0];
  auto offsets = Buffer::AllocateUninitialized((length + 1) * static_cast<int64_t>(sizeof(Offset)));
  Offset* dst = offsets->mutable_data_as<Offset>();
  for (int64_t i = 0; i <= length; ++i) dst[i] = src[i] - base;
  std::shared_ptr<Buffer> data;
  if (c.data()) {
    data = ViewOf(c.data(), c.data()->data() + base, static_cast<int64_t>(src[length] - base));
  }
  return std::make_shared<Column>(c.type(), length, null_count, std::move(validity),
                                  std::move(offsets), std::move(data), c.large_offsets());
}

}  // namespace

ColumnPtr SliceColumnView(const ColumnPtr& column, int64_t begin, int64_t length) {
  const Column& c = *column;
  if (begin == 0 && length == c.length()) return column;
  // Bits (validity with NULLs, booleans) are viewed only from a byte boundary; values and
  // offsets from any row.
  const bool bits = c.type().id == TypeId::kBool || (c.null_count() > 0 && c.validity());
  if (begin % 8 != 0 && bits) {
    const BatchPtr one = [&] {
      Batch b;
      b.columns.push_back(column);
      b.num_rows = c.length();
      return SliceBatch(b, begin, length);
    }();
    return one->columns[0];
  }
  std::shared_ptr<Buffer> validity;
  int64_t null_count = 0;
  if (c.null_count() > 0 && c.validity()) {
    const uint8_t* bits = c.validity()->data() + begin / 8;
    const int64_t bytes = bit_util::BytesForBits(length);
    null_count = length - bit_util::CountSetBits(bits, 0, length);
    if (null_count > 0) validity = ViewOf(c.validity(), bits, bytes);
  }
  if (c.type().is_string_like()) {
    return c.large_offsets() ? SliceStrings<int64_t>(c, validity, null_count, begin, length)
                             : SliceStrings<int32_t>(c, validity, null_count, begin, length);
  }
  std::shared_ptr<Buffer> values;
  if (c.values()) {
    if (c.type().id == TypeId::kBool) {
      values = ViewOf(c.values(), c.values()->data() + begin / 8, bit_util::BytesForBits(length));
    } else {
      const int64_t width = c.type().byte_width();
      values = ViewOf(c.values(), c.values()->data() + begin * width, length * width);
    }
  }
  return std::make_shared<Column>(c.type(), length, null_count, std::move(validity),
                                  std::move(values), c.data(), c.large_offsets());
}

BatchPtr SliceBatchView(const Batch& batch, int64_t begin, int64_t length) {
  auto out = std::make_shared<Batch>();
  out->schema = batch.schema;
  out->num_rows = length;
  out->columns.reserve(batch.columns.size());
  for (const auto& c : batch.columns) out->columns.push_back(SliceColumnView(c, begin, length));
  return out;
}

}  // namespace tandem
