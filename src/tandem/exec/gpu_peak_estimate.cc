// EstimatedGpuPeakBytes (see gpu_peak_estimate.h): one walk of the placed plan.
#include "tandem/exec/gpu_peak_estimate.h"

#include <algorithm>
#include <vector>

namespace tandem {
namespace {

struct Estimate {
  double peak = 0;  // the most GPU memory live at once while the subtree runs
  double out = 0;   // the subtree's output, when it lives on the GPU
};

double OutputBytes(const PlanNode& n) { return std::max(0.0, n.placement.est_bytes); }

class Walk {
 public:
  explicit Walk(const std::function<bool(const PlanNode&)>& resident) : resident_(resident) {}

  Estimate Of(const PlanNode& n) {
    std::vector<Estimate> kids;
    for (const auto& c : n.children) {
      if (c) kids.push_back(Of(*c));
    }
    Estimate e;
    if (n.device != Device::kGpu) {
      // A CPU node or a copy to the host: the GPU parts below ran before it, one at a time.
      for (const Estimate& k : kids) e.peak = std::max(e.peak, k.peak);
      return e;
    }
    double held = 0;  // outputs of the children that ran already
    for (const Estimate& k : kids) {
      e.peak = std::max(e.peak, held + k.peak);
      held += k.out;
    }
    const bool resident = n.kind == PlanKind::kScan && resident_ && resident_(n);
    e.out = resident ? 0 : OutputBytes(n);
    double work = 0;
    switch (n.kind) {
      case PlanKind::kScan:
        work = resident ? 0 : e.out / 2;  // compressed pages and decoding buffers
        break;
      case PlanKind::kJoin:
        work = kids.size() > 1 ? kids[1].out : 0;  // the hash table over the build side
        break;
      case PlanKind::kAggregate:
        work = e.out;  // the group table
        break;
      case PlanKind::kSort:
      case PlanKind::kWindow:
        work = held;  // the permutation and the gathered copy of the input
        break;
      default:
        break;
    }
    e.peak = std::max(e.peak, held + e.out + work);
    return e;
  }

 private:
  const std::function<bool(const PlanNode&)>& resident_;
};

}  // namespace

int64_t EstimatedGpuPeakBytes(const PlanNode& plan,
                              const std::function<bool(const PlanNode& scan)>& resident) {
  Walk walk(resident);
  const double peak = walk.Of(plan).peak;
  return peak >= 9.0e18 ? INT64_MAX : static_cast<int64_t>(peak);
}

}  // namespace tandem
