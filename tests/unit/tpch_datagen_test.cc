// Parallel TPC-H generation: the output does not depend on the thread count or on how rows are
// sliced into batches; file plans cover every row once; sink errors stop the run.
#include <gtest/gtest.h>

#include <map>
#include <mutex>

#include "tandem/tpch/datagen.h"
#include "tandem/tpch/generator.h"

namespace tandem::tpch {
namespace {

// FNV-1a over every value of every column (strings by content), row by row.
uint64_t HashBatch(const Batch& b, uint64_t h = 1469598103934665603ULL) {
  auto mix = [&h](const void* p, size_t n) {
    const auto* bytes = static_cast<const uint8_t*>(p);
    for (size_t i = 0; i < n; ++i) h = (h ^ bytes[i]) * 1099511628211ULL;
  };
  for (const ColumnPtr& c : b.columns) {
    for (int64_t i = 0; i < c->length(); ++i) {
      if (c->type().is_string_like()) {
        const std::string_view s = c->GetString(i);
        const uint64_t n = s.size();
        mix(&n, sizeof(n));
        mix(s.data(), s.size());
      } else {
        const int w = c->type().byte_width();
        mix(c->values()->data() + i * w, static_cast<size_t>(w));
      }
    }
  }
  return h;
}

class MemorySink : public TpchFileSink {
 public:
  explicit MemorySink(uint64_t* hash, int64_t* rows) : hash_(hash), rows_(rows) {}
  Status Write(const Batch& batch) override {
    TANDEM_RETURN_NOT_OK(batch.Validate());
    *hash_ = HashBatch(batch, *hash_);
    *rows_ += batch.num_rows;
    return Status::OK();
  }
  Status Close() override { return Status::OK(); }

 private:
  uint64_t* hash_;
  int64_t* rows_;
};

class NullSink : public TpchFileSink {
 public:
  Status Write(const Batch&) override { return Status::OK(); }
  Status Close() override { return Status::OK(); }
};

struct Captured {
  std::mutex mutex;
  std::map<std::pair<int, int64_t>, uint64_t> hashes;
  std::map<std::pair<int, int64_t>, int64_t> rows;
};

std::map<std::pair<int, int64_t>, uint64_t> RunWithThreads(double sf, int threads,
                                                           TpchDatagenResult* result) {
  Captured captured;
  TpchDatagenOptions options;
  options.scale_factor = sf;
  options.threads = threads;
  auto r = GenerateTpch(options, [&](TpchTable table, int64_t file) {
    std::lock_guard<std::mutex> lock(captured.mutex);
    const auto key = std::make_pair(static_cast<int>(table), file);
    captured.hashes[key] = 1469598103934665603ULL;
    return Result<std::unique_ptr<TpchFileSink>>(
        std::make_unique<MemorySink>(&captured.hashes[key], &captured.rows[key]));
  });
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  if (r.ok()) *result = *r;
  return captured.hashes;
}

}  // namespace

TEST(TpchDatagen, SameOutputForAnyThreadCount) {
  TpchDatagenResult one, four;
  const auto a = RunWithThreads(0.01, 1, &one);
  const auto b = RunWithThreads(0.01, 4, &four);
  EXPECT_EQ(a.size(), 8u);  // one file per table at SF 0.01
  EXPECT_EQ(a, b);
  for (int t = 0; t < 8; ++t) {
    EXPECT_EQ(one.rows[t], four.rows[t]) << t;
    EXPECT_EQ(one.files[t], 1) << t;
  }
  EXPECT_EQ(one.rows[static_cast<int>(TpchTable::kOrders)], 15000);
  EXPECT_EQ(one.rows[static_cast<int>(TpchTable::kPartsupp)], 8000);
}

TEST(TpchDatagen, SlicingDoesNotChangeRows) {
  const TpchSizes s = TpchSizes::ForScaleFactor(0.01).ValueOrDie();
  for (TpchTable t : kAllTpchTables) {
    const int64_t n = s.DriverRows(t);
    auto whole = GenerateTpchRows(s, t, 0, n);
    auto left = GenerateTpchRows(s, t, 0, n / 3);
    auto right = GenerateTpchRows(s, t, n / 3, n);
    ASSERT_TRUE(whole.ok() && left.ok() && right.ok());
    auto joined = ConcatenateBatches({*left, *right}, TpchSchema(t));
    ASSERT_TRUE(joined.ok());
    EXPECT_EQ(HashBatch(**whole), HashBatch(**joined)) << TpchTableName(t);
  }
}

TEST(TpchDatagen, FilePlansCoverEveryRowOnce) {
  const TpchSizes s = TpchSizes::ForScaleFactor(10).ValueOrDie();
  for (TpchTable t : kAllTpchTables) {
    const auto plans = PlanTpchFiles(s, t);
    int64_t next = 0;
    for (size_t i = 0; i < plans.size(); ++i) {
      EXPECT_EQ(plans[i].file_index, static_cast<int64_t>(i));
      EXPECT_EQ(plans[i].begin, next);
      EXPECT_GT(plans[i].end, plans[i].begin);
      next = plans[i].end;
    }
    EXPECT_EQ(next, s.DriverRows(t));
  }
  EXPECT_EQ(PlanTpchFiles(s, TpchTable::kLineitem).size(), 15u);  // 1M orders per file
}

TEST(TpchDatagen, SinkErrorStopsTheRun) {
  TpchDatagenOptions options;
  options.scale_factor = 0.01;
  options.threads = 2;
  auto r =
      GenerateTpch(options, [](TpchTable table, int64_t) -> Result<std::unique_ptr<TpchFileSink>> {
        if (table == TpchTable::kCustomer)
          return Status::IOError("cannot open customer/part-00000");
        return std::unique_ptr<TpchFileSink>(new NullSink());
      });
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "cannot open customer/part-00000");
}

}  // namespace tandem::tpch
