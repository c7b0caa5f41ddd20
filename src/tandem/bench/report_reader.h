// Reads a report back from the folder `tandem bench ...` wrote it to, so that it can be rendered
// again (`tandem bench report DIR`) after the renderer learns something new: the cells and the
// machine, GPU, version and date come from results.csv; the title, command and notes from the
// header of results.md.
#pragma once

#include <string>
#include <vector>

#include "tandem/bench/report.h"
#include "tandem/common/status.h"

namespace tandem::bench {

Result<Report> ReadReport(const std::string& dir);

// The fields of one CSV record as RenderCsv writes them (RFC 4180 quoting); `line` holds one
// record (a quoted field may span lines).
std::vector<std::string> SplitCsvRecord(const std::string& line);

}  // namespace tandem::bench
