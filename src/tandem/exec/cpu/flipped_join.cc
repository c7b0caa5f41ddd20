// FlippedSemiAntiSink: a SEMI/ANTI join built on its left side, probed by its right side as it
// streams (flipped_join.h).
#include "tandem/exec/cpu/flipped_join.h"

#include <optional>

#include "tandem/column/take.h"
#include "tandem/common/thread_pool.h"
#include "tandem/exec/cpu/join_emit.h"
#include "tandem/exec/cpu/operator_util.h"

namespace tandem::cpu {

PlanNode JoinWithSidesSwapped(const PlanNode& join, int num_left, int num_right) {
  PlanNode swapped = join;
  if (join.condition) {
    std::vector<int> mapping(static_cast<size_t>(num_left + num_right));
    for (int c = 0; c < num_left; ++c) mapping[c] = num_right + c;
    for (int c = 0; c < num_right; ++c) mapping[num_left + c] = c;
    swapped.condition = RemapColumns(join.condition, mapping);
  }
  return swapped;
}

bool FlippedSemiAntiSink::Applies(const PlanNode& join) {
  return join.kind == PlanKind::kJoin &&
         (join.join_type == JoinType::kSemi || join.join_type == JoinType::kAnti) &&
         !join.null_aware && !join.left_keys.empty() &&
         join.left_keys.size() == join.right_keys.size();
}

FlippedJoinTable::FlippedJoinTable(const PlanNode& join, Table left,
                                   std::vector<DataType> key_types, ExecContext& ctx)
    : node_(join),
      left_(std::move(left)),
      layout_(std::move(key_types), /*nulls_equal=*/false),
      ctx_(ctx) {}

Status FlippedJoinTable::BuildTable(bool key_bitmap) {
  TANDEM_ASSIGN_OR_RAISE(auto left_keys,
                         EvaluateColumnsPerBatch(node_.left_keys, left_.batches, ctx_.eval));
  TANDEM_RETURN_NOT_OK(CheckJoinKeyColumns(left_keys, layout_.types(), "hash join"));
  build_morsels_ = MakeMorsels(left_.batches);
  std::vector<std::vector<ColumnPtr>> build_key_cols;
  build_key_cols.reserve(build_morsels_.size());
  for (const Morsel& m : build_morsels_) build_key_cols.push_back(left_keys[m.batch]);
  TANDEM_ASSIGN_OR_RAISE(table_, JoinHashTable::Build(layout_, build_morsels_, build_key_cols));
  if (key_bitmap) {
    // Probed by the right side's rows.
    const PlanNode* right = node_.children.size() > 1 ? node_.children[1].get() : nullptr;
    bitmap_ = KeyBitmap::Build(layout_.types()[0], left_keys, 0, UINT64_MAX,
                               right && right->estimated_rows > 0 ? right->estimated_rows : 0);
  }
  const int64_t entries = table_.num_entries();
  matched_ = std::make_unique<std::atomic<uint8_t>[]>(static_cast<size_t>(entries));
  for (int64_t e = 0; e < entries; ++e) matched_[e].store(0, std::memory_order_relaxed);
  return Status::OK();
}

Result<std::vector<std::vector<ColumnPtr>>> FlippedJoinTable::RightKeys(const Batch& right_batch,
                                                                        EvalContext& eval,
                                                                        Table* right) const {
  if (ctx_.Cancelled()) return ExecContext::CancelledError();
  right->schema = right_batch.schema;
  right->batches.push_back(std::make_shared<Batch>(right_batch));  // shares the columns
  TANDEM_ASSIGN_OR_RAISE(auto keys,
                         EvaluateColumnsPerBatch(node_.right_keys, right->batches, eval));
  TANDEM_RETURN_NOT_OK(CheckJoinKeyColumns(keys, layout_.types(), "hash join"));
  return keys;
}

Result<std::unique_ptr<FlippedSemiAntiSink>> FlippedSemiAntiSink::Build(const PlanNode& join,
                                                                        Table left,
                                                                        int right_columns,
                                                                        ExecContext& ctx) {
  if (!Applies(join)) return Status::Internal("a flipped SEMI/ANTI join of another kind");
  TANDEM_ASSIGN_OR_RAISE(std::vector<DataType> types, JoinKeyTypes(join, "hash join"));
  std::unique_ptr<FlippedSemiAntiSink> s(
      new FlippedSemiAntiSink(join, std::move(left), std::move(types), ctx));
  TANDEM_RETURN_NOT_OK(s->BuildTable(/*key_bitmap=*/true));
  s->swapped_ = JoinWithSidesSwapped(join, s->left_.schema.num_fields(), right_columns);
  return s;
}

Status FlippedSemiAntiSink::Consume(const Batch& right_batch, EvalContext& eval) {
  right_rows_.fetch_add(right_batch.num_rows, std::memory_order_relaxed);
  if (table_.num_entries() == 0 || right_batch.num_rows == 0) return Status::OK();
  Table right;
  TANDEM_ASSIGN_OR_RAISE(auto right_keys, RightKeys(right_batch, eval, &right));
  if (bitmap_ && bitmap_->StillPays() && right_batch.num_rows <= INT32_MAX) {
    // Only the right rows whose first key may be in the table can flag a left row (TPC-H Q04's
    // and Q21's lineitem against the orders of a quarter or of one nation's suppliers): the
    // others go before their keys are hashed, when they are at least half of the batch.
    const std::vector<int32_t> rows = bitmap_->RowsThatMayMatch(*right_keys[0][0], nullptr);
    const auto m = static_cast<int64_t>(rows.size());
    bitmap_->Record(m, right_batch.num_rows);
    bitmap_dropped_.fetch_add(right_batch.num_rows - m, std::memory_order_relaxed);
    if (m == 0) return Status::OK();
    if (2 * m <= right_batch.num_rows) {
      BatchPtr kept = TakeBatch(right_batch, rows.data(), m);
      kept->num_rows = m;
      kept->schema = right_batch.schema;
      right.batches[0] = std::move(kept);
      for (ColumnPtr& key : right_keys[0]) key = Take(*key, rows.data(), m);
    }
  }
  auto mark = [&](int64_t entry) { Mark(entry); };
  // With a residual condition, the candidate pairs (right row, left entry) go through the join
  // emitter's condition filter, roles swapped.
  std::optional<JoinEmitter> emitter;
  if (node_.condition) {
    emitter.emplace(swapped_, right, left_, table_.entry_refs(), table_.num_entries());
  }
  for (const Morsel& m : MakeMorsels(right.batches)) {
    EncodedKeys keys(layout_, right_keys[m.batch], m.begin, m.end);
    if (!emitter) {
      table_.ProbeAll(keys, /*first_only=*/false, [&](int64_t, int64_t entry) { mark(entry); });
      continue;
    }
    JoinCandidates c;
    table_.ProbeAll(keys, /*first_only=*/false, [&](int64_t i, int64_t entry) {
      if (matched_[entry].load(std::memory_order_relaxed)) return;
      c.probe.push_back(m.begin + i);
      c.build.push_back(entry);
    });
    TANDEM_RETURN_NOT_OK(emitter->FilterCandidates(m, &c, eval));
    for (int64_t entry : c.build) mark(entry);
  }
  return Status::OK();
}

Result<Table> FlippedSemiAntiSink::Emit() const {
  // Per-left-row flags, batch by batch; rows with NULL keys have no entry and stay clear.
  std::vector<std::vector<uint8_t>> row_matched(left_.batches.size());
  for (size_t b = 0; b < left_.batches.size(); ++b) {
    row_matched[b].assign(static_cast<size_t>(left_.batches[b]->num_rows), 0);
  }
  const int64_t* refs = table_.entry_refs();
  for (int64_t e = 0; e < table_.num_entries(); ++e) {
    if (matched_[e].load(std::memory_order_relaxed)) {
      row_matched[RefBatch(refs[e])][RefRow(refs[e])] = 1;
    }
  }
  const uint8_t want = node_.join_type == JoinType::kSemi ? 1 : 0;
  std::vector<BatchPtr> outputs(build_morsels_.size());
  TANDEM_RETURN_NOT_OK(ThreadPool::Default().ParallelFor(
      static_cast<int64_t>(build_morsels_.size()), [&](int64_t mi) -> Status {
        const Morsel& m = build_morsels_[mi];
        const Batch& lb = *left_.batches[m.batch];
        const uint8_t* flags = row_matched[m.batch].data();
        std::vector<int64_t> keep;
        keep.reserve(static_cast<size_t>(m.end - m.begin));
        for (int64_t r = m.begin; r < m.end; ++r) {
          if (flags[r] == want) keep.push_back(r);
        }
        if (keep.empty()) return Status::OK();
        const auto n = static_cast<int64_t>(keep.size());
        auto out = std::make_shared<Batch>();
        out->schema = node_.schema;
        out->num_rows = n;
        if (n == lb.num_rows) {
          out->columns = lb.columns;  // the whole batch survives: no copy
        } else {
          for (const auto& col : lb.columns) out->columns.push_back(Take(*col, keep.data(), n));
        }
        outputs[mi] = std::move(out);
        return Status::OK();
      }));
  Table out;
  out.schema = node_.schema;
  for (auto& b : outputs) {
    if (b) out.batches.push_back(std::move(b));
  }
  return out;
}

bool FlippedLeftSink::Applies(const PlanNode& join) {
  return join.kind == PlanKind::kJoin && join.join_type == JoinType::kLeft &&
         !join.left_keys.empty() && join.left_keys.size() == join.right_keys.size();
}

Result<std::unique_ptr<FlippedLeftSink>> FlippedLeftSink::Build(const PlanNode& join, Table left,
                                                                const Schema& right_schema,
                                                                PipelineSink* downstream,
                                                                ExecContext& ctx) {
  if (!Applies(join)) return Status::Internal("a flipped LEFT join of another kind");
  TANDEM_ASSIGN_OR_RAISE(std::vector<DataType> types, JoinKeyTypes(join, "hash join"));
  std::unique_ptr<FlippedLeftSink> s(
      new FlippedLeftSink(join, std::move(left), std::move(types), ctx));
  s->right_schema_ = right_schema;
  s->downstream_ = downstream;
  const int nl = s->left_.schema.num_fields(), nr = right_schema.num_fields();
  PlanNode& w = s->swapped_;
  w = JoinWithSidesSwapped(join, nl, nr);
  w.join_type = JoinType::kRight;
  w.left_keys = join.right_keys;
  w.right_keys = join.left_keys;
  w.schema.fields.clear();
  for (int c = 0; c < nr; ++c) w.schema.fields.push_back(join.schema.field(nl + c));
  for (int c = 0; c < nl; ++c) w.schema.fields.push_back(join.schema.field(c));
  TANDEM_RETURN_NOT_OK(s->BuildTable());
  return s;
}

Status FlippedLeftSink::Deliver(const BatchPtr& swapped_batch, EvalContext& eval) {
  if (!swapped_batch || swapped_batch->num_rows == 0) return Status::OK();
  const int nl = left_.schema.num_fields(), nr = right_schema_.num_fields();
  auto out = std::make_shared<Batch>();
  out->schema = node_.schema;
  out->num_rows = swapped_batch->num_rows;
  for (int c = 0; c < nl; ++c) out->columns.push_back(swapped_batch->columns[nr + c]);
  for (int c = 0; c < nr; ++c) out->columns.push_back(swapped_batch->columns[c]);
  rows_made_.fetch_add(out->num_rows, std::memory_order_relaxed);
  if (downstream_) return downstream_->Consume(*out, eval);
  std::lock_guard<std::mutex> lock(collected_mutex_);
  collected_.push_back(std::move(out));
  return Status::OK();
}

Status FlippedLeftSink::Consume(const Batch& right_batch, EvalContext& eval) {
  if (table_.num_entries() == 0 || right_batch.num_rows == 0) return Status::OK();
  Table right;
  TANDEM_ASSIGN_OR_RAISE(auto right_keys, RightKeys(right_batch, eval, &right));
  JoinEmitter emitter(swapped_, right, left_, table_.entry_refs(), table_.num_entries(),
                      matched_.get());
  // Pairs go on in pieces of about this many (a right row may match many left rows).
  constexpr size_t kPiecePairs = size_t{1} << 16;
  constexpr int64_t kStepRows = 4096;
  for (const Morsel& m : MakeMorsels(right.batches)) {
    EncodedKeys keys(layout_, right_keys[m.batch], m.begin, m.end);
    JoinCandidates c;
    int64_t pending = 0;
    for (int64_t begin = 0; begin < keys.num_rows();) {
      const int64_t end = std::min(keys.num_rows(), begin + kStepRows);
      table_.ProbeRange(keys, begin, end, /*first_only=*/false, [&](int64_t i, int64_t entry) {
        c.probe.push_back(m.begin + i);
        c.build.push_back(entry);
      });
      begin = end;
      if (c.probe.size() < kPiecePairs && begin < keys.num_rows()) continue;
      const Morsel piece{m.batch, m.begin + pending, m.begin + begin};
      TANDEM_ASSIGN_OR_RAISE(BatchPtr pairs, emitter.EmitMorsel(piece, &c, nullptr, eval));
      TANDEM_RETURN_NOT_OK(Deliver(pairs, eval));
      c.probe.clear();
      c.build.clear();
      pending = begin;
    }
  }
  return Status::OK();
}

Result<Table> FlippedLeftSink::Emit(EvalContext& eval) {
  Table no_right;
  no_right.schema = right_schema_;
  JoinEmitter emitter(swapped_, no_right, left_, table_.entry_refs(), table_.num_entries(),
                      matched_.get());
  TANDEM_ASSIGN_OR_RAISE(BatchPtr unmatched, emitter.EmitUnmatchedBuild(table_.null_key_refs()));
  TANDEM_RETURN_NOT_OK(Deliver(unmatched, eval));
  Table out;
  out.schema = node_.schema;
  out.batches = std::move(collected_);
  return out;
}

}  // namespace tandem::cpu
