// Support tags (see support.h): per node kind, the GPU operator's support check.
#include "tandem/placement/support.h"

#include "tandem/exec/gpu/gpu_operators_more.h"

namespace tandem::placement {

std::string GpuUnsupportedReason(const PlanNode& node, Residency scan_residency) {
  switch (node.kind) {
    case PlanKind::kScan:
      if (scan_residency == Residency::kDevice) return "";
      if (scan_residency == Residency::kHost) return "the table is cached in host memory";
      if (node.source && node.source->kind == TableSource::Kind::kMemory) {
        return "in-memory tables are read on the host";
      }
      if (node.source && node.source->kind == TableSource::Kind::kCsv) {
        return "CSV files are parsed on the host";
      }
      return "";  // Parquet: pages decompressed by host threads, decoded on the GPU
    case PlanKind::kFilter:
      return gpu::FilterUnsupported(node);
    case PlanKind::kProject:
      return gpu::ProjectUnsupported(node);
    case PlanKind::kAggregate:
      return gpu::AggregateUnsupported(node);
    case PlanKind::kJoin:
      return gpu::JoinUnsupported(node);
    case PlanKind::kSort:
      return gpu::SortUnsupported(node);
    case PlanKind::kLimit:
      return gpu::LimitUnsupported(node);
    case PlanKind::kSetOp:
      return gpu::SetOperationUnsupported(node);
    case PlanKind::kWindow:
      return gpu::WindowUnsupported(node);
    case PlanKind::kExpand:
      return gpu::ExpandUnsupported(node);
    case PlanKind::kValues:
      return "literal rows are built on the host";
    case PlanKind::kTransition:
      return "";
  }
  return "unknown operator";
}

}  // namespace tandem::placement
