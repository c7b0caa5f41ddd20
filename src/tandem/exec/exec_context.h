// ExecContext: what one query's execution carries: evaluation settings (ANSI mode), the thread
// budget, the GPU memory settings, the session's table cache, and the metrics every operator
// records (rows, batches, bytes, time, device), which EXPLAIN ANALYZE, benchmarks and later
// event logs all read.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "tandem/column/table.h"
#include "tandem/common/oom_injection.h"
#include "tandem/common/status.h"
#include "tandem/exec/physical_plan.h"
#include "tandem/gpu/runtime.h"

namespace tandem {

struct PlanNode;
struct TableSource;
namespace gpu {
struct DeviceBatch;
}

// A table kept in memory for the rest of a session (CACHE TABLE), in GPU memory (`device`) or in
// host memory (`host`); exactly one is set. It holds all of the source's columns, or, where the
// whole table did not fit host memory, the narrower ones (`columns`). Scans that read only
// columns it holds read it from there instead of its files; the others read the files.
struct CachedTable {
  std::string name;
  std::shared_ptr<const TableSource> source;  // kept alive so the key below stays unique
  std::shared_ptr<const Table> host;
  std::shared_ptr<const gpu::DeviceBatch> device;
  // The source's columns held, ascending, in the order of host's and device's columns; empty
  // when it holds every column.
  std::vector<int> columns;
  // For a table cached in part: its files as they were read (FilesFingerprint,
  // cached_table_columns.h); scans line cached rows up with the files' only while it holds.
  std::string files_fingerprint;
  int64_t rows = 0;
  int64_t bytes = 0;
  mutable uint64_t last_used = 0;  // TableCache's clock when it was last found or put

  // Whether it holds every one of the source's columns `source_columns`.
  bool Holds(const std::vector<int>& source_columns) const {
    for (int c : source_columns) {
      if (!columns.empty() && !std::binary_search(columns.begin(), columns.end(), c)) return false;
    }
    return true;
  }
  // Where the held source columns `source_columns` lie among host's (or device's) columns.
  std::vector<int> SlotsOf(const std::vector<int>& source_columns) const {
    if (columns.empty()) return source_columns;
    std::vector<int> slots;
    slots.reserve(source_columns.size());
    for (int c : source_columns) {
      slots.push_back(
          static_cast<int>(std::lower_bound(columns.begin(), columns.end(), c) - columns.begin()));
    }
    return slots;
  }
};

// The session's cached tables, by the TableSource the plans' scans refer to. Every Find marks the
// table used, so that the least recently used one can move to host memory when the GPU is full.
class TableCache {
 public:
  const CachedTable* Find(const TableSource* source) const {
    const CachedTable* found = Peek(source);
    if (found) found->last_used = ++clock_;
    return found;
  }
  // The same without marking it used: for looking at a plan (EXPLAIN) rather than running it.
  const CachedTable* Peek(const TableSource* source) const {
    auto it = tables_.find(source);
    return it == tables_.end() ? nullptr : &it->second;
  }
  // Find and Peek for a scan of the source's columns `columns`: nullptr unless the cached table
  // holds all of them.
  const CachedTable* FindHolding(const TableSource* source, const std::vector<int>& columns) const {
    const CachedTable* found = Peek(source);
    return found && found->Holds(columns) ? Find(source) : nullptr;
  }
  const CachedTable* PeekHolding(const TableSource* source, const std::vector<int>& columns) const {
    const CachedTable* found = Peek(source);
    return found && found->Holds(columns) ? found : nullptr;
  }
  void Put(CachedTable table) {
    const TableSource* key = table.source.get();
    table.last_used = ++clock_;
    tables_[key] = std::move(table);
  }
  // The table in GPU memory used longest ago (leaving out those of `keep` and those of more
  // than `max_bytes`), or nullptr.
  CachedTable* LeastRecentlyUsedOnDevice(const std::set<const TableSource*>& keep = {},
                                         int64_t max_bytes = INT64_MAX) {
    CachedTable* oldest = nullptr;
    for (auto& [key, t] : tables_) {
      if (keep.count(key) || t.bytes > max_bytes) continue;
      if (t.device && (!oldest || t.last_used < oldest->last_used)) oldest = &t;
    }
    return oldest;
  }
  // The tables in GPU memory, used longest ago first.
  std::vector<CachedTable*> OnDeviceLeastRecentlyUsedFirst() {
    std::vector<CachedTable*> out;
    for (auto& [key, t] : tables_) {
      if (t.device) out.push_back(&t);
    }
    std::sort(out.begin(), out.end(), [](const CachedTable* a, const CachedTable* b) {
      return a->last_used < b->last_used;
    });
    return out;
  }
  // Drops tables cached in host memory only (leaving out those of `keep`), least recently used
  // first, until they held at least `bytes`; their queries read the files again. Returns the
  // names dropped, in the order they went.
  std::vector<std::string> DropFromHost(const std::set<const TableSource*>& keep, int64_t bytes) {
    std::vector<std::string> dropped;
    for (int64_t freed = 0; freed < bytes;) {
      auto oldest = tables_.end();
      for (auto it = tables_.begin(); it != tables_.end(); ++it) {
        const CachedTable& t = it->second;
        if (keep.count(it->first) || !t.host || t.device) continue;
        if (oldest == tables_.end() || t.last_used < oldest->second.last_used) oldest = it;
      }
      if (oldest == tables_.end()) break;
      freed += oldest->second.bytes;
      dropped.push_back(oldest->second.name);
      tables_.erase(oldest);
    }
    return dropped;
  }
  // Removes the entry of `source`; false if there is none.
  bool Remove(const TableSource* source) { return tables_.erase(source) > 0; }
  const std::map<const TableSource*, CachedTable>& tables() const { return tables_; }
  void Clear() { tables_.clear(); }

 private:
  std::map<const TableSource*, CachedTable> tables_;
  mutable uint64_t clock_ = 0;
};

// How GPU expressions run: tandem.exec.gpu.generatedKernels off, wait, background.
enum class GpuKernels : uint8_t { kInterpret, kGenerateWait, kGenerateBackground };
inline GpuKernels GpuKernelsSetting(const std::string& value) {
  if (value == "wait") return GpuKernels::kGenerateWait;
  if (value == "background") return GpuKernels::kGenerateBackground;
  return GpuKernels::kInterpret;
}

// Launches of GPU expression kernels in one query, by kind: kernels generated for the
// expression, or the interpreter (EXPLAIN ANALYZE prints them when generated kernels are on).
struct GpuExpressionLaunches {
  std::atomic<int64_t> generated{0};
  std::atomic<int64_t> interpreted{0};
  std::atomic<int64_t> fused{0};  // fused aggregate kernels (exec/gpu/fused_aggregate_gen.h)
};

struct EvalContext {
  // ANSI mode: integer overflow and division by zero raise errors. Default (Spark's non-ANSI
  // mode): division by zero gives NULL; integer overflow is an error in both modes (Tandem
  // never wraps silently).
  bool ansi = false;
  // Spark's LEGACY mode (spark.sql.ansi.enabled=false, plan fragments only): integer arithmetic
  // wraps in two's complement as Java's does, and decimal arithmetic that passes its result's
  // precision gives NULL. Set only on the CPU path: the GPU evaluator does not implement it.
  bool legacy_overflow = false;
  // tandem.exec.gpu.generatedKernels: GPU expressions in kernels generated per expression
  // (expr/gpu/generated_kernels.h) or interpreted.
  GpuKernels gpu_kernels = GpuKernels::kInterpret;
  // tandem.exec.gpu.kernelCacheDir ("": the default folder, gpu/jit/kernel_cache.h).
  std::string kernel_cache_dir;
  // Where the GPU evaluator counts its launches (null: not counted).
  std::shared_ptr<GpuExpressionLaunches> gpu_launches;
};

struct OperatorMetrics {
  std::string name;            // "HashJoin", "Scan lineitem" ...
  std::string device = "cpu";  // "cpu", "gpu", or "pcie" for host<->device transitions
  int64_t rows = 0;            // -1: not counted (a filter fused into a GPU aggregation)
  int64_t batches = 0;
  int64_t bytes = 0;
  double millis = 0;
  // How far the process's tracked host memory and GPU pool rose above their use when the
  // operator started (its working memory and output; -1: not measured).
  int64_t peak_host_bytes = -1;
  int64_t peak_device_bytes = -1;
  // Bytes the operator wrote to tandem.spill.dir (a grace join, a partitioned aggregation).
  int64_t spilled_bytes = 0;
};

class ExecContext {
 public:
  EvalContext eval;
  int num_threads = 0;  // 0 = all hardware threads
  // > 0: Parquet scans decode row groups in pieces of this many rows
  // (tandem.exec.cpu.scanPieceRows; 16K rows while an operator runs again after running out of host
  // memory; parquet::ReadOptions::piece_rows).
  int64_t scan_piece_rows = 0;
  bool scan_pieces_hold_pages = true;  // false on that retry: decompress a page for each piece
  gpu::DeviceMemoryConfig gpu_memory;  // used when the query is the first to touch the GPU
  // The session's cached tables, if any. A query that runs out of GPU memory may move the ones
  // it does not read to host memory (the executor's RunHost).
  TableCache* table_cache = nullptr;
  // Synchronize the GPU stream after every GPU operator so each one's time is its own (EXPLAIN
  // ANALYZE); otherwise work queued asynchronously is timed where the host waits for it.
  bool time_gpu_operators = false;
  // tandem.exec.pipelines: CPU operators run as pipelines (exec/cpu/pipeline.h), else one at a
  // time over whole tables.
  bool pipelines = true;
  // tandem.exec.dictionaryConditions: Parquet scans test the filter above them on dictionaries
  // (exec/cpu/scan_conditions.h).
  bool dictionary_conditions = true;
  // tandem.spill.dir: where sinks that outgrow tandem.memory.host.limit spill
  // (memory/spill_file.h).
  std::string spill_dir;
  // What this query spilled (bytes written), for --timing and EXPLAIN ANALYZE.
  int64_t spilled_bytes = 0;
  // tandem.memory.gpu.limit (0: none), applied when the query starts.
  int64_t gpu_limit_bytes = 0;
  // tandem.exec.gpu.chunkBytes (0: a quarter of what the GPU may hold): the slice of a GPU
  // part's input from host memory when that input is larger (docs/gpu.md, GPU chunks).
  int64_t gpu_chunk_bytes = 0;
  // tandem.exec.gpu.hashPartitions: GPU parts over cached tables run in this many hash
  // partitions ahead (exec/hash_partition_plan.h); 0: only after running out of GPU memory.
  int gpu_hash_partitions = 0;
  // tandem.exec.gpu.prefetchSlices: a sliced GPU part makes its next slice's input while the
  // current one runs (exec/slice_prefetch.h).
  bool gpu_prefetch_slices = true;
  // tandem.io.parquet.gpuDecompress: GPU Parquet scans decompress and parse pages on the GPU.
  bool gpu_parquet_decompress = false;
  // tandem.exec.cpu.batchRows: rows per batch of a CPU pipeline (scan pieces, morsels).
  int64_t cpu_batch_rows = int64_t{1} << 17;
  // tandem.sql.concurrentGpuTasks: queries (and Spark tasks) of the process on the GPU at once.
  // Each is admitted before its first GPU operator against its estimated peak of GPU memory
  // (memory/admission.h, exec/gpu_peak_estimate.h); 0: no bound by count.
  int64_t gpu_max_queries = 0;
  // The query's admission (-1: it did not use the GPU): the bytes it reserved, how long it
  // waited and how many queries were on the GPU when it entered.
  int64_t gpu_estimated_bytes = -1;  // its estimated peak (the reservation is capped)
  int64_t gpu_admitted_bytes = -1;
  double gpu_admission_wait_ms = 0;
  int gpu_admission_others = 0;
  // tandem.memory.host.admission: the query waits before it runs while the estimated host
  // peaks of those running plus its own would pass the host budget (exec/host_admission.h).
  bool host_admission = true;
  int64_t host_estimated_bytes = -1;  // its estimated peak of host memory (-1: not admitted)
  double host_admission_wait_ms = 0;
  int host_admission_others = 0;  // queries running when it entered
  int gpu_chunked_parts = 0;      // GPU parts or aggregations that ran in slices of their input
  int gpu_split_retries = 0;      // ... of them after running out of GPU memory whole
  int gpu_partitioned_parts = 0;  // GPU parts that ran in hash partitions of a join key
  int gpu_partition_retries = 0;  // ... of them after running out of GPU memory whole
  // tandem.test.injectOom and tandem.test.injectHostOom, armed when the query starts.
  OomInjection oom_injection;
  OomInjection host_oom_injection;
  // Parts of the plan that ran out of GPU memory and were run again on the CPU (the executor
  // counts them; EXPLAIN ANALYZE marks each).
  int gpu_oom_fallbacks = 0;
  // tandem.exec.gpu.spillInputs: a GPU operator's finished inputs go to host memory while a
  // later input runs out of GPU memory, and come back (exec/gpu_input_spill.cc); how often, and
  // the bytes moved.
  bool gpu_input_spill = true;
  int gpu_input_spills = 0;
  int64_t gpu_input_spill_bytes = 0;
  // CPU operators that ran out of host memory and succeeded when run again.
  int host_oom_retries = 0;
  // Cached tables moved from GPU to host memory to make room for the query.
  std::vector<std::string> cached_tables_moved;
  // The most tracked host memory and GPU pool memory in use while the query's operators ran
  // (the process's, other queries included), for --timing and benchmarks.
  int64_t peak_host_bytes = 0;
  int64_t peak_device_bytes = 0;
  // What each node was planned to run as (exec/physical_plan.h), built by the executor before
  // the run; EXPLAIN ANALYZE prints it beside what ran.
  std::shared_ptr<const PhysicalPlan> physical_plan;
  // Set by whoever may cancel the query (a Spark task): checked before each operator starts and
  // inside the operators that can run long on their own (joins, between slices of output).
  const std::atomic<bool>* cancelled = nullptr;
  bool Cancelled() const { return cancelled && cancelled->load(std::memory_order_relaxed); }
  static Status CancelledError() { return Status::Invalid("the query was cancelled"); }

  void Record(const PlanNode* node, const OperatorMetrics& m) {
    std::lock_guard<std::mutex> lock(mu_);
    metrics_[node] = m;
  }
  const OperatorMetrics* Find(const PlanNode* node) const {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = metrics_.find(node);
    return it == metrics_.end() ? nullptr : &it->second;
  }

  // Operators that ran again after running out of host memory (EXPLAIN ANALYZE says so).
  void MarkRetried(const PlanNode* node) {
    std::lock_guard<std::mutex> lock(mu_);
    retried_.insert(node);
  }
  bool WasRetried(const PlanNode* node) const {
    std::lock_guard<std::mutex> lock(mu_);
    return retried_.count(node) > 0;
  }

  // Drops what a node recorded (its part of the plan runs again, elsewhere).
  void Forget(const PlanNode* node) {
    std::lock_guard<std::mutex> lock(mu_);
    metrics_.erase(node);
  }

  // Every operator's metrics recorded so far.
  std::map<const PlanNode*, OperatorMetrics> AllMetrics() const {
    std::lock_guard<std::mutex> lock(mu_);
    return metrics_;
  }

  // Rows a node may stop after: a LIMIT without ORDER BY needs no more rows from below it than
  // its limit plus offset (which rows is not specified). -1: all rows. Set by the executor.
  int64_t RowBudget(const PlanNode* node) const {
    auto it = row_budgets_.find(node);
    return it == row_budgets_.end() ? -1 : it->second;
  }
  void SetRowBudget(const PlanNode* node, int64_t rows) { row_budgets_[node] = rows; }

 private:
  mutable std::mutex mu_;
  std::map<const PlanNode*, OperatorMetrics> metrics_;
  std::map<const PlanNode*, int64_t> row_budgets_;
  std::set<const PlanNode*> retried_;
};

}  // namespace tandem
