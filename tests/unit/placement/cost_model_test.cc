// The cost model's arithmetic: byte estimates from schemas, throughput and fixed costs, transfer
// costs, and the built-in H200 figures (PCIe at 55 GB/s pinned).
#include "tandem/placement/cost_model.h"

#include <gtest/gtest.h>

#include <cmath>

#include "placement_test_util.h"
#include "tandem/udf/function.h"

namespace tandem::placement {
namespace {

using namespace test;

TEST(CostModel, RowBytesFromTheSchema) {
  Schema s;
  s.fields = {{"a", DataType::Int64(), false},
              {"b", DataType::Int32(), true},
              {"c", DataType::Bool(), false},
              {"d", DataType::String(), false}};
  EXPECT_DOUBLE_EQ(EstimatedRowBytes(s), 8 + 4 + 0.125 + 1 + 24);
  PlanPtr scan = ScanOf("t", 1000);
  EXPECT_DOUBLE_EQ(EstimatedOutputBytes(*scan), 1000 * 24);
  scan->estimated_rows = -1;
  EXPECT_DOUBLE_EQ(EstimatedOutputBytes(*scan), 24);
}

TEST(CostModel, OperatorSecondsAreFixedPlusWorkOverThroughput) {
  CostProfile p = TestProfile(10e9);
  PlanPtr scan = ScanOf("t", 1e6);  // 24 MB
  PlanPtr filter = FilterOf(scan, 5e5);
  const double in = EstimatedOutputBytes(*scan);
  EXPECT_DOUBLE_EQ(OperatorSeconds(p, Device::kCpu, OpClass::kFilter, *filter, {in}),
                   10e-6 + in / 1e9);
  EXPECT_DOUBLE_EQ(OperatorSeconds(p, Device::kGpu, OpClass::kFilter, *filter, {in}),
                   20e-6 + in / 100e9);
  PlanPtr project = ProjectOf(scan);  // reads and writes
  EXPECT_DOUBLE_EQ(OperatorSeconds(p, Device::kCpu, OpClass::kProject, *project, {in}),
                   10e-6 + 2 * in / 1e9);
  EXPECT_DOUBLE_EQ(TransferSeconds(p, Device::kGpu, 1e9), 10e-6 + 0.1);
}

TEST(CostModel, SortWorkGrowsWithALogFactorPastFourMillionRows) {
  EXPECT_DOUBLE_EQ(WorkBytes(OpClass::kSort, 100, 100, 1000), 100);
  EXPECT_DOUBLE_EQ(WorkBytes(OpClass::kSort, 100, 100, std::pow(2.0, 44)), 200);
  EXPECT_DOUBLE_EQ(WorkBytes(OpClass::kLimit, 100, 10, 1), 10);
  EXPECT_DOUBLE_EQ(WorkBytes(OpClass::kJoin, 100, 50, 1), 150);
}

TEST(CostModel, BuiltinH200Figures) {
  const TransferProfile t = BuiltinH200Transfer();
  // Measured through gpu::ToDevice/ToHost; never above the PCIe Gen5 link's pinned 55 GB/s.
  EXPECT_GT(t.host_to_device_bytes_per_s, 1e9);
  EXPECT_LE(t.host_to_device_bytes_per_s, 55.5e9);
  EXPECT_GT(t.device_to_host_bytes_per_s, 1e9);
  EXPECT_LE(t.device_to_host_bytes_per_s, 55.3e9);
  const DeviceProfile gpu = BuiltinH200();
  const DeviceProfile cpu = BuiltinGenericCpu();
  for (int i = 0; i < kNumOpClasses; ++i) {
    EXPECT_GT(cpu.throughput[static_cast<size_t>(i)], 0) << OpClassName(static_cast<OpClass>(i));
    EXPECT_GT(gpu.throughput[static_cast<size_t>(i)], 0) << OpClassName(static_cast<OpClass>(i));
    // Nothing on the GPU beats HBM's 4.3 TB/s copy rate.
    EXPECT_LE(gpu.throughput[static_cast<size_t>(i)], 4.3e12);
  }
  EXPECT_GT(gpu.query_fixed_s, cpu.query_fixed_s);
  EXPECT_GT(gpu.startup_s, 0.1);
}

TEST(CostModel, GpuStartUpIsPricedOnlyWhenAsked) {
  CostProfile profile = TestProfile(50e9);
  profile.gpu.startup_s = 0.5;
  PlacementOptions options = AutoOptions(profile);
  EXPECT_DOUBLE_EQ(GpuQuerySeconds(options), 200e-6);
  options.include_gpu_startup = true;
  EXPECT_DOUBLE_EQ(GpuQuerySeconds(options), 0.5 + 200e-6);
  // A query the GPU wins while running stays on the CPU when it would pay the start-up.
  PlanPtr plan = SumBy(FilterOf(ScanOf("t", 1e7), 5e6), 100);
  options.include_gpu_startup = false;
  auto warm = Place(plan, options);
  ASSERT_TRUE(warm.ok());
  EXPECT_TRUE(warm->uses_gpu);
  options.include_gpu_startup = true;
  auto cold = Place(plan, options);
  ASSERT_TRUE(cold.ok());
  EXPECT_FALSE(cold->uses_gpu);
  EXPECT_LE(cold->estimated_ms, cold->all_cpu_estimated_ms);
}

}  // namespace
}  // namespace tandem::placement

namespace tandem::placement {
namespace {

using namespace test;

// A projection over `input` calling a UDF (declared `ns` per row, CPU-only or not) on column 0
// and passing columns 1 and 2 through.
PlanPtr ProjectCallingUdf(PlanPtr input, double ns, bool gpu) {
  auto f = std::make_shared<UdfFunction>();
  f->name = "f";
  f->arg_types = {input->schema.fields[0].type};
  f->result_type = input->schema.fields[0].type;
  f->cost_ns_per_row = ns;
  if (gpu)
    f->gpu = [](TandemUdfDeviceContext*, const TandemUdfDeviceColumn*, int32_t,
                TandemUdfDeviceOutput*) -> int32_t { return TANDEM_UDF_ERROR; };
  ExprPtr call = MakeCall("f", {Col(input, 0)}, f->result_type, true);
  call->udf = f;
  const double rows = input->estimated_rows;
  return With(MakeProject(input, {call, Col(input, 1), Col(input, 2)}, {"y", "b", "c"}), rows);
}

TEST(CostModel, UdfCallsCostTheirDeclaredTimeOnTheCpuAndALaunchOnTheGpu) {
  CostProfile p = TestProfile(10e9);
  p.cpu.threads = 4;
  PlanPtr scan = ScanOf("t", 1e6);
  PlanPtr declared = ProjectCallingUdf(scan, 200, false);
  EXPECT_DOUBLE_EQ(UdfSeconds(p, Device::kCpu, *declared, 1e6), 1e6 * 200e-9 / 4);
  PlanPtr undeclared = ProjectCallingUdf(scan, 0, true);
  EXPECT_DOUBLE_EQ(UdfSeconds(p, Device::kCpu, *undeclared, 1e6),
                   1e6 * kUndeclaredUdfNsPerRow * 1e-9 / 4);
  EXPECT_DOUBLE_EQ(UdfSeconds(p, Device::kGpu, *undeclared, 1e6), p.gpu.operator_fixed_s);
  EXPECT_DOUBLE_EQ(UdfSeconds(p, Device::kCpu, *ProjectOf(scan), 1e6), 0);
}

TEST(CostModel, ADearCpuUdfIslandKeepsItsPriceInThePlanEstimate) {
  // The CPU-only UDF is priced in every plan; the all-CPU estimate includes it too, so the
  // planner's comparison with the all-CPU plan stays like for like.
  CostProfile p = TestProfile(10e9);
  PlanPtr plan = SumBy(ProjectCallingUdf(ScanOf("t", 1e6), 1000, false), 10);
  PlacementOptions options = AutoOptions(p);
  Result<PlacementResult> cheap = Place(SumBy(ProjectOf(ScanOf("t", 1e6)), 10), options);
  Result<PlacementResult> dear = Place(plan, options);
  ASSERT_TRUE(cheap.ok() && dear.ok());
  EXPECT_GT(dear->all_cpu_estimated_ms, cheap->all_cpu_estimated_ms + 1e3 * 1e6 * 1000e-9 * 0.9);
  EXPECT_LE(dear->estimated_ms, dear->all_cpu_estimated_ms);
}

}  // namespace
}  // namespace tandem::placement
