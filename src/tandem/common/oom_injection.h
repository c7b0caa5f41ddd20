// tandem.test.injectOom: makes GPU device allocations fail on purpose, so that tests can drive
// every out-of-memory path (an operator's error handling, the executor's fallback to the CPU,
// CACHE TABLE keeping a table in host memory) on a GPU with plenty of memory.
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

// Arms the injection for the statement about to run (process-wide; counters restart).
void ArmOomInjection(const OomInjection& injection);
// Whether the allocation being made now should fail. Thread-safe.
bool ShouldInjectOom();
// Allocations failed on purpose since the last ArmOomInjection.
int64_t InjectedOomCount();

}  // namespace tandem
