// ExecContext: what one query's execution carries: evaluation settings (ANSI mode), the thread
// budget, and the metrics every operator records (rows, batches, bytes, time, device), which
// EXPLAIN ANALYZE, benchmarks and later event logs all read.
#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <string>

#include "tandem/common/status.h"

namespace tandem {

struct PlanNode;

struct EvalContext {
  // ANSI mode: integer overflow and division by zero raise errors. Default (Spark's non-ANSI
  // mode): division by zero gives NULL; integer overflow is an error in both modes (Tandem
  // never wraps silently).
  bool ansi = false;
};

struct OperatorMetrics {
  std::string name;  // "HashJoin", "Scan lineitem" ...
  std::string device = "cpu";
  int64_t rows = 0;
  int64_t batches = 0;
  int64_t bytes = 0;
  double millis = 0;
};

class ExecContext {
 public:
  EvalContext eval;
  int num_threads = 0;  // 0 = all hardware threads

  void Record(const PlanNode* node, const OperatorMetrics& m) {
    std::lock_guard<std::mutex> lock(mu_);
    metrics_[node] = m;
  }
  const OperatorMetrics* Find(const PlanNode* node) const {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = metrics_.find(node);
    return it == metrics_.end() ? nullptr : &it->second;
  }

 private:
  mutable std::mutex mu_;
  std::map<const PlanNode*, OperatorMetrics> metrics_;
};

}  // namespace tandem
