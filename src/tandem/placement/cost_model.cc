// The cost formulas and built-in profiles (see cost_model.h).
#include "tandem/placement/cost_model.h"

#include <algorithm>
#include <cmath>

#include "tandem/plan/rewrite_util.h"
#include "tandem/udf/function.h"

namespace tandem::placement {
namespace {

constexpr double kGB = 1e9;

void SetThroughput(DeviceProfile* p, OpClass op, double bytes_per_s) {
  p->throughput[static_cast<int>(op)] = bytes_per_s;
}

}  // namespace

const char* OpClassName(OpClass op) {
  switch (op) {
    case OpClass::kScan:
      return "scan";
    case OpClass::kFilter:
      return "filter";
    case OpClass::kProject:
      return "project";
    case OpClass::kAggregate:
      return "aggregate";
    case OpClass::kJoin:
      return "join";
    case OpClass::kSort:
      return "sort";
    case OpClass::kTopN:
      return "topn";
    case OpClass::kLimit:
      return "limit";
    case OpClass::kSetOp:
      return "setop";
    case OpClass::kWindow:
      return "window";
    case OpClass::kValues:
      return "values";
    case OpClass::kAggregateFewGroups:
      return "aggregate_few_groups";
  }
  return "?";
}

DeviceProfile BuiltinGenericCpu() {
  DeviceProfile p;
  SetThroughput(&p, OpClass::kScan, 5 * kGB);  // Parquet decoding
  SetThroughput(&p, OpClass::kFilter, 30 * kGB);
  SetThroughput(&p, OpClass::kProject, 40 * kGB);
  SetThroughput(&p, OpClass::kAggregate, 3 * kGB);
  SetThroughput(&p, OpClass::kAggregateFewGroups, 18 * kGB);
  SetThroughput(&p, OpClass::kJoin, 6.2 * kGB);
  SetThroughput(&p, OpClass::kSort, 0.3 * kGB);
  SetThroughput(&p, OpClass::kTopN, 20 * kGB);
  SetThroughput(&p, OpClass::kLimit, 100 * kGB);
  SetThroughput(&p, OpClass::kSetOp, 1.6 * kGB);
  SetThroughput(&p, OpClass::kWindow, 0.25 * kGB);
  SetThroughput(&p, OpClass::kValues, 1 * kGB);
  p.threads = 16;  // the host the figures were measured on
  p.operator_fixed_s = 20e-6;
  p.query_fixed_s = 0;
  return p;
}

DeviceProfile BuiltinH200() {
  // HBM3e copies at ~4.3 TB/s; the operators reach 30-500 GB/s of the bytes they touch (hash
  // aggregation by few string keys is the slowest), and each costs ~150 us of launches and the
  // syncs that bring result sizes back.
  DeviceProfile p;
  SetThroughput(&p, OpClass::kScan, 2000 * kGB);  // a cached, device-resident table: no copy
  SetThroughput(&p, OpClass::kFilter, 200 * kGB);
  SetThroughput(&p, OpClass::kProject, 500 * kGB);
  SetThroughput(&p, OpClass::kAggregate, 100 * kGB);
  SetThroughput(&p, OpClass::kAggregateFewGroups, 170 * kGB);
  SetThroughput(&p, OpClass::kJoin, 187 * kGB);
  SetThroughput(&p, OpClass::kSort, 115 * kGB);
  SetThroughput(&p, OpClass::kTopN, 140 * kGB);
  SetThroughput(&p, OpClass::kLimit, 200 * kGB);
  // Set operations hash whole rows like an aggregate; window functions sort by partition and order
  // keys and then scan: priced at the aggregate's and half the sort's rate until calibrated.
  SetThroughput(&p, OpClass::kSetOp, 100 * kGB);
  SetThroughput(&p, OpClass::kWindow, 50 * kGB);
  SetThroughput(&p, OpClass::kValues, 1 * kGB);
  // Parquet files scanned onto the GPU (host threads read and decompress, the GPU decodes): on
  // TPC-H SF10 the GPU file scan of Q6's four lineitem columns took ~235 ms against ~143 ms for
  // the host scan of the same 1.68 GB (bench/results/tpch_sf10_gpu.md), i.e. ~0.6x the host's
  // rate: 3 GB/s next to the generic CPU's 5 GB/s.
  p.file_scan_bytes_per_s = 3 * kGB;
  p.operator_fixed_s = 150e-6;
  p.query_fixed_s = 50e-6;  // the query's stream, the final sync
  p.startup_s = 0.6;
  return p;
}

TransferProfile BuiltinH200Transfer() {
  TransferProfile t;
  t.host_to_device_bytes_per_s = 7.5 * kGB;
  t.device_to_host_bytes_per_s = 3.9 * kGB;
  t.fixed_s = 40e-6;
  return t;
}

double EstimatedRowBytes(const Schema& schema) {
  double bytes = 0;
  for (const Field& f : schema.fields) {
    bytes += f.type.estimated_bytes();
    if (f.nullable) bytes += 0.125;
  }
  return std::max(bytes, 1.0);
}

double EstimatedRows(const PlanNode& node) {
  return node.estimated_rows >= 0 && std::isfinite(node.estimated_rows) ? node.estimated_rows : 1.0;
}

double EstimatedOutputBytes(const PlanNode& node) {
  return EstimatedRows(node) * EstimatedRowBytes(node.schema);
}

OpClass ClassOf(const PlanNode& node) {
  switch (node.kind) {
    case PlanKind::kScan:
      return OpClass::kScan;
    case PlanKind::kFilter:
      return OpClass::kFilter;
    case PlanKind::kProject:
    case PlanKind::kExpand:
      return OpClass::kProject;
    case PlanKind::kAggregate:
      return EstimatedRows(node) <= kFewGroups ? OpClass::kAggregateFewGroups : OpClass::kAggregate;
    case PlanKind::kJoin:
      return OpClass::kJoin;
    case PlanKind::kSort:
      return OpClass::kSort;
    case PlanKind::kLimit:
      return OpClass::kLimit;
    case PlanKind::kSetOp:
      return OpClass::kSetOp;
    case PlanKind::kWindow:
      return OpClass::kWindow;
    case PlanKind::kValues:
    case PlanKind::kTransition:
      return OpClass::kValues;
  }
  return OpClass::kValues;
}

double WorkBytes(OpClass op, double in, double out, double rows) {
  switch (op) {
    case OpClass::kScan:
    case OpClass::kValues:
      return out;
    case OpClass::kLimit:
      return std::min(in, out);
    case OpClass::kProject:
    case OpClass::kAggregate:
    case OpClass::kAggregateFewGroups:
    case OpClass::kJoin:
    case OpClass::kSetOp:
    case OpClass::kWindow:
      return in + out;
    case OpClass::kSort:
      return in * std::max(1.0, std::log2(std::max(1.0, rows)) / 22.0);
    case OpClass::kFilter:
    case OpClass::kTopN:
      return in;
  }
  return in;
}

double JoinInputBytes(const PlanNode& join, double left_bytes, double right_bytes, double left_rows,
                      double right_rows) {
  if (join.left_keys.empty() || join.left_keys.size() != join.right_keys.size()) {
    return left_bytes + right_bytes;
  }
  auto key_bytes = [](const std::vector<ExprPtr>& keys) {
    double bytes = 0;
    for (const ExprPtr& k : keys) bytes += k->type.estimated_bytes();
    return bytes;
  };
  if (right_bytes <= left_bytes) {
    return right_bytes + std::min(left_bytes, left_rows * key_bytes(join.left_keys));
  }
  return left_bytes + std::min(right_bytes, right_rows * key_bytes(join.right_keys));
}

double OperatorSeconds(const CostProfile& profile, Device device, OpClass op, const PlanNode& node,
                       const std::vector<double>& input_bytes) {
  const DeviceProfile& p = device == Device::kGpu ? profile.gpu : profile.cpu;
  double in = 0;
  for (double b : input_bytes) in += b;
  if (op == OpClass::kJoin && input_bytes.size() == 2 && node.children.size() == 2 &&
      node.children[0] && node.children[1]) {
    in = JoinInputBytes(node, input_bytes[0], input_bytes[1], EstimatedRows(*node.children[0]),
                        EstimatedRows(*node.children[1]));
  }
  const double work = WorkBytes(op, in, EstimatedOutputBytes(node), EstimatedRows(node));
  const double throughput = p.Throughput(op);
  const double variable = throughput > 0 ? work / throughput : 0;
  return p.operator_fixed_s + variable;
}

namespace {

void CountUdfCalls(const Expr* e, std::vector<const UdfFunction*>* calls) {
  if (!e) return;
  if (e->kind == ExprKind::kCall && e->udf) calls->push_back(e->udf.get());
  for (const auto& a : e->args) CountUdfCalls(a.get(), calls);
}

std::vector<const UdfFunction*> UdfCallsOf(const PlanNode& node) {
  std::vector<const UdfFunction*> calls;
  for (const ExprPtr& e : plan::NodeExpressions(node)) CountUdfCalls(e.get(), &calls);
  return calls;
}

}  // namespace

double UdfSeconds(const CostProfile& profile, Device device, const PlanNode& node,
                  double input_rows) {
  double seconds = 0;
  for (const UdfFunction* f : UdfCallsOf(node)) {
    if (device == Device::kGpu) {
      seconds += profile.gpu.operator_fixed_s;
      continue;
    }
    const double ns = f->cost_ns_per_row > 0 ? f->cost_ns_per_row : kUndeclaredUdfNsPerRow;
    seconds += std::max(1.0, input_rows) * ns * 1e-9 / std::max(1.0, profile.cpu.threads);
  }
  return seconds;
}

double TransferSeconds(const CostProfile& profile, Device to, double bytes) {
  const double bw = to == Device::kGpu ? profile.transfer.host_to_device_bytes_per_s
                                       : profile.transfer.device_to_host_bytes_per_s;
  return profile.transfer.fixed_s + (bw > 0 ? bytes / bw : 0);
}

}  // namespace tandem::placement
