// Benchmark of the GPU hash aggregate (gpu::HashAggregate) on lineitem-shaped data already on the
// device, 60M rows (TPC-H scale factor 10) unless TANDEM_BENCH_ROWS says otherwise:
//   Q1:        GROUP BY two 1-char strings (4 groups), Q1's 8 aggregates: sums and avgs of
//              decimal(15,2) columns and of the decimal products (computed once on the host with
//              the binder's types, so the figure is the aggregate's alone), count(*);
//   Q1Exprs:   the same with the products as aggregate arguments, evaluated on the GPU;
//   Q1Count:   count(*) only over Q1's keys, i.e. mostly the group-id assignment;
//   Q6:        no keys, sum(l_extendedprice * l_discount);
//   BigGroups: GROUP BY an int64 key with 1.5M distinct values, sum / avg / count(*).
// Each case runs with the few-groups path on (/fast:1) and off (/fast:0, the general atomics), so
// one run shows both. Times are wall time per call, including the final synchronization.
//   build/<dir>/bench/gpu_aggregate_bench [--benchmark_filter=Q1]
// Without a CUDA device every case reports "no CUDA device".
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "tandem/column/column_builder.h"
#include "tandem/exec/gpu/aggregate_tuning.h"
#include "tandem/exec/gpu/gpu_operators.h"
#include "tandem/expr/aggregate.h"
#include "tandem/expr/cpu/evaluate.h"
#include "tandem/expr/function_registry.h"
#include "tandem/gpu/device.h"
#include "tandem/gpu/device_column.h"

namespace tandem {
namespace {

using gpu::DeviceBatchPtr;
using gpu::Stream;

int64_t BenchRows() {
  const char* env = std::getenv("TANDEM_BENCH_ROWS");
  const int64_t rows = env ? std::atoll(env) : 0;
  return rows > 0 ? rows : 60000000;
}

uint64_t SplitMix(uint64_t* state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Columns of the generated table.
enum Col { kFlag, kStatus, kQuantity, kPrice, kDiscount, kTax, kBigKey, kDiscPrice, kCharge, kRev };

// A call resolved as the binder resolves it (casts to the overload's argument types).
ExprPtr Call(const std::string& fn, std::vector<ExprPtr> args) {
  std::vector<DataType> types;
  for (auto& a : args) types.push_back(a->type);
  auto r = ResolveScalarFunction(fn, types);
  if (!r.ok()) {
    std::fprintf(stderr, "%s: %s\n", fn.c_str(), r.status().ToString().c_str());
    std::exit(1);
  }
  for (size_t i = 0; i < args.size(); ++i) {
    if (!(args[i]->type == r->arg_types[i])) args[i] = MakeCast(args[i], r->arg_types[i]);
  }
  return MakeCall(r->name, std::move(args), r->result_type, true);
}

ExprPtr Ref(const Schema& s, int i) {
  return MakeColumnRef(i, s.field(i).type, true, s.field(i).name);
}
ExprPtr One() { return MakeLiteral(Value::Int32(1)); }

ExprPtr DiscPrice(const Schema& s) {  // l_extendedprice * (1 - l_discount)
  return Call("multiply", {Ref(s, kPrice), Call("subtract", {One(), Ref(s, kDiscount)})});
}
ExprPtr Charge(const Schema& s) {  // ... * (1 + l_tax)
  return Call("multiply", {DiscPrice(s), Call("add", {One(), Ref(s, kTax)})});
}
ExprPtr Revenue(const Schema& s) {  // Q6: l_extendedprice * l_discount
  return Call("multiply", {Ref(s, kPrice), Ref(s, kDiscount)});
}

Schema BaseSchema() {
  const DataType money = DataType::Decimal(15, 2);
  Schema s;
  s.fields = {{"l_returnflag", DataType::String()},
              {"l_linestatus", DataType::String()},
              {"l_quantity", money},
              {"l_extendedprice", money},
              {"l_discount", money},
              {"l_tax", money},
              {"k_big", DataType::Int64()}};
  return s;
}

// `rows` lineitem-like rows from seed `seed`, then the three products evaluated on the host.
Result<BatchPtr> MakeBatch(int64_t rows, uint64_t seed) {
  const Schema base = BaseSchema();
  ColumnBuilder flag(DataType::String(), rows), status(DataType::String(), rows);
  flag.ReserveBytes(rows);
  status.ReserveBytes(rows);
  std::vector<int64_t*> fixed;
  std::vector<ColumnBuilder> builders;
  for (int c = kQuantity; c <= kBigKey; ++c) builders.emplace_back(base.field(c).type, rows);
  for (auto& b : builders) fixed.push_back(reinterpret_cast<int64_t*>(b.AppendUninitialized(rows)));
  // Q1's four (returnflag, linestatus) groups.
  static const char* kFlags[4] = {"A", "N", "N", "R"};
  static const char* kStatuses[4] = {"F", "F", "O", "F"};
  uint64_t rng = seed;
  for (int64_t r = 0; r < rows; ++r) {
    const uint64_t x = SplitMix(&rng), y = SplitMix(&rng);
    const int group = static_cast<int>(x & 3);
    flag.AppendString(kFlags[group]);
    status.AppendString(kStatuses[group]);
    const int64_t quantity = 1 + static_cast<int64_t>((x >> 2) % 50);
    fixed[0][r] = quantity * 100;
    fixed[1][r] = quantity * (90000 + static_cast<int64_t>((x >> 8) % 110000));
    fixed[2][r] = static_cast<int64_t>((x >> 40) % 11);
    fixed[3][r] = static_cast<int64_t>((x >> 48) % 9);
    fixed[4][r] = static_cast<int64_t>(y % 1500000);
  }
  auto batch = std::make_shared<Batch>();
  batch->schema = base;
  batch->num_rows = rows;
  batch->columns.push_back(flag.Finish());
  batch->columns.push_back(status.Finish());
  for (auto& b : builders) batch->columns.push_back(b.Finish());
  EvalContext ctx;
  const std::pair<const char*, ExprPtr> products[] = {
      {"disc_price", DiscPrice(base)}, {"charge", Charge(base)}, {"revenue", Revenue(base)}};
  for (const auto& [name, e] : products) {
    TANDEM_ASSIGN_OR_RAISE(auto col, cpu::Evaluate(*e, *batch, ctx));
    batch->columns.push_back(col);
    batch->schema.fields.push_back({name, e->type});
  }
  return batch;
}

// The table as one batch per thread, made in parallel.
Result<Table> MakeTable(int64_t rows) {
  const int64_t parts =
      std::max<int64_t>(1, std::min<int64_t>(16, std::thread::hardware_concurrency()));
  std::vector<Result<BatchPtr>> batches(static_cast<size_t>(parts), Status::Internal("not made"));
  std::vector<std::thread> threads;
  for (int64_t p = 0; p < parts; ++p) {
    const int64_t begin = rows * p / parts, end = rows * (p + 1) / parts;
    threads.emplace_back([&batches, p, begin, end] {
      batches[static_cast<size_t>(p)] = MakeBatch(end - begin, 42 + static_cast<uint64_t>(p));
    });
  }
  for (auto& t : threads) t.join();
  Table t;
  for (auto& b : batches) {
    TANDEM_ASSIGN_OR_RAISE(auto batch, std::move(b));
    t.schema = batch->schema;
    t.batches.push_back(std::move(batch));
  }
  return t;
}

// The table on the device, made once; a failure is kept and reported by every case.
struct DeviceData {
  std::string error;  // empty when the data is ready
  std::unique_ptr<Stream> stream;
  Schema schema;
  DeviceBatchPtr batch;
};

const DeviceData& Data() {
  static const DeviceData data = [] {
    DeviceData d;
    auto dev = gpu::QueryDevice();
    if (!dev.ok()) {
      d.error = "no CUDA device";
      return d;
    }
    auto table = MakeTable(BenchRows());
    if (!table.ok()) {
      d.error = table.status().ToString();
      return d;
    }
    d.schema = table->schema;
    auto stream = Stream::Create();
    if (!stream.ok()) {
      d.error = stream.status().ToString();
      return d;
    }
    d.stream = std::make_unique<Stream>(std::move(*stream));
    auto batch = gpu::ToDevice(*table, *d.stream);
    if (!batch.ok()) {
      d.error = batch.status().ToString();
      return d;
    }
    d.batch = *batch;
    return d;
  }();
  return data;
}

AggregateCall Agg(AggregateKind kind, ExprPtr arg) {
  AggregateCall a;
  a.kind = kind;
  a.type = AggregateResultType(kind, arg ? arg->type : DataType::Int64()).value();
  a.nullable = kind != AggregateKind::kCountStar && kind != AggregateKind::kCount;
  a.name = std::string(AggregateKindName(kind)) + "(" + (arg ? arg->ToString() : "*") + ")";
  a.arg = std::move(arg);
  return a;
}

using K = AggregateKind;

std::vector<AggregateCall> Q1Aggregates(const Schema& s, bool products_on_gpu) {
  ExprPtr disc_price = products_on_gpu ? DiscPrice(s) : Ref(s, kDiscPrice);
  ExprPtr charge = products_on_gpu ? Charge(s) : Ref(s, kCharge);
  return {Agg(K::kSum, Ref(s, kQuantity)), Agg(K::kSum, Ref(s, kPrice)),
          Agg(K::kSum, disc_price),        Agg(K::kSum, charge),
          Agg(K::kAvg, Ref(s, kQuantity)), Agg(K::kAvg, Ref(s, kPrice)),
          Agg(K::kAvg, Ref(s, kDiscount)), Agg(K::kCountStar, nullptr)};
}

void Run(benchmark::State& state, const std::vector<int>& keys,
         const std::function<std::vector<AggregateCall>(const Schema&)>& aggregates) {
  const DeviceData& d = Data();
  if (!d.error.empty()) {
    state.SkipWithError(d.error.c_str());
    return;
  }
  std::vector<ExprPtr> key_exprs;
  std::vector<std::string> names;
  for (int k : keys) {
    key_exprs.push_back(Ref(d.schema, k));
    names.push_back(d.schema.field(k).name);
  }
  auto node = MakeAggregate(MakeValues(d.schema, {}), key_exprs, names, aggregates(d.schema));
  const std::string why = gpu::AggregateUnsupported(*node);
  if (!why.empty()) {
    state.SkipWithError(("unsupported on the GPU: " + why).c_str());
    return;
  }
  gpu::SetAggregateFewGroupsLimit(state.range(0) ? gpu::kDefaultAggregateFewGroupsLimit : 0);
  gpu::GpuContext ctx;
  ctx.stream = d.stream.get();
  int64_t groups = 0;
  for (auto _ : state) {
    auto out = gpu::HashAggregate(*node, nullptr, *d.batch, ctx);
    if (!out.ok()) {
      state.SkipWithError(out.status().ToString().c_str());
      break;
    }
    groups = (*out)->num_rows;
  }
  gpu::SetAggregateFewGroupsLimit(gpu::kDefaultAggregateFewGroupsLimit);
  state.counters["groups"] = static_cast<double>(groups);
  state.counters["rows"] = static_cast<double>(d.batch->num_rows);
}

void BM_Q1(benchmark::State& s) {
  Run(s, {kFlag, kStatus}, [](const Schema& sc) { return Q1Aggregates(sc, false); });
}
void BM_Q1Exprs(benchmark::State& s) {
  Run(s, {kFlag, kStatus}, [](const Schema& sc) { return Q1Aggregates(sc, true); });
}
void BM_Q1Count(benchmark::State& s) {
  Run(s, {kFlag, kStatus},
      [](const Schema&) { return std::vector<AggregateCall>{Agg(K::kCountStar, nullptr)}; });
}
void BM_Q6(benchmark::State& s) {
  Run(s, {},
      [](const Schema& sc) { return std::vector<AggregateCall>{Agg(K::kSum, Ref(sc, kRev))}; });
}
void BM_BigGroups(benchmark::State& s) {
  Run(s, {kBigKey}, [](const Schema& sc) {
    return std::vector<AggregateCall>{Agg(K::kSum, Ref(sc, kPrice)),
                                      Agg(K::kAvg, Ref(sc, kQuantity)),
                                      Agg(K::kCountStar, nullptr)};
  });
}

#define TANDEM_GPU_AGG_BENCH(fn)      \
  BENCHMARK(fn)                       \
      ->ArgName("fast")               \
      ->Arg(1)                        \
      ->Arg(0)                        \
      ->Unit(benchmark::kMillisecond) \
      ->UseRealTime()                 \
      ->MinTime(0.3)
TANDEM_GPU_AGG_BENCH(BM_Q1);
TANDEM_GPU_AGG_BENCH(BM_Q1Exprs);
TANDEM_GPU_AGG_BENCH(BM_Q1Count);
TANDEM_GPU_AGG_BENCH(BM_Q6);
TANDEM_GPU_AGG_BENCH(BM_BigGroups);

}  // namespace
}  // namespace tandem

BENCHMARK_MAIN();
