// Which applications' event logs a list of paths holds, as users point at them: a log file
// (plain or compressed, possibly `.inprogress`), a rolling log folder (`eventlog_v2_<appId>/`
// with `events_<N>_<appId>[.<codec>]` parts, read in N order, and `appstatus_<appId>[...]`),
// or a folder of those (searched recursively). Files that are not event logs by their names
// (`.crc`, hidden files, `appstatus_*`, Spark's own `*.log`) are skipped.
#pragma once

#include <string>
#include <vector>

#include "tandem/common/status.h"

namespace tandem::qualify {

struct EventLogSource {
  std::string name;                // what reports call it: the file or folder name
  std::vector<std::string> files;  // in reading order
  bool in_progress = false;        // .inprogress file, or a rolling folder still being written
};

// The applications under `paths`; an unreadable or missing path is an error naming it.
Result<std::vector<EventLogSource>> FindEventLogs(const std::vector<std::string>& paths);

}  // namespace tandem::qualify
