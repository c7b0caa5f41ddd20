// CallGpu without CUDA (see call_gpu.h): there is no device to call a GPU implementation on.
#include "tandem/udf/call_gpu.h"

namespace tandem::udf {

Result<gpu::DeviceColumnPtr> CallGpu(const UdfFunction& f, const std::vector<gpu::DeviceColumnPtr>&,
                                     int64_t, const gpu::Stream&) {
  return Status::Unsupported("UDF " + f.name + ": this build has no CUDA");
}

}  // namespace tandem::udf
