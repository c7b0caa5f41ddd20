// GPU Filter and Project against the CPU operators on random data: rows kept and their order,
// every column gathered, all-kept and none-kept predicates, projected expressions, and column
// references passed through without a copy.
#include <gtest/gtest.h>

#include "../unit/expr_test_fixture.h"
#include "gpu_expr_test_util.h"
#include "gpu_test_util.h"
#include "tandem/exec/cpu/operators.h"
#include "tandem/exec/gpu/gpu_operators.h"

namespace tandem {
namespace {

class GpuFilterProject : public ::testing::Test {
 protected:
  void Load(int64_t rows, uint32_t seed) {
    auto batch = test_util::RandomBatch(rows, seed);
    fx.batch = *batch;
    input.schema = batch->schema;
    input.batches = {batch};
    device.reset();  // its buffers were allocated on `stream`, which must outlive them
    auto d = gpu::ToDevice(input, *stream);
    ASSERT_TRUE(d.ok()) << d.status().ToString();
    device = *d;
  }
  void SetUp() override {
    auto s = gpu::Stream::Create();
    if (s.ok()) stream = std::make_unique<gpu::Stream>(std::move(*s));
    ctx.stream = stream.get();
  }
  ExprPtr Col(int i) {
    const Field& f = fx.batch.schema.fields[i];
    return MakeColumnRef(i, f.type, true, f.name);
  }
  void ExpectSameTable(const Table& cpu, const gpu::DeviceBatch& gpu_batch,
                       const std::string& what) {
    auto host = gpu::ToHost(gpu_batch, *stream);
    ASSERT_TRUE(host.ok()) << host.status().ToString();
    ASSERT_EQ(cpu.num_rows(), host->num_rows()) << what;
    if (cpu.num_rows() == 0) return;
    auto a = ConcatenateBatches(cpu.batches, cpu.schema);
    auto b = ConcatenateBatches(host->batches, host->schema);
    ASSERT_TRUE(a.ok() && b.ok());
    ASSERT_EQ((*a)->num_columns(), (*b)->num_columns());
    for (int c = 0; c < (*a)->num_columns(); ++c) {
      test_util::ExpectSameColumn(*(*a)->columns[c], *(*b)->columns[c],
                                  what + " column " + std::to_string(c));
    }
  }
  void CheckFilter(const ExprPtr& predicate) {
    PlanNode node;
    node.kind = PlanKind::kFilter;
    node.predicate = predicate;
    node.schema = input.schema;
    ASSERT_EQ(gpu::FilterUnsupported(node), "");
    ExecContext exec;
    auto cpu = cpu::Filter(node, input, exec);
    ASSERT_TRUE(cpu.ok()) << cpu.status().ToString();
    auto gpu_out = gpu::Filter(node, *device, ctx);
    ASSERT_TRUE(gpu_out.ok()) << gpu_out.status().ToString();
    ExpectSameTable(*cpu, **gpu_out, predicate->ToString());
  }

  test_util::ExprFixture fx;
  Table input;
  std::unique_ptr<gpu::Stream> stream;
  gpu::GpuContext ctx;
  gpu::DeviceBatchPtr device;
};

TEST_F(GpuFilterProject, FilterMatchesCpu) {
  TANDEM_REQUIRE_GPU();
  for (int64_t rows : {0, 1, 1000, 300000}) {
    Load(rows, static_cast<uint32_t>(rows + 11));
    CheckFilter(fx.Call("gt", {Col(0), MakeLiteral(Value::Int32(0))}));
    CheckFilter(fx.Call("and", {fx.Call("like", {Col(12), MakeLiteral(Value::String("%c%"))}),
                                fx.Call("lt", {Col(3), Col(4)})}));
    CheckFilter(Col(8));                                                 // a boolean column
    CheckFilter(fx.Call("is_not_null", {Col(6)}));                       // most rows
    CheckFilter(fx.Call("or", {Col(8), fx.Call("is_null", {Col(8)})}));  // every row
    CheckFilter(MakeLiteral(Value::Bool(false)));                        // no row
  }
}

TEST_F(GpuFilterProject, ProjectMatchesCpuAndSharesColumns) {
  TANDEM_REQUIRE_GPU();
  for (int64_t rows : {0, 1, 5000}) {
    Load(rows, static_cast<uint32_t>(rows + 3));
    PlanNode node;
    node.kind = PlanKind::kProject;
    node.exprs = {Col(5), fx.Call("multiply", {Col(3), Col(0)}), fx.Call("upper", {Col(12)}),
                  fx.Call("extract_year", {Col(6)}), Col(2)};
    for (const auto& e : node.exprs) node.schema.fields.push_back({e->ToString(), e->type, true});
    ASSERT_EQ(gpu::ProjectUnsupported(node), "");
    ExecContext exec;
    auto cpu = cpu::Project(node, input, exec);
    ASSERT_TRUE(cpu.ok()) << cpu.status().ToString();
    auto gpu_out = gpu::Project(node, *device, ctx);
    ASSERT_TRUE(gpu_out.ok()) << gpu_out.status().ToString();
    EXPECT_EQ((*gpu_out)->columns[0].get(), device->columns[5].get());  // passed through
    EXPECT_EQ((*gpu_out)->columns[4].get(), device->columns[2].get());
    ExpectSameTable(*cpu, **gpu_out, "project");
  }
}

TEST_F(GpuFilterProject, ErrorsMatchTheCpu) {
  TANDEM_REQUIRE_GPU();
  Load(2000, 9);
  PlanNode node;
  node.kind = PlanKind::kProject;
  node.exprs = {fx.Call("add", {Col(1), MakeLiteral(Value::Int64(1))})};
  node.schema.fields.push_back({"x", DataType::Int64(), true});
  ExecContext exec;
  auto cpu = cpu::Project(node, input, exec);
  auto gpu_out = gpu::Project(node, *device, ctx);
  ASSERT_FALSE(cpu.ok());
  ASSERT_FALSE(gpu_out.ok());
  EXPECT_EQ(gpu_out.status().ToString(), cpu.status().ToString());
}

}  // namespace
}  // namespace tandem
