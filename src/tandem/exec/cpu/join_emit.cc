// Join-type specific output assembly (see join_emit.h).
#include "tandem/exec/cpu/join_emit.h"

#include <algorithm>

#include "tandem/column/slice.h"
#include "tandem/column/take.h"
#include "tandem/expr/cpu/evaluate.h"

namespace tandem::cpu {
namespace {

constexpr int64_t kConditionSlice = 1 << 20;  // candidate pairs per condition evaluation

// Whether `rows` are consecutive row numbers in increasing order (one run).
bool IsOneRun(const std::vector<int64_t>& rows) {
  const size_t n = rows.size();
  if (n == 0 || rows[n - 1] - rows[0] != static_cast<int64_t>(n) - 1) return false;
  const int64_t first = rows[0];
  for (size_t i = 1; i < n; ++i) {
    if (rows[i] != first + static_cast<int64_t>(i)) return false;
  }
  return true;
}

}  // namespace

JoinEmitter::JoinEmitter(const PlanNode& node, const Table& left, const Table& right,
                         const int64_t* build_refs, int64_t num_build_ids,
                         std::atomic<uint8_t>* shared_build_matched,
                         const std::vector<GatherSource>* right_sources)
    : node_(node),
      left_(left),
      right_(right),
      right_sources_(right_sources),
      build_refs_(build_refs),
      num_build_ids_(num_build_ids) {
  if (node.condition) {
    std::vector<int> used;
    CollectColumns(*node.condition, &used);
    std::sort(used.begin(), used.end());
    used.erase(std::unique(used.begin(), used.end()), used.end());
    const int num_left = left.schema.num_fields();
    const int num_total = num_left + right.schema.num_fields();
    std::vector<int> mapping(static_cast<size_t>(num_total), -1);
    int next = 0;
    for (int c : used) {
      if (c < 0 || c >= num_total) continue;
      if (c < num_left) cond_left_cols_.push_back(c);
    }
    for (int c : used) {
      if (c >= num_left && c < num_total) cond_right_cols_.push_back(c - num_left);
    }
    for (int c : cond_left_cols_) mapping[c] = next++;
    for (int c : cond_right_cols_) mapping[c + num_left] = next++;
    condition_ = RemapColumns(node.condition, mapping);
  }
  if (right_sources_ == nullptr) {
    // SEMI, ANTI and MARK joins gather only the right columns their condition reads.
    const bool emits_right = node.join_type != JoinType::kSemi &&
                             node.join_type != JoinType::kAnti && node.join_type != JoinType::kMark;
    for (int c = 0; c < right.schema.num_fields(); ++c) {
      const bool gathered =
          emits_right ||
          std::find(cond_right_cols_.begin(), cond_right_cols_.end(), c) != cond_right_cols_.end();
      if (gathered) {
        own_sources_.emplace_back(right.batches, c, right.schema.field(c).type);
      } else {
        own_sources_.emplace_back(right.schema.field(c).type);
      }
    }
    right_sources_ = &own_sources_;
  }
  if (node.join_type == JoinType::kRight || node.join_type == JoinType::kFull) {
    build_matched_ = shared_build_matched;
    if (!build_matched_) {
      own_build_matched_ =
          std::make_unique<std::atomic<uint8_t>[]>(static_cast<size_t>(num_build_ids));
      for (int64_t i = 0; i < num_build_ids; ++i) {
        own_build_matched_[i].store(0, std::memory_order_relaxed);
      }
      build_matched_ = own_build_matched_.get();
    }
  }
}

bool JoinEmitter::first_match_only() const {
  return !condition_ && (node_.join_type == JoinType::kSemi || node_.join_type == JoinType::kAnti ||
                         node_.join_type == JoinType::kMark);
}

Status JoinEmitter::FilterCandidates(const Morsel& m, JoinCandidates* c, EvalContext& ctx) const {
  if (!condition_ || c->probe.empty()) return Status::OK();
  return ApplyCondition(*left_.batches[m.batch], c, ctx);
}

BatchPtr JoinEmitter::EmitMark(const Morsel& m, const std::vector<uint8_t>& state) const {
  const Batch& lb = *left_.batches[m.batch];
  const int64_t n = m.end - m.begin;
  BatchPtr out;
  if (m.begin == 0 && m.end == lb.num_rows) {
    out = std::make_shared<Batch>();
    out->schema = node_.schema;
    out->num_rows = n;
    out->columns = lb.columns;  // the whole batch: no copy
  } else {
    std::vector<int64_t> rows(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) rows[i] = m.begin + i;
    out = Assemble(lb, rows, {});
  }
  const int64_t bytes = bit_util::BytesForBits(n);
  auto values = Buffer::Allocate(bytes);
  auto validity = Buffer::Allocate(bytes);
  uint8_t* v = values->mutable_data();
  uint8_t* ok = validity->mutable_data();
  int64_t nulls = 0;
  for (int64_t i = 0; i < n; ++i) {
    const uint8_t s = state[i];
    if (s == 1) bit_util::SetBit(v, i);
    if (s != 2) bit_util::SetBit(ok, i);
    nulls += s == 2;
  }
  out->columns.push_back(
      std::make_shared<Column>(DataType::Bool(), n, nulls, nulls ? validity : nullptr, values));
  return out;
}

Status JoinEmitter::ApplyCondition(const Batch& left_batch, JoinCandidates* c,
                                   EvalContext& ctx) const {
  const int64_t total = static_cast<int64_t>(c->probe.size());
  int64_t kept = 0;
  std::vector<int64_t> refs;
  for (int64_t begin = 0; begin < total; begin += kConditionSlice) {
    const int64_t n = std::min(kConditionSlice, total - begin);
    Batch pairs;
    pairs.num_rows = n;
    for (int col : cond_left_cols_) {
      pairs.schema.fields.push_back(left_.schema.field(col));
      pairs.columns.push_back(Take(*left_batch.columns[col], c->probe.data() + begin, n));
    }
    refs.resize(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) refs[i] = build_refs_[c->build[begin + i]];
    for (int col : cond_right_cols_) {
      pairs.schema.fields.push_back(right_.schema.field(col));
      pairs.columns.push_back(GatherRows((*right_sources_)[col], refs.data(), n));
    }
    TANDEM_ASSIGN_OR_RAISE(std::vector<int32_t> sel, EvaluateSelection(*condition_, pairs, ctx));
    for (int32_t s : sel) {
      c->probe[kept] = c->probe[begin + s];
      c->build[kept] = c->build[begin + s];
      ++kept;
    }
  }
  c->probe.resize(static_cast<size_t>(kept));
  c->build.resize(static_cast<size_t>(kept));
  return Status::OK();
}

BatchPtr JoinEmitter::Assemble(const Batch& left_batch, const std::vector<int64_t>& probe,
                               const std::vector<int64_t>& refs) const {
  auto out = std::make_shared<Batch>();
  out->schema = node_.schema;
  const int64_t n = static_cast<int64_t>(probe.size());
  out->num_rows = n;
  if (2 * n >= left_batch.num_rows && IsOneRun(probe)) {
    // Every probe row of a range matched once, in order (a join on the build side's unique key,
    // the rows that cannot match dropped first by the key bitmap): a view, not a copy. Only of
    // at least half the batch, so that a few rows never hold a large batch alive.
    for (const auto& col : left_batch.columns) {
      out->columns.push_back(SliceColumnView(col, probe[0], n));
    }
  } else {
    for (const auto& col : left_batch.columns) out->columns.push_back(Take(*col, probe.data(), n));
  }
  if (node_.join_type != JoinType::kSemi && node_.join_type != JoinType::kAnti &&
      node_.join_type != JoinType::kMark) {
    for (int c = 0; c < right_.schema.num_fields(); ++c) {
      out->columns.push_back(GatherRows((*right_sources_)[c], refs.data(), n));
    }
  }
  return out;
}

Result<BatchPtr> JoinEmitter::EmitMorsel(const Morsel& m, JoinCandidates* c,
                                         const uint8_t* excluded, EvalContext& ctx) {
  const Batch& lb = *left_.batches[m.batch];
  if (condition_ && !c->probe.empty()) TANDEM_RETURN_NOT_OK(ApplyCondition(lb, c, ctx));
  const JoinType type = node_.join_type;
  const int64_t pairs = static_cast<int64_t>(c->probe.size());

  if (build_matched_) {
    for (int64_t id : c->build) build_matched_[id].store(1, std::memory_order_relaxed);
  }
  if (type == JoinType::kSemi || type == JoinType::kAnti) {
    const int64_t rows = m.end - m.begin;
    std::vector<uint8_t> hit(static_cast<size_t>(rows), 0);
    for (int64_t p : c->probe) hit[p - m.begin] = 1;
    std::vector<int64_t> keep;
    const uint8_t want = type == JoinType::kSemi ? 1 : 0;
    for (int64_t i = 0; i < rows; ++i) {
      if (hit[i] == want && !(excluded && excluded[i] && type == JoinType::kAnti)) {
        keep.push_back(m.begin + i);
      }
    }
    if (keep.empty()) return BatchPtr();
    return Assemble(lb, keep, {});
  }

  std::vector<int64_t> refs(static_cast<size_t>(pairs));
  for (int64_t i = 0; i < pairs; ++i) refs[i] = build_refs_[c->build[i]];
  std::vector<int64_t>& probe = c->probe;
  if (type == JoinType::kLeft || type == JoinType::kFull) {
    const int64_t rows = m.end - m.begin;
    std::vector<uint8_t> hit(static_cast<size_t>(rows), 0);
    for (int64_t p : probe) hit[p - m.begin] = 1;
    for (int64_t i = 0; i < rows; ++i) {
      if (!hit[i]) {
        probe.push_back(m.begin + i);
        refs.push_back(-1);
      }
    }
  }
  if (probe.empty()) return BatchPtr();
  return Assemble(lb, probe, refs);
}

Result<BatchPtr> JoinEmitter::EmitUnmatchedBuild(const std::vector<int64_t>& extra_refs) {
  std::vector<int64_t> refs = extra_refs;
  if (build_matched_) {
    for (int64_t id = 0; id < num_build_ids_; ++id) {
      if (!build_matched_[id].load(std::memory_order_relaxed)) refs.push_back(build_refs_[id]);
    }
  }
  if (refs.empty()) return BatchPtr();
  const int64_t n = static_cast<int64_t>(refs.size());
  auto out = std::make_shared<Batch>();
  out->schema = node_.schema;
  out->num_rows = n;
  for (const auto& f : left_.schema.fields) out->columns.push_back(NullColumn(f.type, n));
  for (int c = 0; c < right_.schema.num_fields(); ++c) {
    out->columns.push_back(GatherRows((*right_sources_)[c], refs.data(), n));
  }
  return out;
}

}  // namespace tandem::cpu
