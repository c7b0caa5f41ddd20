// Stand-ins for evaluate.cu in builds without nvcc: every call says there is no CUDA device.
#include "tandem/expr/gpu/evaluate.h"

namespace tandem::gpu {

Result<DeviceColumnPtr> Evaluate(const Expr&, const DeviceBatch&, const EvalContext&,
                                 const Stream&) {
  return Status::Unsupported("no CUDA device");
}

Result<Selection> SelectTrue(const Expr&, const DeviceBatch&, const EvalContext&, const Stream&,
                             SelectionParts) {
  return Status::Unsupported("no CUDA device");
}

}  // namespace tandem::gpu
