// The summary heading a TPC-H report (its headline): per series (engine and mode) the sum and
// geomean of the per-query medians, the geomean of its ratios to Tandem's cpu mode and its
// slowest query there (for auto: every query where it was slower than cpu), each Tandem series
// against DuckDB from files (and cached series against DuckDB's tables in memory), the spread
// across runs (geomeans of each query's fastest and slowest run), and for Q1 and Q6 the ratio of
// the GPU times to the memory-bandwidth floor: the bytes of the lineitem columns the query
// reads, at their in-memory widths, over the GPU's bandwidth (the H200's 4.3 TB/s by default).
#pragma once

#include <string>
#include <vector>

#include "tandem/bench/report.h"

namespace tandem::bench {

// One Markdown list line each (without the "- "), for one scale ("sf10"); none for other
// benchmarks or a scale without cells.
std::vector<std::string> TpchSummaryLines(const Report& report, const std::string& scale);

}  // namespace tandem::bench
