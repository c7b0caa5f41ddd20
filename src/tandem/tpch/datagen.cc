// GenerateTpch: a work queue of output files (orders+lineitem first, as the largest), worker
// threads that generate each file slice by slice into its sink(s), first error wins.
#include "tandem/tpch/datagen.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>

#include "tandem/tpch/generator.h"

namespace tandem::tpch {
namespace {

int64_t DriverRowsPerFile(TpchTable table) {
  switch (table) {
    case TpchTable::kOrders:
    case TpchTable::kLineitem:
    case TpchTable::kPartsupp:
      return 1'000'000;
    default:
      return 4'000'000;
  }
}

// Driver rows per generated batch: about 128K output rows.
int64_t DriverRowsPerSlice(TpchTable table) {
  switch (table) {
    case TpchTable::kOrders:
    case TpchTable::kLineitem:
    case TpchTable::kPartsupp:
      return 32'768;
    default:
      return 131'072;
  }
}

// A unit of work: one file of one table, or file i of orders together with file i of lineitem.
struct WorkUnit {
  TpchFilePlan plan;
  bool orders_and_lines;
};

class Generation {
 public:
  Generation(const TpchSizes& sizes, const TpchDatagenOptions& options,
             const TpchSinkFactory& open_sink)
      : sizes_(sizes), options_(options), open_sink_(open_sink) {}

  Status RunAll(const std::vector<WorkUnit>& units, int threads) {
    std::vector<std::thread> workers;
    for (int t = 1; t < threads; ++t) workers.emplace_back([&] { WorkLoop(units); });
    WorkLoop(units);
    for (auto& w : workers) w.join();
    return first_error_;
  }

  const TpchDatagenResult& result() const { return result_; }

 private:
  void WorkLoop(const std::vector<WorkUnit>& units) {
    while (!failed_.load()) {
      const size_t i = next_.fetch_add(1);
      if (i >= units.size()) return;
      Status st = RunUnit(units[i]);
      if (!st.ok()) {
        std::lock_guard<std::mutex> lock(mutex_);
        if (first_error_.ok()) first_error_ = st;
        failed_.store(true);
      }
    }
  }

  Status RunUnit(const WorkUnit& unit) {
    const TpchFilePlan& plan = unit.plan;
    const TpchTable first = unit.orders_and_lines ? TpchTable::kOrders : plan.table;
    TANDEM_ASSIGN_OR_RAISE(auto sink, open_sink_(first, plan.file_index));
    std::unique_ptr<TpchFileSink> line_sink;
    if (unit.orders_and_lines) {
      TANDEM_ASSIGN_OR_RAISE(line_sink, open_sink_(TpchTable::kLineitem, plan.file_index));
    }
    int64_t rows = 0, line_rows = 0;
    const int64_t step = DriverRowsPerSlice(plan.table);
    for (int64_t begin = plan.begin; begin < plan.end && !failed_.load(); begin += step) {
      const int64_t end = std::min(plan.end, begin + step);
      int64_t produced = 0;
      if (unit.orders_and_lines) {
        TANDEM_ASSIGN_OR_RAISE(OrdersAndLines both, GenerateOrdersAndLines(sizes_, begin, end));
        TANDEM_RETURN_NOT_OK(sink->Write(*both.orders));
        TANDEM_RETURN_NOT_OK(line_sink->Write(*both.lineitem));
        rows += both.orders->num_rows;
        line_rows += both.lineitem->num_rows;
        produced = both.orders->num_rows + both.lineitem->num_rows;
      } else {
        TANDEM_ASSIGN_OR_RAISE(BatchPtr batch, GenerateTpchRows(sizes_, plan.table, begin, end));
        TANDEM_RETURN_NOT_OK(sink->Write(*batch));
        rows += batch->num_rows;
        produced = batch->num_rows;
      }
      if (options_.progress) options_.progress->Advance(produced);
    }
    if (failed_.load()) return Status::OK();  // another unit's error is reported
    TANDEM_RETURN_NOT_OK(sink->Close());
    if (line_sink) TANDEM_RETURN_NOT_OK(line_sink->Close());
    std::lock_guard<std::mutex> lock(mutex_);
    result_.rows[static_cast<int>(first)] += rows;
    result_.files[static_cast<int>(first)] += 1;
    if (line_sink) {
      result_.rows[static_cast<int>(TpchTable::kLineitem)] += line_rows;
      result_.files[static_cast<int>(TpchTable::kLineitem)] += 1;
    }
    return Status::OK();
  }

  const TpchSizes& sizes_;
  const TpchDatagenOptions& options_;
  const TpchSinkFactory& open_sink_;
  std::atomic<size_t> next_{0};
  std::atomic<bool> failed_{false};
  std::mutex mutex_;
  Status first_error_;
  TpchDatagenResult result_;
};

}  // namespace

std::vector<TpchFilePlan> PlanTpchFiles(const TpchSizes& sizes, TpchTable table) {
  const int64_t rows = sizes.DriverRows(table);
  const int64_t per_file = DriverRowsPerFile(table);
  const int64_t files = std::max<int64_t>(1, (rows + per_file - 1) / per_file);
  std::vector<TpchFilePlan> plans;
  for (int64_t f = 0; f < files; ++f) {
    plans.push_back({table, f, rows * f / files, rows * (f + 1) / files});
  }
  return plans;
}

Result<TpchDatagenResult> GenerateTpch(const TpchDatagenOptions& options,
                                       const TpchSinkFactory& open_sink) {
  TANDEM_ASSIGN_OR_RAISE(TpchSizes sizes, TpchSizes::ForScaleFactor(options.scale_factor));
  std::vector<WorkUnit> units;
  for (const TpchFilePlan& plan : PlanTpchFiles(sizes, TpchTable::kOrders)) {
    units.push_back({plan, true});
  }
  for (TpchTable table : {TpchTable::kPartsupp, TpchTable::kPart, TpchTable::kCustomer,
                          TpchTable::kSupplier, TpchTable::kNation, TpchTable::kRegion}) {
    for (const TpchFilePlan& plan : PlanTpchFiles(sizes, table)) units.push_back({plan, false});
  }
  int threads =
      options.threads > 0 ? options.threads : static_cast<int>(std::thread::hardware_concurrency());
  threads = static_cast<int>(std::clamp<int64_t>(threads, 1, static_cast<int64_t>(units.size())));
  Generation generation(sizes, options, open_sink);
  TANDEM_RETURN_NOT_OK(generation.RunAll(units, threads));
  return generation.result();
}

}  // namespace tandem::tpch
