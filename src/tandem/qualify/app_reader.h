// Reads one application's event log (all its files, in order) into an Application: each line
// through the AppBuilder, a line cut off by a truncated end dropped, and what went wrong kept in
// the application's `problems` (one line each: a damaged codec block, a truncated end, lines
// that were not JSON) so a damaged log still gives the executions it holds.
#pragma once

#include "tandem/qualify/app_model.h"
#include "tandem/qualify/event_log_files.h"

namespace tandem::qualify {

Application ReadApplication(const EventLogSource& source);

}  // namespace tandem::qualify
