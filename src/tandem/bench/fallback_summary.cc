// Fallback-matrix report summary lines: see fallback_summary.h.
#include "tandem/bench/fallback_summary.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <tuple>
#include <utility>

namespace tandem::bench {
namespace {

std::string Rows(int64_t rows) {
  if (rows >= 1000000 && rows % 1000000 == 0) return std::to_string(rows / 1000000) + "M";
  if (rows >= 1000 && rows % 1000 == 0) return std::to_string(rows / 1000) + "k";
  return std::to_string(rows);
}

std::string Fixed(const char* fmt, double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), fmt, v);
  return buf;
}

// Where a mode starts to beat cpu, from its ratios by size (largest first): "from 10M" (at that
// size and every larger one), "never", "not at the largest size, 10M (faster at 1M only)", or,
// with one size measured, what that one point says (one size is not a crossover).
std::string CrossoverText(const std::vector<std::pair<int64_t, double>>& by_size) {
  if (by_size.size() == 1) {
    return std::string(by_size[0].second > 1 ? "faster" : "not faster") +
           " at the one size measured, " + Rows(by_size[0].first);
  }
  int64_t from = -1;
  for (const auto& [rows, ratio] : by_size) {
    if (ratio <= 1) break;
    from = rows;
  }
  if (from >= 0) return "from " + Rows(from);
  // Not at the largest size: name the smaller sizes where it was faster, so that "never" is
  // not read as "slower everywhere".
  std::string faster;
  for (auto it = by_size.rbegin(); it != by_size.rend(); ++it) {
    if (it->second > 1) faster += (faster.empty() ? "" : ", ") + Rows(it->first);
  }
  return faster.empty() ? "never"
                        : "not at the largest size, " + Rows(by_size[0].first) + " (faster at " +
                              faster + " only)";
}

}  // namespace

std::vector<std::string> FallbackSummaryLines(const Report& report) {
  std::vector<std::string> lines;
  if (report.info.benchmark != "fallback") return lines;
  std::vector<std::string> groups;
  std::vector<int64_t> sizes;
  std::map<std::tuple<std::string, int64_t, std::string>, const ReportCell*> at;
  for (const ReportCell& c : report.cells) {
    if (std::find(groups.begin(), groups.end(), c.group) == groups.end()) {
      groups.push_back(c.group);
    }
    if (std::find(sizes.begin(), sizes.end(), c.rows) == sizes.end()) sizes.push_back(c.rows);
    at[{c.group, c.rows, c.mode}] = &c;
  }
  std::sort(sizes.begin(), sizes.end());
  auto find = [&](const std::string& g, int64_t rows, const std::string& mode) {
    auto it = at.find({g, rows, mode});
    return it != at.end() && it->second->ok() ? it->second : nullptr;
  };

  int at_least_one = 0, measured = 0;
  std::string below, gpu_faster;
  for (int64_t rows : sizes) {
    for (const std::string& g : groups) {
      const ReportCell* a = find(g, rows, "auto");
      if (!a || a->ratio <= 0) continue;
      ++measured;
      if (a->ratio >= 1) {
        ++at_least_one;
      } else {
        below += (below.empty() ? "" : ", ") + Rows(rows) + " " + g + Fixed(" %.2fx", a->ratio) +
                 (PlanMark(*a).empty() ? "" : " (" + PlanMark(*a) + ")");
      }
      if (const ReportCell* gpu = find(g, rows, "gpu"); gpu && gpu->median_ms < a->median_ms) {
        gpu_faster += (gpu_faster.empty() ? "" : ", ") + Rows(rows) + " " + g + " (" +
                      Fixed("%.3g", a->median_ms) + " vs " + Fixed("%.3g", gpu->median_ms) + " ms" +
                      (TimesOverlap(*a, *gpu) ? ", times overlap" : "") + ")";
      }
    }
  }
  if (measured == 0) return lines;
  lines.push_back(
      "auto against cpu: " + std::to_string(at_least_one) + " of " + std::to_string(measured) +
      " cells at 1.0x or above; below: " + (below.empty() ? std::string("none") : below));
  lines.push_back("gpu faster than auto in: " +
                  (gpu_faster.empty() ? std::string("no cell") : gpu_faster));
  // Crossover per condition and mode: the smallest size from which the mode beat cpu at every
  // measured size.
  for (const char* mode : {"gpu", "auto"}) {
    std::string line;
    for (const std::string& g : groups) {
      // The ratios by size, largest first, of the sizes measured.
      std::vector<std::pair<int64_t, double>> measured_sizes;
      for (auto it = sizes.rbegin(); it != sizes.rend(); ++it) {
        const ReportCell* c = find(g, *it, mode);
        if (c && c->ratio > 0) measured_sizes.emplace_back(*it, c->ratio);
      }
      if (measured_sizes.empty()) continue;
      const std::string what = CrossoverText(measured_sizes);
      line += (line.empty() ? "" : "; ") + g + " " + what;
    }
    if (!line.empty()) lines.push_back(std::string(mode) + " beats cpu (crossover): " + line);
  }
  return lines;
}

}  // namespace tandem::bench
