// DevicesLine (devices_line.h): counts the placed nodes per device and lists, once each, the
// operators kept on the CPU because the GPU cannot run them.
#include "tandem/placement/devices_line.h"

#include <algorithm>
#include <vector>

namespace tandem::placement {
namespace {

struct Counts {
  int gpu = 0, cpu = 0, transitions = 0;
  std::vector<std::string> unsupported;  // "Window (window functions)", each once
};

void Count(const PlanNode& n, Counts* counts) {
  if (n.kind == PlanKind::kTransition) {
    ++counts->transitions;
  } else if (n.device == Device::kGpu) {
    ++counts->gpu;
  } else {
    ++counts->cpu;
    if (n.placement.kind == PlacementNote::Kind::kUnsupported) {
      const std::string what = n.Describe();
      const std::string item = what.substr(0, what.find(' ')) + " (" + n.placement.reason + ")";
      auto& list = counts->unsupported;
      if (std::find(list.begin(), list.end(), item) == list.end()) list.push_back(item);
    }
  }
  for (const auto& c : n.children) {
    if (c) Count(*c, counts);
  }
}

}  // namespace

std::string DevicesLine(const PlanNode& placed) {
  Counts counts;
  Count(placed, &counts);
  if (counts.gpu == 0) return "cpu only";
  std::string line = "gpu " + std::to_string(counts.gpu) + ", cpu " + std::to_string(counts.cpu) +
                     ", transitions " + std::to_string(counts.transitions);
  for (size_t i = 0; i < counts.unsupported.size(); ++i) {
    line += (i ? ", " : "; on the CPU: ") + counts.unsupported[i];
  }
  return line;
}

}  // namespace tandem::placement
