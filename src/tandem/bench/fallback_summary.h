// The summary under a fallback-matrix report: how many auto cells reached 1.0 against cpu and
// which did not (with the plan auto ran), the cells where gpu beat auto, and per condition the
// crossover: the smallest measured size from which a mode beat cpu at that size and every
// larger one.
#pragma once

#include <string>
#include <vector>

#include "tandem/bench/report.h"

namespace tandem::bench {

// One Markdown list line each (without the "- "); none for other benchmarks.
std::vector<std::string> FallbackSummaryLines(const Report& report);

}  // namespace tandem::bench
