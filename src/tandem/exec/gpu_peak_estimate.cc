// EstimatedGpuPeakBytes (see gpu_peak_estimate.h): one walk of the placed plan.
#include "tandem/exec/gpu_peak_estimate.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace tandem {
namespace {

struct Estimate {
  double peak = 0;   // the most GPU memory live at once while the subtree runs
  double out = 0;    // the subtree's output, when it lives on the GPU
  double share = 1;  // the part of `out` one slice holds (a sliced source below on the spine)
};

double OutputBytes(const PlanNode& n) {
  const double b = n.placement.est_bytes;
  return std::isfinite(b) && b > 0 ? b : 0;
}

// Whether child `i` of `n` continues n's probe spine (the side the executor slices).
bool ContinuesSpine(const PlanNode& n, size_t i) {
  switch (n.kind) {
    case PlanKind::kFilter:
    case PlanKind::kProject:
    case PlanKind::kAggregate:
    case PlanKind::kTransition:
      return true;
    case PlanKind::kJoin:
      return i == 0;
    default:
      return false;
  }
}

class Walk {
 public:
  Walk(const std::function<bool(const PlanNode&)>& resident, double slice_bytes)
      : resident_(resident), slice_(slice_bytes) {}

  Estimate Of(const PlanNode& n, bool on_spine) {
    std::vector<Estimate> kids;
    for (size_t i = 0; i < n.children.size(); ++i) {
      if (n.children[i]) kids.push_back(Of(*n.children[i], on_spine && ContinuesSpine(n, i)));
    }
    Estimate e;
    if (n.device != Device::kGpu) {
      // A CPU node or a copy to the host: the GPU parts below ran before it, one at a time, and
      // each is a part of its own (with its own spine).
      for (const Estimate& k : kids) e.peak = std::max(e.peak, k.peak);
      return e;
    }
    double held = 0;  // outputs of the children that ran already (a slice's share)
    for (const Estimate& k : kids) {
      e.peak = std::max(e.peak, held + k.peak);
      held += k.out * k.share;
    }
    const bool resident = n.kind == PlanKind::kScan && resident_ && resident_(n);
    e.out = resident ? 0 : OutputBytes(n);
    const bool source = n.kind == PlanKind::kScan || n.kind == PlanKind::kTransition;
    if (source && on_spine && slice_ > 0 && e.out > slice_) {
      e.share = slice_ / e.out;
    } else if (!source && n.kind != PlanKind::kAggregate && !kids.empty() && ContinuesSpine(n, 0)) {
      e.share = kids[0].share;  // a filter, projection or join over a slice is a slice's
    }
    const double out = e.out * e.share;
    double work = 0;
    switch (n.kind) {
      case PlanKind::kScan:
        work = resident ? 0 : out / 2;  // compressed pages and decoding buffers
        break;
      case PlanKind::kJoin:
        work = kids.size() > 1 ? kids[1].out * kids[1].share : 0;  // the build side's table
        break;
      case PlanKind::kAggregate:
        work = out;  // the group table
        break;
      case PlanKind::kSort:
      case PlanKind::kWindow:
        work = held;  // the permutation and the gathered copy of the input
        break;
      default:
        break;
    }
    e.peak = std::max(e.peak, held + out + work);
    return e;
  }

 private:
  const std::function<bool(const PlanNode&)>& resident_;
  double slice_;
};

}  // namespace

int64_t EstimatedGpuPeakBytes(const PlanNode& plan,
                              const std::function<bool(const PlanNode& scan)>& resident,
                              int64_t slice_bytes) {
  Walk walk(resident, static_cast<double>(slice_bytes));
  const double peak = walk.Of(plan, true).peak;
  return peak >= 9.0e18 ? INT64_MAX : static_cast<int64_t>(peak);
}

}  // namespace tandem
