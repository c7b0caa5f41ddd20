// One task's run of a fragment (see fragment_task.h).
#include "tandem/spark/fragment_task.h"

#include "tandem/exec/executor.h"
#include "tandem/exec/plan_text.h"
#include "tandem/gpu/memory_config.h"
#include "tandem/memory/host_memory.h"
#include "tandem/placement/explain.h"
#include "tandem/placement/placement.h"
#include "tandem/placement/settings.h"
#include "tandem/plan/cardinality.h"
#include "tandem/plan/pushdown.h"
#include "tandem/plan/scan_predicates.h"
#include "tandem/spark/unsafe_rows.h"

namespace tandem::spark {
namespace {

std::atomic<int64_t> g_open_tasks{0};

}  // namespace

int64_t FragmentTask::OpenTasks() { return g_open_tasks.load(); }

FragmentTask::~FragmentTask() { g_open_tasks.fetch_sub(1); }

Result<std::unique_ptr<FragmentTask>> FragmentTask::Open(const std::string& fragment_json,
                                                         const std::string& task_json,
                                                         const Config& config) {
  TANDEM_ASSIGN_OR_RAISE(Fragment fragment, ParseFragment(fragment_json));
  TANDEM_ASSIGN_OR_RAISE(TaskData data, TaskDataFromJson(fragment, task_json));
  Config c = config;
  // Spark's LEGACY arithmetic (ANSI off) is implemented on the CPU path only.
  TANDEM_RETURN_NOT_OK(
      c.Set(config_keys::kDevice, fragment.settings.ansi ? fragment.device : "cpu"));
  TANDEM_RETURN_NOT_OK(c.Set(config_keys::kAnsi, fragment.settings.ansi ? "true" : "false"));
  std::unique_ptr<FragmentTask> task(new FragmentTask(std::move(fragment), std::move(data), c));
  g_open_tasks.fetch_add(1);
  task->pending_.resize(task->fragment_.inputs.size());
  return task;
}

Status FragmentTask::AddRows(int index, const uint8_t* data, int64_t bytes, int64_t rows) {
  if (index < 0 || index >= static_cast<int>(fragment_.inputs.size())) {
    return Status::Invalid("rows for input " + std::to_string(index) + " of a fragment with " +
                           std::to_string(fragment_.inputs.size()));
  }
  TANDEM_ASSIGN_OR_RAISE(BatchPtr batch,
                         DecodeUnsafeRows(fragment_.inputs[index].schema, data, bytes, rows));
  pending_[index].push_back(std::move(batch));
  return Status::OK();
}

Status FragmentTask::AddBatch(int index, BatchPtr batch) {
  if (index < 0 || index >= static_cast<int>(fragment_.inputs.size())) {
    return Status::Invalid("a batch for input " + std::to_string(index) + " of a fragment with " +
                           std::to_string(fragment_.inputs.size()));
  }
  const Schema& want = fragment_.inputs[index].schema;
  if (batch->num_columns() != want.num_fields()) {
    return Status::Invalid("a batch of " + std::to_string(batch->num_columns()) +
                           " columns for input " + std::to_string(index) + " of " +
                           std::to_string(want.num_fields()));
  }
  pending_[index].push_back(std::move(batch));
  return Status::OK();
}

Status FragmentTask::Execute() {
  for (size_t i = 0; i < pending_.size(); ++i) {
    auto table = std::make_shared<Table>();
    table->schema = fragment_.inputs[i].schema;
    table->batches = std::move(pending_[i]);
    data_.inputs[i] = std::move(table);
  }
  pending_.clear();
  TANDEM_ASSIGN_OR_RAISE(PlanPtr plan, BuildFragmentPlan(fragment_, data_));
  // Spark planned the query: only what makes the fragment cheap to run is redone here (filters
  // into the scans, row-group pruning, estimates for placement).
  plan = plan::AnnotateEstimates(plan::AddScanPredicates(plan::PushDownPredicates(plan)));
  TANDEM_ASSIGN_OR_RAISE(placement::PlacementSetup setup,
                         placement::SetupPlacement(config_, placement::PlanPurpose::kExecute));
  TANDEM_ASSIGN_OR_RAISE(placement::PlacementResult placed, placement::Place(plan, setup.options));
  ctx_.eval.ansi = fragment_.settings.ansi;
  ctx_.eval.legacy_overflow = !fragment_.settings.ansi;
  ctx_.num_threads = static_cast<int>(config_.GetInt(config_keys::kThreads));
  ctx_.pipelines = config_.GetBool(config_keys::kPipelines);
  ctx_.dictionary_conditions = config_.GetBool(config_keys::kDictionaryConditions);
  ctx_.spill_dir = config_.Get(config_keys::kSpillDir);
  ctx_.eval.gpu_kernels = GpuKernelsSetting(config_.Get(config_keys::kGpuGeneratedKernels));
  ctx_.eval.kernel_cache_dir = config_.Get(config_keys::kGpuKernelCacheDir);
  ctx_.eval.gpu_launches = std::make_shared<GpuExpressionLaunches>();
  ctx_.gpu_memory = gpu::DeviceMemoryConfigFrom(config_);
  ctx_.gpu_limit_bytes = config_.GetInt(config_keys::kGpuLimit);
  ctx_.gpu_chunk_bytes = config_.GetInt(config_keys::kGpuChunkBytes);
  ctx_.gpu_hash_partitions = static_cast<int>(config_.GetInt(config_keys::kGpuHashPartitions));
  ctx_.gpu_prefetch_slices = config_.GetBool(config_keys::kGpuPrefetchSlices);
  ctx_.gpu_parquet_decompress = config_.GetBool(config_keys::kParquetGpuDecompress);
  ctx_.gpu_input_spill = config_.GetBool(config_keys::kGpuSpillInputs);
  ctx_.cpu_batch_rows = config_.GetInt(config_keys::kCpuBatchRows);
  ctx_.scan_piece_rows = config_.GetInt(config_keys::kCpuScanPieceRows);
  // At most tandem.sql.concurrentGpuTasks tasks use the GPU at once, admitted against their
  // estimated peak of GPU memory (RAPIDS users know the count as
  // spark.rapids.sql.concurrentGpuTasks); others wait their turn in the executor.
  ctx_.gpu_max_queries = config_.GetInt(config_keys::kConcurrentGpuTasks);
  ctx_.host_admission = config_.GetBool(config_keys::kHostAdmission);
  ctx_.cancelled = &cancelled_;
  TANDEM_ASSIGN_OR_RAISE(result_, ::tandem::Execute(*placed.plan, ctx_));
  plan_text_ = PlanToStringWithMetrics(*placed.plan, ctx_);
  output_rows_ = result_.num_rows();
  output_batches_ = static_cast<int64_t>(result_.batches.size());
  return Status::OK();
}

Result<const UnsafeRowBlock*> FragmentTask::Rows(int i) {
  if (i < 0 || i >= num_batches() || !batch(i)) {
    return Status::Invalid("batch " + std::to_string(i) + " is not there");
  }
  rows_.resize(result_.batches.size());
  std::unique_ptr<UnsafeRowBlock>& block = rows_[static_cast<size_t>(i)];
  if (!block) {
    TANDEM_ASSIGN_OR_RAISE(UnsafeRowBlock encoded, EncodeBatchAsUnsafeRows(*batch(i)));
    block = std::make_unique<UnsafeRowBlock>(std::move(encoded));
  }
  return block.get();
}

void FragmentTask::Release(int i) {
  if (i < 0 || i >= num_batches()) return;
  result_.batches[static_cast<size_t>(i)].reset();
  if (static_cast<size_t>(i) < rows_.size()) rows_[static_cast<size_t>(i)].reset();
}

int FragmentTask::gpu_operators() const {
  int n = 0;
  for (const auto& [node, m] : ctx_.AllMetrics()) n += m.device == "gpu" ? 1 : 0;
  return n;
}

std::string FragmentTask::MetricsJson() const {
  int64_t cpu_ns = 0, gpu_ns = 0, pcie_bytes = 0;
  for (const auto& [node, m] : ctx_.AllMetrics()) {
    const auto ns = static_cast<int64_t>(m.millis * 1e6);
    if (m.device == "gpu") {
      gpu_ns += ns;
    } else if (m.device == "pcie") {
      pcie_bytes += m.bytes;
      gpu_ns += ns;
    } else {
      cpu_ns += ns;
    }
  }
  Json j = {{"rows", output_rows_},     {"batches", output_batches_},
            {"cpu_ns", cpu_ns},         {"gpu_ns", gpu_ns},
            {"pcie_bytes", pcie_bytes}, {"peak_bytes", host_memory::Peak()},
            {"plan", plan_text_}};
  return j.dump();
}

}  // namespace tandem::spark
