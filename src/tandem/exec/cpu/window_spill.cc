// Window functions partition by partition from disk (see window_spill.h).
#include "tandem/exec/cpu/window_spill.h"

#include "tandem/exec/cpu/operators.h"
#include "tandem/exec/cpu/window_large_partitions.h"

namespace tandem::cpu {
namespace {

bool HasKey(const std::vector<const Expr*>& keys, const Expr& key) {
  for (const Expr* k : keys) {
    if (SameExpr(*k, key)) return true;
  }
  return false;
}

}  // namespace

std::vector<const Expr*> SharedPartitionKeys(const PlanNode& window) {
  std::vector<const Expr*> shared;
  if (window.windows.empty()) return shared;
  for (const ExprPtr& key : window.windows[0].partition_by) {
    bool everywhere = true;
    for (size_t w = 1; w < window.windows.size() && everywhere; ++w) {
      bool found = false;
      for (const ExprPtr& other : window.windows[w].partition_by) {
        found = found || SameExpr(*key, *other);
      }
      everywhere = found;
    }
    if (everywhere) shared.push_back(key.get());
  }
  return shared;
}

WindowSteps SplitByPartitionKeys(const PlanNode& window) {
  WindowSteps out;
  const int input_width = window.children[0]->schema.num_fields();
  if (!SharedPartitionKeys(window).empty()) {
    out.steps.push_back(std::make_shared<PlanNode>(window));  // a copy: the steps own theirs
    for (int c = 0; c < window.schema.num_fields(); ++c) out.output_columns.push_back(c);
    return out;
  }
  // Greedy groups: the keys a group's calls share so far, and its calls.
  std::vector<std::vector<const Expr*>> shared;
  std::vector<std::vector<size_t>> calls;
  for (size_t w = 0; w < window.windows.size(); ++w) {
    const WindowCall& call = window.windows[w];
    if (call.partition_by.empty()) return WindowSteps{};
    size_t g = 0;
    for (; g < shared.size(); ++g) {
      std::vector<const Expr*> common;
      for (const ExprPtr& key : call.partition_by) {
        if (HasKey(shared[g], *key)) common.push_back(key.get());
      }
      if (!common.empty()) {
        shared[g] = std::move(common);
        calls[g].push_back(w);
        break;
      }
    }
    if (g == shared.size()) {
      std::vector<const Expr*> keys;
      for (const ExprPtr& key : call.partition_by) keys.push_back(key.get());
      shared.push_back(std::move(keys));
      calls.push_back({w});
    }
  }
  // Each step's calls read only the window's input columns, which lead every step's rows.
  PlanPtr below = window.children[0];
  std::vector<int> column_of_call(window.windows.size());
  int next_column = input_width;
  for (const std::vector<size_t>& group : calls) {
    std::vector<WindowCall> step_calls;
    for (size_t w : group) {
      step_calls.push_back(window.windows[w]);
      column_of_call[w] = next_column++;
    }
    below = MakeWindow(below, std::move(step_calls));
    out.steps.push_back(below);
  }
  for (int c = 0; c < input_width; ++c) out.output_columns.push_back(c);
  for (int column : column_of_call) out.output_columns.push_back(column);
  return out;
}

Status WindowOverPartitions(const PlanNode& window, SpillPartitions& parts, ExecContext& ctx,
                            const HostRetry& retry, const std::function<Status(Table)>& emit,
                            WindowPartitionCounts* counts) {
  const Schema& input_schema = window.children[0]->schema;
  for (int p = 0; p < parts.count(); ++p) {
    if (parts.file(p).rows() == 0) continue;
    Result<Table> part = retry(window, [&]() -> Result<Table> {
      TANDEM_ASSIGN_OR_RAISE(Table rows, parts.file(p).ReadAll(input_schema));
      return Window(window, rows, ctx);
    });
    if (!part.ok() && part.status().code() == StatusCode::kOutOfMemory && !ctx.Cancelled()) {
      // Too large whole (a key that holds most rows): sorted by partition, walked in order.
      int large = 0;
      int64_t spilled = 0;
      TANDEM_RETURN_NOT_OK(
          WindowOverSortedRows(window, parts.file(p), ctx, emit, &large, &spilled));
      ++counts->sorted_files;
      counts->large_partitions += large;
      counts->spilled_bytes += spilled;
      continue;
    }
    TANDEM_RETURN_NOT_OK(part.status());
    TANDEM_RETURN_NOT_OK(emit(std::move(part).value()));
  }
  return Status::OK();
}

}  // namespace tandem::cpu
