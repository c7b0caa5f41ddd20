// Measuring the cost model's figures on this machine (see calibrate.h).
#include "tandem/placement/calibrate.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <memory>
#include <optional>
#include <thread>

#include "tandem/catalog/catalog.h"
#include "tandem/column/column_builder.h"
#include "tandem/exec/executor.h"
#include "tandem/gpu/device.h"
#include "tandem/io/parquet/writer.h"
#include "tandem/placement/placement.h"
#include "tandem/plan/optimizer.h"
#include "tandem/sql/binder.h"
#include "tandem/sql/parser.h"

namespace tandem::placement {
namespace {

using Clock = std::chrono::steady_clock;

uint64_t Mix(uint64_t x) {  // splitmix64: deterministic pseudo-random values
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

constexpr int64_t kBatchRows = int64_t{1} << 17;
constexpr int64_t kScanRowGroupRows = int64_t{1} << 18;
constexpr int64_t kScanRowsFactor = 4;

std::shared_ptr<Table> MakeFact(int64_t rows) {
  auto table = std::make_shared<Table>();
  table->schema.fields = {{"k", DataType::Int64(), false},
                          {"g", DataType::Int32(), false},
                          {"v", DataType::Float64(), false},
                          {"d", DataType::Date32(), false},
                          {"s", DataType::String(), false}};
  const int64_t keys = std::max<int64_t>(1, rows / 4);
  for (int64_t begin = 0; begin < rows; begin += kBatchRows) {
    const int64_t n = std::min(kBatchRows, rows - begin);
    ColumnBuilder k(DataType::Int64(), n), g(DataType::Int32(), n), v(DataType::Float64(), n),
        d(DataType::Date32(), n), s(DataType::String(), n);
    for (int64_t i = begin; i < begin + n; ++i) {
      const uint64_t h = Mix(static_cast<uint64_t>(i));
      k.Append<int64_t>(static_cast<int64_t>(h % static_cast<uint64_t>(keys)));
      g.Append<int32_t>(static_cast<int32_t>(i % 16));
      v.Append<double>(static_cast<double>(h >> 11) / static_cast<double>(1ULL << 53));
      d.Append<int32_t>(static_cast<int32_t>(8000 + (h >> 20) % 3000));
      s.AppendString("item-" + std::to_string((h >> 40) % 1000));
    }
    auto batch = std::make_shared<Batch>();
    batch->schema = table->schema;
    batch->num_rows = n;
    batch->columns = {k.Finish(), g.Finish(), v.Finish(), d.Finish(), s.Finish()};
    table->batches.push_back(std::move(batch));
  }
  return table;
}

std::shared_ptr<Table> MakeDimension(int64_t rows) {
  auto table = std::make_shared<Table>();
  table->schema.fields = {{"k", DataType::Int64(), false}, {"w", DataType::Float64(), false}};
  for (int64_t begin = 0; begin < rows; begin += kBatchRows) {
    const int64_t n = std::min(kBatchRows, rows - begin);
    ColumnBuilder k(DataType::Int64(), n), w(DataType::Float64(), n);
    for (int64_t i = begin; i < begin + n; ++i) {
      k.Append<int64_t>(i);
      w.Append<double>(static_cast<double>(Mix(static_cast<uint64_t>(i) + 7) % 1000) / 10);
    }
    auto batch = std::make_shared<Batch>();
    batch->schema = table->schema;
    batch->num_rows = n;
    batch->columns = {k.Finish(), w.Finish()};
    table->batches.push_back(std::move(batch));
  }
  return table;
}

struct Probe {
  OpClass op;
  std::string sql;
};

// Queries whose first node of the probed class is measured. `{f}` is the fact table, `{d}` the
// dimension table, `{p}` the fact table as Parquet, `{half}` half the fact rows.
std::vector<Probe> Probes() {
  return {
      {OpClass::kScan, "SELECT k, g, v, d, s FROM {p}"},
      {OpClass::kFilter, "SELECT k, v, s FROM {f} WHERE v < 0.5"},
      {OpClass::kProject, "SELECT k * 2 + 1 AS a, v * 1.5 + 2 AS b, g + 1 AS c FROM {f}"},
      {OpClass::kAggregate, "SELECT k, sum(v) AS sv, count(*) AS n FROM {f} GROUP BY k"},
      {OpClass::kAggregateFewGroups, "SELECT g, sum(v) AS sv, min(d) AS md FROM {f} GROUP BY g"},
      {OpClass::kJoin, "SELECT {f}.v, {d}.w FROM {f} JOIN {d} ON {f}.k = {d}.k"},
      {OpClass::kSort, "SELECT k, v FROM {f} ORDER BY v"},
      {OpClass::kTopN, "SELECT k, v FROM {f} ORDER BY v LIMIT 10"},
      {OpClass::kLimit, "SELECT k, v, s FROM {f} LIMIT {half}"},
      {OpClass::kSetOp, "SELECT k FROM {f} INTERSECT SELECT k FROM {d}"},
      {OpClass::kWindow, "SELECT k, row_number() OVER (PARTITION BY g ORDER BY v) AS r FROM {f}"},
  };
}

std::string Substitute(std::string sql, const std::string& fact, const std::string& dim,
                       const std::string& parquet, int64_t half) {
  auto replace = [&](const std::string& from, const std::string& to) {
    for (size_t at = sql.find(from); at != std::string::npos; at = sql.find(from, at + to.size())) {
      sql.replace(at, from.size(), to);
    }
  };
  replace("{f}", fact);
  replace("{d}", dim);
  replace("{p}", parquet);
  replace("{half}", std::to_string(half));
  return sql;
}

bool Matches(const PlanNode& n, OpClass op) {
  if (op == OpClass::kTopN) {
    return n.kind == PlanKind::kLimit && !n.children.empty() && n.children[0] &&
           n.children[0]->kind == PlanKind::kSort;
  }
  if (op == OpClass::kLimit && n.kind == PlanKind::kLimit) {
    return n.children.empty() || !n.children[0] || n.children[0]->kind != PlanKind::kSort;
  }
  if (op == OpClass::kAggregate || op == OpClass::kAggregateFewGroups) {
    return n.kind == PlanKind::kAggregate;  // the probe decides how many groups, not estimates
  }
  return n.kind != PlanKind::kTransition && ClassOf(n) == op;
}

const PlanNode* FindNode(const PlanNode& n, OpClass op) {
  if (Matches(n, op)) return &n;
  for (const PlanPtr& c : n.children) {
    if (!c) continue;
    if (const PlanNode* found = FindNode(*c, op)) return found;
  }
  return nullptr;
}

void CollectTransitions(const PlanNode& n, std::vector<const PlanNode*>* out) {
  if (n.kind == PlanKind::kTransition) out->push_back(&n);
  for (const PlanPtr& c : n.children) {
    if (c) CollectTransitions(*c, out);
  }
}

// One measured operator run.
struct Sample {
  double seconds = 0;
  double work_bytes = 0;
};

struct TransferSample {
  Device to = Device::kGpu;
  double seconds = 0;
  double bytes = 0;
};

struct RunResult {
  std::optional<Sample> sample;
  std::vector<TransferSample> transfers;
  double wall_seconds = 0;
  double node_seconds = 0;  // sum over every node's own time
};

class Harness {
 public:
  Harness(const CalibrateOptions& options) : options_(options) {}

  Catalog& catalog() { return catalog_; }

  Result<RunResult> Run(const std::string& sql, OpClass op, Device device) {
    TANDEM_ASSIGN_OR_RAISE(std::vector<sql::ParsedStatement> statements, sql::ParseSql(sql));
    if (statements.size() != 1 || !statements[0].tree.contains("SelectStmt")) {
      return Status::Internal("calibration query is not one SELECT: " + sql);
    }
    TANDEM_ASSIGN_OR_RAISE(PlanPtr plan,
                           sql::BindSelect(statements[0].tree["SelectStmt"], sql, catalog_));
    TANDEM_ASSIGN_OR_RAISE(plan, Optimize(std::move(plan)));
    PlacementOptions placement;
    placement.mode = device == Device::kGpu ? DeviceMode::kGpu : DeviceMode::kCpu;
    placement.gpu_allowed = device == Device::kGpu;
    placement.profile.has_gpu = device == Device::kGpu;
    placement.profile.cpu = BuiltinGenericCpu();
    placement.profile.gpu = BuiltinH200();
    placement.profile.transfer = BuiltinH200Transfer();
    TANDEM_ASSIGN_OR_RAISE(PlacementResult placed, Place(plan, placement));
    ExecContext ctx;
    ctx.num_threads = options_.threads;
    ctx.gpu_memory = options_.gpu_memory;
    ctx.time_gpu_operators = true;
    const auto start = Clock::now();
    TANDEM_RETURN_NOT_OK(Execute(*placed.plan, ctx).status());
    RunResult r;
    r.wall_seconds = std::chrono::duration<double>(Clock::now() - start).count();
    SumNodeSeconds(*placed.plan, ctx, &r.node_seconds);
    if (const PlanNode* node = FindNode(*placed.plan, op); node && node->device == device) {
      if (const OperatorMetrics* m = ctx.Find(node)) {
        const PlanNode& bottom = op == OpClass::kTopN ? *node->children[0] : *node;
        double in = 0;
        std::vector<double> bytes, rows;
        for (const PlanPtr& c : bottom.children) {
          const OperatorMetrics* cm = c ? ctx.Find(c.get()) : nullptr;
          bytes.push_back(cm ? static_cast<double>(cm->bytes) : 0);
          rows.push_back(cm ? static_cast<double>(std::max<int64_t>(cm->rows, 0)) : 0);
          in += bytes.back();
        }
        if (op == OpClass::kJoin && bytes.size() == 2) {
          in = JoinInputBytes(bottom, bytes[0], bytes[1], rows[0], rows[1]);
        }
        Sample s;
        s.seconds = m->millis / 1e3;
        s.work_bytes = WorkBytes(op, in, static_cast<double>(m->bytes),
                                 static_cast<double>(std::max<int64_t>(m->rows, 1)));
        r.sample = s;
      }
    }
    std::vector<const PlanNode*> transitions;
    CollectTransitions(*placed.plan, &transitions);
    for (const PlanNode* t : transitions) {
      if (const OperatorMetrics* m = ctx.Find(t)) {
        r.transfers.push_back({t->device, m->millis / 1e3, static_cast<double>(m->bytes)});
      }
    }
    return r;
  }

 private:
  static void SumNodeSeconds(const PlanNode& n, const ExecContext& ctx, double* total) {
    if (const OperatorMetrics* m = ctx.Find(&n)) *total += m->millis / 1e3;
    for (const PlanPtr& c : n.children) {
      if (c) SumNodeSeconds(*c, ctx, total);
    }
  }

  const CalibrateOptions& options_;
  Catalog catalog_;
};

// The fastest of `repeats` runs (by the probed operator's time).
Result<RunResult> Best(Harness& h, const std::string& sql, OpClass op, Device device, int repeats) {
  auto key = [](const RunResult& r) { return r.sample ? r.sample->seconds : r.wall_seconds; };
  std::optional<RunResult> best;
  for (int i = 0; i < std::max(1, repeats); ++i) {
    TANDEM_ASSIGN_OR_RAISE(RunResult r, h.Run(sql, op, device));
    if (!best || key(r) < key(*best)) best = std::move(r);
  }
  return std::move(*best);
}

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

std::string NowUtc() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string HostName() {
  char buf[256] = {0};
  if (::gethostname(buf, sizeof(buf) - 1) != 0) return "";
  return buf;
}

std::string Rate(double bytes_per_s) {
  char buf[48];
  std::snprintf(buf, sizeof(buf), "%.2f GB/s", bytes_per_s / 1e9);
  return buf;
}

// Measures one device's figures into `profile` (unmeasured classes keep their defaults).
Status MeasureDevice(Harness& h, const CalibrateOptions& options, Device device,
                     const std::string& parquet_name, DeviceProfile* profile,
                     std::vector<TransferSample>* transfers, const ProgressFn& progress) {
  const char* dev = device == Device::kGpu ? "gpu" : "cpu";
  // Fixed costs from a tiny table.
  std::vector<double> fixed;
  std::vector<double> overhead;
  for (OpClass op : {OpClass::kFilter, OpClass::kProject, OpClass::kAggregate}) {
    for (const Probe& p : Probes()) {
      if (p.op != op) continue;
      TANDEM_ASSIGN_OR_RAISE(
          RunResult r, Best(h, Substitute(p.sql, "tiny", "tiny_dim", parquet_name, 500), op, device,
                            options.repeats));
      if (r.sample) fixed.push_back(r.sample->seconds);
      overhead.push_back(std::max(0.0, r.wall_seconds - r.node_seconds));
      break;
    }
  }
  profile->operator_fixed_s = Median(fixed);
  if (device == Device::kGpu) {
    // The GPU's per-query cost: the tiny queries' time outside any operator, beyond the CPU's.
    profile->query_fixed_s = Median(overhead);
  }
  char fixed_text[96];
  std::snprintf(fixed_text, sizeof(fixed_text), "%s fixed cost per operator: %.1f us", dev,
                profile->operator_fixed_s * 1e6);
  progress(fixed_text);

  std::vector<double> sums(kNumOpClasses, 0), counts(kNumOpClasses, 0);
  for (const Probe& p : Probes()) {
    const std::string sql =
        Substitute(p.sql, "fact", "dim", parquet_name, std::max<int64_t>(1, options.rows / 2));
    Result<RunResult> r = Best(h, sql, p.op, device, options.repeats);
    if (!r.ok()) {
      progress(std::string(dev) + " " + OpClassName(p.op) + ": not measured (" +
               r.status().message() + ")");
      continue;
    }
    for (const TransferSample& t : r->transfers) transfers->push_back(t);
    if (!r->sample) {
      progress(std::string(dev) + " " + OpClassName(p.op) + ": not measured (not on the " + dev +
               ")");
      continue;
    }
    const double seconds = std::max(1e-7, r->sample->seconds - profile->operator_fixed_s);
    const double throughput = r->sample->work_bytes / seconds;
    if (device == Device::kGpu && p.op == OpClass::kScan) {
      // A GPU scan of Parquet files (host threads read, the GPU decodes) has its own rate; the
      // GPU's kScan throughput prices tables already cached in device memory.
      profile->file_scan_bytes_per_s = throughput;
      progress("gpu file scan: " + Rate(throughput));
      continue;
    }
    const int i = static_cast<int>(p.op);
    sums[static_cast<size_t>(i)] += throughput;
    counts[static_cast<size_t>(i)] += 1;
    progress(std::string(dev) + " " + OpClassName(p.op) + ": " + Rate(throughput));
  }
  for (int i = 0; i < kNumOpClasses; ++i) {
    const size_t u = static_cast<size_t>(i);
    if (counts[u] > 0) profile->throughput[u] = sums[u] / counts[u];
  }
  return Status::OK();
}

}  // namespace

Result<Calibration> Calibrate(const CalibrateOptions& options, const ProgressFn& progress_in) {
  const ProgressFn progress = progress_in ? progress_in : [](const std::string&) {};
  if (options.rows < 1000) return Status::Invalid("calibration needs at least 1000 rows");
  Calibration c;
  c.created = NowUtc();
  c.host = HostName();
  c.rows = options.rows;
  c.cpu_threads =
      options.threads > 0 ? options.threads : static_cast<int>(std::thread::hardware_concurrency());
  c.cpu = BuiltinGenericCpu();
  c.cpu.threads = c.cpu_threads;

  Harness h(options);
  progress("building synthetic tables (" + std::to_string(options.rows) + " rows)");
  auto fact = MakeFact(options.rows);
  TANDEM_RETURN_NOT_OK(h.catalog().AddTable("fact", TableSource::Memory("fact", fact), true));
  TANDEM_RETURN_NOT_OK(h.catalog().AddTable(
      "dim", TableSource::Memory("dim", MakeDimension(std::max<int64_t>(1, options.rows / 4))),
      true));
  TANDEM_RETURN_NOT_OK(
      h.catalog().AddTable("tiny", TableSource::Memory("tiny", MakeFact(1000)), true));
  TANDEM_RETURN_NOT_OK(
      h.catalog().AddTable("tiny_dim", TableSource::Memory("tiny_dim", MakeDimension(250)), true));
  const std::filesystem::path parquet =
      std::filesystem::temp_directory_path() /
      ("tandem_calibrate_" + std::to_string(::getpid()) + ".parquet");
  struct RemoveFile {
    std::filesystem::path path;
    ~RemoveFile() {
      std::error_code ec;
      std::filesystem::remove(path, ec);
    }
  } remove_parquet{parquet};
  // Laid out like the files people scan (Zstandard, row groups of 256K rows, as `tandem datagen
  // fallback` writes them): one or two row groups would leave most host threads idle and price
  // the CPU's scans at a fraction of their real rate.
  parquet::WriteOptions layout;
  layout.codec = parquet::CompressionCodec::ZSTD;
  layout.row_group_rows = kScanRowGroupRows;
  // Four times the other probes' rows: a scan long enough for every host thread and the GPU's
  // pipeline to reach their steady rate.
  TANDEM_RETURN_NOT_OK(
      parquet::WriteParquet(parquet.string(), *MakeFact(kScanRowsFactor * options.rows), layout));
  TANDEM_ASSIGN_OR_RAISE(auto source, TableSource::Parquet("fact_parquet", parquet.string()));
  TANDEM_RETURN_NOT_OK(h.catalog().AddTable("fact_parquet", source, true));

  std::vector<TransferSample> transfers;
  TANDEM_RETURN_NOT_OK(
      MeasureDevice(h, options, Device::kCpu, "fact_parquet", &c.cpu, &transfers, progress));

  std::string why_not;
  if (!options.measure_gpu) {
    progress("gpu: skipped");
    return c;
  }
  const auto startup_begin = Clock::now();
  if (!gpu::DeviceUsable(&why_not)) {
    const std::string prefix = "not supported yet: ";
    if (why_not.rfind(prefix, 0) == 0) why_not.erase(0, prefix.size());
    progress("gpu: not measured (" + (why_not.empty() ? std::string("no CUDA device") : why_not) +
             ")");
    return c;
  }
  // Start-up: the first use of the GPU in a process (context, pools, a stream, an allocation).
  TANDEM_RETURN_NOT_OK(gpu::InitRuntime(options.gpu_memory));
  {
    TANDEM_ASSIGN_OR_RAISE(gpu::Stream stream, gpu::Stream::Create());
    TANDEM_ASSIGN_OR_RAISE(gpu::DeviceBuffer buffer, gpu::DeviceBuffer::Allocate(8, stream));
    TANDEM_RETURN_NOT_OK(stream.Synchronize());
  }
  const double startup_s = std::chrono::duration<double>(Clock::now() - startup_begin).count();
  if (Result<gpu::DeviceInfo> info = gpu::QueryDevice(); info.ok()) c.gpu_name = info->name;
  c.gpu = BuiltinH200();
  c.gpu.startup_s = startup_s;
  char startup_text[64];
  std::snprintf(startup_text, sizeof(startup_text), "gpu start-up: %.1f ms", startup_s * 1e3);
  progress(startup_text);
  transfers.clear();
  TANDEM_RETURN_NOT_OK(
      MeasureDevice(h, options, Device::kGpu, "fact_parquet", &c.gpu, &transfers, progress));
  // Bandwidth from the large transfers; the fixed cost from the small ones.
  c.transfer = BuiltinH200Transfer();
  std::vector<double> small;
  double bytes[2] = {0, 0}, seconds[2] = {0, 0};
  for (const TransferSample& t : transfers) {
    const int dir = t.to == Device::kGpu ? 0 : 1;
    if (t.bytes < (1 << 20)) {
      small.push_back(t.seconds);
    } else {
      bytes[dir] += t.bytes;
      seconds[dir] += t.seconds;
    }
  }
  if (!small.empty()) c.transfer.fixed_s = Median(small);
  if (seconds[0] > 0) c.transfer.host_to_device_bytes_per_s = bytes[0] / seconds[0];
  if (seconds[1] > 0) c.transfer.device_to_host_bytes_per_s = bytes[1] / seconds[1];
  progress("host->device: " + Rate(c.transfer.host_to_device_bytes_per_s) +
           ", device->host: " + Rate(c.transfer.device_to_host_bytes_per_s));
  c.has_gpu = true;
  return c;
}

}  // namespace tandem::placement
