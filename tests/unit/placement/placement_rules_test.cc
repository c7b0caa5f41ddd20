// The placement planner's rules on hand-built plans: small inputs stay on the CPU, large ones go
// to the GPU; a cheap operator between GPU operators stays there; no operator the GPU could run
// is ever put on the CPU between GPU operators, while an island of unsupported ones returns to
// the GPU above it only where the model prices both crossings below what the GPU saves; a region
// whose transitions cost more than the GPU saves goes back to the CPU whole; device=cpu and
// device=gpu; explain notes.
#include <gtest/gtest.h>

#include <algorithm>

#include "placement_test_util.h"
#include "tandem/placement/devices_line.h"
#include "tandem/placement/support.h"

namespace tandem::placement {
namespace {

using namespace test;

// The built-in figures of the H200 and its host.
CostProfile BuiltinH200Profile() {
  CostProfile profile;
  profile.has_gpu = true;
  profile.cpu = BuiltinGenericCpu();
  profile.gpu = BuiltinH200();
  profile.transfer = BuiltinH200Transfer();
  return profile;
}

// Filter -> Aggregate into `groups` groups (default: a hundredth of the rows, at most 1M) over a
// scan of `rows` rows.
PlanPtr FilterAggregate(double rows, double groups = 0) {
  PlanPtr scan = ScanOf("t", rows);
  if (groups <= 0) groups = std::clamp(rows / 100, 1.0, 1e6);
  return SumBy(FilterOf(scan, rows / 2), groups);
}

TEST(PlacementRules, SupportTagsOfTheTestOperators) {
  PlanPtr plan = FilterAggregate(1000);
  EXPECT_EQ(GpuUnsupportedReason(*plan, Residency::kFiles), "");
  EXPECT_EQ(GpuUnsupportedReason(*plan->children[0], Residency::kFiles), "");
  EXPECT_NE(GpuUnsupportedReason(*WindowOf(plan), Residency::kFiles), "");
  EXPECT_NE(GpuUnsupportedReason(*ScanOf("t", 10), Residency::kFiles), "");
  EXPECT_EQ(GpuUnsupportedReason(*ScanOf("t", 10), Residency::kDevice), "");
}

TEST(PlacementRules, SmallInputStaysOnTheCpuLargeInputGoesToTheGpu) {
  CostProfile profile = BuiltinH200Profile();
  auto small = Place(FilterAggregate(1000), AutoOptions(profile));
  ASSERT_TRUE(small.ok()) << small.status().ToString();
  EXPECT_FALSE(small->uses_gpu) << PlanToString(*small->plan);
  EXPECT_EQ(Count(*small->plan, IsTransition), 0);
  EXPECT_EQ(small->plan->placement.kind, PlacementNote::Kind::kCostModel);

  auto large = Place(FilterAggregate(1e9), AutoOptions(profile));
  ASSERT_TRUE(large.ok()) << large.status().ToString();
  EXPECT_TRUE(large->uses_gpu) << PlanToString(*large->plan);
  EXPECT_EQ(large->plan->children[0]->kind, PlanKind::kAggregate) << PlanToString(*large->plan);
  EXPECT_EQ(large->plan->children[0]->device, Device::kGpu);
  EXPECT_EQ(Count(*large->plan, IsTransition), 2);  // one up, one down at the root
  EXPECT_LT(large->estimated_ms, large->all_cpu_estimated_ms);
  EXPECT_TRUE(TransitionsConsistent(*large->plan));
}

TEST(PlacementRules, FewGroupsFromTheHostStayOnTheCpu) {
  // Aggregating into a few groups runs on the CPU faster than the rows cross PCIe (TPC-H Q1
  // from files: 59M rows, 4 groups, 0.25 s on 16 cores against 0.3 s of filter copy and upload).
  CostProfile profile = BuiltinH200Profile();
  auto few = Place(FilterAggregate(1e9, 4), AutoOptions(profile));
  ASSERT_TRUE(few.ok()) << few.status().ToString();
  EXPECT_FALSE(few->uses_gpu) << PlanToString(*few->plan);
  auto many = Place(FilterAggregate(1e9, 1e7), AutoOptions(profile));
  ASSERT_TRUE(many.ok()) << many.status().ToString();
  EXPECT_TRUE(many->uses_gpu) << PlanToString(*many->plan);
}

TEST(PlacementRules, ParquetScansCanDecodeOnTheGpu) {
  PlanPtr parquet = ScanOf("t", 10, TableSource::Kind::kParquet);
  EXPECT_EQ(GpuUnsupportedReason(*parquet, Residency::kFiles), "");
  EXPECT_NE(GpuUnsupportedReason(*ScanOf("t", 10, TableSource::Kind::kCsv), Residency::kFiles), "");
  EXPECT_NE(GpuUnsupportedReason(*ScanOf("t", 10, TableSource::Kind::kMemory), Residency::kFiles),
            "");
}

TEST(PlacementRules, ParquetScanDecodesWhereTheModelPricesItCheaper) {
  CostProfile profile = BuiltinH200Profile();
  auto plan = [] {
    return SumBy(FilterOf(ScanOf("t", 1e9, TableSource::Kind::kParquet), 5e8), 100);
  };
  auto gpu_scans = [](const PlanNode& root) {
    return Count(root, [](const PlanNode& n) {
      return n.kind == PlanKind::kScan && n.device == Device::kGpu;
    });
  };
  // A GPU file scan faster than the host scan plus the copy: the whole chain runs on the GPU,
  // with one transition, at the root.
  profile.gpu.file_scan_bytes_per_s = 20e9;
  auto fast = Place(plan(), AutoOptions(profile));
  ASSERT_TRUE(fast.ok()) << fast.status().ToString();
  EXPECT_EQ(gpu_scans(*fast->plan), 1) << PlanToString(*fast->plan);
  EXPECT_EQ(Count(*fast->plan, IsTransition), 1) << PlanToString(*fast->plan);
  EXPECT_TRUE(TransitionsConsistent(*fast->plan));
  // A slow one: the host decodes, and what runs on the GPU gets its input copied up.
  profile.gpu.file_scan_bytes_per_s = 1e9;
  auto slow = Place(plan(), AutoOptions(profile));
  ASSERT_TRUE(slow.ok());
  EXPECT_EQ(gpu_scans(*slow->plan), 0) << PlanToString(*slow->plan);
  EXPECT_TRUE(TransitionsConsistent(*slow->plan));
  EXPECT_LE(slow->estimated_ms, slow->all_cpu_estimated_ms);

  // A small table stays on the CPU, whole.
  auto small = Place(SumBy(FilterOf(ScanOf("t", 1000, TableSource::Kind::kParquet), 500), 10),
                     AutoOptions(profile));
  ASSERT_TRUE(small.ok());
  EXPECT_FALSE(small->uses_gpu) << PlanToString(*small->plan);
}

// A filter the CPU fuses into its Parquet scan costs a tenth of a standalone filter when its
// predicate compares numbers or dates, and its whole cost when it compares strings (measured on
// the H200 host: TPC-H Q6/Q14 against Q19).
TEST(PlacementRules, FusedFilterOnTheCpuIsCheapUnlessItComparesStrings) {
  auto table = std::make_shared<Table>();
  table->schema.fields = {{"a", DataType::Int64(), false}, {"s", DataType::String(), false}};
  auto scan_of = [&](TableSource::Kind kind) {
    auto source = TableSource::Memory("t", table);
    source->kind = kind;
    PlanPtr scan = MakeScan(source, {0, 1});
    scan->estimated_rows = 1e8;
    return scan;
  };
  auto numeric = [&](PlanPtr in) {
    return With(MakeFilter(in, MakeCall("gt", {Col(in, 0), MakeLiteral(Value::Int64(5))},
                                        DataType::Bool(), false)),
                1e6);
  };
  auto text = [&](PlanPtr in) {
    return With(MakeFilter(in, MakeCall("eq", {Col(in, 1), MakeLiteral(Value::String("x"))},
                                        DataType::Bool(), false)),
                1e6);
  };
  CostProfile profile;
  profile.cpu = BuiltinGenericCpu();
  auto cpu_ms = [&](PlanPtr plan) {
    auto placed = Place(plan, AutoOptions(profile));
    EXPECT_TRUE(placed.ok());
    return placed.ok() ? placed->all_cpu_estimated_ms : 0.0;
  };
  using Kind = TableSource::Kind;
  // A filter over a CSV scan is never fused: its cost is the standalone one.
  const double numeric_alone = cpu_ms(numeric(scan_of(Kind::kCsv))) - cpu_ms(scan_of(Kind::kCsv));
  const double text_alone = cpu_ms(text(scan_of(Kind::kCsv))) - cpu_ms(scan_of(Kind::kCsv));
  const double numeric_fused =
      cpu_ms(numeric(scan_of(Kind::kParquet))) - cpu_ms(scan_of(Kind::kParquet));
  const double text_fused = cpu_ms(text(scan_of(Kind::kParquet))) - cpu_ms(scan_of(Kind::kParquet));
  ASSERT_GT(numeric_alone, 0);
  EXPECT_NEAR(numeric_fused, 0.1 * numeric_alone, 0.02 * numeric_alone);
  EXPECT_NEAR(text_fused, text_alone, 0.01 * text_alone);
}

TEST(PlacementRules, CheapOperatorBetweenGpuOperatorsStaysOnTheGpu) {
  // join (GPU) -> project (cheap) -> aggregate (GPU)
  PlanPtr join = JoinOf(ScanOf("l", 1e8), ScanOf("r", 1e7), 1e8);
  PlanPtr plan = SumBy(ProjectOf(join), 1000);
  auto placed = Place(plan, AutoOptions(TestProfile(50e9)));
  ASSERT_TRUE(placed.ok());
  const PlanNode& agg = *placed->plan->children[0];  // below the final DeviceToHost
  ASSERT_EQ(agg.kind, PlanKind::kAggregate) << PlanToString(*placed->plan);
  EXPECT_EQ(agg.device, Device::kGpu);
  EXPECT_EQ(agg.children[0]->kind, PlanKind::kProject);
  EXPECT_EQ(agg.children[0]->device, Device::kGpu);
  EXPECT_EQ(agg.children[0]->children[0]->device, Device::kGpu);  // the join
  EXPECT_EQ(Count(*placed->plan, IsTransition), 3);               // two scans up, the result down
}

TEST(PlacementRules, AnIslandGoesBackToTheGpuOnlyWhereItsCrossingsPay) {
  // filter -> window (CPU only) -> aggregate over a large scan (read on the CPU). The window is
  // an island: the aggregate above it may return to the GPU, and only the model's price of both
  // crossings decides; no operator the GPU could run is ever sandwiched between GPU operators.
  auto plan = [] { return SumBy(WindowOf(FilterOf(ScanOf("t", 1e9), 5e8)), 1e6); };
  auto window_on_cpu = [](const PlanNode& root) {
    Visit(root, [](const PlanNode& n) {
      if (n.kind == PlanKind::kWindow) {
        EXPECT_EQ(n.device, Device::kCpu);
        EXPECT_EQ(n.placement.kind, PlacementNote::Kind::kUnsupported);
      }
    });
  };
  // A link as slow as the CPU's operators: moving the window's 5e8 rows back costs more than
  // the GPU saves on the aggregate, so nothing above the island is on the GPU.
  auto slow = Place(plan(), AutoOptions(TestProfile(1e9)));
  ASSERT_TRUE(slow.ok());
  EXPECT_FALSE(HasBounce(*slow->plan)) << PlanToString(*slow->plan);
  EXPECT_EQ(slow->plan->kind, PlanKind::kAggregate) << PlanToString(*slow->plan);
  EXPECT_EQ(slow->plan->device, Device::kCpu);
  window_on_cpu(*slow->plan);
  // A fast link: filter and aggregate on the GPU around the island, four crossings in all.
  for (double pcie : {50e9, 500e9}) {
    auto fast = Place(plan(), AutoOptions(TestProfile(pcie)));
    ASSERT_TRUE(fast.ok());
    EXPECT_TRUE(HasBounce(*fast->plan)) << PlanToString(*fast->plan);
    EXPECT_FALSE(HasBounceThroughMovableWork(*fast->plan)) << PlanToString(*fast->plan);
    EXPECT_TRUE(TransitionsConsistent(*fast->plan));
    EXPECT_EQ(Count(*fast->plan, OnGpuOperator), 2) << PlanToString(*fast->plan);
    EXPECT_EQ(Count(*fast->plan, IsTransition), 4) << PlanToString(*fast->plan);
    EXPECT_LT(fast->estimated_ms, slow->all_cpu_estimated_ms);
    window_on_cpu(*fast->plan);
  }
}

TEST(PlacementRules, AutoNeverSandwichesMovableWorkBetweenGpuOperators) {
  // join -> sort -> project -> aggregate, where the GPU's sort is priced far slower than the
  // CPU's and the link is fast: join on the GPU, sort on the CPU and the rest back on the GPU
  // would be the cheapest assignment, but the sort is movable work, not an island.
  for (double pcie : {1e9, 50e9, 500e9}) {
    PlanPtr join = JoinOf(ScanOf("l", 1e8), ScanOf("r", 1e7), 1e8);
    PlanPtr plan = SumBy(ProjectOf(SortOf(join)), 1000);
    CostProfile profile = TestProfile(pcie);
    profile.gpu.throughput[static_cast<size_t>(OpClass::kSort)] = 1e6;
    auto placed = Place(plan, AutoOptions(profile));
    ASSERT_TRUE(placed.ok());
    EXPECT_FALSE(HasBounce(*placed->plan)) << PlanToString(*placed->plan);
    EXPECT_TRUE(TransitionsConsistent(*placed->plan));
  }
}

TEST(PlacementRules, ForcedGpuModeCrossesAroundEveryIsland) {
  PlanPtr plan = SumBy(WindowOf(FilterOf(ScanOf("t", 1e9), 5e8)), 1e6);
  PlacementOptions gpu = AutoOptions(TestProfile(50e9));
  gpu.mode = DeviceMode::kGpu;
  auto forced = Place(plan, gpu);
  ASSERT_TRUE(forced.ok());
  // device=gpu: every supported operator on the GPU, transitions around the window.
  EXPECT_EQ(Count(*forced->plan, OnGpuOperator), 2);
  EXPECT_TRUE(HasBounce(*forced->plan));
  EXPECT_EQ(Count(*forced->plan, IsTransition), 4);
  EXPECT_TRUE(TransitionsConsistent(*forced->plan));
}

// The Devices line names what the GPU cannot run, and why, once per operator and reason; nodes
// the cost model kept on the CPU are not listed.
TEST(PlacementRules, DevicesLineNamesWhatTheGpuCannotRunAndWhy) {
  PlanPtr plan = SumBy(WindowOf(WindowOf(FilterOf(ScanOf("t", 1e9), 5e8))), 1e6);
  PlacementOptions gpu = AutoOptions(TestProfile(50e9));
  gpu.mode = DeviceMode::kGpu;
  auto forced = Place(plan, gpu);
  ASSERT_TRUE(forced.ok());
  const PlanNode* found = nullptr;
  Visit(*forced->plan, [&](const PlanNode& n) {
    if (n.kind == PlanKind::kWindow) found = &n;
  });
  ASSERT_NE(found, nullptr) << PlanToString(*forced->plan);
  const PlanNode& window = *found;
  ASSERT_EQ(window.placement.kind, PlacementNote::Kind::kUnsupported);
  const std::string line = DevicesLine(*forced->plan);
  const std::string listed = "; on the CPU: Window (" + window.placement.reason + ")";
  EXPECT_NE(line.find(listed), std::string::npos) << line;
  EXPECT_EQ(line.find("Window ("), line.rfind("Window (")) << "listed once: " << line;
  EXPECT_EQ(line.rfind("gpu ", 0), 0u) << line;

  auto all_gpu = Place(SumBy(ProjectOf(FilterOf(ScanOf("t", 1e8), 9e7)), 1e7),
                       AutoOptions(TestProfile(100e9)));
  ASSERT_TRUE(all_gpu.ok());
  // Only the test's CSV scan stays on the CPU: the filter, projection and aggregation run on
  // the GPU and are not listed.
  EXPECT_EQ(DevicesLine(*all_gpu->plan),
            "gpu 3, cpu 1, transitions 2; on the CPU: Scan (CSV files are parsed on the host)");
  auto slow = Place(SumBy(ProjectOf(FilterOf(ScanOf("t", 1e8), 9e7)), 1e7),
                    AutoOptions(TestProfile(0.2e9)));
  ASSERT_TRUE(slow.ok());
  EXPECT_EQ(DevicesLine(*slow->plan), "cpu only");
}

TEST(PlacementRules, RegionGoesBackToTheCpuWholeWhenTransitionsDominate) {
  // A GPU-friendly region (filter, project, aggregate) over a large scan: with a fast link it is
  // on the GPU as a whole; when moving the scan's output costs more than the GPU saves, the
  // whole region is on the CPU (not just the part nearest the scan).
  auto region = [] {
    PlanPtr scan = ScanOf("t", 1e8);
    return SumBy(ProjectOf(FilterOf(scan, 9e7)), 1e7);
  };
  auto fast = Place(region(), AutoOptions(TestProfile(100e9)));
  ASSERT_TRUE(fast.ok());
  EXPECT_EQ(Count(*fast->plan, OnGpuOperator), 3) << PlanToString(*fast->plan);
  auto slow = Place(region(), AutoOptions(TestProfile(0.2e9)));
  ASSERT_TRUE(slow.ok());
  EXPECT_EQ(Count(*slow->plan, OnGpuOperator), 0) << PlanToString(*slow->plan);
  EXPECT_EQ(Count(*slow->plan, IsTransition), 0);
  Visit(*slow->plan, [](const PlanNode& n) {
    if (n.kind != PlanKind::kScan) {
      EXPECT_EQ(n.placement.kind, PlacementNote::Kind::kCostModel) << n.Describe();
      EXPECT_GT(n.placement.gpu_est_ms, n.placement.cpu_est_ms) << n.Describe();
    }
  });
  EXPECT_DOUBLE_EQ(slow->estimated_ms, slow->all_cpu_estimated_ms);
}

TEST(PlacementRules, DeviceCpuPlacesNothingOnTheGpu) {
  PlacementOptions options = AutoOptions(TestProfile(100e9));
  options.mode = DeviceMode::kCpu;
  auto placed = Place(FilterAggregate(1e9), options);
  ASSERT_TRUE(placed.ok());
  EXPECT_FALSE(placed->uses_gpu);
  EXPECT_EQ(Count(*placed->plan, OnGpuOperator), 0);
  EXPECT_EQ(Count(*placed->plan, IsTransition), 0);
  EXPECT_EQ(placed->plan->placement.ToString(), "on the CPU because tandem.sql.device=cpu");
}

TEST(PlacementRules, NoUsableGpuPlacesNothingThereAndSaysWhy) {
  PlacementOptions options = AutoOptions(TestProfile(100e9));
  options.gpu_allowed = false;
  options.no_gpu_reason = "no usable GPU (no CUDA device)";
  for (DeviceMode mode : {DeviceMode::kAuto, DeviceMode::kGpu}) {
    options.mode = mode;
    auto placed = Place(FilterAggregate(1e9), options);
    ASSERT_TRUE(placed.ok());
    EXPECT_EQ(Count(*placed->plan, OnGpuOperator), 0);
    EXPECT_EQ(placed->plan->placement.ToString(),
              "on the CPU because no usable GPU (no CUDA device)");
  }
}

TEST(PlacementRules, DeviceGpuPutsEverySupportedNodeOnTheGpuEvenWhenSmall) {
  PlacementOptions options = AutoOptions(TestProfile(1e9));
  options.mode = DeviceMode::kGpu;
  auto placed = Place(FilterAggregate(10), options);
  ASSERT_TRUE(placed.ok());
  EXPECT_EQ(Count(*placed->plan, OnGpuOperator), 2);
  EXPECT_GT(placed->estimated_ms, placed->all_cpu_estimated_ms);  // forced, not chosen
}

TEST(PlacementRules, DeviceResidentScanNeedsNoHostToDeviceTransition) {
  PlacementOptions options = AutoOptions(TestProfile(50e9));
  options.residency = [](const PlanNode&) { return Residency::kDevice; };
  auto placed = Place(FilterAggregate(1e8), options);
  ASSERT_TRUE(placed.ok());
  EXPECT_EQ(Count(*placed->plan, OnGpuOperator), 3) << PlanToString(*placed->plan);
  EXPECT_EQ(Count(*placed->plan,
                  [](const PlanNode& n) { return IsTransition(n) && n.device == Device::kGpu; }),
            0);
  // Even tiny cached tables are scanned where they live; the rest may return to the CPU.
  auto tiny = Place(FilterAggregate(10), options);
  ASSERT_TRUE(tiny.ok());
  Visit(*tiny->plan, [](const PlanNode& n) {
    if (n.kind == PlanKind::kScan) EXPECT_EQ(n.device, Device::kGpu);
  });
  EXPECT_TRUE(TransitionsConsistent(*tiny->plan));
}

TEST(PlacementRules, TopNIsOneDecision) {
  PlanPtr plan = With(MakeLimit(SortOf(FilterOf(ScanOf("t", 1e9), 5e8)), 10, 0), 10);
  auto placed = Place(plan, AutoOptions(TestProfile(50e9)));
  ASSERT_TRUE(placed.ok());
  Visit(*placed->plan, [](const PlanNode& n) {
    if (n.kind == PlanKind::kLimit) {
      ASSERT_EQ(n.children[0]->kind, PlanKind::kSort) << "a transition split the TopN";
      EXPECT_EQ(n.children[0]->device, n.device);
    }
  });
}

TEST(PlacementRules, ExplainNotes) {
  PlacementNote note;
  EXPECT_EQ(note.ToString(), "");
  note.kind = PlacementNote::Kind::kOnGpu;
  EXPECT_EQ(note.ToString(), "on the GPU");
  note.kind = PlacementNote::Kind::kUnsupported;
  note.reason = "window functions";
  EXPECT_EQ(note.ToString(), "on the CPU because window functions");
  note.kind = PlacementNote::Kind::kCostModel;
  note.cpu_est_ms = 1.2;
  note.gpu_est_ms = 3.456;
  EXPECT_EQ(note.ToString(),
            "moved to the CPU by the cost model (cpu est 1.20 ms, gpu est 3.46 ms)");
  PlanPtr t = MakeTransition(ScanOf("t", 5), Device::kGpu);
  EXPECT_EQ(t->Describe(), "HostToDevice  (est. 5 rows)");
  EXPECT_EQ(MakeTransition(t, Device::kCpu)->Describe(), "DeviceToHost  (est. 5 rows)");
}

}  // namespace
}  // namespace tandem::placement
