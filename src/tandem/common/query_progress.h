// Progress of the statement running in this process, for the progress bar of `tandem sql`: work
// units planned and done, where a unit is one value decoded by a scan (a row of one column). The
// executor plans the units of all scans before it starts (PlanUnits); the Parquet reader adds
// each column chunk's rows as it finishes. Relaxed atomics: a display, not a synchronization.
#pragma once

#include <cstdint>

namespace tandem::query_progress {

struct Snapshot {
  int64_t planned = 0;
  int64_t done = 0;
};

// Starts a new statement with `planned` units (0 = unknown: no bar, only elapsed time).
void Begin(int64_t planned);
void AddDone(int64_t units);
Snapshot Get();

}  // namespace tandem::query_progress
