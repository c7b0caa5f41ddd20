// The dynamic program against brute force: on random plans, estimates and cost profiles, the
// auto plan is the cheapest of all assignments without a bounce through movable work (every
// assignment of devices to the supported operators, transitions where devices differ; back to
// the GPU only above an operator it cannot run), priced by the same model, and never costs more
// than the all-CPU plan. Also: the planner's estimate equals the re-priced plan.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <unordered_map>

#include "placement_test_util.h"
#include "tandem/placement/support.h"

namespace tandem::placement {
namespace {

using namespace test;

PlanPtr RandomPlan(std::mt19937_64& rng, int depth) {
  std::uniform_real_distribution<double> log_rows(0, 9);
  auto rows = [&] { return std::pow(10.0, log_rows(rng)); };
  if (depth == 0) return ScanOf("t", rows());
  PlanPtr in = RandomPlan(rng, depth - 1);
  const double r = in->estimated_rows;
  switch (rng() % 6) {
    case 0:
      return FilterOf(in, r * 0.3);
    case 1:
      return ProjectOf(in);
    case 2:
      return SumBy(in, std::max(1.0, r / 10));
    case 3:
      return WindowOf(in);
    case 4:
      return JoinOf(in, RandomPlan(rng, depth / 2), r);
    default:
      return SortOf(in);
  }
}

CostProfile RandomProfile(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(0, 1);
  CostProfile p = TestProfile(std::pow(10.0, 8 + 3 * u(rng)));
  for (double& t : p.cpu.throughput) t = std::pow(10.0, 8 + 2 * u(rng));
  for (double& t : p.gpu.throughput) t = std::pow(10.0, 9 + 3 * u(rng));
  p.gpu.query_fixed_s = 1e-4 * u(rng);
  return p;
}

// A placed copy of `n` under a device assignment (transitions where devices differ).
PlanPtr Build(const PlanNode& n, const std::unordered_map<const PlanNode*, Device>& devices) {
  auto copy = std::make_shared<PlanNode>(n);
  copy->device = devices.at(&n);
  copy->children.clear();
  for (const PlanPtr& c : n.children) {
    PlanPtr child = Build(*c, devices);
    if (child->device != copy->device) child = MakeTransition(child, copy->device);
    copy->children.push_back(child);
  }
  return copy;
}

TEST(PlacementOptimality, DynamicProgramMatchesBruteForce) {
  std::mt19937_64 rng(20260601);
  int gpu_plans = 0;
  for (int iteration = 0; iteration < 300; ++iteration) {
    PlanPtr plan = RandomPlan(rng, 1 + static_cast<int>(rng() % 4));
    PlacementOptions options = AutoOptions(RandomProfile(rng));
    std::vector<const PlanNode*> nodes;
    Visit(*plan, [&](const PlanNode& n) { nodes.push_back(&n); });
    if (nodes.size() > 12) continue;
    std::vector<const PlanNode*> free;
    std::unordered_map<const PlanNode*, Device> devices;
    for (const PlanNode* n : nodes) {
      devices[n] = Device::kCpu;
      if (GpuUnsupportedReason(*n, Residency::kFiles).empty()) free.push_back(n);
    }
    double best = std::numeric_limits<double>::infinity();
    for (uint64_t mask = 0; mask < (uint64_t{1} << free.size()); ++mask) {
      for (size_t i = 0; i < free.size(); ++i) {
        devices[free[i]] = (mask >> i) & 1 ? Device::kGpu : Device::kCpu;
      }
      PlanPtr placed = Build(*plan, devices);
      if (placed->device == Device::kGpu) placed = MakeTransition(placed, Device::kCpu);
      if (HasBounceThroughMovableWork(*placed)) continue;
      best = std::min(best, EstimatePlacedSeconds(*placed, options) * 1e3);
    }
    auto placed = Place(plan, options);
    ASSERT_TRUE(placed.ok());
    const double tolerance = 1e-9 * std::max(1.0, best);
    EXPECT_NEAR(placed->estimated_ms, best, tolerance) << PlanToString(*placed->plan);
    EXPECT_LE(placed->estimated_ms, placed->all_cpu_estimated_ms + tolerance);
    EXPECT_NEAR(EstimatePlacedSeconds(*placed->plan, options) * 1e3, placed->estimated_ms,
                tolerance);
    EXPECT_FALSE(HasBounceThroughMovableWork(*placed->plan)) << PlanToString(*placed->plan);
    EXPECT_TRUE(TransitionsConsistent(*placed->plan)) << PlanToString(*placed->plan);
    gpu_plans += placed->uses_gpu ? 1 : 0;
  }
  EXPECT_GT(gpu_plans, 20);  // the random profiles reach both outcomes
}

}  // namespace
}  // namespace tandem::placement
