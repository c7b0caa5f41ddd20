// SUPPLIER and CUSTOMER rows (clause 4.2.3): numbered names, v-string addresses, nations, phone
// numbers, account balances, market segments, and the supplier comments that mention customer
// complaints or recommendations (Q16 excludes suppliers whose comment matches
// '%Customer%Complaints%').
#include "tandem/tpch/distributions.h"
#include "tandem/tpch/generator.h"
#include "tandem/tpch/generator_util.h"
#include "tandem/tpch/text_pool.h"

namespace tandem::tpch {
namespace {

// S_COMMENT: text [25, 100]; about 10 in 10,000 suppliers (SF * 5 of each kind) get "Customer "
// + noise + "Complaints" or "Recommends" written over the text at a random position.
std::string_view SupplierComment(char* buf, uint64_t row) {
  const std::string_view base = TextPool::Instance().Text(kSuppComment, row, 25, 100);
  if (RandomRange(kSuppBbb, 4 * row, 1, 10000) > 10) return base;
  std::memcpy(buf, base.data(), base.size());
  const auto length = static_cast<int64_t>(base.size());
  const std::string_view head = "Customer ";
  const std::string_view tail =
      RandomRange(kSuppBbb, 4 * row + 1, 0, 1) ? "Recommends" : "Complaints";
  const auto fixed = static_cast<int64_t>(head.size() + tail.size());
  const int64_t noise = RandomRange(kSuppBbb, 4 * row + 2, 0, length - fixed);
  const int64_t position = RandomRange(kSuppBbb, 4 * row + 3, 0, length - fixed - noise);
  std::memcpy(buf + position, head.data(), head.size());
  std::memcpy(buf + position + static_cast<int64_t>(head.size()) + noise, tail.data(), tail.size());
  return std::string_view(buf, base.size());
}

}  // namespace

Result<BatchPtr> GenerateSupplier(const TpchSizes& sizes, int64_t begin, int64_t end) {
  const int64_t n = end - begin;
  FixedColumn<int64_t> suppkey(DataType::Int64(), n), nationkey(DataType::Int64(), n);
  FixedColumn<int64_t> acctbal(DataType::Decimal(15, 2), n);
  ColumnBuilder name = StringColumn(n, 18), address = StringColumn(n, 25),
                phone = StringColumn(n, 15), comment = StringColumn(n, 63);
  char buf[128];
  for (int64_t i = 0; i < n; ++i) {
    const auto r = static_cast<uint64_t>(begin + i);
    const int64_t nation = RandomRange(kSuppNation, r, 0, 24);
    suppkey.data()[i] = begin + i + 1;
    name.AppendString(FormatNumbered(buf, "Supplier#", begin + i + 1));
    address.AppendString(FormatVString(buf, kSuppAddress, r, 10, 40));
    nationkey.data()[i] = nation;
    phone.AppendString(FormatPhone(buf, kSuppPhone, r, nation));
    acctbal.data()[i] = RandomRange(kSuppAcctBal, r, -99999, 999999);
    comment.AppendString(SupplierComment(buf, r));
  }
  return MakeBatch(TpchSchema(TpchTable::kSupplier),
                   {suppkey.Finish(), name.Finish(), address.Finish(), nationkey.Finish(),
                    phone.Finish(), acctbal.Finish(), comment.Finish()},
                   n);
}

Result<BatchPtr> GenerateCustomer(const TpchSizes& sizes, int64_t begin, int64_t end) {
  const int64_t n = end - begin;
  const TextPool& text = TextPool::Instance();
  FixedColumn<int64_t> custkey(DataType::Int64(), n), nationkey(DataType::Int64(), n);
  FixedColumn<int64_t> acctbal(DataType::Decimal(15, 2), n);
  ColumnBuilder name = StringColumn(n, 18), address = StringColumn(n, 25),
                phone = StringColumn(n, 15), segment = StringColumn(n, 10),
                comment = StringColumn(n, 73);
  char buf[128];
  for (int64_t i = 0; i < n; ++i) {
    const auto r = static_cast<uint64_t>(begin + i);
    const int64_t nation = RandomRange(kCustNation, r, 0, 24);
    custkey.data()[i] = begin + i + 1;
    name.AppendString(FormatNumbered(buf, "Customer#", begin + i + 1));
    address.AppendString(FormatVString(buf, kCustAddress, r, 10, 40));
    nationkey.data()[i] = nation;
    phone.AppendString(FormatPhone(buf, kCustPhone, r, nation));
    acctbal.data()[i] = RandomRange(kCustAcctBal, r, -99999, 999999);
    segment.AppendString(kSegments[RandomRange(kCustSegment, r, 0, 4)]);
    comment.AppendString(text.Text(kCustComment, r, 29, 116));
  }
  return MakeBatch(TpchSchema(TpchTable::kCustomer),
                   {custkey.Finish(), name.Finish(), address.Finish(), nationkey.Finish(),
                    phone.Finish(), acctbal.Finish(), segment.Finish(), comment.Finish()},
                   n);
}

}  // namespace tandem::tpch
