// The executor: runs the plan bottom-up (children first). CPU nodes that stream run as push-based
// pipelines (cpu_pipelines.cc), the others one operator at a time over exec/cpu/operators.h; GPU
// nodes (PlanNode::device, chosen by the placement planner) call exec/gpu/gpu_operators.h on device
// batches, all on one stream per query, and kTransition nodes copy between the two (gpu::ToDevice /
// gpu::ToHost). A node whose input lives on the other device without a transition in between gets
// an implicit copy, so any placement runs.
//
// Out of GPU memory: an operator that cannot get device memory fails with OutOfMemory, which
// ends the GPU part of the plan it is in; where that part hands its rows to the CPU (a
// DeviceToHost transition, or the query's result), the part runs again on the CPU from its
// inputs, and EXPLAIN ANALYZE marks its top node "ran on the CPU: <why>". The query goes on.
//
// Fusions: a Limit directly above a Sort runs as one TopN (either device); an Aggregate directly
// above a Filter as one filtered aggregation (either device); a Filter over a Parquet scan runs
// inside the scan (CPU). Scans of tables cached by the session (CACHE TABLE) read the cache.
// Every node's time (its own, children excluded), output rows, batches, bytes and device are
// recorded in the context; PlanToStringWithMetrics (plan_text.h) prints them for EXPLAIN ANALYZE.
//
// One query's run is a QueryRun (query_run.h); this file has its core (nodes on either device,
// host retries, GPU memory fallbacks) and the helpers its other files share: gpu_slices.cc,
// cpu_pipelines.cc and breaker_spill.cc.
#include "tandem/exec/executor.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <map>
#include <new>
#include <optional>
#include <set>

#include "tandem/catalog/table_source.h"
#include "tandem/common/out_of_memory.h"
#include "tandem/common/peak_window.h"
#include "tandem/common/query_progress.h"
#include "tandem/common/text.h"
#include "tandem/exec/cached_table_moves.h"
#include "tandem/exec/cpu/external_sort.h"
#include "tandem/exec/cpu/hash_aggregate.h"
#include "tandem/exec/cpu/operator_util.h"
#include "tandem/exec/cpu/operators.h"
#include "tandem/exec/cpu/ordered_window.h"
#include "tandem/exec/cpu/partition_sink.h"
#include "tandem/exec/cpu/pipeline.h"
#include "tandem/exec/cpu/spilling_pipeline.h"
#include "tandem/exec/cpu/window_spill.h"
#include "tandem/exec/gpu/gpu_operators_more.h"
#include "tandem/exec/gpu_peak_estimate.h"
#include "tandem/exec/host_admission.h"
#include "tandem/exec/query_run.h"
#include "tandem/exec/shared_subplans.h"
#include "tandem/exec/split_aggregate.h"
#include "tandem/gpu/device_column.h"
#include "tandem/gpu/device_limit.h"
#include "tandem/io/parquet/device_reader.h"
#include "tandem/memory/admission.h"
#include "tandem/memory/host_memory.h"
#include "tandem/plan/fusion.h"

namespace tandem {
namespace exec_detail {

const char* OperatorName(const PlanNode& node) {
  switch (node.kind) {
    case PlanKind::kScan:
      return "Scan";
    case PlanKind::kFilter:
      return "Filter";
    case PlanKind::kProject:
      return "Project";
    case PlanKind::kAggregate:
      return "HashAggregate";
    case PlanKind::kJoin:
      return node.left_keys.empty() && !node.condition ? "CrossJoin" : "HashJoin";
    case PlanKind::kSort:
      return "Sort";
    case PlanKind::kLimit:
      return "Limit";
    case PlanKind::kSetOp:
      return "SetOperation";
    case PlanKind::kWindow:
      return "Window";
    case PlanKind::kExpand:
      return "Expand";
    case PlanKind::kValues:
      return "Values";
    case PlanKind::kTransition:
      return node.device == Device::kGpu ? "HostToDevice" : "DeviceToHost";
  }
  return "?";
}

int ExpectedChildren(PlanKind kind) {
  switch (kind) {
    case PlanKind::kScan:
    case PlanKind::kValues:
      return 0;
    case PlanKind::kJoin:
    case PlanKind::kSetOp:
      return 2;
    default:
      return 1;
  }
}

bool ShapeIsValid(const PlanNode& node) {
  const int n = static_cast<int>(node.children.size());
  // A UNION [ALL] chain is one node with a branch per input.
  if (node.kind == PlanKind::kSetOp && node.set_op == SetOpKind::kUnion) return n >= 2;
  return n == ExpectedChildren(node.kind);
}

Status CheckOutput(const PlanNode& node, const Table& out) {
  for (const auto& b : out.batches) {
    if (!b || b->num_columns() != node.schema.num_fields()) {
      return Status::Internal(std::string(OperatorName(node)) + " produced a batch of " +
                              std::to_string(b ? b->num_columns() : -1) + " columns for " +
                              std::to_string(node.schema.num_fields()) + " output columns");
    }
  }
  return Status::OK();
}

Status CheckDeviceOutput(const PlanNode& node, const gpu::DeviceBatch* out) {
  if (!out || static_cast<int>(out->columns.size()) != node.schema.num_fields()) {
    return Status::Internal(std::string(OperatorName(node)) + " on the GPU produced " +
                            std::to_string(out ? static_cast<int>(out->columns.size()) : -1) +
                            " columns for " + std::to_string(node.schema.num_fields()) +
                            " output columns");
  }
  return Status::OK();
}

// Records metrics; a name the operator recorded itself (scans add what they read) is kept.
void RecordMetrics(const PlanNode& node, const std::string& default_name, const Table& out,
                   double millis, ExecContext& ctx) {
  OperatorMetrics m;
  const OperatorMetrics* own = ctx.Find(&node);
  m.name = own && !own->name.empty() ? own->name : default_name;
  if (ctx.WasRetried(&node)) m.name += " (ran again after host out of memory)";
  m.rows = out.num_rows();
  m.batches = static_cast<int64_t>(out.batches.size());
  m.bytes = cpu::opx::TableBytes(out);
  m.millis = millis;
  ctx.Record(&node, m);
}

void RecordDeviceMetrics(const PlanNode& node, const std::string& name, const char* device,
                         int64_t rows, int64_t bytes, double millis, ExecContext& ctx) {
  OperatorMetrics m;
  m.name = name;
  m.device = device;
  m.rows = rows;
  m.batches = 1;
  m.bytes = bytes;
  m.millis = millis;
  ctx.Record(&node, m);
}

double MillisSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

OperatorStart StartOperator() {
  return {Clock::now(), peak_window::Open(host_memory::InUse(), gpu::GetPoolStats().used_bytes)};
}

double MillisSince(const OperatorStart& start) { return MillisSince(start.time); }

// Adds how far host and GPU memory rose while the operator ran to what it recorded.
void RecordPeaks(const PlanNode& node, const OperatorStart& start, ExecContext& ctx) {
  const OperatorMetrics* m = ctx.Find(&node);
  if (!m) return;
  OperatorMetrics with = *m;
  with.peak_host_bytes = peak_window::HostRise(start.window);
  with.peak_device_bytes = peak_window::DeviceRise(start.window);
  ctx.Record(&node, with);
  ctx.peak_host_bytes =
      std::max(ctx.peak_host_bytes, start.window.host_start + with.peak_host_bytes);
  ctx.peak_device_bytes =
      std::max(ctx.peak_device_bytes, start.window.device_start + with.peak_device_bytes);
}

bool IsSelective(const PlanNode& filter) {
  const double in = filter.children[0]->estimated_rows;
  const double kept = filter.estimated_rows;
  return in > 0 && kept >= 0 && kept <= 0.5 * in;
}

bool OnGpu(const PlanNode& node) { return node.device == Device::kGpu; }

// Names in EXPLAIN ANALYZE the operators of a pipeline that spilled (the joins that went grace,
// with the bytes of both their sides; the aggregation if it was partitioned) and counts the
// query's bytes spilled. `chain` runs top-down, the steps of `spill` bottom-up.
void NoteSpills(const std::vector<const PlanNode*>& chain, const cpu::SpillableSteps& spill,
                const PlanNode& top, ExecContext& ctx) {
  int64_t total = 0;
  for (size_t i = 0; i < spill.build_spills.size() && i < chain.size(); ++i) {
    if (!spill.build_spills[i]) continue;
    const PlanNode* join = chain[chain.size() - 1 - i];
    OperatorMetrics m;
    if (const OperatorMetrics* own = ctx.Find(join)) m = *own;
    m.name += " (grace: " + std::to_string(spill.build_spills[i]->count()) + " partitions";
    if (i < spill.join_resplits.size() && spill.join_resplits[i] > 0) {
      m.name += ", " + std::to_string(spill.join_resplits[i]) + " split again";
    }
    m.name += ")";
    m.spilled_bytes = spill.build_spills[i]->bytes() + spill.probe_bytes[i];
    total += m.spilled_bytes;
    ctx.Record(join, m);
  }
  if (spill.aggregate_bytes > 0) {
    OperatorMetrics m;
    if (const OperatorMetrics* own = ctx.Find(&top)) m = *own;
    m.name +=
        " (partitioned on disk: " + std::to_string(spill.aggregate_partitions) + " partitions";
    if (spill.aggregate_resplits > 0) {
      m.name += ", " + std::to_string(spill.aggregate_resplits) + " split again";
    }
    if (spill.aggregate_passes > 1) {
      m.name += ", in " + std::to_string(spill.aggregate_passes) +
                " passes over the input, one per DISTINCT argument";
    }
    m.name += ")";
    m.spilled_bytes = spill.aggregate_bytes;
    total += m.spilled_bytes;
    ctx.Record(&top, m);
  }
  ctx.spilled_bytes += total;
}

// The columns of a table cached in host memory (cached.host set) that a scan reads, as a host
// table (zero-copy).
Table SelectHostColumns(const PlanNode& scan, const CachedTable& cached) {
  return cpu::opx::SelectColumns(*cached.host, cached.SlotsOf(scan.scan_columns), scan.schema);
}

gpu::DeviceBatchPtr SelectDeviceColumns(const PlanNode& scan, const CachedTable& cached) {
  const gpu::DeviceBatch& table = *cached.device;
  auto out = std::make_shared<gpu::DeviceBatch>();
  out->schema = scan.schema;
  out->num_rows = table.num_rows;
  for (int c : cached.SlotsOf(scan.scan_columns)) out->columns.push_back(table.columns[c]);
  return out;
}

// Where a GPU scan's time went: "host staging 812.0 ms over the threads, waited 40.1 ms for
// staging and 95.3 ms for the GPU, 1.1 GiB uploaded, 0 new pinned allocations". Much waiting
// for staging means the host threads (reading, decompressing) bound the scan; much waiting for
// the GPU, the uploads and kernels; new pinned allocations (the pool growing, or buffers past
// its maximum), slow pinning.
std::string ScanTimeSplit(const parquet::DeviceDecodeCounts& c) {
  char text[160];
  std::snprintf(text, sizeof(text),
                "host staging %.1f ms over the threads, waited %.1f ms for staging and %.1f ms "
                "for the GPU, ",
                c.stage_ms, c.wait_stage_ms, c.wait_gpu_ms);
  return text + FormatByteSize(c.uploaded_bytes) + " uploaded, " + std::to_string(c.pinned_misses) +
         " new pinned allocations" +
         (c.pinned_misses > 0 ? " (" + FormatByteSize(c.pinned_miss_bytes) + ")" : "");
}

// A GPU scan of Parquet files: pages read and decompressed by host threads, decoded on the GPU
// (io/parquet/device_reader.h); columns come out in the node's order under its names.
Result<gpu::DeviceBatchPtr> ScanParquetToDevice(const PlanNode& node, const gpu::Stream& stream,
                                                std::string* name, bool gpu_decompress,
                                                int slice_index, int slice_count) {
  const TableSource& source = *node.source;
  parquet::ReadOptions options;
  for (int c : node.scan_columns) options.columns.push_back(source.schema.field(c).name);
  // count(*) reads no column: read the narrowest-looking one for the row count.
  if (options.columns.empty() && source.schema.num_fields() > 0) {
    int pick = 0;
    for (int i = 0; i < source.schema.num_fields(); ++i) {
      if (!source.schema.field(i).type.is_string_like()) {
        pick = i;
        break;
      }
    }
    options.columns.push_back(source.schema.field(pick).name);
  }
  options.predicates = node.scan_predicates;
  options.split_start = source.split_start;
  options.split_length = source.split_length;
  options.slice_index = slice_index;
  options.slice_count = slice_count;
  options.gpu_decompress = gpu_decompress;
  parquet::ReadStats stats;
  parquet::DeviceDecodeCounts counts;
  TANDEM_ASSIGN_OR_RAISE(
      gpu::DeviceBatchPtr read,
      parquet::ReadParquetToDevice(source.path, options, &stats, stream, &counts));
  auto out = std::make_shared<gpu::DeviceBatch>();
  out->schema = node.schema;
  out->num_rows = read->num_rows;
  for (size_t i = 0; i < node.scan_columns.size(); ++i) {
    if (i >= read->columns.size() || read->columns[i]->type != node.schema.field(i).type) {
      return Status::Invalid("scan of " + source.name + ": column " + options.columns[i] +
                             " changed type or went missing (did the files change?)");
    }
    out->columns.push_back(read->columns[i]);
  }
  *name =
      "Scan " + source.name + " (parquet decoded on the GPU: " +
      std::to_string(stats.row_groups - stats.row_groups_skipped) + "/" +
      std::to_string(stats.row_groups) + " row groups, " + FormatByteSize(stats.bytes_read) +
      " read, " + std::to_string(counts.gpu_chunks) + " chunks on the GPU" +
      (counts.gpu_decompressed_chunks > 0 ? " (" + std::to_string(counts.gpu_decompressed_chunks) +
                                                " decompressed and parsed there)"
                                          : "") +
      (counts.gpu_decompress_fallbacks > 0
           ? ", " + std::to_string(counts.gpu_decompress_fallbacks) +
                 " left compressed for it but read on the host, the first because: " +
                 counts.first_fallback_reason
           : "") +
      ", " + std::to_string(counts.host_chunks) + " on the host; " + ScanTimeSplit(counts) + ")";
  return out;
}

// A pipeline's aggregation with one integer key gets its value range before the first row when
// the key comes unchanged from the source: from the Parquet footers' statistics (a hint: a value
// outside makes that partial state hash again), or from the table in memory.
void UseKnownKeyRange(const cpu::Pipeline& p, int workers, cpu::AggregateSink* sink) {
  const int key = sink->DirectIndexKeyColumn();
  const int column = key >= 0 ? cpu::SourceColumnOf(p, key) : -1;
  if (column < 0) return;
  int64_t lo = 0, span = 0;
  if (p.spilled) return;
  if (!p.scan) {
    if (cpu::DirectIndexRangeOf(p.input, column, workers, &lo, &span)) {
      sink->UseDirectIndex(lo, span);
    }
    return;
  }
  const TableSource& source = *p.scan->source;
  if (column >= static_cast<int>(p.scan->scan_columns.size())) return;
  const size_t field = static_cast<size_t>(p.scan->scan_columns[column]);
  if (field >= source.column_stats.size()) return;
  const SourceColumnStats& stats = source.column_stats[field];
  if (!stats.has_bounds || stats.null_count != 0 || stats.min < -9e15 || stats.max > 9e15) return;
  if (cpu::DirectIndexSpanFits(static_cast<int64_t>(stats.min), static_cast<int64_t>(stats.max),
                               source.estimated_rows, workers, &lo, &span)) {
    sink->UseDirectIndex(lo, span);
  }
}

// The metrics of a pipeline's nodes. Their threads interleave, so each step's time is its time
// over every thread divided by the threads (its share of the pipeline's wall time); a streamed
// scan gets the rest of the wall time (reading and decoding); a join adds its build.
void RecordPipelineMetrics(const cpu::Pipeline& p, bool aggregate, const cpu::PipelineTimes& times,
                           const std::vector<double>& build_ms, const Table& out,
                           ExecContext& ctx) {
  const double threads = std::max(1, times.threads);
  double others = times.sink_thread_ms / threads;
  const size_t n = p.steps.size();
  for (size_t i = 0; i < n; ++i) {
    const cpu::PipelineStep& step = *p.steps[i];
    const double build = build_ms[n - 1 - i];  // build_ms runs top-down, steps bottom-up
    const double ms = static_cast<double>(step.nanos.load()) / 1e6 / threads;
    others += ms;
    OperatorMetrics m;
    m.name = std::string(step.name()) + (build > 0 ? " (probe pipelined)" : " (pipelined)");
    m.rows = step.rows.load();
    m.batches = step.batches.load();
    m.bytes = step.bytes.load();
    m.millis = ms + build;
    if (step.fused_filter) {
      OperatorMetrics fm;
      fm.name = "Filter (in " + std::string(step.name()) + " probe)";
      fm.rows = step.fused_rows.load();
      fm.millis = static_cast<double>(step.fused_nanos.load()) / 1e6 / threads;
      m.millis -= fm.millis;
      ctx.Record(step.fused_filter, fm);
    }
    ctx.Record(&step.node(), m);
  }
  if (p.scan) {
    OperatorMetrics sm;
    if (const OperatorMetrics* own = ctx.Find(p.scan)) sm = *own;
    sm.millis = std::max(0.0, times.wall_ms - times.sink_finish_ms - others);
    sm.batches = times.source_batches;
    sm.bytes = times.source_bytes;
    ctx.Record(p.scan, sm);
  }
  if (aggregate) {
    OperatorMetrics m;
    m.name = "HashAggregate (pipeline sink)";
    m.rows = out.num_rows();
    m.batches = static_cast<int64_t>(out.batches.size());
    m.bytes = cpu::opx::TableBytes(out);
    m.millis = times.sink_thread_ms / threads + times.sink_finish_ms;
    ctx.Record(p.top, m);
  }
}

// Adds the metrics a node recorded for one slice of its input to its sums over the slices.
void AddSliceMetrics(const OperatorMetrics* slice, OperatorMetrics* sum) {
  if (!slice) return;
  if (sum->name.empty()) {
    sum->name = slice->name;
    sum->device = slice->device;
  }
  if (slice->rows >= 0 && sum->rows >= 0) sum->rows += slice->rows;
  if (slice->rows < 0) sum->rows = -1;
  sum->batches += slice->batches;
  sum->bytes += slice->bytes;
  sum->millis += slice->millis;
  sum->spilled_bytes += slice->spilled_bytes;
  sum->peak_host_bytes = std::max(sum->peak_host_bytes, slice->peak_host_bytes);
  sum->peak_device_bytes = std::max(sum->peak_device_bytes, slice->peak_device_bytes);
}

Status QueryRun::CheckShape(const PlanNode& node) const {
  if (!ShapeIsValid(node)) {
    return Status::Internal(std::string(OperatorName(node)) + " node with " +
                            std::to_string(node.children.size()) + " inputs");
  }
  for (const auto& c : node.children) {
    if (!c) return Status::Internal(std::string(OperatorName(node)) + " node with a null input");
  }
  return Status::OK();
}

Result<gpu::GpuContext*> QueryRun::Gpu() {
  if (!stream_) {
    std::string why;
    if (!gpu::DeviceUsable(&why)) {
      return Status::Invalid("the plan has GPU operators but no GPU is usable (" +
                             (why.empty() ? std::string("no CUDA device") : why) + ")");
    }
    TANDEM_RETURN_NOT_OK(gpu::InitRuntime(ctx_.gpu_memory));
    if (!gpu_turn_) TANDEM_RETURN_NOT_OK(AdmitToGpu());  // once, even if the stream failed
    TANDEM_ASSIGN_OR_RAISE(gpu::Stream stream, gpu::Stream::Create());
    stream_.emplace(std::move(stream));
    gpu_ctx_.stream = &*stream_;
    gpu_ctx_.eval = ctx_.eval;
  }
  return &gpu_ctx_;
}

Status QueryRun::AdmitToGpu() {
  const int64_t capacity = GpuCapacity();
  admission::Request request;
  request.estimated_bytes = EstimatedPeakHere(root_, SliceBytesOf(capacity));
  // Tables cached on the GPU hold their part of it (they move to host memory only when a
  // query runs out): admission shares what is left.
  int64_t cached = 0;
  if (ctx_.table_cache) {
    for (const auto& [source, t] : ctx_.table_cache->tables()) cached += t.device ? t.bytes : 0;
  }
  request.capacity_bytes = capacity <= 0 ? 0 : std::max<int64_t>(1, capacity - cached);
  request.max_queries = ctx_.gpu_max_queries;
  request.cancelled = ctx_.cancelled;
  TANDEM_ASSIGN_OR_RAISE(admission::Ticket ticket, admission::Admit(request));
  ctx_.gpu_estimated_bytes = request.estimated_bytes;
  ctx_.gpu_admitted_bytes = ticket.reserved_bytes();
  ctx_.gpu_admission_wait_ms = ticket.waited_ms();
  ctx_.gpu_admission_others = ticket.others_at_entry();
  gpu_turn_.emplace(std::move(ticket));
  return Status::OK();
}

Status QueryRun::FinishGpuOperator() {
  if (ctx_.time_gpu_operators && stream_) return stream_->Synchronize();
  return Status::OK();
}

Result<Table> QueryRun::ToHost(const gpu::DeviceBatch& batch) {
  TANDEM_ASSIGN_OR_RAISE(gpu::GpuContext * g, Gpu());
  TANDEM_ASSIGN_OR_RAISE(Table t, gpu::ToHost(batch, *g->stream));
  return cpu::opx::SplitLargeBatches(std::move(t));
}

Result<Table> QueryRun::ScanCached(const PlanNode& node, const CachedTable& cached) {
  if (cached.host) return SelectHostColumns(node, cached);
  if (!cached.device) return Status::Internal("cached table " + cached.name + " holds no data");
  // Cached on the GPU but scanned on the CPU (e.g. tandem.sql.device=cpu): copy what is read.
  return ToHost(*SelectDeviceColumns(node, cached));
}

void ForgetMetrics(const PlanNode& node, ExecContext& ctx) {
  ctx.Forget(&node);
  for (const auto& c : node.children) {
    if (c) ForgetMetrics(*c, ctx);
  }
}

bool QueryRun::MoveUnusedCachedTableToHost() {
  if (!ctx_.table_cache || !stream_) return false;
  // Only a table that takes at most half of the host budget's room: moving a large one (TPC-H
  // lineitem at SF100, 80 GB) for one query's part, rather than running that part on the CPU,
  // left every later query reading it from host memory on the CPU, and the host without room
  // for their own work (an H200 run under auto: Q13 moved lineitem, Q15 then ran out of host
  // memory, the queries after it 10-100x slower).
  const int64_t room = host_memory::Limit() - host_memory::InUse();
  if (room <= 0) return false;
  CachedTable* table = ctx_.table_cache->LeastRecentlyUsedOnDevice(scanned_sources_, room / 2);
  if (!table) return false;
  // The failed part's frees are ordered on the stream before the copy.
  if (!MoveCachedTableToHost(table, *stream_).ok()) return false;
  ctx_.cached_tables_moved.push_back(table->name);
  return true;
}

Result<Table> QueryRun::RerunOnCpu(const PlanNode& root, const Status& oom) {
  ForgetMetrics(root, ctx_);
  ++ctx_.gpu_oom_fallbacks;
  Result<Table> out = [&] {
    const ScopedValue<bool> cpu_only(&cpu_only_, true);
    return RunHost(root);
  }();
  if (!out.ok()) return out;
  if (const OperatorMetrics* m = ctx_.Find(&root)) {
    OperatorMetrics marked = *m;
    marked.name += " (ran on the CPU: " + oom.message() + ")";
    ctx_.Record(&root, marked);
  }
  return out;
}

Result<Table> QueryRun::RunHost(const PlanNode& node) {
  if (!shared_.IsShared(&node)) return RunHostOnce(node);
  if (std::optional<Table> kept = shared_.Reuse(&node)) {
    OperatorMetrics m;
    m.name = std::string(OperatorName(node)) +
             " (the output of an identical subplan, computed once for " +
             std::to_string(shared_.Occurrences(&node)) + ")";
    m.rows = kept->num_rows();
    m.batches = static_cast<int64_t>(kept->batches.size());
    m.bytes = cpu::opx::TableBytes(*kept);
    ctx_.Record(&node, m);
    return *std::move(kept);
  }
  TANDEM_ASSIGN_OR_RAISE(Table out, RunHostOnce(node));
  shared_.Keep(&node, out);
  return out;
}

Result<Table> QueryRun::RunHostOnce(const PlanNode& node) {
  TANDEM_RETURN_NOT_OK(CheckShape(node));
  TANDEM_RETURN_NOT_OK(CheckCancelled());
  if (cpu_only_ && node.kind == PlanKind::kTransition) return RunHost(*node.children[0]);
  if (node.kind == PlanKind::kTransition || OnGpuHere(node)) {
    // Device -> host: an explicit transition, or an implicit one for a GPU node read here.
    const PlanNode& source = node.kind == PlanKind::kTransition ? *node.children[0] : node;
    return RunGpuPart(node, source);
  }
  return RunCpuOperator(node);
}

Result<Table> QueryRun::RunGpuPart(const PlanNode& node, const PlanNode& source) {
  auto attempt = [&]() -> Result<Table> {
    if (forced_partitions_ && forced_partitions_->top == &source &&
        !forced_partitions_->split_aggregate && !in_slice_) {
      // The part's own rows in hash partitions: each partition's straight to the host.
      const OperatorStart start = StartOperator();
      Table out;
      out.schema = source.schema;
      TANDEM_RETURN_NOT_OK(
          RunInHashPartitions(*forced_partitions_, forced_partition_count_, &out).status());
      if (node.kind == PlanKind::kTransition) {
        TANDEM_RETURN_NOT_OK(CheckOutput(node, out));
        RecordDeviceMetrics(node, "DeviceToHost (partition by partition)", "pcie", out.num_rows(),
                            cpu::opx::TableBytes(out), MillisSince(start), ctx_);
        RecordPeaks(node, start, ctx_);
      }
      return out;
    }
    if (!forced_partitions_) {
      if (std::optional<Result<Table>> sliced = PartInSlices(node, source)) {
        return std::move(*sliced);
      }
    }
    TANDEM_ASSIGN_OR_RAISE(gpu::DeviceBatchPtr in, RunDevice(source));
    const OperatorStart start = StartOperator();
    TANDEM_ASSIGN_OR_RAISE(Table out, ToHost(*in));
    if (node.kind == PlanKind::kTransition) {
      TANDEM_RETURN_NOT_OK(CheckOutput(node, out));
      RecordDeviceMetrics(node, "DeviceToHost", "pcie", out.num_rows(), gpu::DeviceBytes(*in),
                          MillisSince(start), ctx_);
      RecordPeaks(node, start, ctx_);
    }
    return out;
  };
  auto out_of_memory = [](const Result<Table>& r) {
    return !r.ok() && r.status().code() == StatusCode::kOutOfMemory;
  };
  auto in_partitions = [&](const HashPartitionPlan& plan, int parts) {
    const ScopedValue<const HashPartitionPlan*> forced(&forced_partitions_, &plan);
    const ScopedValue<int> count(&forced_partition_count_, parts);
    ForgetMetrics(source, ctx_);
    return attempt();
  };
  // In pieces from the start: as many hash partitions as tandem.exec.gpu.hashPartitions asks,
  // or, when the part's estimated peak passes the room the GPU has left, hash partitions or
  // slices enough for a piece to fit (what a failed whole run would cost is saved).
  std::optional<HashPartitionPlan> partitions;
  int ahead = 1;
  const PlanNode* slice_top = nullptr;
  if (ctx_.gpu_hash_partitions > 1) {
    partitions = HashPartitionsFor(source);
    ahead = ctx_.gpu_hash_partitions;
  } else if ((ahead = PiecesAhead(source)) > 1) {
    partitions = HashPartitionsFor(source);
    // Partitions shrink what is split, not the inputs computed once (a Parquet scan or rows
    // from host memory): where those are what is large, slices do better.
    if (partitions && ReplicatedInputsTooLarge(*partitions)) partitions.reset();
    if (!partitions) slice_top = SplitRetryTop(source);
  }
  const bool partitions_first = partitions && ahead > 1;
  auto first_way = [&] {
    if (partitions_first) return in_partitions(*partitions, ahead);
    const ScopedValue<const PlanNode*> forced_top(&forced_slice_top_,
                                                  slice_top ? slice_top : forced_slice_top_);
    const ScopedValue<int> forced_count(&forced_slices_, slice_top ? ahead : forced_slices_);
    return attempt();
  };
  Result<Table> out = first_way();
  // Out of GPU memory: first run it in more and more hash partitions of the key its joins share,
  // where the plan allows (every join on the key and aggregation by it holds one partition at a
  // time), then in more and more slices of its input. Only then are other queries' cached
  // tables moved away (a copy of a table that may be most of the GPU, into host memory that
  // later queries need).
  std::string tried;  // what ran out of memory too, for the CPU run's note
  if (out_of_memory(out) && (partitions || (partitions = HashPartitionsFor(source)))) {
    const int first = partitions_first ? ahead * 4 : 4;
    int parts = first;
    for (; parts <= std::max(64, first) && out_of_memory(out) && !ctx_.Cancelled(); parts *= 4) {
      out = in_partitions(*partitions, parts);
    }
    if (out.ok()) ++ctx_.gpu_partition_retries;
    tried = "in up to " + std::to_string(parts / 4) + " hash partitions of " + partitions->key_name;
  }
  // Then split the part's input into more and more slices.
  if (out_of_memory(out)) {
    if (const PlanNode* top = SplitRetryTop(source)) {
      const int first_slices = slice_top ? std::min(64, ahead * 4) : 4;
      for (int slices = first_slices; slices <= 64 && out_of_memory(out) && !ctx_.Cancelled();
           slices *= 4) {
        const ScopedValue<const PlanNode*> forced_top(&forced_slice_top_, top);
        const ScopedValue<int> forced_count(&forced_slices_, slices);
        ForgetMetrics(source, ctx_);
        out = attempt();
      }
      if (out.ok()) ++ctx_.gpu_split_retries;
      tried += std::string(tried.empty() ? "" : ", ") + "in up to 64 slices of its input";
    }
  }
  // Then make room by moving the cached tables this query does not read to host memory, least
  // recently used first, running the part again on the GPU after each.
  while (out_of_memory(out) && MoveUnusedCachedTableToHost()) {
    ForgetMetrics(source, ctx_);
    out = first_way();
  }
  // Out of GPU memory anywhere in the GPU part that ends here: that part runs again on the CPU
  // (its device buffers are freed by now), and the query goes on.
  if (out_of_memory(out)) {
    return RerunOnCpu(
        source, tried.empty() ? out.status()
                              : Status::OutOfMemory(out.status().message() + "; also " + tried));
  }
  return out;
}

int64_t QueryRun::EstimatedPeakHere(const PlanNode& plan, int64_t slice_bytes) const {
  return EstimatedGpuPeakBytes(
      plan,
      [this](const PlanNode& scan) {
        const CachedTable* c = CacheOf(scan);
        return c && c->device;
      },
      slice_bytes);
}

bool QueryRun::ReplicatedInputsTooLarge(const HashPartitionPlan& plan) {
  const int64_t room = GpuCapacity() - gpu::GetPoolStats().used_bytes;
  int64_t replicated = 0;
  for (const PlanNode* r : plan.replicated) {
    replicated += EstimatedPeakHere(*r, std::numeric_limits<int64_t>::max() / 4);
  }
  // An input from the host that is split is uploaded whole first.
  for (const auto& [source, _col] : plan.split_scans) {
    if (source->kind != PlanKind::kTransition) continue;
    replicated += EstimatedPeakHere(*source, std::numeric_limits<int64_t>::max() / 4);
  }
  return replicated > room / 4;
}

int QueryRun::PiecesAhead(const PlanNode& part) {
  if (!stream_ && !Gpu().ok()) return 1;
  const int64_t capacity = GpuCapacity();
  const int64_t room = capacity - gpu::GetPoolStats().used_bytes;
  if (capacity <= 0 || room <= 0) return 1;
  const int64_t estimate = EstimatedPeakHere(part, std::numeric_limits<int64_t>::max() / 4);
  if (estimate <= room) return 1;
  // Pieces of at most half the room (the estimate is rough), in the retries' steps.
  int pieces = 4;
  while (pieces < 64 && static_cast<double>(estimate) / pieces > 0.5 * static_cast<double>(room)) {
    pieces *= 4;
  }
  return pieces;
}

Result<gpu::DeviceBatchPtr> QueryRun::RunDevice(const PlanNode& node) {
  if (!device_overrides_.empty()) {
    auto it = device_overrides_.find(&node);
    if (it != device_overrides_.end() && it->second) return it->second;
  }
  if (std::optional<Result<gpu::DeviceBatchPtr>> partitioned = InHashPartitions(node)) {
    return std::move(*partitioned);
  }
  if (std::optional<Result<gpu::DeviceBatchPtr>> sliced = StreamInSlices(node)) {
    return std::move(*sliced);
  }
  TANDEM_RETURN_NOT_OK(CheckShape(node));
  TANDEM_RETURN_NOT_OK(CheckCancelled());
  if (node.kind == PlanKind::kTransition || !OnGpuHere(node)) {
    // Host -> device.
    const PlanNode& source = node.kind == PlanKind::kTransition ? *node.children[0] : node;
    TANDEM_ASSIGN_OR_RAISE(Table in, RunHost(source));
    TANDEM_ASSIGN_OR_RAISE(gpu::GpuContext * g, Gpu());
    const OperatorStart start = StartOperator();
    TANDEM_ASSIGN_OR_RAISE(gpu::DeviceBatchPtr out, gpu::ToDevice(in, *g->stream));
    TANDEM_RETURN_NOT_OK(FinishGpuOperator());
    const double millis = MillisSince(start);
    if (node.kind == PlanKind::kTransition) {
      TANDEM_RETURN_NOT_OK(CheckDeviceOutput(node, out.get()));
      RecordDeviceMetrics(node, "HostToDevice", "pcie", out->num_rows, gpu::DeviceBytes(*out),
                          millis, ctx_);
      RecordPeaks(node, start, ctx_);
    }
    return out;
  }
  return RunGpuOperator(node);
}

Result<gpu::DeviceBatchPtr> QueryRun::RunGpuOperator(const PlanNode& node) {
  if (std::optional<Result<gpu::DeviceBatchPtr>> sliced = AggregateInSlices(node)) {
    return std::move(*sliced);
  }
  const PlanNode* input_of_fused = nullptr;  // TopN's sort, a fused filter
  std::string name = OperatorName(node);
  if (IsTopN(node)) {
    input_of_fused = node.children[0].get();
    name = "TopN";
  } else if (IsFilteredAggregate(node)) {
    input_of_fused = node.children[0].get();
  }
  std::vector<gpu::DeviceBatchPtr> inputs;
  const PlanNode& below = input_of_fused ? *input_of_fused : node;
  InputSpill spill;
  for (const auto& c : below.children) {
    TANDEM_ASSIGN_OR_RAISE(gpu::DeviceBatchPtr in, RunDeviceMakingRoom(*c, &inputs, &spill));
    inputs.push_back(std::move(in));
  }
  name += spill.Note();
  TANDEM_ASSIGN_OR_RAISE(gpu::GpuContext * g, Gpu());
  const OperatorStart start = StartOperator();
  Result<gpu::DeviceBatchPtr> result = Status::Internal("unreachable");
  switch (node.kind) {
    case PlanKind::kScan: {
      const CachedTable* cached = CacheOf(node);
      if (cached && cached->device) {
        result = SelectDeviceColumns(node, *cached);
        name = "Scan " + cached->name + " (cached in GPU memory)";
        break;
      }
      if (cached || !node.source || node.source->kind != TableSource::Kind::kParquet) {
        return Status::Internal("GPU scan of " +
                                std::string(node.source ? node.source->name : "?") +
                                ", which is neither Parquet files nor cached in GPU memory");
      }
      result = ScanParquetToDevice(node, *g->stream, &name, ctx_.gpu_parquet_decompress);
      break;
    }
    case PlanKind::kFilter:
      result = gpu::Filter(node, *inputs[0], *g);
      break;
    case PlanKind::kProject:
      result = gpu::Project(node, *inputs[0], *g);
      break;
    case PlanKind::kAggregate:
      result = gpu::HashAggregate(node, input_of_fused ? input_of_fused->predicate.get() : nullptr,
                                  *inputs[0], *g);
      break;
    case PlanKind::kJoin:
      result = gpu::HashJoin(node, *inputs[0], *inputs[1], *g);
      break;
    case PlanKind::kSort:
      result = gpu::Sort(node, *inputs[0], *g);
      break;
    case PlanKind::kLimit:
      result = input_of_fused ? gpu::TopN(node, *input_of_fused, *inputs[0], *g)
                              : gpu::Limit(node, *inputs[0], *g);
      break;
    case PlanKind::kSetOp:
      // A UNION chain of more than two branches folds pairwise: the union of the first two,
      // then of that and the third... (UNION's distinct rows fold the same way).
      result = gpu::SetOperation(node, *inputs[0], *inputs[1], *g);
      for (size_t k = 2; k < inputs.size() && result.ok(); ++k) {
        result = gpu::SetOperation(node, **result, *inputs[k], *g);
      }
      break;
    case PlanKind::kWindow:
      result = gpu::Window(node, *inputs[0], *g);
      break;
    case PlanKind::kExpand:
      result = gpu::Expand(node, *inputs[0], *g);
      break;
    default:
      return Status::Internal(std::string(OperatorName(node)) + " has no GPU operator");
  }
  if (!result.ok()) return result.status();
  TANDEM_RETURN_NOT_OK(FinishGpuOperator());
  inputs.clear();
  const double millis = MillisSince(start);
  TANDEM_RETURN_NOT_OK(CheckDeviceOutput(node, result->get()));
  const gpu::DeviceBatch& out = **result;
  if (input_of_fused) {
    const bool topn = node.kind == PlanKind::kLimit;
    RecordDeviceMetrics(*input_of_fused,
                        topn ? "Sort (in TopN)" : "Filter (fused into HashAggregate)", "gpu",
                        topn ? out.num_rows : -1, 0, 0, ctx_);
  }
  RecordDeviceMetrics(node, name, "gpu", out.num_rows, gpu::DeviceBytes(out), millis, ctx_);
  RecordPeaks(node, start, ctx_);
  return result;
}

Result<Table> QueryRun::RunCpuOperator(const PlanNode& node) {
  // Limit over Sort: one TopN.
  if (IsTopN(node)) {
    const PlanNode& sort = *node.children[0];
    if (std::optional<Result<Table>> sunk = TryTopNSink(node)) return std::move(*sunk);
    TANDEM_ASSIGN_OR_RAISE(Table input, RunHost(*sort.children[0]));
    const OperatorStart start = StartOperator();
    TANDEM_ASSIGN_OR_RAISE(Table out,
                           WithHostRetry(node, [&] { return cpu::TopN(node, sort, input, ctx_); }));
    const double millis = MillisSince(start);
    TANDEM_RETURN_NOT_OK(CheckOutput(node, out));
    RecordMetrics(sort, "Sort (in TopN)", out, 0, ctx_);
    RecordMetrics(node, "TopN", out, millis, ctx_);
    RecordPeaks(node, start, ctx_);
    return out;
  }
  if (node.kind == PlanKind::kSort && ctx_.pipelines) {
    return RunWholeOrSpilled(
        node, true, [&](const Table& in) { return cpu::Sort(node, in, ctx_); },
        [&](Table* in) { return ExternalSort(node, in); });
  }
  if (node.kind == PlanKind::kWindow && ctx_.pipelines) {
    return RunWholeOrSpilled(
        node, !cpu::SplitByPartitionKeys(node).steps.empty() || cpu::ComputesInOrderedChunks(node),
        [&](const Table& in) { return cpu::Window(node, in, ctx_); },
        [&](Table* in) { return WindowBySpilling(node, in); });
  }
  // An aggregation over a LEFT join built on its small left side: the join's rows go straight
  // into the aggregation as the right side streams in.
  if (node.kind == PlanKind::kAggregate && !node.children.empty() && node.children[0] &&
      !OnGpuHere(node) && node.children[0]->kind == PlanKind::kJoin &&
      node.children[0]->join_type == JoinType::kLeft) {
    if (std::optional<Result<Table>> fed = TryStreamIntoFlippedJoin(*node.children[0], &node)) {
      return std::move(*fed);
    }
  }
  // An aggregation over a join built whole on its small left side: when that runs out of host
  // memory (the join's output is a whole table), the join streams after all, into the
  // aggregation as its pipeline's sink (spilling if need be).
  if (node.kind == PlanKind::kAggregate && ctx_.pipelines && !OnGpuHere(node) &&
      !node.children.empty() && node.children[0] && BuiltOnItsLeft(*node.children[0]) &&
      !OnGpuHere(*node.children[0]) && cpu::CanGraceJoin(*node.children[0]) &&
      whole_join_running_.insert(&node).second) {
    Result<Table> whole = cpu::opx::CatchOutOfMemory([&] { return RunCpuOperator(node); });
    whole_join_running_.erase(&node);
    if (whole.ok() || whole.status().code() != StatusCode::kOutOfMemory || ctx_.Cancelled()) {
      return whole;
    }
    ForgetMetrics(node, ctx_);
    force_stream_.insert(node.children[0].get());
  }
  if (std::optional<Result<Table>> piped = TryPipeline(node)) return std::move(*piped);
  if (node.kind == PlanKind::kJoin) {
    if (std::optional<Result<Table>> flipped = TryStreamIntoFlippedJoin(node)) {
      return std::move(*flipped);
    }
  }
  // A SEMI or ANTI join built on its small left side collects its large right side whole; when
  // that does not fit, it streams like the others (right side built, spilled if need be).
  if (node.kind == PlanKind::kJoin && ctx_.pipelines && !OnGpuHere(node) &&
      cpu::CanGraceJoin(node) && whole_join_running_.insert(&node).second) {
    Result<Table> whole = cpu::opx::CatchOutOfMemory([&] { return RunCpuOperator(node); });
    whole_join_running_.erase(&node);
    if (whole.ok() || whole.status().code() != StatusCode::kOutOfMemory || ctx_.Cancelled()) {
      return whole;
    }
    force_stream_.insert(&node);
    if (!Streams(node)) return whole;
    return RunPipelineAt(node);
  }
  // Filter over a Parquet scan: each row group is filtered as soon as it is decoded.
  if (node.kind == PlanKind::kFilter && FilterFusesIntoScan(node)) {
    const PlanNode& scan = *node.children[0];
    const OperatorStart start = StartOperator();
    TANDEM_ASSIGN_OR_RAISE(
        Table out, WithHostRetry(node, [&] { return cpu::ScanFiltered(scan, node, ctx_); }));
    const double millis = MillisSince(start);
    TANDEM_RETURN_NOT_OK(CheckOutput(node, out));
    OperatorMetrics sm;
    if (const OperatorMetrics* own = ctx_.Find(&scan)) sm = *own;
    sm.millis = millis;
    ctx_.Record(&scan, sm);
    RecordMetrics(node, "Filter (fused into Scan)", out, 0, ctx_);
    RecordPeaks(scan, start, ctx_);
    return out;
  }
  // Aggregate over Filter: the filter runs inside the aggregation (no filtered copy), unless it
  // is selective and can run inside the scan below it instead.
  if (IsFilteredAggregate(node) &&
      !(FilterFusesIntoScan(*node.children[0]) && IsSelective(*node.children[0]))) {
    const PlanNode& filter = *node.children[0];
    TANDEM_ASSIGN_OR_RAISE(Table input, RunHost(*filter.children[0]));
    const OperatorStart start = StartOperator();
    int64_t selected = 0;
    TANDEM_ASSIGN_OR_RAISE(Table out, WithHostRetry(node, [&] {
                             return cpu::HashAggregateFiltered(node, *filter.predicate, input, ctx_,
                                                               &selected);
                           }));
    const double millis = MillisSince(start);
    TANDEM_RETURN_NOT_OK(CheckOutput(node, out));
    OperatorMetrics fm;
    fm.name = "Filter (fused into HashAggregate)";
    fm.rows = selected;
    ctx_.Record(&filter, fm);
    RecordMetrics(node, "HashAggregate", out, millis, ctx_);
    RecordPeaks(node, start, ctx_);
    return out;
  }
  // A UNION ALL that a reader can take from disk (RunPipelineSource): when its inputs do not fit
  // in memory together, their rows go to a file as they are made.
  const bool union_all =
      node.kind == PlanKind::kSetOp && node.set_op == SetOpKind::kUnion && node.set_all;
  std::unique_ptr<SpillFile>* union_file = union_all ? OutputFileOf(node) : nullptr;
  // UNION, INTERSECT and EXCEPT whose inputs or counts do not fit: partitioned on disk.
  const bool set_op_spills = ctx_.pipelines && node.kind == PlanKind::kSetOp && !union_all;
  auto out_of_memory = [&](const Status& st) {
    return st.code() == StatusCode::kOutOfMemory && !ctx_.Cancelled();
  };
  std::vector<Table> inputs;
  for (const auto& c : node.children) {
    Result<Table> t = RunHost(*c);
    if (!t.ok() && union_file && out_of_memory(t.status())) {
      inputs.clear();
      ForgetMetrics(node, ctx_);
      TANDEM_RETURN_NOT_OK(UnionAllToDisk(node, union_file));
      return Table{node.schema, {}};
    }
    if (!t.ok() && set_op_spills && out_of_memory(t.status())) {
      inputs.clear();
      ForgetMetrics(node, ctx_);
      return SetOpBySpilling(node);
    }
    TANDEM_RETURN_NOT_OK(t.status());
    inputs.push_back(std::move(t).ValueOrDie());
  }
  const OperatorStart start = StartOperator();
  std::string name = OperatorName(node);
  Result<Table> result = WithHostRetry(node, [&] { return ApplyCpuOperator(node, inputs, &name); });
  if (!result.ok() && set_op_spills && out_of_memory(result.status())) {
    inputs.clear();
    ForgetMetrics(node, ctx_);
    return SetOpBySpilling(node);
  }
  if (!result.ok()) return result.status();
  inputs.clear();  // free the inputs before the parent runs
  const double millis = MillisSince(start);
  TANDEM_RETURN_NOT_OK(CheckOutput(node, *result));
  RecordMetrics(node, name, *result, millis, ctx_);
  RecordPeaks(node, start, ctx_);
  return result;
}

Result<Table> QueryRun::ApplyCpuOperator(const PlanNode& node, const std::vector<Table>& inputs,
                                         std::string* name) {
  Result<Table> result = Status::Internal("unreachable");
  switch (node.kind) {
    case PlanKind::kScan:
      if (const CachedTable* cached = CacheOf(node)) {
        result = ScanCached(node, *cached);
        *name =
            "Scan " + cached->name + " (cached in " + (cached->host ? "host" : "GPU") + " memory)";
      } else {
        result = cpu::Scan(node, ctx_);
      }
      break;
    case PlanKind::kFilter:
      result = cpu::Filter(node, inputs[0], ctx_);
      break;
    case PlanKind::kProject:
      result = cpu::Project(node, inputs[0], ctx_);
      break;
    case PlanKind::kAggregate:
      result = cpu::HashAggregate(node, inputs[0], ctx_);
      break;
    case PlanKind::kJoin:
      result = cpu::HashJoin(node, inputs[0], inputs[1], ctx_);
      break;
    case PlanKind::kSort:
      result = cpu::Sort(node, inputs[0], ctx_);
      break;
    case PlanKind::kLimit:
      result = cpu::Limit(node, inputs[0], ctx_);
      break;
    case PlanKind::kSetOp:
      result = cpu::SetOperation(node, inputs, ctx_);
      break;
    case PlanKind::kWindow:
      result = cpu::Window(node, inputs[0], ctx_);
      break;
    case PlanKind::kExpand:
      result = cpu::Expand(node, inputs[0], ctx_);
      break;
    case PlanKind::kValues:
      result = cpu::Values(node, ctx_);
      break;
    case PlanKind::kTransition:
      return Status::Internal("transition run as a CPU operator");
  }
  return result;
}

// Runs a CPU operator over inputs it does not consume. One that runs out of host memory (the
// host budget, or an injected failure) runs again: with its Parquet scans reading row groups in
// pieces (a row group can be larger than the whole budget), then also on one thread (parallel
// partial states are the largest transient memory), before the error reaches the user.
Result<Table> QueryRun::WithHostRetry(const PlanNode& node,
                                      const std::function<Result<Table>()>& op) {
  // Rows of a scan's piece on a retry: a few MiB for the widest TPC-H scans.
  constexpr int64_t kRetryPieceRows = 16 * 1024;
  auto attempt = [&]() -> Result<Table> { return cpu::opx::CatchOutOfMemory(op); };
  Result<Table> result = attempt();
  for (int retry = 1; retry <= 2 && !result.ok() &&
                      result.status().code() == StatusCode::kOutOfMemory && !ctx_.Cancelled();
       ++retry) {
    const int threads = ctx_.num_threads;
    const int64_t pieces = ctx_.scan_piece_rows;
    const bool hold_pages = ctx_.scan_pieces_hold_pages;
    if (retry == 2) ctx_.num_threads = 1;
    ctx_.scan_piece_rows = kRetryPieceRows;
    ctx_.scan_pieces_hold_pages = false;
    result = attempt();
    ctx_.num_threads = threads;
    ctx_.scan_piece_rows = pieces;
    ctx_.scan_pieces_hold_pages = hold_pages;
    if (result.ok()) {
      ++ctx_.host_oom_retries;
      ctx_.MarkRetried(&node);
    }
  }
  return result;
}

// Progress units of a plan (common/query_progress.h): every scan's estimated rows times the
// columns it decodes.
// Counted in double and capped: a damaged footer may claim 2^62 rows.
double PlannedScanUnitsUncapped(const PlanNode& node) {
  double units = 0;
  if (node.kind == PlanKind::kScan && node.estimated_rows > 0) {
    units +=
        node.estimated_rows * static_cast<double>(std::max<size_t>(1, node.scan_columns.size()));
  }
  for (const auto& c : node.children) {
    if (c) units += PlannedScanUnitsUncapped(*c);
  }
  return units;
}

int64_t PlannedScanUnits(const PlanNode& node) {
  constexpr double kCap = 1e18;  // below INT64_MAX
  return static_cast<int64_t>(std::min(kCap, PlannedScanUnitsUncapped(node)));
}

}  // namespace exec_detail

using exec_detail::PlannedScanUnits;
using exec_detail::QueryRun;

// Row budgets (ExecContext::RowBudget): a LIMIT that no sort orders hands its limit plus offset
// down through the operators that pass rows on one for one (projections, UNION ALL) to the one
// that makes them (a join), which may stop there.
void SetRowBudgets(const PlanNode& node, int64_t budget, ExecContext& ctx) {
  if (budget >= 0) ctx.SetRowBudget(&node, budget);
  for (const auto& c : node.children) {
    if (!c) continue;
    int64_t below = -1;
    if (node.kind == PlanKind::kLimit && node.limit >= 0 && c->kind != PlanKind::kSort) {
      below = node.offset > INT64_MAX - node.limit ? INT64_MAX : node.limit + node.offset;
      if (budget >= 0) below = std::min(below, budget + node.offset);
    } else if (node.kind == PlanKind::kProject ||
               (node.kind == PlanKind::kSetOp && node.set_op == SetOpKind::kUnion &&
                node.set_all)) {
      below = budget;
    }
    SetRowBudgets(*c, below, ctx);
  }
}

namespace {

Result<Table> ExecuteWith(const PlanNode& plan, ExecContext& ctx, cpu::PipelineSink* rows_into) {
  // The host's turn first: what follows is process-wide (progress, injected failures, the GPU
  // limit) and must not change under a query that is running while this one waits.
  Result<std::optional<admission::Ticket>> host_turn =
      AdmitToHost(plan, ctx, /*result_held=*/rows_into == nullptr);
  if (!host_turn.ok()) return host_turn.status();
  query_progress::Begin(PlannedScanUnits(plan));
  SetRowBudgets(plan, -1, ctx);
  ArmOomInjection(ctx.oom_injection);
  ArmOomInjection(ctx.host_oom_injection, OomTarget::kHost);
  gpu::SetDeviceLimit(ctx.gpu_limit_bytes);
  ctx.peak_host_bytes = host_memory::InUse();
  Result<Table> out = [&] {
    QueryRun run(plan, ctx);
    ctx.physical_plan = std::make_shared<const PhysicalPlan>(run.PlanPhysical());
    return rows_into ? run.RunInto(plan, *rows_into) : run.RunHost(plan);
  }();
  // Injected failures belong to the query's execution, not to what its caller does next.
  ArmOomInjection(OomInjection{});
  ArmOomInjection(OomInjection{}, OomTarget::kHost);
  return out;
}

}  // namespace

Result<Table> Execute(const PlanNode& plan, ExecContext& ctx) {
  return ExecuteWith(plan, ctx, nullptr);
}

PhysicalPlan PlanPhysical(const PlanNode& plan, ExecContext& ctx) {
  // The row budgets of LIMITs tell identical subplans apart (shared_subplans.h), as in a run.
  SetRowBudgets(plan, -1, ctx);
  return QueryRun(plan, ctx).PlanPhysical();
}

Result<Table> Execute(const PlanNode& plan, ExecContext& ctx, cpu::PipelineSink& rows_into) {
  return ExecuteWith(plan, ctx, &rows_into);
}

}  // namespace tandem
