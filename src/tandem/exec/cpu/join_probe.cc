// JoinProbe: the build of an equi hash join's right input and the probe of left morsels, sliced
// so that a key matched by many rows on both sides fills bounded output batches; a bitmap of a
// narrow integer build key drops probe rows that cannot match before they are hashed.
#include "tandem/exec/cpu/join_probe.h"

#include <algorithm>

#include "tandem/column/take.h"
#include "tandem/exec/cpu/row_gather.h"

namespace tandem::cpu {
namespace {

// A morsel's probe rows go in slices sized to make about this many candidate pairs, so a key
// that many rows match on both sides (a join on a low-cardinality column) fills output batches,
// which count against the host memory budget, instead of one unbounded list of pairs.
constexpr int64_t kSlicePairs = int64_t{1} << 20;
constexpr int64_t kFirstSliceRows = 64;  // grows by NextSliceRows when rows match little

// The probe (left) side's expected rows, 0 when not estimated: how wide a key bitmap may be.
double ProbeSideRows(const PlanNode& join) {
  const PlanNode* left = join.children.empty() ? nullptr : join.children[0].get();
  return left && left->estimated_rows > 0 ? left->estimated_rows : 0;
}

// Rows for the next slice after `rows` rows made `pairs` pairs.
int64_t NextSliceRows(int64_t rows, int64_t pairs) {
  if (pairs == 0) return std::min<int64_t>(2 * rows, kDefaultMorselRows);
  return std::clamp<int64_t>(kSlicePairs * rows / pairs, 1, kDefaultMorselRows);
}

}  // namespace

OutputBudget::OutputBudget(const PlanNode& node, const ExecContext& ctx)
    : limit_(node.join_type == JoinType::kRight || node.join_type == JoinType::kFull
                 ? -1
                 : ctx.RowBudget(&node)),
      exact_(node.join_type == JoinType::kInner && !node.condition) {}

Result<std::unique_ptr<JoinProbe>> JoinProbe::Build(const PlanNode& node, Table right,
                                                    ExecContext& ctx) {
  TANDEM_ASSIGN_OR_RAISE(std::vector<DataType> types, JoinKeyTypes(node, "hash join"));
  std::unique_ptr<JoinProbe> probe(new JoinProbe(node, std::move(right), std::move(types), ctx));
  const Table& r = probe->right_;
  probe->right_sources_ = GatherSources(r);
  TANDEM_ASSIGN_OR_RAISE(auto right_keys,
                         EvaluateColumnsPerBatch(node.right_keys, r.batches, ctx.eval));
  TANDEM_RETURN_NOT_OK(CheckJoinKeyColumns(right_keys, probe->layout_.types(), "hash join"));
  const std::vector<Morsel> build_morsels = MakeMorsels(r.batches);
  std::vector<std::vector<ColumnPtr>> build_key_cols;
  build_key_cols.reserve(build_morsels.size());
  for (const Morsel& m : build_morsels) build_key_cols.push_back(right_keys[m.batch]);
  TANDEM_ASSIGN_OR_RAISE(probe->table_,
                         JoinHashTable::Build(probe->layout_, build_morsels, build_key_cols));
  // Over the sparsest key: with several keys, a row whose key is not in the table cannot match
  // either (TPC-H Q02's partsupp probed on (ps_partkey, ps_supplycost)).
  if (!node.left_keys.empty() &&
      (node.join_type == JoinType::kInner || node.join_type == JoinType::kSemi)) {
    probe->bitmap_ = KeyBitmap::BuildSparsest(probe->layout_.types(), right_keys,
                                              &probe->bitmap_key_, ProbeSideRows(node));
  }
  probe->null_aware_ = node.null_aware && node.join_type == JoinType::kAnti && r.num_rows() > 0;
  probe->no_output_ = probe->null_aware_ && !probe->table_.null_key_refs().empty();
  return probe;
}

bool JoinProbe::StreamsProbeSide(const PlanNode& node) {
  if (node.kind != PlanKind::kJoin || node.left_keys.empty()) return false;
  switch (node.join_type) {
    case JoinType::kInner:
    case JoinType::kLeft:
    case JoinType::kSemi:
    case JoinType::kAnti:
      return true;
    default:
      return false;
  }
}

Status JoinProbe::ProbeMorsel(const std::vector<ColumnPtr>& key_columns, const Morsel& m,
                              JoinEmitter& emitter, OutputBudget& budget, EvalContext& eval,
                              std::vector<BatchPtr>* out) const {
  const bool first_only = emitter.first_match_only();
  EncodedKeys keys(layout_, key_columns, m.begin, m.end);
  const int64_t rows = keys.num_rows();
  std::vector<uint8_t> excluded;
  if (null_aware_ && keys.any_null()) {
    excluded.resize(static_cast<size_t>(rows));
    for (int64_t i = 0; i < rows; ++i) excluded[i] = keys.is_null(i);
  }
  // Slices of rows are probed into `c` until it holds about kSlicePairs pairs (or the morsel
  // ends); then rows [pending, begin) are emitted as one batch.
  JoinCandidates c;
  c.probe.reserve(static_cast<size_t>(rows));
  c.build.reserve(static_cast<size_t>(rows));
  int64_t pending = 0;
  int64_t slice = std::min(rows, kFirstSliceRows);
  for (int64_t begin = 0; begin < rows && !budget.exhausted();) {
    if (ctx_.Cancelled()) return ExecContext::CancelledError();
    const int64_t end = std::min(rows, begin + slice);
    const size_t before = c.probe.size();
    const int64_t cap = budget.CandidateCap();
    if (table_.num_entries() > 0 && cap == INT64_MAX) {
      table_.ProbeRange(keys, begin, end, first_only, [&](int64_t i, int64_t entry) {
        c.probe.push_back(m.begin + i);
        c.build.push_back(entry);
      });
    } else if (table_.num_entries() > 0) {  // an inner join under a LIMIT: `cap` pairs
      const size_t want = static_cast<size_t>(cap);
      for (int64_t i = begin; i < end && c.probe.size() < want; ++i) {
        if (keys.is_null(i)) continue;
        table_.ForEachMatch(keys, i, [&](int64_t entry) {
          c.probe.push_back(m.begin + i);
          c.build.push_back(entry);
          return c.probe.size() < want;
        });
      }
    }
    slice = NextSliceRows(end - begin, static_cast<int64_t>(c.probe.size() - before));
    begin = end;
    const bool full = static_cast<int64_t>(c.probe.size()) >= std::min(kSlicePairs, cap);
    if (!full && begin < rows) continue;
    const Morsel part{m.batch, m.begin + pending, m.begin + begin};
    TANDEM_ASSIGN_OR_RAISE(
        BatchPtr batch,
        emitter.EmitMorsel(part, &c, excluded.empty() ? nullptr : excluded.data() + pending, eval));
    budget.Add(batch);
    if (batch && batch->num_rows > 0) out->push_back(std::move(batch));
    c.probe.clear();
    c.build.clear();
    pending = begin;
  }
  return Status::OK();
}

Status JoinProbe::ProbeBatch(const BatchPtr& batch, const std::vector<int32_t>* selection,
                             OutputBudget& budget, EvalContext& eval,
                             std::vector<BatchPtr>* out) const {
  if (no_output_ || !batch || batch->num_rows == 0 || budget.exhausted()) return Status::OK();
  if (selection && selection->empty()) return Status::OK();
  auto compact = [](const BatchPtr& b, const std::vector<int32_t>& rows) {
    BatchPtr c = TakeBatch(*b, rows.data(), static_cast<int64_t>(rows.size()));
    c->num_rows = static_cast<int64_t>(rows.size());
    c->schema = b->schema;
    return c;
  };
  const bool use_bitmap = bitmap_ && bitmap_->StillPays() && batch->num_rows <= INT32_MAX;
  // The bitmap reads the keys of the selected rows where they lie, in the uncompacted batch, when
  // every key is a plain column (an expression could fail on a row the Filter dropped).
  bool key_in_place = true;
  for (const ExprPtr& k : node_.left_keys) {
    key_in_place &= k->kind == ExprKind::kColumnRef && k->outer_depth == 0;
  }
  Table left;
  left.schema = batch->schema;
  left.batches.push_back(selection && !(use_bitmap && key_in_place) ? compact(batch, *selection)
                                                                    : batch);
  if (left.batches[0] != batch) selection = nullptr;
  const int64_t candidates =
      selection ? static_cast<int64_t>(selection->size()) : left.batches[0]->num_rows;
  TANDEM_ASSIGN_OR_RAISE(auto left_keys,
                         EvaluateColumnsPerBatch(node_.left_keys, left.batches, eval));
  TANDEM_RETURN_NOT_OK(CheckJoinKeyColumns(left_keys, layout_.types(), "hash join"));
  if (use_bitmap) {
    // Only the rows whose key may be in the table go on (when that is at most half of them, or
    // always where a Filter's selection has to be applied anyway: one copy for both).
    const std::vector<int32_t> rows =
        bitmap_->RowsThatMayMatch(*left_keys[0][bitmap_key_], selection);
    const int64_t m = static_cast<int64_t>(rows.size());
    bitmap_->Record(m, candidates);
    if (m == 0) return Status::OK();
    if (selection || 2 * m <= candidates) {
      left.batches[0] = compact(batch, rows);
      for (ColumnPtr& key : left_keys[0]) key = Take(*key, rows.data(), m);
    }
  }
  JoinEmitter emitter(node_, left, right_, table_.entry_refs(), table_.num_entries(), nullptr,
                      &right_sources_);
  for (const Morsel& m : MakeMorsels(left.batches)) {
    TANDEM_RETURN_NOT_OK(ProbeMorsel(left_keys[m.batch], m, emitter, budget, eval, out));
  }
  return Status::OK();
}

}  // namespace tandem::cpu
