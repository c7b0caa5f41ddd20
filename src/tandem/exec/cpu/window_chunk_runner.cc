// How each window call of one partition carries from chunk to chunk (see window_chunk_runner.h).
#include "tandem/exec/cpu/window_chunk_runner.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <type_traits>

#include "tandem/column/column_builder.h"
#include "tandem/column/slice.h"
#include "tandem/column/take.h"
#include "tandem/exec/cpu/hash_aggregate.h"
#include "tandem/exec/cpu/operator_util.h"
#include "tandem/exec/cpu/operators.h"
#include "tandem/exec/cpu/ordered_window.h"
#include "tandem/exec/cpu/row_gather.h"
#include "tandem/exec/cpu/sort_keys.h"
#include "tandem/exec/cpu/window_frames.h"
#include "tandem/exec/cpu/window_functions.h"
#include "tandem/types/type_dispatch.h"

namespace tandem::cpu {
namespace {

// How a call's values in a chunk continue from the chunks before it.
enum class CarryKind {
  kAddRows,   // ROW_NUMBER, RANK: plus the rows before the chunk
  kAddLast,   // DENSE_RANK, COUNT, SUM: plus the value at the end of the chunk before
  kMin,       // MIN: the least of it and the value at the end of the chunk before
  kMax,       // MAX: the greatest of them
  kAverage,   // AVG: the sum and count at the end of the chunk before, carried on
  kWhole,     // an aggregate over the whole partition: its value over every row
  kPosition,  // NTILE, PERCENT_RANK, CUME_DIST: from the row's place among all rows
  kPick,      // FIRST_VALUE, NTH_VALUE, LAST_VALUE over the whole partition: a row picked first
  kLocal,     // LAST_VALUE up to the current row: right within its chunk
  kLag,       // LAG: the first rows take values from the chunks before
  kLead,      // LEAD: the last rows take values from the chunks after
  kSliding,   // a ROWS frame within a few rows of the current one: over the rows kept from before
  kSuffix,    // COUNT, SUM, AVG (exact) to the partition's end: the total less the rows before
  kNone,      // cannot be computed in chunks
};

// The most rows LAG, LEAD or a sliding frame may reach from the current row: the rows kept
// from before a chunk (and a chunk, at least twice as many: ChunkRows) are held in memory.
constexpr int64_t kMaxNavigationOffset = int64_t{1} << 20;

// NTH_VALUE's position: its literal second argument; 0 when it is not a positive constant.
int64_t NthPosition(const WindowCall& call) {
  if (call.args.size() != 2) return 0;
  const Expr& n = *call.args[1];
  if (n.kind != ExprKind::kLiteral || n.literal.is_null || !n.literal.type.is_integer()) return 0;
  return std::max<int64_t>(n.literal.i64, 0);
}

// NTILE's bucket count: its literal argument; 0 when it is not a positive constant.
int64_t NtileBuckets(const WindowCall& call) {
  if (call.args.size() != 1) return 0;
  const Expr& n = *call.args[0];
  if (n.kind != ExprKind::kLiteral || n.literal.is_null || !n.literal.type.is_integer()) return 0;
  return std::max<int64_t>(n.literal.i64, 0);
}

// LAG/LEAD's offset: its literal second argument (1 without one); -1 when it is not a constant
// from 0 to kMaxNavigationOffset.
int64_t NavigationOffset(const WindowCall& call) {
  if (call.args.empty()) return -1;
  if (call.args.size() < 2) return 1;
  const Expr& offset = *call.args[1];
  if (offset.kind != ExprKind::kLiteral || offset.literal.is_null ||
      !offset.literal.type.is_integer()) {
    return -1;
  }
  const int64_t k = offset.literal.i64;
  return k >= 0 && k <= kMaxNavigationOffset ? k : -1;
}

// A frame from the partition's first row to its last: explicitly, or RANGE with no ORDER BY
// (every row a peer of the current one).
bool Whole(const WindowFrame& frame) {
  using BK = WindowFrame::BoundKind;
  return frame.start == BK::kUnboundedPreceding &&
         (frame.end == BK::kUnboundedFollowing ||
          (frame.unit == WindowFrame::Unit::kRange && !frame.has_order));
}

// A frame from the partition's first row to the current one (and its peers, by RANGE).
bool Running(const WindowFrame& frame) {
  return frame.start == WindowFrame::BoundKind::kUnboundedPreceding &&
         frame.end == WindowFrame::BoundKind::kCurrentRow && !Whole(frame);
}

// How far a ROWS frame reaches before and after the current row.
struct FrameReach {
  int64_t back = 0, ahead = 0;
};

// A ROWS frame both of whose ends lie within kMaxNavigationOffset rows of the current row (n
// PRECEDING, CURRENT ROW, n FOLLOWING); none otherwise.
std::optional<FrameReach> SlidingReach(const WindowFrame& frame) {
  using BK = WindowFrame::BoundKind;
  if (frame.unit != WindowFrame::Unit::kRows) return std::nullopt;
  auto offset = [](BK bound, int64_t n) -> std::optional<int64_t> {
    if (n < 0 || n > kMaxNavigationOffset) return std::nullopt;
    switch (bound) {
      case BK::kPreceding:
        return -n;
      case BK::kCurrentRow:
        return 0;
      case BK::kFollowing:
        return n;
      default:
        return std::nullopt;
    }
  };
  const std::optional<int64_t> start = offset(frame.start, frame.start_offset);
  const std::optional<int64_t> end = offset(frame.end, frame.end_offset);
  if (!start || !end) return std::nullopt;
  return FrameReach{std::max<int64_t>(0, -std::min(*start, *end)),
                    std::max<int64_t>(0, std::max(*start, *end))};
}

// A RANGE frame both of whose ends are `n PRECEDING`, CURRENT ROW (the row's peers) or
// `n FOLLOWING`: how far it reaches before and after the row by ORDER BY value (`n PRECEDING AND
// CURRENT ROW`, `n PRECEDING AND m FOLLOWING`, the peers alone). Its rows before a chunk lie among
// the rows kept from before it whose key is within the reach back of the chunk before's last;
// rows within the reach ahead of that chunk's last stay open until the next chunk is made, and
// are then patched. None for other frames.
std::optional<FrameReach> RangeReach(const WindowFrame& frame) {
  using BK = WindowFrame::BoundKind;
  if (frame.unit != WindowFrame::Unit::kRange || !frame.has_order) return std::nullopt;
  FrameReach reach;
  for (const auto& [bound, n] :
       {std::pair{frame.start, frame.start_offset}, std::pair{frame.end, frame.end_offset}}) {
    if (bound == BK::kPreceding && n >= 0) {
      reach.back = std::max(reach.back, n);
    } else if (bound == BK::kFollowing && n >= 0) {
      reach.ahead = std::max(reach.ahead, n);
    } else if (bound != BK::kCurrentRow) {
      return std::nullopt;
    }
  }
  return reach;
}

// A frame from the current row (by RANGE: its first peer) to the partition's last row.
bool Suffix(const WindowFrame& frame) {
  return frame.start == WindowFrame::BoundKind::kCurrentRow &&
         frame.end == WindowFrame::BoundKind::kUnboundedFollowing &&
         (frame.unit == WindowFrame::Unit::kRows || frame.has_order);
}

// COUNT, or SUM or AVG of integers or decimals (sums exact, as the in-memory Window's over such a
// frame: the prefix sums' difference), to the partition's end.
bool SuffixAggregate(const WindowCall& call) {
  if (!Suffix(call.frame)) return false;
  if (call.aggregate == AggregateKind::kCountStar) return true;
  if (call.args.size() != 1) return false;
  const DataType& arg = call.args[0]->type;
  switch (call.aggregate) {
    case AggregateKind::kCount:
      return true;
    case AggregateKind::kSum:
    case AggregateKind::kAvg:
      return arg.is_integer() || arg.is_decimal();
    default:
      return false;
  }
}

// Whether a frame is computed over the rows kept from before the chunk and the chunk's.
bool Slides(const WindowFrame& frame) {
  return SlidingReach(frame).has_value() || RangeReach(frame).has_value();
}

bool NumericStorage(const DataType& type) {
  return VisitStorage(type, Overloaded{[](BoolTag) { return false; },
                                       [](StringTag) { return false; }, [](auto) { return true; }});
}

CarryKind CarryOf(const WindowCall& call) {
  const bool ordered = !call.order_by.empty();
  switch (call.kind) {
    case WindowFunctionKind::kRowNumber:  // with no ORDER BY, in any order
      return CarryKind::kAddRows;
    case WindowFunctionKind::kRank:  // with no ORDER BY every row ranks first
      return ordered ? CarryKind::kAddRows : CarryKind::kNone;
    case WindowFunctionKind::kDenseRank:
      return ordered ? CarryKind::kAddLast : CarryKind::kNone;
    case WindowFunctionKind::kLag:
      return NavigationOffset(call) >= 0 ? CarryKind::kLag : CarryKind::kNone;
    case WindowFunctionKind::kLead:
      return NavigationOffset(call) >= 0 ? CarryKind::kLead : CarryKind::kNone;
    case WindowFunctionKind::kFirstValue:
      if (Slides(call.frame)) return CarryKind::kSliding;
      return Running(call.frame) || Whole(call.frame) ? CarryKind::kPick : CarryKind::kNone;
    case WindowFunctionKind::kLastValue:
      if (Slides(call.frame)) return CarryKind::kSliding;
      return Whole(call.frame)     ? CarryKind::kPick
             : Running(call.frame) ? CarryKind::kLocal
                                   : CarryKind::kNone;
    case WindowFunctionKind::kNthValue:
      if (Slides(call.frame) && NthPosition(call) > 0) return CarryKind::kSliding;
      return (Running(call.frame) || Whole(call.frame)) && NthPosition(call) > 0 ? CarryKind::kPick
                                                                                 : CarryKind::kNone;
    case WindowFunctionKind::kNtile:  // with no ORDER BY, in any order
      return NtileBuckets(call) > 0 ? CarryKind::kPosition : CarryKind::kNone;
    case WindowFunctionKind::kPercentRank:
    case WindowFunctionKind::kCumeDist:  // with no ORDER BY every row is a peer of every other
      return ordered ? CarryKind::kPosition : CarryKind::kNone;
    case WindowFunctionKind::kAggregate:
      if (Whole(call.frame)) return CarryKind::kWhole;
      if (Slides(call.frame)) return CarryKind::kSliding;
      if (SuffixAggregate(call)) return CarryKind::kSuffix;
      if (!Running(call.frame) || !NumericStorage(call.type)) return CarryKind::kNone;
      switch (call.aggregate) {
        case AggregateKind::kCountStar:
        case AggregateKind::kCount:
        case AggregateKind::kSum:
          return CarryKind::kAddLast;
        case AggregateKind::kMin:
          return CarryKind::kMin;
        case AggregateKind::kMax:
          return CarryKind::kMax;
        case AggregateKind::kAvg: {
          const DataType& arg = call.args.empty() ? call.type : call.args[0]->type;
          return call.args.size() == 1 &&
                         (arg.is_integer() || arg.is_decimal() || arg.is_floating())
                     ? CarryKind::kAverage
                     : CarryKind::kNone;
        }
        default:
          return CarryKind::kNone;
      }
    default:
      return CarryKind::kNone;
  }
}

// A call's value at the end of the chunks so far (NULL: no value yet).
struct Carried {
  bool valid = false;
  int128_t integer = 0;
  double real = 0;
};

// A running AVG's state after the rows so far: the count of non-NULL values and their exact sum
// (integers, decimals) or, for floats, the sum of the finite ones in long double, added in the
// rows' order as the in-memory Window adds them, and how many were NaN, +inf or -inf.
struct AverageState {
  int64_t count = 0;
  int128_t exact = 0;
  long double finite = 0;
  int64_t nans = 0, pinfs = 0, ninfs = 0;

  void Add(const Column& values, int64_t i, bool floating) {
    if (!values.IsValid(i)) return;
    ++count;
    if (!floating) {
      exact += WindowExactValue(values, i);
      return;
    }
    const long double v = WindowFloatValue(values, i);
    if (std::isfinite(v)) {
      finite += v;
    } else if (std::isnan(v)) {
      ++nans;
    } else {
      ++(v > 0 ? pinfs : ninfs);
    }
  }
};

// NaN above every number, as the SQL order has it.
template <typename T>
bool Less(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a)) return false;
    if (std::isnan(b)) return true;
  }
  return a < b;
}

// `local`, a call's values over one chunk, continued from `from`; `*last` becomes the value of
// the chunk's last row when `is_last` (the carry for the next chunk).
template <typename T>
Result<ColumnPtr> Continue(const WindowCall& call, const Column& local, CarryKind kind,
                           const Carried& from, bool is_last, Carried* last) {
  const int64_t n = local.length();
  const T* values = local.values_as<T>();
  ColumnBuilder out(local.type(), n);
  T carried{};
  if constexpr (std::is_floating_point_v<T>) {
    carried = static_cast<T>(from.real);
  } else {
    carried = static_cast<T>(from.integer);
  }
  for (int64_t i = 0; i < n; ++i) {
    bool valid = local.IsValid(i);
    T v = valid ? values[i] : T{};
    if (from.valid) {
      if (!valid) {
        v = carried;
        valid = true;
      } else if (kind == CarryKind::kMin) {
        if (Less(carried, v)) v = carried;
      } else if (kind == CarryKind::kMax) {
        if (Less(v, carried)) v = carried;
      } else if constexpr (std::is_floating_point_v<T>) {
        v += carried;
      } else if (__builtin_add_overflow(v, carried, &v)) {
        return Status::Invalid(call.name + ": integer overflow in window function");
      }
    }
    if (valid) {
      out.Append<T>(v);
    } else {
      out.AppendNull();
    }
    if (is_last && i + 1 == n) {
      last->valid = valid;
      if constexpr (std::is_floating_point_v<T>) {
        last->real = static_cast<double>(v);
      } else {
        last->integer = static_cast<int128_t>(v);
      }
    }
  }
  return out.Finish();
}

// A row of a made batch whose value comes from elsewhere: the value at `from_row` of `from`.
struct RowFix {
  BatchPtr batch;
  int64_t row = 0;
  ColumnPtr from;
  int64_t from_row = 0;
};

// Puts each fix's value in place in column `column` of its batch (a column rebuilt per batch).
void ApplyFixes(std::vector<RowFix> fixes, int column) {
  std::stable_sort(fixes.begin(), fixes.end(), [](const RowFix& a, const RowFix& b) {
    return a.batch != b.batch ? a.batch.get() < b.batch.get() : a.row < b.row;
  });
  for (size_t i = 0; i < fixes.size();) {
    size_t end = i;
    while (end < fixes.size() && fixes[end].batch == fixes[i].batch) ++end;
    Batch& batch = *fixes[i].batch;
    const Column& old = *batch.columns[column];
    ColumnBuilder rebuilt(old.type(), batch.num_rows);
    size_t next = i;
    for (int64_t r = 0; r < batch.num_rows; ++r) {
      if (next < end && fixes[next].row == r) {
        rebuilt.AppendFrom(*fixes[next].from, fixes[next].from_row);
        ++next;
      } else {
        rebuilt.AppendFrom(old, r);
      }
    }
    batch.columns[column] = rebuilt.Finish();
    i = end;
  }
}

// The values of `expr` over `batches`, as one column in their order.
Result<ColumnPtr> ValuesOver(const Expr& expr, const DataType& type,
                             const std::vector<BatchPtr>& batches, EvalContext& eval) {
  std::vector<ColumnPtr> parts;
  int64_t rows = 0;
  for (const BatchPtr& b : batches) {
    TANDEM_ASSIGN_OR_RAISE(ColumnPtr part, opx::EvaluateOrReference(expr, *b, eval));
    rows += part->length();
    parts.push_back(std::move(part));
  }
  ColumnBuilder all(type, rows);
  for (const ColumnPtr& part : parts) {
    for (int64_t r = 0; r < part->length(); ++r) all.AppendFrom(*part, r);
  }
  return all.Finish();
}

// The window's output over one chunk, its calls' values continued from `carried`, which then
// holds their values at the chunk's end.
class ChunkRunner final : public WindowChunkRunner {
 public:
  ChunkRunner(const PlanNode& window, ExecContext& ctx) : window_(window), ctx_(ctx) {
    carried_.resize(window.windows.size());
    totals_.resize(window.windows.size());
    lag_tail_.resize(window.windows.size());
    picks_.resize(window.windows.size());
    lead_waiting_.resize(window.windows.size());
    averages_.resize(window.windows.size());
    suffix_totals_.resize(window.windows.size());
    suffix_before_.resize(window.windows.size());
    // Sliding calls run as one window over the rows kept from before and the chunk's; the others
    // as another over the chunk's rows alone.
    std::vector<WindowCall> sliding, local;
    for (const WindowCall& call : window.windows) {
      const bool slides = CarryOf(call) == CarryKind::kSliding;
      call_place_.push_back(static_cast<int>(slides ? sliding.size() : local.size()));
      call_slides_.push_back(slides);
      if (!slides) {
        local.push_back(call);
        continue;
      }
      sliding.push_back(call);
      if (const std::optional<FrameReach> reach = SlidingReach(call.frame)) {
        halo_rows_ = std::max(halo_rows_, reach->back + reach->ahead);
        continue;
      }
      // (A bound at CURRENT ROW lies within the row's peers, which share its chunk.)
      using BK = WindowFrame::BoundKind;
      const FrameReach reach = *RangeReach(call.frame);
      if (call.frame.start == BK::kPreceding || call.frame.end == BK::kPreceding) {
        range_reach_ = std::max(range_reach_, reach.back);
      }
      if (call.frame.start == BK::kFollowing || call.frame.end == BK::kFollowing) {
        range_ahead_ = std::max(range_ahead_, reach.ahead);
      }
    }
    if (!sliding.empty()) {
      sliding_window_ = MakeWindow(window.children[0], std::move(sliding));
      if (!local.empty()) local_window_ = MakeWindow(window.children[0], std::move(local));
    }
  }

  // The whole-partition aggregates, by one aggregation without keys fed every row before any
  // chunk runs; each chunk's rows then take its row.
  Status StartTotals() {
    totals_node_.kind = PlanKind::kAggregate;
    totals_node_.children = window_.children;
    for (size_t w = 0; w < window_.windows.size(); ++w) {
      const WindowCall& call = window_.windows[w];
      if (CarryOf(call) != CarryKind::kWhole) continue;
      AggregateCall a;
      a.kind = call.aggregate;
      if (!call.args.empty()) a.arg = call.args[0];
      a.type = call.type;
      a.nullable = call.nullable;
      a.name = call.name;
      totals_node_.aggregates.push_back(std::move(a));
      totals_node_.schema.fields.push_back({call.name, call.type, true});
      whole_calls_.push_back(w);
    }
    if (whole_calls_.empty()) return Status::OK();
    totals_sink_ = std::make_unique<AggregateSink>(totals_node_, nullptr, ctx_);
    return totals_sink_->Prepare();
  }

  Status PrepareBatch(const BatchPtr& batch) override {
    if (!prepare_started_) {
      prepare_started_ = true;
      TANDEM_RETURN_NOT_OK(StartTotals());
    }
    if (!batch || batch->num_rows == 0) return Status::OK();
    EvalContext eval = ctx_.eval;
    if (totals_sink_) TANDEM_RETURN_NOT_OK(totals_sink_->Consume(*batch, eval));
    // Aggregates to the partition's end: their totals over every row.
    for (size_t w = 0; w < window_.windows.size(); ++w) {
      const WindowCall& call = window_.windows[w];
      if (CarryOf(call) != CarryKind::kSuffix) continue;
      if (call.args.empty()) {
        suffix_totals_[w].count += batch->num_rows;
        continue;
      }
      TANDEM_ASSIGN_OR_RAISE(ColumnPtr values,
                             opx::EvaluateOrReference(*call.args[0], *batch, eval));
      for (int64_t r = 0; r < values->length(); ++r) suffix_totals_[w].Add(*values, r, false);
    }
    // FIRST_VALUE and NTH_VALUE: their row when it comes; LAST_VALUE: the last row, at the end.
    for (size_t w = 0; w < window_.windows.size(); ++w) {
      const WindowCall& call = window_.windows[w];
      if (CarryOf(call) != CarryKind::kPick || call.kind == WindowFunctionKind::kLastValue) {
        continue;
      }
      const int64_t at = call.kind == WindowFunctionKind::kNthValue ? NthPosition(call) - 1 : 0;
      if (at < total_rows_ || at >= total_rows_ + batch->num_rows) continue;
      TANDEM_ASSIGN_OR_RAISE(ColumnPtr values,
                             opx::EvaluateOrReference(*call.args[0], *batch, eval));
      int64_t row = at - total_rows_;
      picks_[w] = Take(*values, &row, 1);
    }
    last_batch_ = batch;
    total_rows_ += batch->num_rows;
    return Status::OK();
  }

  Status FinishPrepare() override {
    if (!prepare_started_) TANDEM_RETURN_NOT_OK(StartTotals());
    prepare_started_ = true;
    if (totals_sink_) {
      TANDEM_ASSIGN_OR_RAISE(Table totals, totals_sink_->Finish());
      totals_sink_.reset();
      for (const BatchPtr& b : totals.batches) {
        if (b->num_rows == 0) continue;
        for (size_t i = 0; i < whole_calls_.size(); ++i) totals_[whole_calls_[i]] = b->columns[i];
        break;
      }
    }
    for (size_t w = 0; w < window_.windows.size(); ++w) {
      const WindowCall& call = window_.windows[w];
      if (CarryOf(call) != CarryKind::kPick || call.kind != WindowFunctionKind::kLastValue ||
          !last_batch_) {
        continue;
      }
      EvalContext eval = ctx_.eval;
      TANDEM_ASSIGN_OR_RAISE(ColumnPtr values,
                             opx::EvaluateOrReference(*call.args[0], *last_batch_, eval));
      int64_t row = last_batch_->num_rows - 1;
      picks_[w] = Take(*values, &row, 1);
    }
    last_batch_.reset();
    return Status::OK();
  }

  int64_t OpenRows() const override {
    int64_t open = std::max(halo_rows_, range_open_);
    for (const WindowCall& call : window_.windows) {
      if (CarryOf(call) == CarryKind::kLead) open = std::max(open, NavigationOffset(call));
    }
    return open;
  }

  Status Run(std::vector<BatchPtr> chunk, Table* out) override {
    Table in{window_.children[0]->schema, std::move(chunk)};
    std::vector<ColumnPtr> slid;  // per sliding call: over the rows kept and the chunk's
    TANDEM_ASSIGN_OR_RAISE(Table computed, ComputeChunk(in, &slid));
    // LAG and LEAD: their arguments over the chunk's rows, in order, for the chunks around it;
    // AVG: its argument, summed on from the chunks before.
    std::vector<ColumnPtr> navigated(window_.windows.size());
    for (size_t w = 0; w < window_.windows.size(); ++w) {
      const CarryKind kind = CarryOf(window_.windows[w]);
      const WindowCall& call = window_.windows[w];
      const bool arg_values =
          kind == CarryKind::kAverage || (kind == CarryKind::kSuffix && !call.args.empty());
      if (kind != CarryKind::kLag && kind != CarryKind::kLead && !arg_values) continue;
      EvalContext eval = ctx_.eval;
      const DataType& type = arg_values ? call.args[0]->type : call.type;
      TANDEM_ASSIGN_OR_RAISE(navigated[w], ValuesOver(*call.args[0], type, in.batches, eval));
    }
    // PERCENT_RANK and CUME_DIST: each row's peer group within the chunk (chunks end at one).
    Peers peers;
    for (const WindowCall& call : window_.windows) {
      const bool by_range = call.frame.unit == WindowFrame::Unit::kRange &&
                            ((Running(call.frame) && (call.kind == WindowFunctionKind::kNthValue ||
                                                      CarryOf(call) == CarryKind::kAverage)) ||
                             CarryOf(call) == CarryKind::kSuffix);
      if ((call.kind != WindowFunctionKind::kNtile && CarryOf(call) == CarryKind::kPosition) ||
          by_range) {
        TANDEM_ASSIGN_OR_RAISE(peers, PeersOf(in.batches));
        break;
      }
    }
    std::vector<BatchPtr> chunk_rows;  // kept only for the sliding calls of the next chunks
    if (KeepsHalo()) chunk_rows = std::move(in.batches);
    in = Table();
    const int64_t rows = computed.num_rows();
    const int first_call = window_.children[0]->schema.num_fields();
    size_t last_batch = 0;  // the one holding the chunk's last row
    for (size_t b = 0; b < computed.batches.size(); ++b) {
      if (computed.batches[b]->num_rows > 0) last_batch = b;
    }
    std::vector<Carried> next = carried_;
    for (size_t w = 0; w < window_.windows.size(); ++w) {
      const WindowCall& call = window_.windows[w];
      const CarryKind kind = CarryOf(call);
      Carried from = carried_[w];
      if (kind == CarryKind::kAddRows) from = Carried{rows_before_ > 0, rows_before_, 0};
      // The chunk's first peer group was counted already, by the chunk before.
      if (continues_group_ && call.kind == WindowFunctionKind::kDenseRank && from.valid) {
        --from.integer;
      }
      const int column = first_call + static_cast<int>(w);
      if (kind == CarryKind::kLag || kind == CarryKind::kLead) {
        TANDEM_RETURN_NOT_OK(Navigate(w, kind, computed, navigated[w], column));
        continue;
      }
      if (kind == CarryKind::kPosition) {
        Place(call, peers, computed, column);
        continue;
      }
      if (kind == CarryKind::kLocal) continue;
      if (kind == CarryKind::kSliding) {
        PatchRowsBefore(w, slid[call_place_[w]], column);
        continue;
      }
      if (kind == CarryKind::kAverage) {
        TANDEM_RETURN_NOT_OK(Average(w, *navigated[w], peers, computed, column));
        continue;
      }
      if (kind == CarryKind::kSuffix) {
        TANDEM_RETURN_NOT_OK(ToTheEnd(w, navigated[w].get(), peers, computed, column));
        continue;
      }
      if (kind == CarryKind::kPick) {
        Pick(w, peers, computed, column);
        continue;
      }
      if (kind == CarryKind::kWhole) {
        if (!totals_[w]) return Status::Internal("window " + call.name + " without its total");
        for (BatchPtr& batch : computed.batches) {
          ColumnBuilder repeated(call.type, batch->num_rows);
          for (int64_t r = 0; r < batch->num_rows; ++r) repeated.AppendFrom(*totals_[w], 0);
          batch->columns[column] = repeated.Finish();
        }
        continue;
      }
      for (size_t b = 0; b < computed.batches.size(); ++b) {
        Batch& batch = *computed.batches[b];
        const bool is_last = b == last_batch;
        Result<ColumnPtr> continued = VisitStorage(
            call.type, Overloaded{[&](auto tag) -> Result<ColumnPtr> {
              using Tg = decltype(tag);
              if constexpr (std::is_same_v<Tg, BoolTag> || std::is_same_v<Tg, StringTag>) {
                return Status::Internal("window " + call.name + " continued over chunks");
              } else {
                return Continue<typename Tg::type>(call, *batch.columns[column], kind, from,
                                                   is_last, &next[w]);
              }
            }});
        TANDEM_RETURN_NOT_OK(continued.status());
        batch.columns[column] = std::move(continued).value();
      }
    }
    carried_ = std::move(next);
    TANDEM_RETURN_NOT_OK(KeepHalo(chunk_rows, computed));
    rows_before_ += rows;
    for (BatchPtr& b : computed.batches) out->batches.push_back(std::move(b));
    return Status::OK();
  }

  void ContinuePeerGroup(bool continues) override { continues_group_ = continues; }

 private:
  struct Peers {
    std::vector<int64_t> start, end;  // per row of the chunk: its peer group's rows [start, end)
  };

  Result<Peers> PeersOf(const std::vector<BatchPtr>& batches) {
    std::vector<ExprPtr> exprs;
    std::vector<SortOrder> orders;
    SplitSortKeys(ChunkOrder(window_), &exprs, &orders);
    const int num_keys = static_cast<int>(exprs.size());
    Peers peers;
    EvalContext eval = ctx_.eval;
    std::vector<ColumnPtr> previous;  // the keys of the batch before, and its last row
    int64_t previous_last = -1;
    for (const BatchPtr& b : batches) {
      if (b->num_rows == 0) continue;
      TANDEM_ASSIGN_OR_RAISE(std::vector<ColumnPtr> keys, EvaluateColumns(exprs, *b, eval));
      for (int64_t r = 0; r < b->num_rows; ++r) {
        const int64_t i = static_cast<int64_t>(peers.start.size());
        bool peer = false;
        if (r > 0) {
          peer = CompareSortRows(keys, r - 1, keys, r, orders, 0, num_keys) == 0;
        } else if (previous_last >= 0) {
          peer = CompareSortRows(previous, previous_last, keys, r, orders, 0, num_keys) == 0;
        }
        peers.start.push_back(peer ? peers.start.back() : i);
      }
      previous = std::move(keys);
      previous_last = b->num_rows - 1;
    }
    const int64_t n = static_cast<int64_t>(peers.start.size());
    peers.end.resize(static_cast<size_t>(n));
    for (int64_t i = n; i-- > 0;) {
      peers.end[i] = i + 1 < n && peers.start[i + 1] == peers.start[i] ? peers.end[i + 1] : i + 1;
    }
    return peers;
  }

  // FIRST_VALUE, LAST_VALUE and NTH_VALUE of the chunk's rows: the picked row's value where the
  // row's frame reaches it (NTH_VALUE up to the current row: once the frame's end, the row or
  // its last peer, is at the position), else NULL.
  void Pick(size_t w, const Peers& peers, const Table& computed, int column) {
    const WindowCall& call = window_.windows[w];
    const ColumnPtr& pick = picks_[w];
    const bool up_to_row = call.kind == WindowFunctionKind::kNthValue && Running(call.frame);
    const bool by_rows = call.frame.unit == WindowFrame::Unit::kRows;
    const int64_t nth = up_to_row ? NthPosition(call) : 0;
    int64_t j = 0;  // row of the chunk
    for (const BatchPtr& batch : computed.batches) {
      ColumnBuilder values(call.type, batch->num_rows);
      for (int64_t x = 0; x < batch->num_rows; ++x, ++j) {
        const bool reached = !up_to_row || rows_before_ + (by_rows ? j + 1 : peers.end[j]) >= nth;
        if (pick && reached) {
          values.AppendFrom(*pick, 0);
        } else {
          values.AppendNull();
        }
      }
      batch->columns[column] = values.Finish();
    }
  }

  // The window's output over the chunk's rows `in`, each call's values local to the chunk but
  // the sliding calls', which are over the rows kept from before and the chunk's (`slid`, per
  // sliding call, the kept rows' values first).
  Result<Table> ComputeChunk(const Table& in, std::vector<ColumnPtr>* slid) {
    if (!sliding_window_) return Window(window_, in, ctx_);
    Table with_halo{window_.children[0]->schema, halo_};
    for (const BatchPtr& b : in.batches) with_halo.batches.push_back(b);
    TANDEM_ASSIGN_OR_RAISE(Table over, Window(*sliding_window_, with_halo, ctx_));
    with_halo = Table();
    const int first_call = window_.children[0]->schema.num_fields();
    for (size_t k = 0; k < sliding_window_->windows.size(); ++k) {
      const DataType& type = sliding_window_->windows[k].type;
      EvalContext eval = ctx_.eval;
      TANDEM_ASSIGN_OR_RAISE(
          ColumnPtr values, ValuesOver(*MakeColumnRef(first_call + static_cast<int>(k), type, true),
                                       type, over.batches, eval));
      slid->push_back(std::move(values));
    }
    over = Table();
    Table local = in;
    if (local_window_) {
      TANDEM_ASSIGN_OR_RAISE(local, Window(*local_window_, in, ctx_));
    }
    // The local calls' columns and the sliding calls' (the chunk's rows) in the node's order.
    Table computed{window_.schema, {}};
    int64_t row = halo_count_;  // of the sliding values
    for (const BatchPtr& b : local.batches) {
      if (b->num_rows == 0) continue;
      auto batch = std::make_shared<Batch>();
      batch->schema = window_.schema;
      batch->num_rows = b->num_rows;
      batch->columns.assign(b->columns.begin(), b->columns.begin() + first_call);
      for (size_t w = 0; w < window_.windows.size(); ++w) {
        const int at = call_place_[w];
        batch->columns.push_back(call_slides_[w] ? SliceColumnView((*slid)[at], row, b->num_rows)
                                                 : b->columns[first_call + at]);
      }
      row += b->num_rows;
      computed.batches.push_back(std::move(batch));
    }
    return computed;
  }

  // A sliding call's rows before the chunk whose frames reach into it take their values from
  // `values` (over the rows kept from before, then the chunk's).
  void PatchRowsBefore(size_t w, const ColumnPtr& values, int column) {
    const WindowFrame& frame = window_.windows[w].frame;
    int64_t ahead = 0;  // the rows before the chunk whose frames may reach into it
    if (const std::optional<FrameReach> reach = SlidingReach(frame)) {
      ahead = reach->ahead;
    } else if (frame.start == WindowFrame::BoundKind::kFollowing ||
               frame.end == WindowFrame::BoundKind::kFollowing) {
      ahead = range_open_;  // by value: those left open by the chunk before
    }
    // halo_places_: the output rows of the last of the halo_count_ rows kept.
    const int64_t placed = static_cast<int64_t>(halo_places_.size());
    std::vector<RowFix> fixes;
    for (int64_t t = std::max<int64_t>(0, placed - ahead); t < placed; ++t) {
      fixes.push_back(
          RowFix{halo_places_[t].first, halo_places_[t].second, values, halo_count_ - placed + t});
    }
    ApplyFixes(std::move(fixes), column);
  }

  bool KeepsHalo() const { return halo_rows_ > 0 || range_reach_ >= 0 || range_ahead_ >= 0; }

  // Keeps the input rows the sliding frames of the chunks after reach into (from those kept
  // before and the chunk's) and where their output rows are: the last halo_rows_ (ROWS frames)
  // and those whose ORDER BY value lies within range_reach_ of the last (RANGE frames).
  Status KeepHalo(const std::vector<BatchPtr>& chunk_rows, const Table& computed) {
    if (!KeepsHalo()) return Status::OK();
    std::vector<BatchPtr> rows = std::move(halo_);
    std::vector<std::pair<BatchPtr, int64_t>> places = std::move(halo_places_);
    for (const BatchPtr& b : chunk_rows) {
      if (b->num_rows > 0) rows.push_back(b);
    }
    for (const BatchPtr& b : computed.batches) {
      for (int64_t r = 0; r < b->num_rows; ++r) places.emplace_back(b, r);
    }
    int64_t total = halo_count_;  // the rows kept before and the chunk's
    for (const BatchPtr& b : computed.batches) total += b->num_rows;
    int64_t keep = std::min(total, halo_rows_);
    range_open_ = 0;
    if (range_reach_ >= 0 || range_ahead_ >= 0) {
      // The rows the next chunk's frames reach back to, and the open rows' own reach back.
      const int64_t back = std::max<int64_t>(0, range_reach_) + std::max<int64_t>(0, range_ahead_);
      TANDEM_ASSIGN_OR_RAISE(const RowsWithin within, RowsWithinReach(rows));
      keep = std::max(keep, within(back));
      if (range_ahead_ >= 0) range_open_ = within(range_ahead_);
    }
    int64_t drop = total - keep;
    halo_count_ = keep;
    // Only the last rows whose frames may reach ahead are patched (halo_rows_ by ROWS,
    // range_open_ by RANGE): their output rows are kept; the others pin no output.
    const int64_t placed = std::min(keep, std::max(halo_rows_, range_open_));
    places.erase(places.begin(), places.end() - placed);
    halo_places_ = std::move(places);
    halo_.clear();
    for (const BatchPtr& b : rows) {
      if (drop >= b->num_rows) {
        drop -= b->num_rows;
        continue;
      }
      halo_.push_back(drop > 0 ? SliceBatchView(*b, drop, b->num_rows - drop) : b);
      drop = 0;
    }
    return Status::OK();
  }

  // For a reach (an ORDER BY offset), how many of the last of `rows` (in ORDER BY order) have a
  // key within it of the last number among them; NULL and NaN keys, whose frames are their
  // peers, count only when they trail it. The keys are evaluated once for every reach asked.
  using RowsWithin = std::function<int64_t(int64_t reach)>;
  Result<RowsWithin> RowsWithinReach(const std::vector<BatchPtr>& rows) {
    const SortKey& key = ChunkOrder(window_)[0];
    EvalContext eval = ctx_.eval;
    TANDEM_ASSIGN_OR_RAISE(ColumnPtr values, ValuesOver(*key.expr, key.expr->type, rows, eval));
    TANDEM_ASSIGN_OR_RAISE(std::vector<double> k, RangeKeyValues(*values, key.ascending));
    const double scale = RangeOffsetScale(values->type());
    return RowsWithin([values, k = std::move(k), scale](int64_t reach) -> int64_t {
      const int64_t n = values->length();
      auto numeric = [&](int64_t r) { return values->IsValid(r) && !std::isnan(k[r]); };
      int64_t last = n;
      while (last > 0 && !numeric(last - 1)) --last;
      if (last == 0) return 0;
      const double floor = k[last - 1] - static_cast<double>(reach) * scale;
      int64_t first = last - 1;
      while (first > 0 && numeric(first - 1) && k[first - 1] >= floor) --first;
      return n - first;
    });
  }

  // A running AVG over the chunk's rows: each row's frame ends at the row (ROWS) or at its last
  // peer (RANGE); the sums and counts go on from the chunks before (averages_).
  Status Average(size_t w, const Column& values, const Peers& peers, const Table& computed,
                 int column) {
    const WindowCall& call = window_.windows[w];
    const bool by_rows = call.frame.unit == WindowFrame::Unit::kRows;
    const bool floating = values.type().is_floating();
    AverageState& state = averages_[w];
    int64_t added = 0;  // rows of the chunk in `state`
    int64_t j = 0;      // row of the chunk
    for (const BatchPtr& batch : computed.batches) {
      ColumnBuilder out(call.type, batch->num_rows);
      for (int64_t x = 0; x < batch->num_rows; ++x, ++j) {
        const int64_t frame_end = by_rows ? j + 1 : peers.end[j];
        for (; added < frame_end; ++added) state.Add(values, added, floating);
        if (state.count == 0) {
          out.AppendNull();
        } else if (floating) {
          const long double sum =
              FloatFrameValue(state.finite, state.nans > 0, state.pinfs > 0, state.ninfs > 0);
          out.Append<double>(static_cast<double>(sum / state.count));
        } else {
          TANDEM_RETURN_NOT_OK(
              AppendExactSumOrAverage(call, values.type(), state.exact, state.count, &out));
        }
      }
      batch->columns[column] = out.Finish();
    }
    for (; added < values.length(); ++added) state.Add(values, added, floating);
    return Status::OK();
  }

  // COUNT, SUM or AVG from the chunk's rows to the partition's end: the total over every row less
  // the rows before the row (by RANGE: before its first peer), those of the chunks before
  // carried in suffix_before_. `values`: the argument over the chunk's rows (null for COUNT(*)).
  Status ToTheEnd(size_t w, const Column* values, const Peers& peers, const Table& computed,
                  int column) {
    const WindowCall& call = window_.windows[w];
    const bool by_rows = call.frame.unit == WindowFrame::Unit::kRows;
    const bool counts =
        call.aggregate == AggregateKind::kCountStar || call.aggregate == AggregateKind::kCount;
    const AverageState& total = suffix_totals_[w];
    AverageState& before = suffix_before_[w];
    int64_t added = 0;  // rows of the chunk in `before`
    int64_t j = 0;      // row of the chunk
    for (const BatchPtr& batch : computed.batches) {
      ColumnBuilder out(call.type, batch->num_rows);
      for (int64_t x = 0; x < batch->num_rows; ++x, ++j) {
        const int64_t frame_start = by_rows ? j : peers.start[j];
        for (; added < frame_start; ++added) {
          values ? before.Add(*values, added, false) : void(++before.count);
        }
        const int64_t count = total.count - before.count;
        if (counts) {
          out.Append<int64_t>(count);
        } else if (count == 0) {
          out.AppendNull();
        } else {
          TANDEM_RETURN_NOT_OK(AppendExactSumOrAverage(call, call.args[0]->type,
                                                       total.exact - before.exact, count, &out));
        }
      }
      batch->columns[column] = out.Finish();
    }
    for (; added < j; ++added) values ? before.Add(*values, added, false) : void(++before.count);
    return Status::OK();
  }

  // NTILE, PERCENT_RANK and CUME_DIST of the chunk's rows, from their places among all rows.
  void Place(const WindowCall& call, const Peers& peers, const Table& computed, int column) {
    const int64_t n_all = total_rows_;
    int64_t j = 0;  // row of the chunk
    for (const BatchPtr& batch : computed.batches) {
      const int64_t rows = batch->num_rows;
      if (call.kind == WindowFunctionKind::kNtile) {
        const int64_t buckets = NtileBuckets(call);
        const int64_t q = n_all / buckets, r = n_all % buckets;
        std::vector<int64_t> out(static_cast<size_t>(rows));
        for (int64_t x = 0; x < rows; ++x) {
          const int64_t i = rows_before_ + j + x;
          out[x] = i < r * (q + 1) ? i / (q + 1) + 1 : r + (i - r * (q + 1)) / q + 1;
        }
        batch->columns[column] = WindowIntColumn(call.type, out);
      } else {
        std::vector<double> out(static_cast<size_t>(rows));
        for (int64_t x = 0; x < rows; ++x) {
          const double size = static_cast<double>(n_all);
          if (call.kind == WindowFunctionKind::kCumeDist) {
            out[x] = static_cast<double>(rows_before_ + peers.end[j + x]) / size;
          } else {
            out[x] = n_all > 1 ? static_cast<double>(rows_before_ + peers.start[j + x]) / (size - 1)
                               : 0.0;
          }
        }
        batch->columns[column] = WindowDoubleColumn(out);
      }
      j += rows;
    }
  }

  // LAG's first rows take their values from the rows before the chunk (lag_tail_); LEAD's last
  // rows wait for the rows after it (lead_waiting_), and this chunk's rows give theirs to the
  // rows of earlier chunks waiting for them. Rows with nothing to take keep their default.
  Status Navigate(size_t w, CarryKind kind, const Table& computed, const ColumnPtr& values,
                  int column) {
    const int64_t k = NavigationOffset(window_.windows[w]);
    const int64_t n = values->length();
    std::vector<RowFix> fixes;
    auto place = [&](int64_t row, RowFix fix) {  // row of the chunk -> its batch and row there
      for (const BatchPtr& b : computed.batches) {
        if (row < b->num_rows) {
          fix.batch = b;
          fix.row = row;
          fixes.push_back(std::move(fix));
          return;
        }
        row -= b->num_rows;
      }
    };
    if (kind == CarryKind::kLag) {
      const ColumnPtr& tail = lag_tail_[w];
      const int64_t tail_rows = tail ? tail->length() : 0;
      for (int64_t j = 0; j < std::min(k, n); ++j) {
        const int64_t back = k - j;  // rows before the chunk's first
        if (back <= tail_rows) place(j, RowFix{nullptr, 0, tail, tail_rows - back});
      }
      ApplyFixes(std::move(fixes), column);
      // The last k values so far.
      const int64_t keep = std::min(k, tail_rows + n);
      ColumnBuilder next(values->type(), keep);
      for (int64_t g = tail_rows + n - keep; g < tail_rows + n; ++g) {
        if (g < tail_rows) {
          next.AppendFrom(*tail, g);
        } else {
          next.AppendFrom(*values, g - tail_rows);
        }
      }
      lag_tail_[w] = next.Finish();
      return Status::OK();
    }
    // LEAD: rows of earlier chunks whose value is in this one.
    std::vector<RowFix>& waiting = lead_waiting_[w];
    std::vector<RowFix> still;
    for (RowFix& fix : waiting) {
      const int64_t at = fix.from_row - rows_before_;  // from_row: the global row wanted
      if (at < n) {
        fix.from = values;
        fix.from_row = at;
        fixes.push_back(std::move(fix));
      } else {
        still.push_back(std::move(fix));
      }
    }
    ApplyFixes(std::move(fixes), column);
    fixes.clear();
    waiting = std::move(still);
    for (int64_t j = std::max<int64_t>(0, n - k); j < n; ++j) {
      place(j, RowFix{nullptr, 0, nullptr, rows_before_ + j + k});
    }
    for (RowFix& fix : fixes) waiting.push_back(std::move(fix));
    return Status::OK();
  }

  const PlanNode& window_;
  ExecContext& ctx_;
  std::vector<Carried> carried_;
  int64_t total_rows_ = 0;
  std::vector<ColumnPtr> picks_;     // per FIRST/LAST/NTH_VALUE call: its row's value (null: none)
  std::vector<ColumnPtr> lag_tail_;  // per LAG call
  std::vector<std::vector<RowFix>> lead_waiting_;  // per LEAD call
  std::vector<ColumnPtr> totals_;  // per call: a whole-partition aggregate's value (one row)
  // The aggregation that makes them (fed by PrepareBatch) and the calls of its columns.
  PlanNode totals_node_;
  std::unique_ptr<AggregateSink> totals_sink_;
  std::vector<size_t> whole_calls_;
  bool prepare_started_ = false;
  BatchPtr last_batch_;  // the last row seen by PrepareBatch is its last (LAST_VALUE)
  std::vector<AverageState> averages_;  // per running AVG call: its state after the chunks so far
  // Per aggregate to the partition's end: its count and exact sum over every row, and over the
  // rows of the chunks so far.
  std::vector<AverageState> suffix_totals_, suffix_before_;
  // With sliding calls: a window of them, one of the others (null: none), and per call of the
  // node whether it slides and its place in its window.
  PlanPtr sliding_window_, local_window_;
  std::vector<bool> call_slides_;
  std::vector<int> call_place_;
  int64_t halo_rows_ = 0;     // input rows the sliding calls keep from before a chunk
  int64_t range_reach_ = -1;  // the RANGE frames' offset back (ORDER BY values); -1: none
  int64_t range_ahead_ = -1;  // their offset ahead; -1: none
  // The last rows made whose RANGE frames may reach into the next chunk (within range_ahead_ of
  // the last key): open until it is made, then patched.
  int64_t range_open_ = 0;
  std::vector<BatchPtr> halo_;  // those rows
  int64_t halo_count_ = 0;      // rows in halo_
  // The output rows (batch, row) of the last of those, up to max(halo_rows_, range_open_).
  std::vector<std::pair<BatchPtr, int64_t>> halo_places_;
  int64_t rows_before_ = 0;
  bool continues_group_ = false;  // the chunk goes on with the chunk before's last peer group
};

}  // namespace

bool CallComputesInChunks(const WindowCall& call) { return CarryOf(call) != CarryKind::kNone; }

int64_t CallReach(const WindowCall& call) {
  // (LAG keeps only its argument's last values, LEAD holds back its last rows: no chunk needed.)
  if (CarryOf(call) != CarryKind::kSliding) return 0;
  const std::optional<FrameReach> reach = SlidingReach(call.frame);
  return reach ? reach->back + reach->ahead : 0;  // RANGE frames: by value
}

PeerValue PeerValueOf(const WindowCall& call) {
  if (!CallSeesPeers(call)) return PeerValue::kNone;
  switch (call.kind) {
    case WindowFunctionKind::kRank:
    case WindowFunctionKind::kDenseRank:
    case WindowFunctionKind::kPercentRank:
      return PeerValue::kFirstRow;
    default:
      break;
  }
  const CarryKind kind = CarryOf(call);
  if (kind == CarryKind::kSuffix) return PeerValue::kFirstRow;  // the rows before the group
  return kind == CarryKind::kSliding || kind == CarryKind::kNone ? PeerValue::kCannot
                                                                 : PeerValue::kLastRow;
}

bool CallSeesPeers(const WindowCall& call) {
  switch (CarryOf(call)) {
    case CarryKind::kAddRows:  // ROW_NUMBER, or RANK (its peers share a rank)
      return call.kind != WindowFunctionKind::kRowNumber;
    case CarryKind::kLag:
    case CarryKind::kLead:
    case CarryKind::kWhole:
      return false;
    case CarryKind::kSliding:  // by RANGE: to the current row's last peer
    case CarryKind::kSuffix:   // by RANGE: from the current row's first peer
      return call.frame.unit == WindowFrame::Unit::kRange;
    case CarryKind::kPosition:  // NTILE by position; PERCENT_RANK and CUME_DIST by peer group
      return call.kind != WindowFunctionKind::kNtile;
    case CarryKind::kPick:  // FIRST_VALUE, NTH_VALUE up to the row: to its last peer by RANGE
    case CarryKind::kLocal:
    case CarryKind::kAddLast:
    case CarryKind::kMin:
    case CarryKind::kMax:
    case CarryKind::kAverage:
      return call.kind == WindowFunctionKind::kDenseRank ||
             (call.frame.unit == WindowFrame::Unit::kRange && !Whole(call.frame));
    case CarryKind::kNone:
      return true;
  }
  return true;
}

bool CallNeedsEveryRowFirst(const WindowCall& call) {
  const CarryKind kind = CarryOf(call);
  return kind == CarryKind::kWhole || kind == CarryKind::kPick || kind == CarryKind::kPosition ||
         kind == CarryKind::kSuffix;
}

std::unique_ptr<WindowChunkRunner> WindowChunkRunner::Make(const PlanNode& window,
                                                           ExecContext& ctx) {
  return std::make_unique<ChunkRunner>(window, ctx);
}

}  // namespace tandem::cpu
