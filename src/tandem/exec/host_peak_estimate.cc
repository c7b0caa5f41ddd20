// EstimatedHostPeakBytes (see host_peak_estimate.h): one walk of the placed plan.
#include "tandem/exec/host_peak_estimate.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace tandem {
namespace {

struct Estimate {
  double peak = 0;  // the most host memory held at once while the subtree runs
  double held = 0;  // the subtree's output, when it is held whole (0: it streams)
};

double OutputBytes(const PlanNode& n) {
  const double b = n.placement.est_bytes;
  return std::isfinite(b) && b > 0 ? b : 0;
}

class Walk {
 public:
  Estimate Of(const PlanNode& n) {
    std::vector<Estimate> kids;
    for (const auto& c : n.children) {
      if (c) kids.push_back(Of(*c));
    }
    Estimate e;
    if (n.device == Device::kGpu) {
      // GPU parts hold device memory (exec/gpu_peak_estimate.h); an input they take from the
      // host (a HostToDevice transition) is held whole until it is uploaded.
      for (const Estimate& k : kids) e.peak = std::max(e.peak, k.peak);
      if (n.kind == PlanKind::kTransition && !n.children.empty() && n.children[0]) {
        e.peak = std::max(e.peak, OutputBytes(*n.children[0]));
      }
      return e;
    }
    const double out = OutputBytes(n);
    switch (n.kind) {
      case PlanKind::kScan:
      case PlanKind::kValues:
        break;  // files stream a row group at a time; cached tables are held already
      case PlanKind::kFilter:
      case PlanKind::kProject:
      case PlanKind::kLimit:
        // Stream over their input (a view of it when it is held).
        if (!kids.empty()) e = kids[0];
        break;
      case PlanKind::kJoin: {
        // The build side (right) runs first and its rows and table are held while the probe
        // side streams through.
        const Estimate probe = kids.empty() ? Estimate{} : kids[0];
        const Estimate build = kids.size() > 1 ? kids[1] : Estimate{};
        const double table =
            std::max(build.held, kids.size() > 1 ? OutputBytes(*n.children[1]) : 0.0);
        e.peak = std::max(build.peak, table + probe.peak);
        break;
      }
      case PlanKind::kTransition:
        // DeviceToHost: the GPU part's rows arrive whole.
        e.peak = kids.empty() ? out : std::max(kids[0].peak, out);
        e.held = out;
        break;
      default: {
        // Breakers, each the sink of the pipelines below it: an aggregation's group table (its
        // output) grows while its input runs; sorts, windows and set operations collect their
        // input rows and then make their output beside them.
        const bool aggregate = n.kind == PlanKind::kAggregate;
        double collects = aggregate ? out : 0;
        if (!aggregate) {
          for (const auto& c : n.children) collects = std::max(collects, c ? OutputBytes(*c) : 0.0);
        }
        double inputs = 0;  // the outputs of the inputs that ran already, when held
        for (const Estimate& k : kids) {
          e.peak = std::max(e.peak, inputs + k.peak + collects);
          inputs += k.held;
        }
        e.peak = std::max(e.peak, inputs + collects + (aggregate ? 0 : out));
        e.held = out;
        break;
      }
    }
    return e;
  }
};

}  // namespace

int64_t EstimatedHostPeakBytes(const PlanNode& plan, bool result_held) {
  Walk walk;
  const Estimate e = walk.Of(plan);
  // The result is collected as the last pipeline runs (a breaker's output is held already).
  const double peak = e.held > 0 || !result_held ? e.peak : e.peak + OutputBytes(plan);
  return peak >= 9.0e18 ? INT64_MAX : static_cast<int64_t>(peak);
}

}  // namespace tandem
