// Shared guard for GPU tests: skip (visibly, as ctest "skipped") when no CUDA device is usable.
#pragma once

#include <gtest/gtest.h>

#include "tandem/gpu/device.h"

#define TANDEM_REQUIRE_GPU()                                                                       \
  do {                                                                                             \
    auto _dev = ::tandem::gpu::QueryDevice();                                                      \
    if (!_dev.ok()) GTEST_SKIP() << "skipped: no CUDA device (" << _dev.status().message() << ")"; \
  } while (0)
