// PART and PARTSUPP rows (clause 4.2.3): names from five distinct colours, manufacturer/brand,
// type and container syllables, the retail price formula, and four suppliers per part.
#include <array>
#include <numeric>

#include "tandem/tpch/distributions.h"
#include "tandem/tpch/formulas.h"
#include "tandem/tpch/generator.h"
#include "tandem/tpch/generator_util.h"
#include "tandem/tpch/text_pool.h"

namespace tandem::tpch {
namespace {

// P_NAME: five distinct colours, chosen by a partial Fisher-Yates shuffle that is undone after
// each row so `order` stays the identity between rows.
std::string_view FormatPartName(char* buf, uint64_t row, std::array<uint8_t, 92>& order) {
  int swapped_with[5];
  char* p = buf;
  for (int k = 0; k < 5; ++k) {
    const auto j = static_cast<int>(RandomRange(kPartName, 5 * row + k, k, 91));
    swapped_with[k] = j;
    std::swap(order[k], order[j]);
    if (k > 0) *p++ = ' ';
    const std::string_view color = kColors[order[k]];
    std::memcpy(p, color.data(), color.size());
    p += color.size();
  }
  for (int k = 4; k >= 0; --k) std::swap(order[k], order[swapped_with[k]]);
  return std::string_view(buf, static_cast<size_t>(p - buf));
}

}  // namespace

Result<BatchPtr> GeneratePart(const TpchSizes& sizes, int64_t begin, int64_t end) {
  const int64_t n = end - begin;
  const TextPool& text = TextPool::Instance();
  FixedColumn<int64_t> partkey(DataType::Int64(), n);
  FixedColumn<int32_t> size(DataType::Int32(), n);
  FixedColumn<int64_t> retail(DataType::Decimal(15, 2), n);
  ColumnBuilder name = StringColumn(n, 34), mfgr = StringColumn(n, 14), brand = StringColumn(n, 8),
                type = StringColumn(n, 21), container = StringColumn(n, 8),
                comment = StringColumn(n, 14);
  std::array<uint8_t, 92> order;
  std::iota(order.begin(), order.end(), uint8_t{0});
  char buf[128];
  for (int64_t i = 0; i < n; ++i) {
    const int64_t row = begin + i;
    const uint64_t r = static_cast<uint64_t>(row);
    const int64_t key = row + 1;
    partkey.data()[i] = key;
    name.AppendString(FormatPartName(buf, r, order));
    // P_MFGR "Manufacturer#M" and P_BRAND "Brand#MN" share the digit M.
    const char digits[2] = {static_cast<char>('0' + RandomRange(kPartMfgr, r, 1, 5)),
                            static_cast<char>('0' + RandomRange(kPartBrand, r, 1, 5))};
    mfgr.AppendString(Join(buf, {"Manufacturer#", std::string_view(digits, 1)}));
    brand.AppendString(Join(buf, {"Brand#", std::string_view(digits, 2)}));
    type.AppendString(Join(buf, {kTypeSyllable1[RandomRange(kPartType, 3 * r, 0, 5)], " ",
                                 kTypeSyllable2[RandomRange(kPartType, 3 * r + 1, 0, 4)], " ",
                                 kTypeSyllable3[RandomRange(kPartType, 3 * r + 2, 0, 4)]}));
    size.data()[i] = static_cast<int32_t>(RandomRange(kPartSize, r, 1, 50));
    container.AppendString(
        Join(buf, {kContainerSyllable1[RandomRange(kPartContainer, 2 * r, 0, 4)], " ",
                   kContainerSyllable2[RandomRange(kPartContainer, 2 * r + 1, 0, 7)]}));
    retail.data()[i] = RetailPriceCents(key);
    comment.AppendString(text.Text(kPartComment, r, 5, 22));
  }
  return MakeBatch(TpchSchema(TpchTable::kPart),
                   {partkey.Finish(), name.Finish(), mfgr.Finish(), brand.Finish(), type.Finish(),
                    size.Finish(), container.Finish(), retail.Finish(), comment.Finish()},
                   n);
}

Result<BatchPtr> GeneratePartsupp(const TpchSizes& sizes, int64_t begin, int64_t end) {
  const int64_t n = 4 * (end - begin);
  const TextPool& text = TextPool::Instance();
  FixedColumn<int64_t> partkey(DataType::Int64(), n), suppkey(DataType::Int64(), n);
  FixedColumn<int32_t> availqty(DataType::Int32(), n);
  FixedColumn<int64_t> supplycost(DataType::Decimal(15, 2), n);
  ColumnBuilder comment = StringColumn(n, 124);
  int64_t out = 0;
  for (int64_t part = begin; part < end; ++part) {
    const int64_t key = part + 1;
    for (int i = 0; i < 4; ++i, ++out) {
      const auto r = static_cast<uint64_t>(4 * part + i);
      partkey.data()[out] = key;
      suppkey.data()[out] = PartSupplierKey(key, i, sizes.suppliers);
      availqty.data()[out] = static_cast<int32_t>(RandomRange(kPsAvailQty, r, 1, 9999));
      supplycost.data()[out] = RandomRange(kPsSupplyCost, r, 100, 100000);
      comment.AppendString(text.Text(kPsComment, r, 49, 198));
    }
  }
  return MakeBatch(TpchSchema(TpchTable::kPartsupp),
                   {partkey.Finish(), suppkey.Finish(), availqty.Finish(), supplycost.Finish(),
                    comment.Finish()},
                   n);
}

}  // namespace tandem::tpch
