// ORDERS and LINEITEM rows (clause 4.2.3), generated together: each order has 1..7 lines; the
// order's status and total price are derived from its lines.
//   line dates: ship = order + [1,121], commit = order + [30,90], receipt = ship + [1,30]
//   l_returnflag: 'R' or 'A' when receipt <= CURRENTDATE (1995-06-17), else 'N'
//   l_linestatus: 'O' when ship > CURRENTDATE, else 'F'; o_orderstatus 'F'/'O' when all lines
//   agree, else 'P'; o_totalprice = sum of extendedprice * (1 + tax) * (1 - discount), each line
//   rounded half-up to cents.
#include "tandem/tpch/dates.h"
#include "tandem/tpch/distributions.h"
#include "tandem/tpch/formulas.h"
#include "tandem/tpch/generator.h"
#include "tandem/tpch/generator_util.h"
#include "tandem/tpch/text_pool.h"

namespace tandem::tpch {
namespace {

constexpr int kMaxLines = 7;

int LineCount(int64_t order) {
  return static_cast<int>(RandomRange(kOrderLineCount, static_cast<uint64_t>(order), 1, kMaxLines));
}

struct LineColumns {
  explicit LineColumns(int64_t n)
      : orderkey(DataType::Int64(), n),
        partkey(DataType::Int64(), n),
        suppkey(DataType::Int64(), n),
        linenumber(DataType::Int32(), n),
        quantity(DataType::Decimal(15, 2), n),
        extendedprice(DataType::Decimal(15, 2), n),
        discount(DataType::Decimal(15, 2), n),
        tax(DataType::Decimal(15, 2), n),
        shipdate(DataType::Date32(), n),
        commitdate(DataType::Date32(), n),
        receiptdate(DataType::Date32(), n),
        returnflag(StringColumn(n, 1)),
        linestatus(StringColumn(n, 1)),
        shipinstruct(StringColumn(n, 12)),
        shipmode(StringColumn(n, 5)),
        comment(StringColumn(n, 27)) {}

  FixedColumn<int64_t> orderkey, partkey, suppkey;
  FixedColumn<int32_t> linenumber;
  FixedColumn<int64_t> quantity, extendedprice, discount, tax;
  FixedColumn<int32_t> shipdate, commitdate, receiptdate;
  ColumnBuilder returnflag, linestatus, shipinstruct, shipmode, comment;

  BatchPtr Finish(int64_t n) {
    return MakeBatch(
        TpchSchema(TpchTable::kLineitem),
        {orderkey.Finish(), partkey.Finish(), suppkey.Finish(), linenumber.Finish(),
         quantity.Finish(), extendedprice.Finish(), discount.Finish(), tax.Finish(),
         returnflag.Finish(), linestatus.Finish(), shipdate.Finish(), commitdate.Finish(),
         receiptdate.Finish(), shipinstruct.Finish(), shipmode.Finish(), comment.Finish()},
        n);
  }
};

}  // namespace

Result<OrdersAndLines> GenerateOrdersAndLines(const TpchSizes& sizes, int64_t begin, int64_t end) {
  const int64_t n = end - begin;
  int64_t total_lines = 0;
  for (int64_t o = begin; o < end; ++o) total_lines += LineCount(o);

  const TextPool& text = TextPool::Instance();
  FixedColumn<int64_t> orderkey(DataType::Int64(), n), custkey(DataType::Int64(), n);
  FixedColumn<int64_t> totalprice(DataType::Decimal(15, 2), n);
  FixedColumn<int32_t> orderdate(DataType::Date32(), n), shippriority(DataType::Int32(), n);
  ColumnBuilder status = StringColumn(n, 1), priority = StringColumn(n, 8),
                clerk = StringColumn(n, 15), ocomment = StringColumn(n, 49);
  LineColumns lines(total_lines);

  const int64_t ordering_customers = OrderingCustomerCount(sizes.customers);
  char buf[64];
  int64_t li = 0;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t o = begin + i;
    const auto ro = static_cast<uint64_t>(o);
    const int64_t okey = OrderKeyOf(o);
    const auto odate =
        static_cast<int32_t>(RandomRange(kOrderDate, ro, kStartDate, kLastOrderDate));
    const int count = LineCount(o);
    int64_t total_cents = 0;
    int shipped = 0;  // lines with status 'F'
    for (int line = 0; line < count; ++line, ++li) {
      const uint64_t r = ro * 8 + static_cast<uint64_t>(line);
      const int64_t pkey = RandomRange(kLinePart, r, 1, sizes.parts);
      const int64_t qty = RandomRange(kLineQuantity, r, 1, 50);
      const int64_t price = qty * RetailPriceCents(pkey);
      const int64_t disc = RandomRange(kLineDiscount, r, 0, 10);
      const int64_t tax = RandomRange(kLineTax, r, 0, 8);
      const auto ship = static_cast<int32_t>(odate + RandomRange(kLineShipDelay, r, 1, 121));
      const auto receipt = static_cast<int32_t>(ship + RandomRange(kLineReceiptDelay, r, 1, 30));
      lines.orderkey.data()[li] = okey;
      lines.partkey.data()[li] = pkey;
      lines.suppkey.data()[li] = PartSupplierKey(
          pkey, static_cast<int>(RandomRange(kLineSuppIndex, r, 0, 3)), sizes.suppliers);
      lines.linenumber.data()[li] = line + 1;
      lines.quantity.data()[li] = qty * 100;
      lines.extendedprice.data()[li] = price;
      lines.discount.data()[li] = disc;
      lines.tax.data()[li] = tax;
      lines.shipdate.data()[li] = ship;
      lines.commitdate.data()[li] =
          static_cast<int32_t>(odate + RandomRange(kLineCommitDelay, r, 30, 90));
      lines.receiptdate.data()[li] = receipt;
      const char* flag = receipt > kCurrentDate                  ? "N"
                         : RandomRange(kLineReturnFlag, r, 0, 1) ? "R"
                                                                 : "A";
      lines.returnflag.AppendString(std::string_view(flag, 1));
      const bool open = ship > kCurrentDate;
      lines.linestatus.AppendString(open ? "O" : "F");
      shipped += open ? 0 : 1;
      lines.shipinstruct.AppendString(kInstructions[RandomRange(kLineInstruct, r, 0, 3)]);
      lines.shipmode.AppendString(kShipModes[RandomRange(kLineMode, r, 0, 6)]);
      lines.comment.AppendString(text.Text(kLineComment, r, 10, 43));
      total_cents += (price * (100 - disc) * (100 + tax) + 5000) / 10000;
    }
    orderkey.data()[i] = okey;
    custkey.data()[i] = OrderingCustomerKey(RandomRange(kOrderCust, ro, 0, ordering_customers - 1));
    status.AppendString(shipped == count ? "F" : shipped == 0 ? "O" : "P");
    totalprice.data()[i] = total_cents;
    orderdate.data()[i] = odate;
    priority.AppendString(kPriorities[RandomRange(kOrderPriority, ro, 0, 4)]);
    clerk.AppendString(
        FormatNumbered(buf, "Clerk#", RandomRange(kOrderClerk, ro, 1, sizes.clerks)));
    shippriority.data()[i] = 0;
    ocomment.AppendString(text.Text(kOrderComment, ro, 19, 78));
  }
  OrdersAndLines out;
  out.orders = MakeBatch(TpchSchema(TpchTable::kOrders),
                         {orderkey.Finish(), custkey.Finish(), status.Finish(), totalprice.Finish(),
                          orderdate.Finish(), priority.Finish(), clerk.Finish(),
                          shippriority.Finish(), ocomment.Finish()},
                         n);
  out.lineitem = lines.Finish(total_lines);
  return out;
}

}  // namespace tandem::tpch
