// The executor's inside (exec/executor.h runs it): QueryRun, one query's run, whose methods live
// in several files by idea: executor.cc (running nodes on either device, host retries, GPU
// memory fallbacks), gpu_slices.cc (a GPU part over slices of its input), cpu_pipelines.cc (CPU
// pipelines and their grace joins), breaker_spill.cc (sorts and windows through disk); and the
// helpers they share for checking outputs and recording metrics. Not for use outside exec/.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "tandem/catalog/table_source.h"
#include "tandem/common/peak_window.h"
#include "tandem/exec/cpu/hash_aggregate.h"
#include "tandem/exec/cpu/pipeline.h"
#include "tandem/exec/cpu/spilling_pipeline.h"
#include "tandem/exec/exec_context.h"
#include "tandem/exec/gpu/gpu_operators_more.h"
#include "tandem/exec/hash_partition_plan.h"
#include "tandem/exec/physical_plan.h"
#include "tandem/exec/shared_subplans.h"
#include "tandem/exec/slice_prefetch.h"
#include "tandem/exec/split_aggregate.h"
#include "tandem/memory/admission.h"
#include "tandem/plan/fusion.h"

namespace tandem::exec_detail {

using Clock = std::chrono::steady_clock;
using plan::IsFilteredAggregate;
using plan::IsTopN;

// Operator names for metrics ("HashJoin", "Sort" ...), and the checks of a node's shape and of
// what an operator produced (the schema's column count, on either device).
const char* OperatorName(const PlanNode& node);
bool ShapeIsValid(const PlanNode& node);
// A filter estimated to keep at most half of its input rows.
bool IsSelective(const PlanNode& filter);
Status CheckOutput(const PlanNode& node, const Table& out);
Status CheckDeviceOutput(const PlanNode& node, const gpu::DeviceBatch* out);
bool OnGpu(const PlanNode& node);

// Metrics: records a node's output (keeping a name the operator recorded itself), a device
// operator's, and forgets a subtree's (before it runs again).
void RecordMetrics(const PlanNode& node, const std::string& default_name, const Table& out,
                   double millis, ExecContext& ctx);
void RecordDeviceMetrics(const PlanNode& node, const std::string& name, const char* device,
                         int64_t rows, int64_t bytes, double millis, ExecContext& ctx);
void ForgetMetrics(const PlanNode& node, ExecContext& ctx);
double MillisSince(Clock::time_point start);

// When an operator started, and the window of its peak memory (common/peak_window.h).
struct OperatorStart {
  Clock::time_point time;
  peak_window::Window window;
};

OperatorStart StartOperator();
double MillisSince(const OperatorStart& start);
// Adds how far host and GPU memory rose while the operator ran to what it recorded.
void RecordPeaks(const PlanNode& node, const OperatorStart& start, ExecContext& ctx);

// Pipelines: names the operators that spilled, the pipeline's per-step metrics, and an
// aggregation's direct-indexed key range when its source knows it.
void NoteSpills(const std::vector<const PlanNode*>& chain, const cpu::SpillableSteps& spill,
                const PlanNode& top, ExecContext& ctx);
void RecordPipelineMetrics(const cpu::Pipeline& p, bool aggregate, const cpu::PipelineTimes& times,
                           const std::vector<double>& build_ms, const Table& out, ExecContext& ctx);
void UseKnownKeyRange(const cpu::Pipeline& p, int workers, cpu::AggregateSink* sink);

// GPU: the columns a scan reads of a table cached on the device (cached.device set), a Parquet
// scan decoded onto the GPU (slice `slice_index` of `slice_count` runs of row groups), and a
// slice's metrics summed.
gpu::DeviceBatchPtr SelectDeviceColumns(const PlanNode& scan, const CachedTable& cached);
Result<gpu::DeviceBatchPtr> ScanParquetToDevice(const PlanNode& node, const gpu::Stream& stream,
                                                std::string* name, bool gpu_decompress,
                                                int slice_index = 0, int slice_count = 1);
void AddSliceMetrics(const OperatorMetrics* slice, OperatorMetrics* sum);

// Sets a variable for a scope and puts its old value back however the scope ends (a Status
// return, or a std::bad_alloc from a host budget that an enclosing retry catches).
template <typename T>
class ScopedValue {
 public:
  ScopedValue(T* var, T value) : var_(var), old_(*var) { *var = value; }
  ~ScopedValue() { *var_ = old_; }
  ScopedValue(const ScopedValue&) = delete;
  ScopedValue& operator=(const ScopedValue&) = delete;

 private:
  T* var_;
  T old_;
};

// Device outputs standing in for plan nodes while a GPU part runs in slices or partitions
// (QueryRun::device_overrides_): the ones set through it go when the scope ends, however it ends.
class DeviceOverrideScope {
 public:
  explicit DeviceOverrideScope(std::map<const PlanNode*, gpu::DeviceBatchPtr>* overrides)
      : overrides_(overrides) {}
  ~DeviceOverrideScope() {
    for (const PlanNode* k : keys_) overrides_->erase(k);
  }
  DeviceOverrideScope(const DeviceOverrideScope&) = delete;
  DeviceOverrideScope& operator=(const DeviceOverrideScope&) = delete;
  // The entry for `node`, to go with the scope.
  gpu::DeviceBatchPtr& operator[](const PlanNode* node) {
    keys_.push_back(node);
    return (*overrides_)[node];
  }

 private:
  std::map<const PlanNode*, gpu::DeviceBatchPtr>* overrides_;
  std::vector<const PlanNode*> keys_;
};

// One query's run: the executor state that lives as long as the query (its GPU stream).
class QueryRun {
 public:
  QueryRun(const PlanNode& root, ExecContext& ctx) : ctx_(ctx), root_(root), shared_(root, ctx) {
    scanned_sources_ = ScannedSources(root);
  }
  ~QueryRun() {
    // Device buffers are freed on the stream; wait so nothing outlives the query.
    if (stream_) (void)stream_->Synchronize();
  }

  Result<Table> RunHost(const PlanNode& node);
  Result<gpu::DeviceBatchPtr> RunDevice(const PlanNode& node);
  // The root's rows into `sink` (executor.h, Execute with rows_into); cpu_pipelines.cc.
  Result<Table> RunInto(const PlanNode& root, cpu::PipelineSink& sink);
  // A Sort's rows through disk, merged in order into `sink`, with the projections and filters of
  // `above` (root first) applied to each block.
  Status SortInto(const PlanNode& sort, const std::vector<const PlanNode*>& above,
                  cpu::PipelineSink& sink);
  // What each node will run as, by the rules below, before anything runs (physical_planning.cc).
  PhysicalPlan PlanPhysical() const;

 private:
  friend class PhysicalPlanner;
  // Moves the least recently used table cached in GPU memory that the query does not scan to
  // host memory; false when there is none (or the move failed).
  bool MoveUnusedCachedTableToHost();
  // The part of the plan under `root` ran out of GPU memory: runs it again on the CPU.
  Result<Table> RerunOnCpu(const PlanNode& root, const Status& oom);
  // Whether the node runs on the GPU in this run (not while a part is rerun on the CPU).
  bool OnGpuHere(const PlanNode& node) const { return OnGpu(node) && !cpu_only_; }
  Status CheckShape(const PlanNode& node) const;
  Status CheckCancelled() const {
    return ctx_.Cancelled() ? ExecContext::CancelledError() : Status::OK();
  }
  const CachedTable* CacheOf(const PlanNode& scan) const {
    if (scan.kind != PlanKind::kScan || !ctx_.table_cache || !scan.source) return nullptr;
    return planning_ ? ctx_.table_cache->PeekHolding(scan.source.get(), scan.scan_columns)
                     : ctx_.table_cache->FindHolding(scan.source.get(), scan.scan_columns);
  }
  // A CPU scan of Parquet files that are not cached (a pipeline reads it row group by row group).
  bool StreamedScan(const PlanNode& scan) const {
    return scan.kind == PlanKind::kScan && scan.source &&
           scan.source->kind == TableSource::Kind::kParquet && !OnGpuHere(scan) && !CacheOf(scan);
  }
  // A filter directly over a scan of Parquet files that are not cached.
  bool FilterFusesIntoScan(const PlanNode& filter) const {
    return plan::IsFilterOverFileScan(
        filter, [this](const PlanNode& scan) { return !OnGpuHere(scan) && !CacheOf(scan); });
  }
  // The GPU for this query: its stream, started the first time, after its admission.
  Result<gpu::GpuContext*> Gpu();
  // Waits for the query's turn on the GPU (memory/admission.h), held until the run ends.
  Status AdmitToGpu();
  // What the query's GPU may hold: the pool, or tandem.memory.gpu.limit when lower (after the
  // runtime started); the slice of a GPU part's input for that capacity.
  int64_t GpuCapacity() const;
  int64_t SliceBytesOf(int64_t capacity) const;
  Status FinishGpuOperator();
  Result<Table> RunCpuOperator(const PlanNode& node);
  Result<Table> ApplyCpuOperator(const PlanNode& node, const std::vector<Table>& inputs,
                                 std::string* name);
  Result<Table> WithHostRetry(const PlanNode& node, const std::function<Result<Table>()>& op);
  // A CPU Sort or Window over its input whole; out of host memory (and when can_spill), again
  // through disk: `spilled` takes the input (its batches released as they are taken) or, when
  // collecting the input ran out, null (the pipeline below runs again into its sink, FeedSpill).
  Result<Table> RunWholeOrSpilled(const PlanNode& node, bool can_spill,
                                  const std::function<Result<Table>(const Table&)>& in_memory,
                                  const std::function<Result<Table>(Table*)>& spilled);
  Status FeedSpill(const PlanNode& node, Table* input, cpu::PipelineSink& sink);
  // The rows of `child` into `sink` (not finished): its pipeline straight into the sink when it
  // streams, else its output from memory, or from its file on disk (RunPipelineSource; kept in
  // outputs_on_disk_ for a retry of the reader).
  Status FeedChild(const PlanNode& child, cpu::PipelineSink& sink);
  // Appends `child`'s rows to `file` (FeedChild through a FileAppendSink), again where
  // `retried` would run again after running out of memory, truncating only these rows.
  Status AppendChildRows(const PlanNode& retried, const PlanNode& child, SpillFile* file);
  // Every batch of *rows into `sink` (not finished), each released once taken.
  Status FeedRows(Table* rows, cpu::PipelineSink& sink);
  // The rows, blocks and bytes of the file an operator wrote its output to, as its metrics.
  void RecordOutputFile(const PlanNode& node, const SpillFile& file);
  void RecordSpilledOperator(const PlanNode& node, const std::string& name, const Table& out,
                             int64_t spilled, const OperatorStart& start);
  // The same for an operator whose rows may have gone to `out_file` (OutputFileOf; null: they
  // are `out`): finishes the file, says so after `how` ("Name (how; ...)") and counts its bytes.
  Status RecordSpilledOutput(const PlanNode& node, const std::string& name, std::string how,
                             const Table& out, int64_t spilled, const OperatorStart& start,
                             std::unique_ptr<SpillFile>* out_file);
  // Sorted runs on disk, merged (exec/cpu/external_sort.h).
  Result<Table> ExternalSort(const PlanNode& node, Table* input);
  // Partitions on disk by the shared PARTITION BY keys, one at a time; calls that share no key in
  // steps, each partitioned by its own (exec/cpu/window_spill.h).
  Result<Table> WindowBySpilling(const PlanNode& node, Table* input);
  // Calls with no PARTITION BY: the input sorted through disk, computed in chunks as the merge
  // makes its rows (from a file read twice when a call needs every row first), the output to disk
  // when its reader takes it from there (exec/cpu/ordered_window.h).
  Result<Table> WindowInOrder(const PlanNode& node, Table* input);
  // Pipelines (exec/cpu/pipeline.h): whether a CPU node streams batch by batch, and the run of
  // the pipeline that ends at `node` (null when `node` is not worth one).
  bool Streams(const PlanNode& node) const;
  // A join that runs whole, built on its small left side, rather than stream (Streams).
  bool BuiltOnItsLeft(const PlanNode& join) const;
  // Such a join (SEMI, ANTI, LEFT) whose right side streams from its pipeline into the left
  // side's hash table (cpu/flipped_join.h) instead of being collected whole; a LEFT join's rows
  // go straight into `aggregate` (its parent) when given. Null: it cannot.
  bool StreamsIntoFlippedJoin(const PlanNode& join) const;
  std::optional<Result<Table>> TryStreamIntoFlippedJoin(const PlanNode& join,
                                                        const PlanNode* aggregate = nullptr);
  std::optional<Result<Table>> TryPipeline(const PlanNode& node);
  // A TopN (`limit` over its Sort) as the sink of the pipeline below it (cpu/topn_sink.h), or
  // reading an aggregation's groups from disk: its input is never whole. Null: the input is
  // collected (it does not stream).
  std::optional<Result<Table>> TryTopNSink(const PlanNode& limit);
  // into: a sink for a pipeline that would collect its output (a spilled build side).
  Result<Table> RunPipelineAt(const PlanNode& node, cpu::PipelineSink* into = nullptr);
  // The rows of a pipeline's source that is not a streamed scan (or of a Sort's or Window's
  // input). A CPU aggregation whose partial states had to be partitioned on disk, or a Window
  // computed over partitions on disk, returns no rows and sets *on_disk: a file of its output,
  // each partition's appended as it is made, that the reader takes block by block, so the
  // output need not fit in memory whole (a HAVING over millions of groups).
  Result<Table> RunPipelineSource(const PlanNode& node, std::unique_ptr<SpillFile>* on_disk);
  // Whether RunPipelineSource may put node's output on disk: a CPU aggregation that can be
  // partitioned by a key, a CPU Window whose calls can be, or a CPU set operation, run once.
  bool OutputMaySpill(const PlanNode& node) const;
  // A UNION ALL whose inputs did not fit in memory together: each input's rows appended to
  // *file as they are made (an input that streams straight from its pipeline).
  Status UnionAllToDisk(const PlanNode& node, std::unique_ptr<SpillFile>* file);
  // UNION, INTERSECT or EXCEPT (ALL or not) whose inputs or counts do not fit: every input is
  // partitioned on disk by a hash of all its columns (equal rows land in the same partition)
  // and the operation runs one partition at a time; the output goes to the reader's file when
  // it takes one (RunPipelineSource).
  Result<Table> SetOpBySpilling(const PlanNode& node);
  // The set operation over one partition of each input (`files`, partitioned by all columns,
  // `keys`), its rows to `emit`; a partition that does not fit is split again on disk.
  Status SetOpPartition(const PlanNode& node, const std::vector<SpillFile*>& files,
                        const std::vector<std::vector<const Expr*>>& keys, int depth, int* resplits,
                        int64_t* spilled, const std::function<Status(Table)>& emit);
  // Where node's output goes when it is partitioned on disk (RunPipelineSource), or null.
  std::unique_ptr<SpillFile>* OutputFileOf(const PlanNode& node) const;
  // The build side of a grace join run again into partitions on disk, when collecting it
  // whole ran out of host memory (null: it cannot stream).
  Result<std::shared_ptr<SpillPartitions>> SpillBuildPipeline(const PlanNode& join);
  // The build side of a grace join, collected already, written to partitions on disk.
  Result<std::shared_ptr<SpillPartitions>> SpillBuildSide(const PlanNode& join, const Table& right);
  Result<gpu::DeviceBatchPtr> RunGpuOperator(const PlanNode& node);
  // A GPU operator's input `input` on the device; out of GPU memory, the columns only the
  // operator's earlier inputs (`held`) hold go to host memory while it runs again, and come
  // back (gpu_input_spill.cc). `spill` counts it for the operator's metrics.
  struct InputSpill {
    int times = 0;
    int64_t bytes = 0;
    std::string Note() const;  // " (inputs moved to host memory ...: 1.2 GiB)" or ""
  };
  Result<gpu::DeviceBatchPtr> RunDeviceMakingRoom(const PlanNode& input,
                                                  std::vector<gpu::DeviceBatchPtr>* held,
                                                  InputSpill* spill);
  // A GPU part that ends at `node` (a DeviceToHost transition, or a GPU node read on the host)
  // whose top is `source`: its rows on the host. Out of GPU memory, it moves unused cached tables
  // to host memory, then splits its input into slices, then runs on the CPU.
  Result<Table> RunGpuPart(const PlanNode& node, const PlanNode& source);

  // GPU slices (docs/gpu.md): a GPU part, or an aggregation in one, runs over slices of its
  // input when that input comes from host memory and is larger than tandem.exec.gpu.chunkBytes,
  // or when it ran out of GPU memory whole. The rows of the slice and the build sides of the
  // joins on the way (run once) stand in for those nodes' outputs.
  struct SlicePlan {
    const PlanNode* top = nullptr;        // the aggregation (split), or the part's top
    const PlanNode* source = nullptr;     // rows from the host, or a table cached on the GPU
    std::vector<const PlanNode*> builds;  // build sides of the joins in between
    std::vector<const PlanNode*> spine;   // what runs per slice, source excluded
  };
  bool TraceSpine(const PlanNode& node, SlicePlan* plan) const;
  std::optional<SlicePlan> SlicePlanFor(const PlanNode& top) const;
  // The node whose input a part that ran out of GPU memory whole may split, or null.
  const PlanNode* SplitRetryTop(const PlanNode& part) const;
  int64_t SliceBytes();
  // Whether a part slices its input before running out of memory: rows from host memory, or
  // Parquet files estimated to decode to more than a slice (a cached GPU table: only after).
  bool SlicesAhead(const SlicePlan& plan);
  // Runs `each(i, count)` with slice i of the plan's source standing in for it; count is at
  // least min_count, more when the input from host memory is larger than SliceBytes().
  Result<int> ForEachSlice(const SlicePlan& plan, int min_count,
                           const std::function<Status(int, int)>& each);
  // How RunSlices went, for the source's metrics.
  struct SliceRun {
    int64_t rows = 0, bytes = 0;  // of the slices' inputs, summed
    double make_ms = 0;  // making the inputs, summed (those made ahead overlapped the kernels)
    bool ahead_allowed = false;  // tandem.exec.gpu.prefetchSlices, and more than one slice
    int made_ahead = 0;          // inputs made while the slice before ran
    double waited_ms = 0;        // time spent waiting for those
    int run_alone = 0;  // slices run again alone after running out of GPU memory beside the next
    std::string AheadNote() const;  // "; 3 made while the one before ran, ..." or ""
  };
  // Runs each(i, count) with slice i's input, made by `make`, standing in for `src`; the next
  // input is made on another stream while the GPU runs the current slice when it has room for
  // both (exec/slice_prefetch.h). `taken(i)` is called once slice i's input is on the GPU.
  Result<SliceRun> RunSlices(const PlanNode& src, int count,
                             const std::function<Status(int, int)>& each,
                             const SlicePrefetch::Make& make,
                             const std::function<void(int)>& taken = {});
  // Whether the GPU has room to make the next slice's input while the current one runs: what is
  // in use now (the current input among it), as much again for its work, and the next input.
  bool RoomForAnotherSlice(int64_t slice_bytes) const;
  void AddSpineMetrics(const SlicePlan& plan, std::map<const PlanNode*, OperatorMetrics>* sums);
  std::optional<Result<gpu::DeviceBatchPtr>> AggregateInSlices(const PlanNode& node);
  std::optional<Result<Table>> PartInSlices(const PlanNode& node, const PlanNode& source);
  // Filters and projections over rows from host memory larger than a slice: their outputs
  // concatenated on the GPU (the build side of a join over a table cached in host memory).
  std::optional<Result<gpu::DeviceBatchPtr>> StreamInSlices(const PlanNode& node);
  // The merge of an aggregation's partial rows (`node`: the aggregation split).
  Result<gpu::DeviceBatchPtr> MergePartials(const PlanNode& node, const SplitAggregate& split,
                                            const Table& partials, bool* on_gpu);
  // The batches' rows in one batch (UNION ALL on the GPU).
  Result<gpu::DeviceBatchPtr> ConcatOnDevice(std::vector<gpu::DeviceBatchPtr> outs,
                                             const Schema& schema);

  // GPU hash partitions (exec/hash_partition_plan.h, gpu_hash_partitions.cc): a GPU part over
  // tables cached on the GPU runs once per hash partition of the key its joins share, when
  // tandem.exec.gpu.hashPartitions asks or after it ran out of GPU memory whole.
  std::optional<HashPartitionPlan> HashPartitionsFor(const PlanNode& part) const;
  // How many pieces (4, 16 or 64; 1: whole) a GPU part runs in from the start: its estimated
  // peak (exec/gpu_peak_estimate.h) against the room left on the GPU.
  int PiecesAhead(const PlanNode& part);
  // exec/gpu_peak_estimate.h's estimate for a plan run here (tables cached on the GPU resident).
  int64_t EstimatedPeakHere(const PlanNode& plan, int64_t slice_bytes) const;
  // Whether the inputs a hash partitioning computes once are estimated above a quarter of the
  // room left on the GPU.
  bool ReplicatedInputsTooLarge(const HashPartitionPlan& plan);
  // The forced plan's top runs in partitions when `node` is it.
  std::optional<Result<gpu::DeviceBatchPtr>> InHashPartitions(const PlanNode& node);
  // The top's output: concatenated on the GPU, or, with `to_host`, each partition's rows
  // appended there (nullptr returned).
  Result<gpu::DeviceBatchPtr> RunInHashPartitions(const HashPartitionPlan& plan, int parts,
                                                  Table* to_host);
  Result<Table> ScanCached(const PlanNode& node, const CachedTable& cached);
  Result<Table> ToHost(const gpu::DeviceBatch& batch);

  Result<Table> RunHostOnce(const PlanNode& node);

  ExecContext& ctx_;
  const PlanNode& root_;
  std::optional<admission::Ticket> gpu_turn_;     // released after the stream, below, is done
  SharedSubplans shared_;                         // identical subplans of the query, run once
  std::set<const TableSource*> scanned_sources_;  // what the query's scans read
  bool cpu_only_ = false;                         // inside RerunOnCpu
  mutable bool planning_ = false;  // inside PlanPhysical: looks at cached tables, uses none
  // Joins that stream although built on their small left side would be better (that ran out of
  // host memory collecting the right side whole), and the joins whose whole-table run is on.
  std::set<const PlanNode*> force_stream_, whole_join_running_;
  // Flipped SEMI/ANTI joins whose streamed run ran out of host memory (they run whole after).
  std::set<const PlanNode*> flipped_stream_failed_;
  // Set by RunPipelineSource while its node runs: where its output goes once partitioned.
  struct OutputToDisk {
    const PlanNode* node = nullptr;
    std::unique_ptr<SpillFile>* file = nullptr;
  };
  OutputToDisk output_to_disk_;
  // Outputs on disk that a Sort, Window or TopN reads (FeedSpill), kept for its retries.
  std::map<const PlanNode*, std::unique_ptr<SpillFile>> outputs_on_disk_;
  // Drops child's entry of outputs_on_disk_ (its file) when the reader is done with it.
  class ForgetOutputFile {
   public:
    ForgetOutputFile(QueryRun* run, const PlanNode* child) : run_(run), child_(child) {}
    ~ForgetOutputFile() { run_->outputs_on_disk_.erase(child_); }
    ForgetOutputFile(const ForgetOutputFile&) = delete;
    ForgetOutputFile& operator=(const ForgetOutputFile&) = delete;

   private:
    QueryRun* run_;
    const PlanNode* child_;
  };
  // GPU slices: outputs standing in for nodes while a part runs over a slice; the node made to
  // split its input after running out of GPU memory whole, into at least this many slices.
  std::map<const PlanNode*, gpu::DeviceBatchPtr> device_overrides_;
  const PlanNode* forced_slice_top_ = nullptr;
  int forced_slices_ = 0;
  bool in_slice_ = false;  // a slice is running: no slicing within it
  // The hash partitions a GPU part runs in (RunGpuPart), and how many.
  const HashPartitionPlan* forced_partitions_ = nullptr;
  int forced_partition_count_ = 0;
  // The stream slices made ahead are made on (exec/slice_prefetch.h), created when first needed.
  std::optional<gpu::Stream> ahead_stream_;
  std::optional<gpu::Stream> stream_;
  gpu::GpuContext gpu_ctx_;
};

}  // namespace tandem::exec_detail
