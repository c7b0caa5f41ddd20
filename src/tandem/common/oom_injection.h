// tandem.test.injectOom and tandem.test.injectHostOom: make GPU device allocations (or host
// buffer allocations) fail on purpose, so that tests can drive every out-of-memory path (an
// operator's error handling, the executor's fallback to the CPU and its retries, CACHE TABLE
// keeping a table in host memory) on a machine with plenty of memory.
//
// Values: "off" (the default); N (a positive integer: the Nth device allocation of each
// statement fails, once); "random" or "random:SEED" (each allocation fails with probability
// 1/8, from a generator seeded per statement, so a run repeats). The gpu runtime asks
// ShouldInjectOom() before every pool allocation; the session arms it for each statement.
#pragma once

#include <cstdint>
#include <string>

#include "tandem/common/status.h"

namespace tandem {

struct OomInjection {
  enum class Mode { kOff, kNth, kRandom };
  Mode mode = Mode::kOff;
  int64_t nth = 0;    // kNth: which allocation fails (1 = the first)
  uint64_t seed = 1;  // kRandom
};

// Parses a value of tandem.test.injectOom; the error names the setting and the accepted forms.
Result<OomInjection> ParseOomInjection(const std::string& value);
// The normalized text of a value ("off", "3", "random:1").
std::string OomInjectionText(const OomInjection& injection);

// Which allocations an injection applies to: the GPU pool's (tandem.test.injectOom) or the
// host buffers' (tandem.test.injectHostOom, counted by memory/host_memory.h). Each has its own
// counters; random host failures are rarer (one in 256, at most two a query: a query makes
// thousands of host allocations, and each CPU operator runs at most three times).
enum class OomTarget { kDevice, kHost };

// Arms the injection for the statement about to run (process-wide; counters restart).
void ArmOomInjection(const OomInjection& injection, OomTarget target = OomTarget::kDevice);
// Whether the allocation being made now should fail. Thread-safe.
bool ShouldInjectOom(OomTarget target = OomTarget::kDevice);
// Allocations failed on purpose since the last ArmOomInjection.
int64_t InjectedOomCount(OomTarget target = OomTarget::kDevice);

}  // namespace tandem
