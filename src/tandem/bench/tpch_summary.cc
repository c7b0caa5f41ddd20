// TPC-H report summary lines: see tpch_summary.h.
#include "tandem/bench/tpch_summary.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>

namespace tandem::bench {
namespace {

// The GPU's memory bandwidth for the floor: an H100 SXM's HBM3 at its 3.35 TB/s (the PCIe and
// NVL cards at theirs), else the H200's HBM3e at the 4.3 TB/s the project's goals take.
struct Bandwidth {
  double bytes_per_second;
  const char* text;
};
Bandwidth GpuBandwidth(const std::string& gpu) {
  if (gpu.find("H100 PCIe") != std::string::npos) return {2.0e12, "2.0 TB/s (H100 PCIe)"};
  if (gpu.find("H100 NVL") != std::string::npos) return {3.9e12, "3.9 TB/s (H100 NVL)"};
  if (gpu.find("H100") != std::string::npos) return {3.35e12, "3.35 TB/s (H100)"};
  if (gpu.find("H200") != std::string::npos) return {4.3e12, "4.3 TB/s (H200)"};
  return {4.3e12, "4.3 TB/s (the H200's)"};
}
constexpr double kLineitemRowsPerSf = 6e6;

// Bytes per lineitem row the query reads in memory: 8-byte decimals, 4-byte dates, one-character
// strings as an 8-byte offset... kept as 4 + 1 (32-bit offset and the character).
double FloorRowBytes(const std::string& query) {
  if (query == "Q01") return 8 + 8 + 8 + 8 + 5 + 5 + 4;  // quantity..tax, flags, shipdate
  if (query == "Q06") return 8 + 8 + 8 + 4;              // quantity, price, discount, shipdate
  return 0;
}

std::string Format(const char* fmt, double a, double b = 0, double c = 0) {
  char buf[160];
  std::snprintf(buf, sizeof(buf), fmt, a, b, c);
  return buf;
}

// A speed ratio (the other's time / this series' time) with the way it points in words, so that
// a reader of the headline need not know which time was divided by which.
std::string Ratio(double r) {
  if (r >= 0.995 && r < 1.005) return Format("%.2fx (the same)", r);
  return Format(r > 1 ? "%.2fx (faster)" : "%.2fx (slower)", r);
}

double Geomean(const std::vector<double>& v) {
  if (v.empty()) return 0;
  double log_sum = 0;
  for (double x : v) log_sum += std::log(x);
  return std::exp(log_sum / static_cast<double>(v.size()));
}

}  // namespace

std::vector<std::string> TpchSummaryLines(const Report& report, const std::string& scale) {
  std::vector<std::string> lines;
  if (report.info.benchmark != "tpch") return lines;
  // The cells of this scale by series, in first-seen order, and the queries every series has.
  std::vector<std::string> series;
  std::map<std::string, std::map<std::string, const ReportCell*>> by_series;
  std::map<std::string, int> ok_count;
  for (const ReportCell& c : report.cells) {
    if (c.scale != scale) continue;
    if (!by_series.count(c.series())) series.push_back(c.series());
    by_series[c.series()][c.group] = &c;
    if (c.ok()) ok_count[c.group]++;
  }
  if (series.empty()) return lines;
  std::vector<std::string> common;  // queries measured by every series that has any ok cell
  size_t measuring = 0;
  for (const auto& s : series) {
    for (const auto& [g, c] : by_series[s]) {
      if (c->ok()) {
        ++measuring;
        break;
      }
    }
  }
  for (const auto& [g, n] : ok_count) {
    if (static_cast<size_t>(n) == measuring) common.push_back(g);
  }
  auto median = [&](const std::string& s, const std::string& g) {
    auto it = by_series[s].find(g);
    return it != by_series[s].end() && it->second->ok() ? it->second->median_ms : 0.0;
  };
  lines.push_back("Over the " + std::to_string(common.size()) +
                  " queries every series measured: sum / geomean of the medians:");
  for (const auto& s : series) {
    bool measured = false;
    std::string why;  // the first cell's status, when none of the series' cells is ok
    for (const auto& [g, c] : by_series[s]) {
      measured |= c->ok();
      if (why.empty()) why = c->status;
    }
    if (!measured) {
      lines.push_back(s + ": not measured (" + why + ")");
      continue;
    }
    double sum = 0;
    std::vector<double> ms;
    for (const auto& g : common) {
      sum += median(s, g);
      ms.push_back(median(s, g));
    }
    if (ms.empty()) continue;
    std::string line = s + ": " + Format("%.0f ms / %.1f ms", sum, Geomean(ms));
    // The spread across runs: the geomeans of each query's fastest and slowest measured run.
    std::vector<double> fastest, slowest_runs;
    bool repeated = false;
    for (const auto& g : common) {
      const ReportCell* c = by_series[s][g];
      if (c->times_ms.empty()) continue;
      fastest.push_back(*std::min_element(c->times_ms.begin(), c->times_ms.end()));
      slowest_runs.push_back(*std::max_element(c->times_ms.begin(), c->times_ms.end()));
      repeated |= c->times_ms.size() > 1;
    }
    std::string spread;
    if (repeated && fastest.size() == common.size()) {
      spread = Format("; runs %.1f-%.1f ms (geomeans of each query's fastest and slowest)",
                      Geomean(fastest), Geomean(slowest_runs));
    }
    // Ratios to Tandem's cpu mode (the cells' own ratios).
    std::vector<double> ratios;
    std::string slowest, slower;
    double worst = 0;
    for (const auto& g : common) {
      const ReportCell* c = by_series[s][g];
      if (c->ratio <= 0 || c->mode == "cpu" || c->engine == "duckdb") continue;
      ratios.push_back(c->ratio);
      if (worst == 0 || c->ratio < worst) {
        worst = c->ratio;
        slowest = g;
      }
      if (c->mode == "auto" && c->ratio < 1) {
        // The cpu cell of the same source ("auto" -> "cpu", "tandem-hot auto" -> "...cpu").
        const ReportCell* cpu = by_series[s.substr(0, s.size() - 4) + "cpu"][g];
        std::string notes = PlanMark(*c);
        if (cpu && TimesOverlap(*c, *cpu))
          notes += (notes.empty() ? "" : ", ") + std::string("times overlap");
        slower += (slower.empty() ? "" : ", ") + g + Format(" %.2fx", c->ratio) +
                  (notes.empty() ? "" : " (" + notes + ")");
      }
    }
    if (!ratios.empty()) {
      line += "; vs cpu: geomean " + Ratio(Geomean(ratios)) + Format(", lowest %.2fx", worst) +
              " (" + slowest + ")";
    }
    if (s.find("auto") != std::string::npos && !ratios.empty()) {
      line += "; slower than cpu on " + (slower.empty() ? std::string("no query") : slower);
    }
    // Against DuckDB from files, and (series over tables in memory) DuckDB's tables in memory:
    // above 1, the series is faster.
    for (const std::string peer : {"duckdb files", "duckdb hot"}) {
      const bool hot_series = s.rfind("tandem-hot", 0) == 0;
      if (!by_series.count(peer) || s.rfind("duckdb", 0) == 0) continue;
      if (peer == "duckdb hot" && !hot_series) continue;
      std::vector<double> vs;
      for (const auto& g : common) vs.push_back(median(peer, g) / median(s, g));
      line += "; vs DuckDB " + peer.substr(7) + ": geomean " + Ratio(Geomean(vs));
    }
    lines.push_back(line + spread);
  }
  // The memory-bandwidth floor of Q1 and Q6 for the series that ran on the GPU.
  const double sf = std::atof(scale.c_str() + (scale.rfind("sf", 0) == 0 ? 2 : 0));
  const Bandwidth bandwidth = GpuBandwidth(report.info.gpu);
  for (const std::string q : {"Q01", "Q06"}) {
    const double bytes = FloorRowBytes(q) * kLineitemRowsPerSf * sf;
    if (!(bytes > 0)) continue;
    const double floor_ms = bytes / bandwidth.bytes_per_second * 1e3;
    std::string line;
    for (const auto& s : series) {
      auto it = by_series[s].find(q);
      if (it == by_series[s].end() || !it->second->ok() || it->second->devices.find("gpu") != 0) {
        continue;
      }
      line += (line.empty() ? "" : ", ") + s + Format(" %.1fx", it->second->median_ms / floor_ms);
    }
    if (line.empty()) continue;
    lines.push_back(q + Format(" bandwidth floor: %.2f GB read at ", bytes / 1e9) + bandwidth.text +
                    Format(" = %.3f ms; time / floor: ", floor_ms) + line);
  }
  return lines;
}

}  // namespace tandem::bench
