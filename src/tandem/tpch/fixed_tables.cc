// NATION and REGION rows (clause 4.2.3): the fixed 25 nations and 5 regions with text comments.
#include "tandem/tpch/distributions.h"
#include "tandem/tpch/generator.h"
#include "tandem/tpch/generator_util.h"
#include "tandem/tpch/text_pool.h"

namespace tandem::tpch {

Result<BatchPtr> GenerateNation(int64_t begin, int64_t end) {
  const int64_t n = end - begin;
  FixedColumn<int64_t> nationkey(DataType::Int64(), n), regionkey(DataType::Int64(), n);
  ColumnBuilder name = StringColumn(n, 16), comment = StringColumn(n, 73);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t key = begin + i;
    nationkey.data()[i] = key;
    name.AppendString(kNations[key].name);
    regionkey.data()[i] = kNations[key].region_key;
    comment.AppendString(TextPool::Instance().Text(kNationComment, key, 31, 114));
  }
  return MakeBatch(TpchSchema(TpchTable::kNation),
                   {nationkey.Finish(), name.Finish(), regionkey.Finish(), comment.Finish()}, n);
}

Result<BatchPtr> GenerateRegion(int64_t begin, int64_t end) {
  const int64_t n = end - begin;
  FixedColumn<int64_t> regionkey(DataType::Int64(), n);
  ColumnBuilder name = StringColumn(n, 12), comment = StringColumn(n, 73);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t key = begin + i;
    regionkey.data()[i] = key;
    name.AppendString(kRegions[key]);
    comment.AppendString(TextPool::Instance().Text(kRegionComment, key, 31, 115));
  }
  return MakeBatch(TpchSchema(TpchTable::kRegion),
                   {regionkey.Finish(), name.Finish(), comment.Finish()}, n);
}

}  // namespace tandem::tpch
