// The placement cost model: how long an operator takes on each device, and what moving its
// output between host and device costs. Every figure is a throughput over the bytes an operator
// touches plus fixed costs (per operator: thread dispatch on the CPU, kernel launches and the
// syncs that bring result sizes back on the GPU; per transfer; per query: stream setup), so small
// inputs stay on the CPU by arithmetic, not by a threshold. Figures come from `tandem calibrate`
// (calibration_file.h) or the built-in profiles below.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "tandem/plan/logical_plan.h"

namespace tandem::placement {

// The operator classes the model distinguishes (TopN: a Limit over a Sort, run as one).
enum class OpClass {
  kScan,
  kFilter,
  kProject,
  kAggregate,
  kJoin,
  kSort,
  kTopN,
  kLimit,
  kSetOp,
  kWindow,
  kValues,
  // A hash aggregation into few groups (at most kFewGroups estimated): its states stay in the
  // caches, so it runs several times faster per byte on the CPU than one into many groups.
  kAggregateFewGroups
};
inline constexpr int kNumOpClasses = 12;
inline constexpr double kFewGroups = 4096;
const char* OpClassName(OpClass op);  // "scan", "filter" ... (the calibration file's keys)

struct DeviceProfile {
  // Bytes per second of the bytes an operator touches (see WorkBytes), per OpClass.
  std::array<double, kNumOpClasses> throughput{};
  // GPU only: bytes per second of decoded output when scanning Parquet files (host threads read
  // and decompress, the GPU decodes); throughput[kScan] is the rate of a device-resident table.
  double file_scan_bytes_per_s = 0;
  double operator_fixed_s = 0;  // per operator run
  double query_fixed_s = 0;     // once per query that uses the device
  // Once per process, at the first use of the device: CUDA context, memory pools, the pinned
  // pool (measured ~0.6 s on the H200 host). Priced only while the runtime is not yet started.
  double startup_s = 0;
  // CPU only: threads that share per-row UDF work (batches run in parallel).
  double threads = 1;

  double Throughput(OpClass op) const { return throughput[static_cast<int>(op)]; }
};

struct TransferProfile {
  double host_to_device_bytes_per_s = 0;
  double device_to_host_bytes_per_s = 0;
  double fixed_s = 0;  // per transition (staging, synchronization)
};

struct CostProfile {
  std::string description;  // "built-in H200 figures + built-in generic CPU figures"
  DeviceProfile cpu;
  bool has_gpu = false;  // false: the GPU figures are meaningless
  std::string gpu_name;  // "NVIDIA H200"
  DeviceProfile gpu;
  TransferProfile transfer;
};

// Built-in figures, measured with `tandem calibrate` (4M rows) on the project's H200 machine: its
// 16-core host running Tandem's CPU operators (the "generic CPU"), and the NVIDIA H200 running
// Tandem's GPU operators. Transfers are what gpu::ToDevice/ToHost achieved from ordinary host
// tables (7.5 / 3.9 GB/s), well below the link's pinned 55 GB/s: re-calibrate when the staging
// path improves.
DeviceProfile BuiltinGenericCpu();
DeviceProfile BuiltinH200();
TransferProfile BuiltinH200Transfer();

// Estimated output bytes of a node: estimated rows times the schema's row width (strings count
// 8 offset bytes plus 16 data bytes). Unknown estimates count as one row.
double EstimatedRowBytes(const Schema& schema);
double EstimatedOutputBytes(const PlanNode& node);
double EstimatedRows(const PlanNode& node);

// The class of an operator node (kLimit over kSort is priced as kTopN by the planner; an
// aggregation estimated to make at most kFewGroups rows is kAggregateFewGroups).
OpClass ClassOf(const PlanNode& node);

// The bytes an operator of class `op` touches: streaming operators read their input; operators
// that build columns or hash tables also write their output; sorts add a log factor past 4M
// rows. Calibration divides the same quantity by measured times.
double WorkBytes(OpClass op, double input_bytes, double output_bytes, double output_rows);

// The input bytes a hash join touches: its build side (the smaller input) whole, and of its
// probe side only the key columns of every row: the other columns are read for the rows that
// match, which its output counts (TPC-H Q3 probes 32M lineitem rows of which 1 % match). A join
// without equi-keys touches both inputs whole.
double JoinInputBytes(const PlanNode& join, double left_bytes, double right_bytes,
                      double left_rows, double right_rows);

// Seconds for `node` to run on `device`, given its inputs' estimated bytes; `op` overrides the
// class (TopN). `input_bytes` are the inputs' output bytes, in child order.
double OperatorSeconds(const CostProfile& profile, Device device, OpClass op, const PlanNode& node,
                       const std::vector<double>& input_bytes);

// Seconds the UDF calls in `node`'s expressions take on `device`, beyond the operator's own work,
// for an input of `input_rows` rows. On the CPU each call costs its declared nanoseconds per row
// (kUndeclaredUdfNsPerRow when it declares none) over every input row, spread over the CPU's
// threads; a filter is priced as if the call saw every row, though the CPU runs cheap conditions
// first. On the GPU, where only UDFs with a GPU implementation run, each call costs one fixed
// operator cost (the launch and the synchronization the engine makes after it); its work is
// priced with the projection's.
inline constexpr double kUndeclaredUdfNsPerRow = 50;
double UdfSeconds(const CostProfile& profile, Device device, const PlanNode& node,
                  double input_rows);

// Seconds to move `bytes` to device `to`.
double TransferSeconds(const CostProfile& profile, Device to, double bytes);

}  // namespace tandem::placement
