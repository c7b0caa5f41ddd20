// One Spark task's run of a fragment: the plugin opens it with the fragment and the task's file
// splits, hands it the rows of its inputs block by block, executes it, and reads the result's
// batches in place (Arrow layout) before closing it. The fragment becomes a Tandem plan, is
// placed on the GPU and the CPU by the same cost model as any query (tandem.sql.device from the
// fragment), and runs on the ordinary executor: the Spark door has no execution path of its own.
// The C++ harness of the GPU tests drives this class directly; JNI is a thin layer above it.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "tandem/column/table.h"
#include "tandem/common/config.h"
#include "tandem/exec/exec_context.h"
#include "tandem/spark/fragment.h"
#include "tandem/spark/unsafe_row_writer.h"

namespace tandem::spark {

class FragmentTask {
 public:
  // `config`: the executor's settings (threads, memory, calibration); the fragment's device and
  // ANSI mode are applied on top.
  static Result<std::unique_ptr<FragmentTask>> Open(const std::string& fragment_json,
                                                    const std::string& task_json,
                                                    const Config& config);

  // A block of packed UnsafeRows for input `index` (unsafe_rows.h).
  Status AddRows(int index, const uint8_t* data, int64_t bytes, int64_t rows);
  // Rows of input `index` already in Tandem's layout (tests, and inputs a task produced).
  Status AddBatch(int index, BatchPtr batch);

  // Runs the fragment; afterwards batch(i) for i < num_batches().
  Status Execute();
  int num_batches() const { return static_cast<int>(result_.batches.size()); }
  const BatchPtr& batch(int i) const { return result_.batches[static_cast<size_t>(i)]; }
  const Table& result() const { return result_; }
  // Batch i as Spark's UnsafeRows (unsafe_row_writer.h), kept until Release(i).
  Result<const UnsafeRowBlock*> Rows(int i);
  // Frees batch i and its rows (the plugin is done with them).
  void Release(int i);

  ~FragmentTask();
  // Tasks opened and not yet destroyed in this process (the plugin's tests check that a query
  // leaves none behind).
  static int64_t OpenTasks();

  // Stops the run at the next operator boundary with a "cancelled" error.
  void Cancel() { cancelled_.store(true); }

  // {"rows", "batches", "cpu_ns", "gpu_ns", "pcie_bytes", "peak_bytes", "plan"}.
  std::string MetricsJson() const;
  // The placed plan, as EXPLAIN prints it (after Execute).
  const std::string& plan_text() const { return plan_text_; }
  // How many operators ran on the GPU (after Execute).
  int gpu_operators() const;

 private:
  FragmentTask(Fragment fragment, TaskData data, Config config)
      : fragment_(std::move(fragment)), data_(std::move(data)), config_(std::move(config)) {}

  Fragment fragment_;
  TaskData data_;
  Config config_;
  std::vector<std::vector<BatchPtr>> pending_;  // per input, until Execute
  Table result_;
  std::vector<std::unique_ptr<UnsafeRowBlock>> rows_;  // per batch, once asked for
  ExecContext ctx_;
  std::atomic<bool> cancelled_{false};
  std::string plan_text_;
  int64_t output_rows_ = 0;
  int64_t output_batches_ = 0;
};

}  // namespace tandem::spark
