// Window: for each distinct (PARTITION BY, ORDER BY) specification the input rows are sorted
// once (sort_runs.h) into a WindowLayout with partition and peer bounds (window_frames.h); every
// call of that specification is computed over the sorted order (window_functions.h). The output
// keeps all input rows, in the sorted order of the first specification, plus one column per call.
#include <numeric>

#include "tandem/column/take.h"
#include "tandem/common/thread_pool.h"
#include "tandem/exec/cpu/operators.h"
#include "tandem/exec/cpu/row_gather.h"
#include "tandem/exec/cpu/sort_runs.h"
#include "tandem/exec/cpu/window_frames.h"
#include "tandem/exec/cpu/window_functions.h"

namespace tandem::cpu {
namespace {

std::string SpecKey(const WindowCall& call) {
  std::string key;
  for (const auto& e : call.partition_by) key += e->ToString() + ",";
  key += "|";
  for (const auto& k : call.order_by) {
    key += k.expr->ToString() + (k.ascending ? " a" : " d") + (k.nulls_first ? "f," : "l,");
  }
  return key;
}

// Wraps per-batch evaluated columns as batches so GatherRows can read them by ref.
std::vector<BatchPtr> AsBatches(const std::vector<std::vector<ColumnPtr>>& cols,
                                const std::vector<BatchPtr>& input) {
  std::vector<BatchPtr> out;
  for (size_t b = 0; b < cols.size(); ++b) {
    auto batch = std::make_shared<Batch>();
    batch->columns = cols[b];
    batch->num_rows = input[b]->num_rows;
    out.push_back(std::move(batch));
  }
  return out;
}

ColumnPtr Slice(const ColumnPtr& col, int64_t begin, int64_t n) {
  if (begin == 0 && n == col->length()) return col;
  std::vector<int64_t> idx(static_cast<size_t>(n));
  std::iota(idx.begin(), idx.end(), begin);
  return Take(*col, idx.data(), n);
}

}  // namespace

Result<Table> Window(const PlanNode& node, const Table& input, ExecContext& ctx) {
  const int64_t n = input.num_rows();
  Table out;
  out.schema = node.schema;
  if (n == 0) return out;
  const std::vector<BatchPtr>& batches = input.batches;

  std::vector<std::string> specs;
  std::vector<int> spec_of(node.windows.size());
  for (size_t w = 0; w < node.windows.size(); ++w) {
    const std::string key = SpecKey(node.windows[w]);
    auto it = std::find(specs.begin(), specs.end(), key);
    spec_of[w] = static_cast<int>(it - specs.begin());
    if (it == specs.end()) specs.push_back(key);
  }

  std::vector<ColumnPtr> results(node.windows.size());
  std::vector<int64_t> output_refs;
  std::vector<std::vector<int64_t>> output_pos;  // [batch][row] -> output position
  for (size_t s = 0; s < specs.size(); ++s) {
    const WindowCall* first = nullptr;
    for (size_t w = 0; w < node.windows.size(); ++w) {
      if (spec_of[w] == static_cast<int>(s)) {
        first = &node.windows[w];
        break;
      }
    }
    std::vector<SortKey> keys;
    for (const auto& e : first->partition_by) keys.push_back({e, true, true});
    for (const auto& k : first->order_by) keys.push_back(k);
    const int num_partition_keys = static_cast<int>(first->partition_by.size());
    std::vector<ExprPtr> key_exprs;
    std::vector<SortOrder> orders;
    for (const auto& k : keys) {
      key_exprs.push_back(k.expr);
      orders.push_back({k.ascending, k.nulls_first});
    }
    TANDEM_ASSIGN_OR_RAISE(auto key_cols, EvaluateColumnsPerBatch(key_exprs, batches, ctx.eval));
    const std::vector<BatchPtr> key_batches = AsBatches(key_cols, batches);
    SortKeyEncoder encoder(key_cols, orders);
    WindowLayout layout;
    KeyChanges changes;
    changes.prefix_bytes = encoder.ExactPrefixBytes(num_partition_keys);
    const bool exact = changes.prefix_bytes >= 0 && !encoder.needs_tail();
    TANDEM_ASSIGN_OR_RAISE(layout.refs,
                           SortedRowRefs(batches, encoder, -1, exact ? &changes : nullptr));
    ComputeWindowBounds(encoder, num_partition_keys, changes.filled ? &changes : nullptr, &layout);

    ColumnPtr order_key;
    bool order_ascending = true;
    if (first->order_by.size() == 1) {
      order_key = GatherRows(key_batches, num_partition_keys,
                             key_cols[0][num_partition_keys]->type(), layout.refs.data(), n);
      order_ascending = first->order_by[0].ascending;
    }

    // Sorted position -> output position, for specifications after the first.
    std::vector<int64_t> perm;
    if (s == 0) {
      output_refs = layout.refs;
      output_pos.resize(batches.size());
      for (size_t b = 0; b < batches.size(); ++b) output_pos[b].resize(batches[b]->num_rows);
      for (int64_t j = 0; j < n; ++j) {
        output_pos[RefBatch(output_refs[j])][RefRow(output_refs[j])] = j;
      }
    } else {
      perm.resize(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) {
        perm[output_pos[RefBatch(layout.refs[i])][RefRow(layout.refs[i])]] = i;
      }
    }

    for (size_t w = 0; w < node.windows.size(); ++w) {
      if (spec_of[w] != static_cast<int>(s)) continue;
      const WindowCall& call = node.windows[w];
      TANDEM_ASSIGN_OR_RAISE(auto arg_cols, EvaluateColumnsPerBatch(call.args, batches, ctx.eval));
      const std::vector<BatchPtr> arg_batches = AsBatches(arg_cols, batches);
      std::vector<ColumnPtr> args;
      for (size_t a = 0; a < call.args.size(); ++a) {
        args.push_back(GatherRows(arg_batches, static_cast<int>(a), arg_cols[0][a]->type(),
                                  layout.refs.data(), n));
      }
      std::vector<int64_t> fs, fe;
      TANDEM_RETURN_NOT_OK(
          ComputeFrames(call.frame, layout, order_key.get(), order_ascending, &fs, &fe)
              .WithContext(call.name));
      TANDEM_ASSIGN_OR_RAISE(ColumnPtr result, ComputeWindowFunction(call, layout, args, fs, fe));
      if (result->type() != call.type) {
        return Status::Internal("window " + call.name + " produced " + result->type().ToString() +
                                ", expected " + call.type.ToString());
      }
      if (!perm.empty()) result = Take(*result, perm.data(), n);
      results[w] = std::move(result);
    }
  }

  TANDEM_ASSIGN_OR_RAISE(Table gathered, GatherTable(input, input.schema, output_refs, 0, n));
  int64_t begin = 0;
  for (auto& batch : gathered.batches) {
    auto b = std::make_shared<Batch>(*batch);
    b->schema = node.schema;
    for (const auto& r : results) b->columns.push_back(Slice(r, begin, b->num_rows));
    begin += b->num_rows;
    out.batches.push_back(std::move(b));
  }
  return out;
}

}  // namespace tandem::cpu
