// What a host table takes in GPU memory once copied there (gpu::ToDevice): decisions made before
// a copy (which cached tables to move to make room for it) need the device's size, which is not
// the host's: string offsets are 8 bytes there (4 on the host), booleans a byte (a bit), and a
// column without NULLs has no validity bitmap. Plain C++, in builds with or without CUDA.
#pragma once

#include <cstdint>

#include "tandem/column/table.h"

namespace tandem::gpu {

int64_t DeviceBytesOf(const Table& table);

}  // namespace tandem::gpu
