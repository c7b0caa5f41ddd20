// Zero-copy batch slicing (opx::SliceColumnView, SliceBatchView, SplitLargeBatches) against the
// source rows read back one by one: begins on and off byte (8) and word (64) boundaries, every
// fixed-width layout (bit-packed bool, int32, int64, 128-bit decimal, date), strings with empty
// values and int32 or int64 offsets, with and without NULLs. Slices must outlive their source:
// the source's buffers are wrapped so that releasing them overwrites the bytes, which a slice
// still reading them would see.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "tandem/column/column_builder.h"
#include "tandem/exec/cpu/operator_util.h"

namespace tandem {
namespace {

using cpu::opx::SliceBatchView;
using cpu::opx::SliceColumnView;
using cpu::opx::SplitLargeBatches;

const std::vector<DataType>& SliceTypes() {
  static const std::vector<DataType> types = {DataType::Bool(),   DataType::Int32(),
                                              DataType::Int64(),  DataType::Decimal(30, 2),
                                              DataType::Date32(), DataType::String()};
  return types;
}

// Random values of `type`; every fifth row NULL when nullable. Strings are often empty.
ColumnPtr RandomColumn(const DataType& type, int64_t n, bool nullable, std::mt19937_64& rng) {
  ColumnBuilder b(type);
  for (int64_t i = 0; i < n; ++i) {
    if (nullable && rng() % 5 == 0) {
      b.AppendNull();
      continue;
    }
    switch (type.id) {
      case TypeId::kBool:
        b.AppendBool(rng() % 2 == 0);
        break;
      case TypeId::kInt32:
      case TypeId::kDate32:
        b.Append<int32_t>(static_cast<int32_t>(rng()));
        break;
      case TypeId::kInt64:
        b.Append<int64_t>(static_cast<int64_t>(rng()));
        break;
      case TypeId::kDecimal:
        b.Append<int128_t>((static_cast<int128_t>(static_cast<int64_t>(rng())) << 64) | rng());
        break;
      default: {
        const size_t len = rng() % 3 == 0 ? 0 : rng() % 12;
        std::string s(len, 'a');
        for (auto& ch : s) ch = static_cast<char>('a' + rng() % 26);
        b.AppendString(s);
      }
    }
  }
  return b.Finish();
}

// Row i of a and row j of b are equal (validity and value), read through the public accessors.
bool SameRow(const Column& a, int64_t i, const Column& b, int64_t j) {
  if (a.IsValid(i) != b.IsValid(j)) return false;
  if (!a.IsValid(i)) return true;
  switch (a.type().id) {
    case TypeId::kBool:
      return a.GetBool(i) == b.GetBool(j);
    case TypeId::kInt32:
    case TypeId::kDate32:
      return a.Value<int32_t>(i) == b.Value<int32_t>(j);
    case TypeId::kInt64:
      return a.Value<int64_t>(i) == b.Value<int64_t>(j);
    case TypeId::kDecimal:
      return a.Value<int128_t>(i) == b.Value<int128_t>(j);
    default:
      return a.GetString(i) == b.GetString(j);
  }
}

// Checks that `slice` holds rows [begin, begin + length) of `source`, and is a valid column
// starting at offset 0 with the right NULL count.
void ExpectSliceOf(const Column& source, const Column& slice, int64_t begin, int64_t length,
                   const std::string& what) {
  ASSERT_EQ(slice.length(), length) << what;
  ASSERT_EQ(slice.type(), source.type()) << what;
  EXPECT_TRUE(slice.Validate().ok()) << what << ": " << slice.Validate().ToString();
  int64_t nulls = 0;
  for (int64_t i = 0; i < length; ++i) {
    nulls += source.IsNull(begin + i) ? 1 : 0;
    ASSERT_TRUE(SameRow(source, begin + i, slice, i)) << what << " row " << i;
  }
  EXPECT_EQ(slice.null_count(), nulls) << what;
  if (source.type().is_string_like()) {
    EXPECT_EQ(slice.StringOffset(0), 0) << what;
    // Zero-copy slices keep the offset width; others are fresh copies that may narrow it.
    if (begin % 8 == 0) EXPECT_EQ(slice.large_offsets(), source.large_offsets()) << what;
  }
}

const std::vector<int64_t> kBegins = {0, 1, 3, 7, 8, 13, 16, 63, 64, 65, 100, 120, 128, 129, 191};

TEST(ExecSlicing, ColumnViewMatchesSourceRowsAtAnyOffset) {
  std::mt19937_64 rng(11);
  const int64_t n = 200;
  for (const DataType& type : SliceTypes()) {
    for (bool nullable : {false, true}) {
      const ColumnPtr source = RandomColumn(type, n, nullable, rng);
      for (int64_t begin : kBegins) {
        for (int64_t length : {int64_t{0}, int64_t{1}, int64_t{5}, int64_t{8}, int64_t{9},
                               int64_t{64}, int64_t{71}, n - begin}) {
          if (begin + length > n) continue;
          const ColumnPtr slice = SliceColumnView(source, begin, length);
          ExpectSliceOf(*source, *slice, begin, length,
                        type.ToString() + (nullable ? " nullable" : "") + " begin " +
                            std::to_string(begin) + " length " + std::to_string(length));
        }
      }
    }
  }
}

// A string column with int64 offsets built by hand (a builder switches only past 2 GiB).
ColumnPtr LargeOffsetStrings(const std::vector<std::string>& values,
                             const std::vector<bool>& valid) {
  const int64_t n = static_cast<int64_t>(values.size());
  std::string chars;
  auto offsets = Buffer::Allocate((n + 1) * 8);
  auto* o = offsets->mutable_data_as<int64_t>();
  std::shared_ptr<Buffer> validity;
  int64_t nulls = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (!valid[i]) ++nulls;
  }
  if (nulls > 0) validity = Buffer::Allocate(bit_util::BytesForBits(n));
  o[0] = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (valid[i]) {
      chars += values[i];
      if (validity) bit_util::SetBit(validity->mutable_data(), i);
    }
    o[i + 1] = static_cast<int64_t>(chars.size());
  }
  auto data = Buffer::CopyOf(chars.data(), static_cast<int64_t>(chars.size()));
  return std::make_shared<Column>(DataType::String(), n, nulls, validity, offsets, data, true);
}

TEST(ExecSlicing, LargeOffsetStringColumn) {
  std::mt19937_64 rng(12);
  const int64_t n = 150;
  for (bool nullable : {false, true}) {
    std::vector<std::string> values(n);
    std::vector<bool> valid(n, true);
    for (int64_t i = 0; i < n; ++i) {
      values[i] = std::string(rng() % 3 == 0 ? 0 : rng() % 9, static_cast<char>('A' + i % 26));
      if (nullable && rng() % 4 == 0) valid[i] = false;
    }
    const ColumnPtr source = LargeOffsetStrings(values, valid);
    ASSERT_TRUE(source->Validate().ok()) << source->Validate().ToString();
    for (int64_t begin : kBegins) {
      if (begin > n) continue;
      for (int64_t length : {int64_t{0}, int64_t{3}, int64_t{17}, n - begin}) {
        if (begin + length > n) continue;
        const ColumnPtr slice = SliceColumnView(source, begin, length);
        ExpectSliceOf(*source, *slice, begin, length,
                      std::string("large offsets") + (nullable ? " nullable" : "") + " begin " +
                          std::to_string(begin));
        for (int64_t i = 0; i < length; ++i) {
          if (valid[begin + i]) ASSERT_EQ(slice->GetString(i), values[begin + i]);
        }
      }
    }
  }
}

// A copy of `column` whose buffers live in malloc'd memory that is overwritten with 0xA5 (and
// counted in *released) when the last reference to each buffer goes.
ColumnPtr PoisonOnRelease(const Column& column, int* released) {
  auto wrap = [released](const std::shared_ptr<Buffer>& b) -> std::shared_ptr<Buffer> {
    if (!b) return nullptr;
    const int64_t size = b->size();
    auto* mem = static_cast<uint8_t*>(std::malloc(static_cast<size_t>(std::max<int64_t>(size, 1))));
    std::memcpy(mem, b->data(), static_cast<size_t>(size));
    return Buffer::Wrap(mem, size, [mem, size, released] {
      std::memset(mem, 0xA5, static_cast<size_t>(size));
      ++*released;
      std::free(mem);
    });
  };
  return std::make_shared<Column>(column.type(), column.length(), column.null_count(),
                                  wrap(column.validity()), wrap(column.values()),
                                  wrap(column.data()), column.large_offsets());
}

TEST(ExecSlicing, SlicesKeepSourceBuffersAlive) {
  std::mt19937_64 rng(13);
  const int64_t n = 300;
  Schema schema;
  std::vector<ColumnPtr> reference;
  for (const DataType& type : SliceTypes()) {
    for (bool nullable : {false, true}) {
      schema.fields.push_back({type.ToString() + std::to_string(nullable), type, nullable});
      reference.push_back(RandomColumn(type, n, nullable, rng));
    }
  }
  for (int64_t begin : {int64_t{0}, int64_t{8}, int64_t{64}, int64_t{136}, int64_t{5}}) {
    int released = 0;
    int buffers = 0;
    std::vector<BatchPtr> slices;
    {
      auto source = std::make_shared<Batch>();
      source->schema = schema;
      source->num_rows = n;
      for (const auto& c : reference) {
        source->columns.push_back(PoisonOnRelease(*c, &released));
        buffers += (c->validity() ? 1 : 0) + (c->values() ? 1 : 0) + (c->data() ? 1 : 0);
      }
      slices.push_back(SliceBatchView(*source, begin, 100));
      slices.push_back(SliceBatchView(*source, begin + 104, n - begin - 104));
    }  // the source batch and its columns are gone; only the slices hold the buffers
    for (const auto& s : slices) ASSERT_TRUE(s->Validate().ok()) << s->Validate().ToString();
    for (size_t c = 0; c < reference.size(); ++c) {
      ExpectSliceOf(*reference[c], *slices[0]->columns[c], begin, 100,
                    "after drop, first slice, column " + std::to_string(c));
      ExpectSliceOf(*reference[c], *slices[1]->columns[c], begin + 104, n - begin - 104,
                    "after drop, second slice, column " + std::to_string(c));
    }
    slices.clear();
    EXPECT_EQ(released, buffers) << "every wrapped buffer is released once the slices go";
  }
}

TEST(ExecSlicing, BatchViewSlicesEveryColumn) {
  std::mt19937_64 rng(14);
  const int64_t n = 257;
  Batch source;
  source.num_rows = n;
  for (const DataType& type : SliceTypes()) {
    source.schema.fields.push_back({type.ToString(), type, true});
    source.columns.push_back(RandomColumn(type, n, true, rng));
  }
  for (int64_t begin : kBegins) {
    const int64_t length = std::min<int64_t>(77, n - begin);
    const BatchPtr slice = SliceBatchView(source, begin, length);
    ASSERT_EQ(slice->num_rows, length);
    ASSERT_EQ(slice->num_columns(), source.num_columns());
    EXPECT_EQ(slice->schema.ToString(), source.schema.ToString());
    ASSERT_TRUE(slice->Validate().ok()) << slice->Validate().ToString();
    for (int c = 0; c < source.num_columns(); ++c) {
      ExpectSliceOf(*source.columns[c], *slice->columns[c], begin, length,
                    "batch column " + std::to_string(c) + " begin " + std::to_string(begin));
    }
  }
}

// Only bits need a byte boundary: values of a column without NULLs, and a string column's
// characters, are viewed in place from any row (a join's probe rows that all matched are such
// a view, exec/cpu/join_emit.cc).
TEST(ExecSlicing, ColumnsWithoutNullsAreViewedFromAnyRow) {
  std::mt19937_64 rng(15);
  const int64_t n = 100;
  for (const DataType& type : {DataType::Int64(), DataType::Decimal(30, 2), DataType::String()}) {
    const ColumnPtr source = RandomColumn(type, n, false, rng);
    for (int64_t begin : {int64_t{3}, int64_t{13}, int64_t{63}}) {
      const ColumnPtr slice = SliceColumnView(source, begin, 20);
      ExpectSliceOf(*source, *slice, begin, 20, type.ToString());
      if (type.is_string_like()) {
        const int64_t first = source->values_as<int32_t>()[begin];
        EXPECT_EQ(slice->data()->data(), source->data()->data() + first) << type.ToString();
      } else {
        EXPECT_EQ(slice->values()->data(), source->values()->data() + begin * type.byte_width())
            << type.ToString();
      }
    }
  }
}

TEST(ExecSlicing, SplitLargeBatchesKeepsRowsAndBounds) {
  std::mt19937_64 rng(15);
  Table table;
  for (const DataType& type : SliceTypes()) table.schema.fields.push_back({type.ToString(), type});
  std::vector<BatchPtr> originals;
  for (int64_t rows : {1000, 50, 0, 257, 8, 129}) {
    auto b = std::make_shared<Batch>();
    b->schema = table.schema;
    b->num_rows = rows;
    for (const DataType& type : SliceTypes()) {
      b->columns.push_back(RandomColumn(type, rows, rows % 2 == 0, rng));
    }
    originals.push_back(b);
  }
  table.batches = originals;
  for (int64_t max_rows : {1, 7, 8, 64, 100, 128, 129, 1000, 5000}) {
    const Table split = SplitLargeBatches(table, max_rows);
    // Input rows in order, as (batch, row), against the output rows in order.
    std::vector<std::pair<const Batch*, int64_t>> input_rows;
    for (const auto& b : originals) {
      for (int64_t r = 0; r < b->num_rows; ++r) input_rows.emplace_back(b.get(), r);
    }
    size_t k = 0;
    for (const auto& b : split.batches) {
      ASSERT_TRUE(b->Validate().ok()) << b->Validate().ToString();
      EXPECT_LE(b->num_rows, max_rows) << "max_rows " << max_rows;
      for (int64_t r = 0; r < b->num_rows; ++r, ++k) {
        ASSERT_LT(k, input_rows.size()) << "more rows out than in, max_rows " << max_rows;
        const auto [src, src_row] = input_rows[k];
        if (r == 0 && max_rows >= 8) EXPECT_EQ(src_row % 8, 0) << "pieces begin on a byte boundary";
        for (int c = 0; c < src->num_columns(); ++c) {
          ASSERT_TRUE(SameRow(*src->columns[c], src_row, *b->columns[c], r))
              << "max_rows " << max_rows << " column " << c << " output row " << k;
        }
      }
    }
    EXPECT_EQ(k, input_rows.size()) << "max_rows " << max_rows;
    // Batches that fit pass through as they are (same object, no copy).
    for (const auto& b : originals) {
      if (b->num_rows > max_rows) continue;
      EXPECT_NE(std::find(split.batches.begin(), split.batches.end(), b), split.batches.end())
          << "a fitting batch of " << b->num_rows << " rows was replaced, max_rows " << max_rows;
    }
    int64_t total_in = 0, total_out = 0;
    for (const auto& b : originals) total_in += b->num_rows;
    for (const auto& b : split.batches) total_out += b->num_rows;
    EXPECT_EQ(total_out, total_in) << "max_rows " << max_rows;
  }
}

}  // namespace
}  // namespace tandem
