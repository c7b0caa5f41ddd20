// GPU slices (docs/gpu.md, docs/architecture.md): a GPU part whose input comes from host memory,
// Parquet files or a cached device table, and is larger than tandem.exec.gpu.chunkBytes or ran
// out of GPU memory whole, runs over slices of that input: the build sides of the joins on its
// probe spine run once, the spine once per slice, and an aggregation at the top as partial
// aggregations merged once (split_aggregate.h). QueryRun's methods for it.
#include <algorithm>
#include <cmath>

#include "tandem/exec/cpu/operator_util.h"
#include "tandem/exec/query_run.h"
#include "tandem/gpu/device_column.h"
#include "tandem/gpu/device_limit.h"

namespace tandem::exec_detail {

bool QueryRun::TraceSpine(const PlanNode& node, SlicePlan* plan) const {
  if ((node.kind == PlanKind::kTransition && node.device == Device::kGpu) || !OnGpuHere(node)) {
    plan->source = &node;  // HostToDevice, explicit or implicit
    return true;
  }
  if (!ShapeIsValid(node)) return false;
  for (const auto& c : node.children) {
    if (!c) return false;
  }
  switch (node.kind) {
    case PlanKind::kScan: {
      const CachedTable* cached = CacheOf(node);
      const bool parquet =
          !cached && node.source && node.source->kind == TableSource::Kind::kParquet;
      if (!parquet && !(cached && cached->device)) return false;
      plan->source = &node;  // slices: row groups of the files, or rows of the cached table
      return true;
    }
    case PlanKind::kFilter:
    case PlanKind::kProject:
    case PlanKind::kExpand:
      plan->spine.push_back(&node);
      return TraceSpine(*node.children[0], plan);
    case PlanKind::kJoin:
      // Joins whose output is the union of their outputs over slices of the left side.
      switch (node.join_type) {
        case JoinType::kInner:
        case JoinType::kLeft:
        case JoinType::kSemi:
        case JoinType::kAnti:
        case JoinType::kMark:
          plan->spine.push_back(&node);
          plan->builds.push_back(node.children[1].get());
          return TraceSpine(*node.children[0], plan);
        default:
          return false;
      }
    default:
      return false;
  }
}

std::optional<QueryRun::SlicePlan> QueryRun::SlicePlanFor(const PlanNode& top) const {
  SlicePlan plan;
  plan.top = &top;
  const PlanNode* below = &top;
  if (top.kind == PlanKind::kAggregate) {
    if (!ShapeIsValid(top) || !top.children[0]) return std::nullopt;
    below = top.children[0].get();
    if (IsFilteredAggregate(top)) {
      plan.spine.push_back(below);
      below = below->children[0].get();
    }
  }
  if (!TraceSpine(*below, &plan)) return std::nullopt;
  return plan;
}

const PlanNode* QueryRun::SplitRetryTop(const PlanNode& part) const {
  if (part.kind != PlanKind::kAggregate && SlicePlanFor(part) && part.kind != PlanKind::kScan) {
    return &part;
  }
  for (const PlanNode* n = &part; n && OnGpuHere(*n) && ShapeIsValid(*n);) {
    if (n->kind == PlanKind::kAggregate) {
      std::string why;
      return SlicePlanFor(*n) && SplitForChunks(*n, &why) ? n : nullptr;
    }
    switch (n->kind) {
      case PlanKind::kSort:
      case PlanKind::kLimit:
      case PlanKind::kProject:
      case PlanKind::kFilter:
      case PlanKind::kWindow:
        n = n->children[0].get();
        break;
      default:
        return nullptr;
    }
  }
  return nullptr;
}

bool QueryRun::SlicesAhead(const SlicePlan& plan) {
  const PlanNode& src = *plan.source;
  if (!(src.kind == PlanKind::kScan && OnGpuHere(src))) return true;  // rows from the host
  if (CacheOf(src)) return false;
  return src.placement.est_bytes > static_cast<double>(SliceBytes());
}

int64_t QueryRun::SliceBytes() {
  if (ctx_.gpu_chunk_bytes > 0) return ctx_.gpu_chunk_bytes;
  if (!stream_) (void)Gpu();  // the pool's size
  return SliceBytesOf(GpuCapacity());
}

int64_t QueryRun::SliceBytesOf(int64_t capacity) const {
  if (ctx_.gpu_chunk_bytes > 0) return ctx_.gpu_chunk_bytes;
  return std::max<int64_t>(int64_t{256} << 20, capacity / 4);
}

int64_t QueryRun::GpuCapacity() const {
  int64_t limit = gpu::GetPoolStats().pool_limit_bytes;
  const int64_t mine = ctx_.gpu_limit_bytes;  // the process-wide limit is the last query's
  if (mine > 0 && (limit <= 0 || mine < limit)) limit = mine;
  return limit;
}

Result<int> QueryRun::ForEachSlice(const SlicePlan& plan, int min_count,
                                   const std::function<Status(int, int)>& each) {
  DeviceOverrideScope stand_ins(&device_overrides_);  // gone when the run ends
  for (const PlanNode* b : plan.builds) {
    TANDEM_ASSIGN_OR_RAISE(gpu::DeviceBatchPtr out, RunDevice(*b));
    stand_ins[b] = std::move(out);
  }
  TANDEM_ASSIGN_OR_RAISE(gpu::GpuContext * g, Gpu());
  const PlanNode& src = *plan.source;
  stand_ins[&src];  // set slice by slice below
  int count = std::max(1, min_count);
  if (src.kind == PlanKind::kScan && OnGpuHere(src) && !CacheOf(src)) {
    // Parquet files: slices of their row groups, each read and decoded on its own.
    const OperatorStart start = StartOperator();
    // At least as many slices as the estimated decoded bytes need, however many were asked for.
    const double est = src.placement.est_bytes;
    const double slice = static_cast<double>(SliceBytes());
    if (est > slice) {
      count = std::max(count, static_cast<int>(std::min(4096.0, std::ceil(est / slice))));
    }
    std::vector<std::string> names(static_cast<size_t>(count));
    TANDEM_ASSIGN_OR_RAISE(SliceRun run,
                           RunSlices(src, count, each, [&](int i, const gpu::Stream& stream) {
                             return ScanParquetToDevice(src, stream, &names[static_cast<size_t>(i)],
                                                        ctx_.gpu_parquet_decompress, i, count);
                           }));
    std::string name =
        names.back() + (count > 1 ? " (in " + std::to_string(count) +
                                        " slices; the last one's counts" + run.AheadNote() + ")"
                                  : std::string());
    RecordDeviceMetrics(src, name, "gpu", run.rows, run.bytes, run.make_ms, ctx_);
    RecordPeaks(src, start, ctx_);
  } else if (src.kind == PlanKind::kScan && OnGpuHere(src)) {
    // A table cached in GPU memory: slices copied out of it.
    const CachedTable* cached = CacheOf(src);
    if (!cached || !cached->device) return Status::Internal("sliced scan of an uncached table");
    const OperatorStart start = StartOperator();
    const gpu::DeviceBatchPtr whole = SelectDeviceColumns(src, *cached);
    const int64_t rows = whole->num_rows;
    count = static_cast<int>(std::min<int64_t>(count, std::max<int64_t>(1, rows)));
    const int64_t per = (rows + count - 1) / count;
    double own_ms = 0;
    for (int i = 0; i < count; ++i) {
      TANDEM_RETURN_NOT_OK(CheckCancelled());
      const auto t = Clock::now();
      const int64_t begin = std::min(rows, per * i);
      if (count == 1) {
        device_overrides_[&src] = whole;
      } else {
        TANDEM_ASSIGN_OR_RAISE(
            device_overrides_[&src],
            gpu::SliceRows(*whole, begin, std::min(per, rows - begin), *g->stream));
      }
      own_ms += MillisSince(t);
      TANDEM_RETURN_NOT_OK(each(i, count));
      device_overrides_[&src].reset();
    }
    RecordDeviceMetrics(src,
                        "Scan " + cached->name + " (cached in GPU memory" +
                            (count > 1 ? ", in " + std::to_string(count) + " slices" : "") + ")",
                        "gpu", rows, gpu::DeviceBytes(*whole), own_ms, ctx_);
    RecordPeaks(src, start, ctx_);
  } else {
    // Rows from host memory: uploaded slice by slice.
    const bool explicit_transition = src.kind == PlanKind::kTransition;
    TANDEM_ASSIGN_OR_RAISE(Table host, RunHost(explicit_transition ? *src.children[0] : src));
    const OperatorStart start = StartOperator();
    const int64_t bytes = cpu::opx::TableBytes(host);
    const int64_t slice = SliceBytes();
    const int64_t by_size = (bytes + slice - 1) / slice;
    count = static_cast<int>(std::min<int64_t>(std::max<int64_t>(count, by_size), 4096));
    std::vector<Table> slices = cpu::opx::RowChunks(host, count);
    count = static_cast<int>(slices.size());
    const gpu::Stream& main = *g->stream;
    TANDEM_ASSIGN_OR_RAISE(
        SliceRun run, RunSlices(
                          src, count, each,
                          [&](int i, const gpu::Stream& stream) -> Result<gpu::DeviceBatchPtr> {
                            TANDEM_ASSIGN_OR_RAISE(
                                gpu::DeviceBatchPtr dev,
                                gpu::ToDevice(slices[static_cast<size_t>(i)], stream));
                            if (&stream == &main) TANDEM_RETURN_NOT_OK(FinishGpuOperator());
                            return dev;
                          },
                          [&](int i) { slices[static_cast<size_t>(i)] = Table(); }));
    if (explicit_transition) {
      RecordDeviceMetrics(
          src,
          std::string("HostToDevice") +
              (count > 1 ? " (in " + std::to_string(count) + " slices" + run.AheadNote() + ")"
                         : ""),
          "pcie", host.num_rows(), run.bytes, run.make_ms, ctx_);
      RecordPeaks(src, start, ctx_);
    }
  }
  return count;
}

Result<QueryRun::SliceRun> QueryRun::RunSlices(const PlanNode& src, int count,
                                               const std::function<Status(int, int)>& each,
                                               const SlicePrefetch::Make& make,
                                               const std::function<void(int)>& taken) {
  TANDEM_ASSIGN_OR_RAISE(gpu::GpuContext * g, Gpu());
  SliceRun run;
  run.ahead_allowed = ctx_.gpu_prefetch_slices && count > 1;
  if (run.ahead_allowed && !ahead_stream_) {
    TANDEM_ASSIGN_OR_RAISE(gpu::Stream stream, gpu::Stream::Create());
    ahead_stream_.emplace(std::move(stream));
  }
  SlicePrefetch prefetch(make, *g->stream, run.ahead_allowed ? &*ahead_stream_ : nullptr);
  for (int i = 0; i < count; ++i) {
    TANDEM_RETURN_NOT_OK(CheckCancelled());
    TANDEM_ASSIGN_OR_RAISE(gpu::DeviceBatchPtr input, prefetch.Take(i));
    if (taken) taken(i);
    const int64_t bytes = gpu::DeviceBytes(*input);
    run.rows += input->num_rows;
    run.bytes += bytes;
    if (i + 1 < count && RoomForAnotherSlice(bytes)) prefetch.MakeAhead(i + 1);
    device_overrides_[&src] = std::move(input);
    Status done = each(i, count);
    if (done.code() == StatusCode::kOutOfMemory && prefetch.Ahead()) {
      prefetch.Stop();  // the next input goes; this slice again with nothing beside it
      ++run.run_alone;
      done = each(i, count);
    }
    device_overrides_[&src].reset();
    TANDEM_RETURN_NOT_OK(done);
  }
  run.make_ms = prefetch.make_ms();
  run.made_ahead = prefetch.made_ahead();
  run.waited_ms = prefetch.waited_ms();
  return run;
}

bool QueryRun::RoomForAnotherSlice(int64_t slice_bytes) const {
  const int64_t capacity = GpuCapacity();
  if (capacity <= 0) return false;
  // What the other queries on the GPU reserved stays theirs, counted whole (what they use of it
  // is in the pool's use too: erring towards making no slice ahead).
  const int64_t mine = gpu_turn_ ? gpu_turn_->reserved_bytes() : 0;
  const int64_t others = std::max<int64_t>(0, admission::Now().reserved_bytes - mine);
  return gpu::GetPoolStats().used_bytes + others + 2 * slice_bytes <= capacity;
}

std::string QueryRun::SliceRun::AheadNote() const {
  if (!ahead_allowed) return "";
  char text[160];
  std::snprintf(text, sizeof(text), "; %d made while the one before ran, %.1f ms waited for them",
                made_ahead, waited_ms);
  std::string note = text;
  if (run_alone > 0) {
    note += "; " + std::to_string(run_alone) +
            " run again alone after running out of GPU memory beside the next";
  }
  return note;
}

void QueryRun::AddSpineMetrics(const SlicePlan& plan,
                               std::map<const PlanNode*, OperatorMetrics>* sums) {
  for (const PlanNode* n : plan.spine) {
    if (n == plan.top && n->kind == PlanKind::kAggregate) continue;
    AddSliceMetrics(ctx_.Find(n), &(*sums)[n]);
  }
}

std::optional<Result<gpu::DeviceBatchPtr>> QueryRun::AggregateInSlices(const PlanNode& node) {
  if (in_slice_ || node.kind != PlanKind::kAggregate) return std::nullopt;
  std::optional<SlicePlan> plan = SlicePlanFor(node);
  if (!plan) return std::nullopt;
  const bool forced = forced_slice_top_ == &node;
  if (!forced && !SlicesAhead(*plan)) return std::nullopt;
  std::string why;
  std::optional<SplitAggregate> split = SplitForChunks(node, &why);
  if (!split || !gpu::AggregateUnsupported(*split->partial).empty()) return std::nullopt;
  auto run = [&]() -> Result<gpu::DeviceBatchPtr> {
    const OperatorStart start = StartOperator();
    Table partials;
    partials.schema = split->partial->schema;
    gpu::DeviceBatchPtr whole;  // one slice: the node's own output
    std::map<const PlanNode*, OperatorMetrics> sums;
    OperatorMetrics partial_sum;
    TANDEM_ASSIGN_OR_RAISE(
        int count, ForEachSlice(*plan, forced ? forced_slices_ : 1, [&](int, int count) -> Status {
          Result<gpu::DeviceBatchPtr> part = [&] {
            const ScopedValue<bool> slicing(&in_slice_, true);
            return RunGpuOperator(count == 1 ? node : *split->partial);
          }();
          TANDEM_RETURN_NOT_OK(part.status());
          if (count == 1) {
            whole = std::move(part).value();
            return Status::OK();
          }
          TANDEM_ASSIGN_OR_RAISE(Table host, ToHost(**part));
          AddSpineMetrics(*plan, &sums);  // once the slice is done (it may run again)
          AddSliceMetrics(ctx_.Find(split->partial.get()), &partial_sum);
          ctx_.Forget(split->partial.get());
          for (BatchPtr& b : host.batches) partials.batches.push_back(std::move(b));
          return Status::OK();
        }));
    if (count == 1) return whole;
    ++ctx_.gpu_chunked_parts;
    for (auto& [n, m] : sums) ctx_.Record(n, m);
    const auto merge_start = Clock::now();
    bool on_gpu = false;
    TANDEM_ASSIGN_OR_RAISE(gpu::DeviceBatchPtr out, MergePartials(node, *split, partials, &on_gpu));
    TANDEM_RETURN_NOT_OK(FinishGpuOperator());
    TANDEM_RETURN_NOT_OK(CheckDeviceOutput(node, out.get()));
    char text[160];
    std::snprintf(text, sizeof(text),
                  " (partial over %d slices of its input, %lld partial rows merged on the %s in "
                  "%.1f ms)",
                  count, static_cast<long long>(partials.num_rows()), on_gpu ? "GPU" : "CPU",
                  MillisSince(merge_start));
    RecordDeviceMetrics(node, "HashAggregate" + std::string(text), "gpu", out->num_rows,
                        gpu::DeviceBytes(*out), partial_sum.millis + MillisSince(merge_start),
                        ctx_);
    RecordPeaks(node, start, ctx_);
    return out;
  };
  return run();
}

Result<gpu::DeviceBatchPtr> QueryRun::MergePartials(const PlanNode& node,
                                                    const SplitAggregate& split,
                                                    const Table& partials, bool* on_gpu) {
  TANDEM_ASSIGN_OR_RAISE(gpu::GpuContext * g, Gpu());
  if (gpu::AggregateUnsupported(*split.merge).empty() &&
      gpu::ProjectUnsupported(*split.finish).empty()) {
    Result<gpu::DeviceBatchPtr> merged = [&]() -> Result<gpu::DeviceBatchPtr> {
      TANDEM_ASSIGN_OR_RAISE(gpu::DeviceBatchPtr in, gpu::ToDevice(partials, *g->stream));
      TANDEM_ASSIGN_OR_RAISE(gpu::DeviceBatchPtr m,
                             gpu::HashAggregate(*split.merge, nullptr, *in, *g));
      in.reset();
      return gpu::Project(*split.finish, *m, *g);
    }();
    if (merged.ok() || merged.status().code() != StatusCode::kOutOfMemory) {
      *on_gpu = true;
      return merged;
    }
  }
  // Unsupported on the GPU, or no room there: the CPU merges.
  *on_gpu = false;
  TANDEM_ASSIGN_OR_RAISE(Table merged, WithHostRetry(node, [&] {
                           return cpu::HashAggregate(*split.merge, partials, ctx_);
                         }));
  TANDEM_ASSIGN_OR_RAISE(Table finished, cpu::Project(*split.finish, merged, ctx_));
  return gpu::ToDevice(finished, *g->stream);
}

std::optional<Result<Table>> QueryRun::PartInSlices(const PlanNode& node, const PlanNode& source) {
  if (in_slice_ || source.kind == PlanKind::kAggregate || source.kind == PlanKind::kScan) {
    return std::nullopt;
  }
  std::optional<SlicePlan> plan = SlicePlanFor(source);
  if (!plan || plan->spine.empty()) return std::nullopt;
  const bool forced = forced_slice_top_ == &source;
  if (!forced && !SlicesAhead(*plan)) return std::nullopt;
  auto run = [&]() -> Result<Table> {
    const OperatorStart start = StartOperator();
    Table out;
    out.schema = source.schema;
    std::map<const PlanNode*, OperatorMetrics> sums;
    double download_ms = 0;
    int64_t downloaded = 0;
    TANDEM_ASSIGN_OR_RAISE(
        int count, ForEachSlice(*plan, forced ? forced_slices_ : 1, [&](int, int) -> Status {
          Result<gpu::DeviceBatchPtr> part = [&] {
            const ScopedValue<bool> slicing(&in_slice_, true);
            return RunDevice(source);
          }();
          TANDEM_RETURN_NOT_OK(part.status());
          const auto t = Clock::now();
          TANDEM_ASSIGN_OR_RAISE(Table host, ToHost(**part));
          AddSpineMetrics(*plan, &sums);  // once the slice is done (it may run again)
          download_ms += MillisSince(t);
          downloaded += gpu::DeviceBytes(**part);
          for (BatchPtr& b : host.batches) out.batches.push_back(std::move(b));
          return Status::OK();
        }));
    for (auto& [n, m] : sums) ctx_.Record(n, m);
    if (count > 1) ++ctx_.gpu_chunked_parts;
    TANDEM_RETURN_NOT_OK(CheckOutput(node, out));
    if (node.kind == PlanKind::kTransition) {
      RecordDeviceMetrics(node,
                          "DeviceToHost" + (count > 1 ? " (in " + std::to_string(count) +
                                                            " slices of the part's input)"
                                                      : std::string()),
                          "pcie", out.num_rows(), downloaded, download_ms, ctx_);
      RecordPeaks(node, start, ctx_);
    }
    return out;
  };
  return run();
}

std::optional<Result<gpu::DeviceBatchPtr>> QueryRun::StreamInSlices(const PlanNode& node) {
  if (in_slice_ || !OnGpuHere(node) ||
      (node.kind != PlanKind::kFilter && node.kind != PlanKind::kProject)) {
    return std::nullopt;
  }
  std::optional<SlicePlan> plan = SlicePlanFor(node);
  if (!plan || !plan->builds.empty() || !SlicesAhead(*plan)) return std::nullopt;
  auto run = [&]() -> Result<gpu::DeviceBatchPtr> {
    std::vector<gpu::DeviceBatchPtr> outs;
    std::map<const PlanNode*, OperatorMetrics> sums;
    TANDEM_ASSIGN_OR_RAISE(int count, ForEachSlice(*plan, 1, [&](int, int) -> Status {
                             Result<gpu::DeviceBatchPtr> part = [&] {
                               const ScopedValue<bool> slicing(&in_slice_, true);
                               return RunDevice(node);
                             }();
                             TANDEM_RETURN_NOT_OK(part.status());
                             AddSpineMetrics(*plan, &sums);
                             outs.push_back(std::move(part).value());
                             return Status::OK();
                           }));
    if (count == 1) return outs[0];
    ++ctx_.gpu_chunked_parts;
    for (auto& [n, m] : sums) ctx_.Record(n, m);
    return ConcatOnDevice(std::move(outs), node.schema);  // the slices' rows in one batch
  };
  return run();
}

}  // namespace tandem::exec_detail
