// LargePeerGroup (large_peer_group.h): a peer group computed in pieces, its rows held on disk.
#include "tandem/exec/cpu/large_peer_group.h"

#include "tandem/column/column_builder.h"

namespace tandem::cpu {
namespace {

// Row `row` of `column` as a column of one row.
ColumnPtr OneRow(const Column& column, int64_t row) {
  ColumnBuilder b(column.type(), 1);
  b.AppendFrom(column, row);
  return b.Finish();
}

}  // namespace

bool SplitsPeerGroups(const PlanNode& window) {
  for (const WindowCall& call : window.windows) {
    if (PeerValueOf(call) == PeerValue::kCannot) return false;
  }
  return true;
}

LargePeerGroup::LargePeerGroup(const PlanNode& window, ExecContext& ctx)
    : window_(window),
      ctx_(ctx),
      first_call_(window.children[0]->schema.num_fields()),
      value_(window.windows.size()) {
  for (const WindowCall& call : window.windows) from_.push_back(PeerValueOf(call));
}

void LargePeerGroup::NoteFirstRow(const Batch& batch, int64_t row) {
  for (size_t w = 0; w < from_.size(); ++w) {
    if (from_[w] == PeerValue::kFirstRow) value_[w] = OneRow(*batch.columns[first_call_ + w], row);
  }
}

void LargePeerGroup::NoteLastRow(const Batch& batch, int64_t row) {
  for (size_t w = 0; w < from_.size(); ++w) {
    if (from_[w] == PeerValue::kLastRow) value_[w] = OneRow(*batch.columns[first_call_ + w], row);
  }
}

Status LargePeerGroup::Hold(const Batch& batch) {
  if (!held_) {
    TANDEM_ASSIGN_OR_RAISE(held_, SpillFile::Create(ctx_.spill_dir));
  }
  return held_->Append(batch);
}

void LargePeerGroup::Patch(Batch* batch) const {
  for (size_t w = 0; w < from_.size(); ++w) {
    if (!value_[w]) continue;
    ColumnBuilder same(value_[w]->type(), batch->num_rows);
    for (int64_t r = 0; r < batch->num_rows; ++r) same.AppendFrom(*value_[w], 0);
    batch->columns[first_call_ + w] = same.Finish();
  }
}

Status LargePeerGroup::EmitHeld(const std::function<Status(BatchPtr)>& emit) {
  if (!held_) return Status::OK();
  TANDEM_RETURN_NOT_OK(held_->FinishWriting());
  for (int64_t i = 0; i < held_->num_blocks(); ++i) {
    TANDEM_ASSIGN_OR_RAISE(BatchPtr batch, held_->ReadBlock(i, window_.schema));
    Patch(batch.get());
    TANDEM_RETURN_NOT_OK(emit(std::move(batch)));
  }
  held_.reset();
  return Status::OK();
}

}  // namespace tandem::cpu
