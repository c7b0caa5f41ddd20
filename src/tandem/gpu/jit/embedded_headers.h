// The project's headers that generated GPU kernels include, as text built into the binary
// (cmake/embed_jit_headers.cmake writes their definition at build time), so a kernel compiles
// with NVRTC wherever the binary runs, without the sources, and always against the code the
// binary itself was built from.
#pragma once

#include <vector>

#include "tandem/gpu/jit/nvrtc.h"

namespace tandem::gpu::jit {

// The GPU expression interpreter's headers (expr/gpu/eval_rows.cuh and what it includes).
const std::vector<SourceHeader>& EmbeddedJitHeaders();

}  // namespace tandem::gpu::jit
