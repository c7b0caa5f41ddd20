// The placement planner: chooses the device of every operator of an optimized plan and inserts
// host->device and device->host transitions (kTransition nodes) where an operator's input lives
// on the other device.
//
// tandem.sql.device=auto chooses by cost (cost_model.h) with dynamic programming over the tree;
// each node's state is where its output lives and what the path below it did: A (CPU, never on
// the GPU below), I (CPU, an island: the CPU work above the last return from the GPU includes an
// operator the GPU cannot run), X (CPU, any history), B (GPU). A GPU node takes inputs in A or I
// (through a host->device transition) or B, never X, so no path goes GPU -> CPU -> GPU through
// work the GPU could have done: a cheap operator between GPU operators stays on the GPU, and a
// region whose crossings cost more than the GPU saves goes back to the CPU whole. An island (a
// CPU-only UDF, say) is crossed both ways only where the model prices the rows and bytes going
// down and back below what the GPU saves on either side. The chosen plan is the cheapest such
// plan; with the per-query GPU cost added it is compared with the all-CPU plan, which wins ties
// and any plan not estimated tandem.placement.minGain faster, so the estimate never exceeds the
// CPU plan's. Small inputs stay on the CPU because fixed per-operator, per-transfer and
// per-query costs (and, in a process that has not used the GPU yet, its start-up) outweigh the
// GPU's throughput there.
//
// tandem.sql.device=gpu puts every supported node on the GPU (transitions wherever needed);
// tandem.sql.device=cpu places nothing there. A Limit directly over a Sort is one decision (the
// executor runs it as one TopN on either device).
#pragma once

#include <string>

#include "tandem/common/status.h"
#include "tandem/placement/cost_model.h"
#include "tandem/placement/support.h"
#include "tandem/plan/logical_plan.h"

namespace tandem::placement {

enum class DeviceMode { kAuto, kGpu, kCpu };

struct PlacementOptions {
  DeviceMode mode = DeviceMode::kAuto;
  CostProfile profile;
  // Whether GPU nodes may be planned at all (a usable device, or explaining for a target), and
  // why not (shown as every node's reason): "no usable GPU (no CUDA device)".
  bool gpu_allowed = false;
  std::string no_gpu_reason;
  ResidencyFn residency;  // null: every scan reads its files
  // Price the GPU's one-time start-up (profile.gpu.startup_s) into plans that use it: true when
  // the plan would run in a process whose GPU runtime has not started yet.
  bool include_gpu_startup = false;
  // device=auto keeps the all-CPU plan unless a plan using the GPU is estimated at least this
  // fraction faster: estimates err, and the promise is never to be slower than the CPU plan.
  double min_gain = 0;
};

struct PlacementResult {
  PlanPtr plan;  // a copy with devices, notes and transitions; the input plan is not changed
  double estimated_ms = 0;          // the chosen plan
  double all_cpu_estimated_ms = 0;  // every node on the CPU
  bool uses_gpu = false;
};

Result<PlacementResult> Place(const PlanPtr& plan, const PlacementOptions& options);

// What a query pays once for using the GPU at all: per-query costs, plus start-up if priced.
double GpuQuerySeconds(const PlacementOptions& options);

// The estimated seconds of a placed plan (operators, transitions, per-query GPU cost), by the
// same model the planner uses.
double EstimatePlacedSeconds(const PlanNode& placed, const PlacementOptions& options);

}  // namespace tandem::placement
