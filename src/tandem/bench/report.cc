// Rendering and writing the benchmark report: see report.h.
#include "tandem/bench/report.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>

#include "tandem/bench/fallback_summary.h"
#include "tandem/bench/tpch_summary.h"
#include "tandem/common/atomic_file.h"
#include "tandem/common/html.h"

namespace tandem::bench {
namespace {

// ---- small text helpers ----------------------------------------------------------------------

using html::CsvField;
using html::Escape;
using html::Fixed;
using html::SvgRect;
using html::SvgText;

std::string MdCell(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n') {
      out.push_back(' ');
    } else {
      out.push_back(c);
    }
  }
  return out;
}

// Milliseconds with about three significant digits.
std::string Ms(double v) {
  if (v >= 100) return Fixed(v, 0);
  if (v >= 10) return Fixed(v, 1);
  if (v >= 1) return Fixed(v, 2);
  return Fixed(v, 3);
}

std::string Ratio(double r) { return r > 0 ? Fixed(r, 2) + "x" : ""; }

std::string Num(double v) { return Fixed(v, 1); }

// ---- the shape of the data ------------------------------------------------------------------

template <typename Key>
void AddOnce(std::vector<Key>* list, const Key& key) {
  if (std::find(list->begin(), list->end(), key) == list->end()) list->push_back(key);
}

struct Shape {
  std::vector<std::string> scales;  // in first-seen order
  std::vector<std::string> groups;
  std::vector<std::string> series;
  std::map<std::tuple<std::string, std::string, std::string>, const ReportCell*> at;

  const ReportCell* Find(const std::string& scale, const std::string& group,
                         const std::string& series_name) const {
    auto it = at.find({scale, group, series_name});
    return it == at.end() ? nullptr : it->second;
  }
};

Shape ShapeOf(const Report& report) {
  Shape s;
  for (const ReportCell& c : report.cells) {
    AddOnce(&s.scales, c.scale);
    AddOnce(&s.groups, c.group);
    AddOnce(&s.series, c.series());
    s.at[{c.scale, c.group, c.series()}] = &c;
  }
  return s;
}

const char* SeriesColour(const std::string& series, size_t index) {
  if (series == "cpu") return "#4e79a7";
  if (series == "gpu") return "#59a14f";
  if (series == "auto") return "#f28e2b";
  if (series == "duckdb hot") return "#d4a6c8";  // a lighter shade: both DuckDB series in a chart
  if (series.rfind("duckdb", 0) == 0) return "#b07aa1";
  static const char* kOthers[] = {"#e15759", "#76b7b2", "#edc948", "#9c755f", "#bab0ac"};
  return kOthers[index % 5];
}

// Red below 1, white at 1, green above (saturating at 0.5x and 2x).
std::string RatioColour(double r) {
  if (!(r > 0)) return "#dddddd";
  const double t = std::clamp(std::log2(r), -1.0, 1.0);
  auto mix = [](int from, int to, double f) { return static_cast<int>(from + (to - from) * f); };
  int red, green, blue;
  if (t >= 0) {
    red = mix(255, 46, t);
    green = mix(255, 160, t);
    blue = mix(255, 67, t);
  } else {
    red = mix(255, 214, -t);
    green = mix(255, 39, -t);
    blue = mix(255, 40, -t);
  }
  char buf[16];
  std::snprintf(buf, sizeof(buf), "#%02x%02x%02x", red, green, blue);
  return buf;
}

// A check that found a difference (the others: "ok", "reference ...", "not checked").
bool IsProblem(const std::string& check) { return check.rfind("DIFF", 0) == 0; }
// A check that compared something and found it equal.
bool IsCompared(const std::string& check) {
  return check == "ok" || check.find("equals") != std::string::npos;
}

std::string CellText(const ReportCell* c) {
  if (!c) return "";
  if (!c->ok()) return c->status;
  std::string text = Ms(c->median_ms) + " ms";
  if (c->ratio > 0 && c->mode != "cpu") text += " (" + Ratio(c->ratio) + ")";
  // auto's plan: the all-CPU one (its ratio is then run-to-run noise) or one using the GPU.
  if (const std::string mark = PlanMark(*c); !mark.empty()) text += " " + mark;
  return text;
}

// ---- SVG charts -----------------------------------------------------------------------------

// How wide a legend label is drawn at the charts' 11 px font (a generous 6.5 px a character, so
// that the estimate errs toward more room).
double LabelWidth(const std::string& text) { return 6.5 * static_cast<double>(text.size()); }

// A legend from (x, y) that stays left of `right`: items as wide as their labels, wrapping onto
// another row before one would pass it (eight TPC-H series did not fit one row of a bar chart,
// and the last two were cut off). *height gets the height of its rows.
std::string Legend(const std::vector<std::string>& series, double x, double y, double right,
                   double* height) {
  constexpr double kSwatch = 16, kGap = 14, kRow = 16;
  std::string out;
  double lx = x, ly = y;
  for (size_t i = 0; i < series.size(); ++i) {
    const double w = kSwatch + LabelWidth(series[i]);
    if (lx > x && lx + w > right) {
      lx = x;
      ly += kRow;
    }
    out += SvgRect(lx, ly - 10, 12, 12, SeriesColour(series[i], i));
    out += SvgText(lx + kSwatch, ly, series[i]);
    lx += w + kGap;
  }
  *height = ly - y + kRow;
  return out;
}

// The cells of one scale where part of the plan ran again somewhere else after running out of
// memory (their Devices line says so), one line each: "Q18 gpu: gpu 13, cpu 2, ...".
std::vector<std::string> FallbackLines(const Shape& shape, const std::string& scale) {
  std::vector<std::string> lines;
  for (const auto& g : shape.groups) {
    for (const auto& s : shape.series) {
      const ReportCell* c = shape.Find(scale, g, s);
      if (c && (c->devices.find("ran again") != std::string::npos ||
                c->devices.find("out of GPU memory") != std::string::npos ||
                c->devices.find("out of host memory") != std::string::npos)) {
        lines.push_back(g + " " + s + ": " + c->devices);
      }
    }
  }
  return lines;
}

// The operators that plans using the GPU kept on the CPU because the GPU cannot run them (the
// Devices line's "; on the CPU: ..." part, placement/devices_line.h), one line per list of
// operators and reasons, with the cells it holds for: "Window (window function ntile): Q13 gpu,
// Q13 auto". Empty when no cell's plan used the GPU.
std::vector<std::string> CpuOperatorLines(const Shape& shape, const std::string& scale) {
  static const std::string kMarker = "; on the CPU: ";
  std::vector<std::pair<std::string, std::string>> found;  // (operators and reasons, cells)
  bool any_gpu_plan = false;
  for (const auto& g : shape.groups) {
    for (const auto& s : shape.series) {
      const ReportCell* c = shape.Find(scale, g, s);
      if (!c || c->devices.rfind("gpu ", 0) != 0) continue;
      any_gpu_plan = true;
      const size_t at = c->devices.find(kMarker);
      if (at == std::string::npos) continue;
      const size_t from = at + kMarker.size();
      const std::string what = c->devices.substr(from, c->devices.find("; ", from) - from);
      auto it =
          std::find_if(found.begin(), found.end(), [&](const auto& f) { return f.first == what; });
      if (it == found.end()) {
        found.emplace_back(what, g + " " + s);
      } else {
        it->second += ", " + g + " " + s;
      }
    }
  }
  std::vector<std::string> lines;
  if (any_gpu_plan && found.empty()) {
    lines.push_back("every operator of the plans that used the GPU could run there");
  }
  for (const auto& [what, cells] : found) {
    lines.push_back("kept on the CPU because the GPU cannot run them: " + what + ", in " + cells);
  }
  return lines;
}

// What a reader deciding on adoption reads first, per scale (TPC-H): each series' sum and
// geomean with its ratios to cpu and to DuckDB (tpch_summary.h), the operators GPU plans kept on
// the CPU and why, then the cells that ran a part again elsewhere after running out of memory.
std::vector<std::string> HeadlineLines(const Report& report, const Shape& shape,
                                       const std::string& scale) {
  std::vector<std::string> lines = TpchSummaryLines(report, scale);
  if (lines.empty()) return lines;
  for (std::string& line : CpuOperatorLines(shape, scale)) lines.push_back(std::move(line));
  const std::vector<std::string> fell_back = FallbackLines(shape, scale);
  if (fell_back.empty()) lines.push_back("no query ran a part again after running out of memory");
  for (const std::string& line : fell_back) {
    lines.push_back("ran a part again after running out of memory: " + line);
  }
  return lines;
}

// Bars on a log scale when a chart's times span more than this factor (cached and file times
// side by side): on a linear one the fast bars would not show.
constexpr double kLogScaleSpan = 30;

// Horizontal grouped bars: one group per query, one bar per series (median ms).
std::string BarChart(const Shape& shape, const std::string& scale) {
  const double label_w = 70, plot_w = 640, bar_h = 11, gap = 8;
  const double width = label_w + plot_w + 120;
  double legend_h = 0;
  const std::string legend = Legend(shape.series, label_w, 16, width - 4, &legend_h);
  const double top = 16 + legend_h + 2;
  const double group_h = static_cast<double>(shape.series.size()) * bar_h + gap;
  const double height = top + static_cast<double>(shape.groups.size()) * group_h + 30;
  double max_ms = 0;
  for (const auto& g : shape.groups) {
    for (const auto& s : shape.series) {
      if (const ReportCell* c = shape.Find(scale, g, s); c && c->ok()) {
        max_ms = std::max(max_ms, c->median_ms);
      }
    }
  }
  if (max_ms <= 0) max_ms = 1;
  double min_ms = max_ms;
  for (const auto& g : shape.groups) {
    for (const auto& s : shape.series) {
      if (const ReportCell* c = shape.Find(scale, g, s); c && c->ok() && c->median_ms > 0) {
        min_ms = std::min(min_ms, c->median_ms);
      }
    }
  }
  const bool log_scale = max_ms / min_ms > kLogScaleSpan;
  // Bar length: proportional to the time, or to its logarithm from a tenth of the fastest.
  auto length = [&](double ms) {
    if (!log_scale) return ms / max_ms * plot_w;
    const double floor = min_ms / 10;
    return std::log10(std::max(ms, floor) / floor) / std::log10(max_ms / floor) * plot_w;
  };
  std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" width=\"" +
                    Num(width) + "\" height=\"" + Num(height) + "\" viewBox=\"0 0 " + Num(width) +
                    " " + Num(height) + "\">";
  svg += legend;
  for (size_t gi = 0; gi < shape.groups.size(); ++gi) {
    const double gy = top + static_cast<double>(gi) * group_h;
    svg += SvgText(4, gy + group_h / 2, shape.groups[gi], "class=\"label\"");
    for (size_t si = 0; si < shape.series.size(); ++si) {
      const ReportCell* c = shape.Find(scale, shape.groups[gi], shape.series[si]);
      const double y = gy + static_cast<double>(si) * bar_h;
      if (!c) continue;
      if (!c->ok()) {
        svg += SvgText(label_w + 4, y + bar_h - 2, c->status, "class=\"na\"");
        continue;
      }
      const double w = std::max(1.0, length(c->median_ms));
      svg += SvgRect(label_w, y, w, bar_h - 1, SeriesColour(shape.series[si], si),
                     shape.groups[gi] + " " + shape.series[si] + ": " + Ms(c->median_ms) + " ms");
      std::string value = Ms(c->median_ms);
      if (c->ratio > 0 && c->mode != "cpu") value += " (" + Ratio(c->ratio) + ")";
      svg += SvgText(label_w + w + 4, y + bar_h - 2, value, "class=\"value\"");
    }
  }
  svg +=
      SvgText(label_w, height - 8,
              std::string("median ms per query (bar length") +
                  (log_scale ? ", log scale: times span " + Fixed(max_ms / min_ms, 0) + "x" : "") +
                  "); ratio = cpu / mode");
  return svg + "</svg>";
}

// The fallback matrix of one size: conditions x series, each cell coloured by its ratio.
std::string MatrixChart(const Shape& shape, const std::string& scale) {
  const double label_w = 150, cell_w = 150, cell_h = 30, top = 30;
  const double width = label_w + cell_w * static_cast<double>(shape.series.size()) + 10;
  const double height = top + cell_h * static_cast<double>(shape.groups.size()) + 10;
  std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" width=\"" +
                    Num(width) + "\" height=\"" + Num(height) + "\" viewBox=\"0 0 " + Num(width) +
                    " " + Num(height) + "\">";
  for (size_t si = 0; si < shape.series.size(); ++si) {
    svg += SvgText(label_w + cell_w * (static_cast<double>(si) + 0.5), top - 10, shape.series[si],
                   "text-anchor=\"middle\" class=\"head\"");
  }
  for (size_t gi = 0; gi < shape.groups.size(); ++gi) {
    const double y = top + cell_h * static_cast<double>(gi);
    svg += SvgText(4, y + cell_h / 2 + 4, shape.groups[gi], "class=\"label\"");
    for (size_t si = 0; si < shape.series.size(); ++si) {
      const ReportCell* c = shape.Find(scale, shape.groups[gi], shape.series[si]);
      const double x = label_w + cell_w * static_cast<double>(si);
      std::string text = "", fill = "#dddddd";
      if (c && c->ok()) {
        fill = c->mode == "cpu" ? "#f4f4f4" : RatioColour(c->ratio);
        text = c->mode == "cpu" ? Ms(c->median_ms) + " ms"
                                : Ratio(c->ratio) + "  " + Ms(c->median_ms) + " ms";
      } else if (c) {
        text = c->status.rfind("n/a", 0) == 0 ? "n/a" : "error";
      }
      svg += SvgRect(x + 1, y + 1, cell_w - 2, cell_h - 2, fill,
                     c ? shape.groups[gi] + " " + shape.series[si] + ": " + CellText(c) : "");
      svg += SvgText(x + cell_w / 2, y + cell_h / 2 + 4, text, "text-anchor=\"middle\"");
    }
  }
  return svg + "</svg>";
}

// Time vs fact rows (both log scale), one line per series, for one condition.
std::string CrossoverChart(const Report& report, const Shape& shape, const std::string& group) {
  const double left = 60, right = 20, bottom = 40, plot_w = 360, plot_h = 200;
  const double width = left + plot_w + right;
  // The condition's name on the first row, the legend below it, then the plot.
  double legend_h = 0;
  const std::string legend = Legend(shape.series, left, 30, width - 4, &legend_h);
  const double top = 30 + legend_h + 6, height = top + plot_h + bottom;
  std::map<std::string, std::vector<std::pair<double, double>>> lines;
  double min_x = 0, max_x = 0, min_y = 0, max_y = 0;
  bool any = false;
  for (const ReportCell& c : report.cells) {
    if (c.group != group || !c.ok() || c.rows <= 0 || c.median_ms <= 0) continue;
    const double x = static_cast<double>(c.rows), y = c.median_ms;
    lines[c.series()].push_back({x, y});
    if (!any) {
      min_x = max_x = x;
      min_y = max_y = y;
      any = true;
    }
    min_x = std::min(min_x, x);
    max_x = std::max(max_x, x);
    min_y = std::min(min_y, y);
    max_y = std::max(max_y, y);
  }
  std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" width=\"" +
                    Num(width) + "\" height=\"" + Num(height) + "\" viewBox=\"0 0 " + Num(width) +
                    " " + Num(height) + "\">";
  svg += SvgText(left, 14, group, "class=\"head\"");
  svg += "<line x1=\"" + Num(left) + "\" y1=\"" + Num(top + plot_h) + "\" x2=\"" +
         Num(left + plot_w) + "\" y2=\"" + Num(top + plot_h) + "\" stroke=\"#888\"/>";
  svg += "<line x1=\"" + Num(left) + "\" y1=\"" + Num(top) + "\" x2=\"" + Num(left) + "\" y2=\"" +
         Num(top + plot_h) + "\" stroke=\"#888\"/>";
  if (!any) {
    svg += SvgText(left + 10, top + plot_h / 2, "no measured cells");
    return svg + "</svg>";
  }
  const double lx0 = std::log10(min_x), lx1 = std::log10(max_x);
  const double ly0 = std::log10(min_y) - 0.05, ly1 = std::log10(max_y) + 0.05;
  auto px = [&](double x) {
    return lx1 > lx0 ? left + (std::log10(x) - lx0) / (lx1 - lx0) * plot_w : left + plot_w / 2;
  };
  auto py = [&](double y) { return top + plot_h - (std::log10(y) - ly0) / (ly1 - ly0) * plot_h; };
  std::set<double> xs;
  for (const auto& [name, points] : lines) {
    for (const auto& p : points) xs.insert(p.first);
  }
  for (double x : xs) {
    char label[32];
    std::snprintf(label, sizeof(label), x >= 1e6 ? "%.0fM" : "%.0fK", x >= 1e6 ? x / 1e6 : x / 1e3);
    svg += SvgText(px(x), top + plot_h + 16, label, "text-anchor=\"middle\"");
  }
  svg += SvgText(left + plot_w / 2, height - 6, "fact rows (log)", "text-anchor=\"middle\"");
  svg += SvgText(left, top - 4, "median ms (log)");
  svg += SvgText(left - 4, py(min_y) + 4, Ms(min_y), "text-anchor=\"end\"");
  svg += SvgText(left - 4, py(max_y) + 4, Ms(max_y), "text-anchor=\"end\"");
  size_t index = 0;
  for (const std::string& series : shape.series) {
    auto it = lines.find(series);
    const size_t colour_index = index++;
    if (it == lines.end()) continue;
    auto points = it->second;
    std::sort(points.begin(), points.end());
    const char* colour = SeriesColour(series, colour_index);
    std::string path;
    for (const auto& p : points)
      path += (path.empty() ? "" : " ") + Num(px(p.first)) + "," + Num(py(p.second));
    svg += "<polyline fill=\"none\" stroke=\"" + std::string(colour) +
           "\" stroke-width=\"2\" points=\"" + path + "\"/>";
    for (const auto& p : points) {
      svg += "<circle cx=\"" + Num(px(p.first)) + "\" cy=\"" + Num(py(p.second)) +
             "\" r=\"3.5\" fill=\"" + colour + "\"><title>" +
             Escape(series + ": " + Ms(p.second) + " ms at " + Fixed(p.first, 0) + " rows") +
             "</title></circle>";
    }
  }
  return svg + legend + "</svg>";
}

// ---- tables ----------------------------------------------------------------------------------

std::string HtmlTable(const Shape& shape, const std::string& scale) {
  std::string out = "<table><thead><tr><th>" +
                    std::string(shape.groups.empty() ? "" : "condition / query") + "</th>";
  for (const auto& s : shape.series) out += "<th>" + Escape(s) + "</th>";
  out += "<th>check</th></tr></thead><tbody>";
  for (const auto& g : shape.groups) {
    out += "<tr><td>" + Escape(g) + "</td>";
    std::string checks;
    bool any = false, compared = false;
    for (const auto& s : shape.series) {
      const ReportCell* c = shape.Find(scale, g, s);
      any |= c != nullptr;
      std::string style;
      if (c && c->ok() && c->mode != "cpu" && c->ratio > 0) {
        style = " style=\"background:" + RatioColour(c->ratio) + "\"";
      }
      out += "<td class=\"num\"" + style + ">" + Escape(CellText(c)) + "</td>";
      if (c && IsProblem(c->check)) {
        checks += (checks.empty() ? "" : "; ") + s + ": " + c->check;
      }
      compared |= c && IsCompared(c->check);
    }
    if (!any) {
      out += "<td></td></tr>";
      continue;
    }
    out += "<td>" + Escape(!checks.empty() ? checks : compared ? "equal" : "-") + "</td></tr>";
  }
  return out + "</tbody></table>";
}

// A report put together from others' results (tandem bench report) has no one command.
std::string CommandText(const ReportInfo& info) {
  return info.command.empty() ? "not recorded (rendered from results.csv)" : info.command;
}

std::string Header(const ReportInfo& info) {
  return "date: " + info.date + "\nmachine: " + info.machine + "\nGPU: " + info.gpu +
         "\nversion: " + info.version + "\ncommand: " + CommandText(info);
}

std::string Join(const std::vector<double>& values) {
  std::string out;
  for (double v : values) out += (out.empty() ? "" : ";") + Fixed(v, 3);
  return out;
}

}  // namespace

bool TimesOverlap(const ReportCell& a, const ReportCell& b) {
  if (a.times_ms.empty() || b.times_ms.empty()) return false;
  const auto [a_min, a_max] = std::minmax_element(a.times_ms.begin(), a.times_ms.end());
  const auto [b_min, b_max] = std::minmax_element(b.times_ms.begin(), b.times_ms.end());
  return *a_min <= *b_max && *b_min <= *a_max;
}

std::string PlanMark(const ReportCell& cell) {
  if (cell.mode != "auto") return "";
  if (cell.devices == "cpu only") return "cpu plan";
  if (cell.devices.rfind("gpu", 0) == 0) return "gpu plan";
  return "";
}

const std::vector<std::string>& CsvColumns() {
  static const std::vector<std::string> columns = {
      "benchmark", "group",     "scale",  "rows",    "engine",   "mode",         "status",
      "reps",      "median_ms", "min_ms", "max_ms",  "times_ms", "ratio_vs_cpu", "check",
      "date",      "machine",   "gpu",    "version", "devices",  "peak_memory"};
  return columns;
}

std::string RenderCsv(const Report& report) {
  std::string out;
  for (size_t i = 0; i < CsvColumns().size(); ++i) out += (i ? "," : "") + CsvColumns()[i];
  out += "\n";
  for (const ReportCell& c : report.cells) {
    const bool ok = c.ok() && !c.times_ms.empty();
    const double lo = ok ? *std::min_element(c.times_ms.begin(), c.times_ms.end()) : 0;
    const double hi = ok ? *std::max_element(c.times_ms.begin(), c.times_ms.end()) : 0;
    const std::vector<std::string> fields = {report.info.benchmark,
                                             c.group,
                                             c.scale,
                                             std::to_string(c.rows),
                                             c.engine,
                                             c.mode,
                                             c.status,
                                             std::to_string(c.times_ms.size()),
                                             ok ? Fixed(c.median_ms, 3) : "",
                                             ok ? Fixed(lo, 3) : "",
                                             ok ? Fixed(hi, 3) : "",
                                             Join(c.times_ms),
                                             c.ratio > 0 ? Fixed(c.ratio, 4) : "",
                                             c.check,
                                             report.info.date,
                                             report.info.machine,
                                             report.info.gpu,
                                             report.info.version,
                                             c.devices,
                                             c.peak_memory};
    for (size_t i = 0; i < fields.size(); ++i) out += (i ? "," : "") + CsvField(fields[i]);
    out += "\n";
  }
  return out;
}

// Each Tandem cell's peak memory (the last measured run's tracked host buffers and GPU pool),
// as a table of the series that report one; "" when none does.
std::string PeakMemoryTable(const Shape& shape, const std::string& scale) {
  std::vector<std::string> series;
  for (const auto& s : shape.series) {
    for (const auto& g : shape.groups) {
      const ReportCell* c = shape.Find(scale, g, s);
      if (c && !c->peak_memory.empty()) {
        series.push_back(s);
        break;
      }
    }
  }
  if (series.empty()) return "";
  std::string out = "\nPeak memory (tracked host buffers, GPU pool):\n\n| query";
  for (const auto& s : series) out += " | " + MdCell(s);
  out += " |\n|---";
  for (size_t i = 0; i < series.size(); ++i) out += "|---";
  out += "|\n";
  for (const auto& g : shape.groups) {
    out += "| " + MdCell(g);
    for (const auto& s : series) {
      const ReportCell* c = shape.Find(scale, g, s);
      out += " | " + MdCell(c && !c->peak_memory.empty() ? c->peak_memory : "-");
    }
    out += " |\n";
  }
  return out;
}

std::string RenderMarkdown(const Report& report) {
  const Shape shape = ShapeOf(report);
  std::string out = "# " + report.info.title + "\n\n";
  out +=
      "- date: " + report.info.date + "\n- machine: " + report.info.machine +
      "\n- GPU: " + report.info.gpu + "\n- version: " + report.info.version + "\n- command: " +
      (report.info.command.empty() ? CommandText(report.info) : "`" + report.info.command + "`") +
      "\n";
  for (const std::string& note : report.info.notes) out += "- " + note + "\n";
  for (const std::string& scale : shape.scales) {
    const std::vector<std::string> headline = HeadlineLines(report, shape, scale);
    if (headline.empty()) continue;
    out += "\n## Headline, " + scale + "\n\n";
    for (const std::string& line : headline) out += "- " + line + "\n";
  }
  // The fallback matrix's headline covers every size: its crossovers compare sizes.
  const std::vector<std::string> fallback = FallbackSummaryLines(report);
  if (!fallback.empty()) out += "\n## Headline\n\n";
  for (const std::string& line : fallback) out += "- " + line + "\n";
  for (const std::string& scale : shape.scales) {
    out += "\n## " + scale + "\n\n| " +
           std::string(report.info.benchmark == "tpch" ? "query" : "condition");
    for (const auto& s : shape.series) out += " | " + MdCell(s);
    out += " | check |\n|---";
    for (size_t i = 0; i < shape.series.size(); ++i) out += "|---:";
    out += "|---|\n";
    for (const auto& g : shape.groups) {
      std::string row = "| " + MdCell(g), checks;
      bool any = false, compared = false;
      for (const auto& s : shape.series) {
        const ReportCell* c = shape.Find(scale, g, s);
        any |= c != nullptr;
        row += " | " + MdCell(CellText(c));
        if (c && IsProblem(c->check)) {
          checks += (checks.empty() ? "" : "; ") + s + ": " + c->check;
        }
        compared |= c && IsCompared(c->check);
      }
      if (any)
        out += row + " | " + MdCell(!checks.empty() ? checks : compared ? "equal" : "-") + " |\n";
    }
    out += PeakMemoryTable(shape, scale);
  }
  out +=
      "\nTimes are medians in ms; (Nx) is the ratio cpu time / mode time: above 1 the mode "
      "is faster than the CPU-only plan. For auto, \"cpu plan\" means the planner chose the "
      "all-CPU plan (the same plan as cpu: its ratio is run-to-run noise) and \"gpu plan\" one "
      "that uses the GPU (the CSV's devices column counts operators per device).\n";
  return out;
}

std::string RenderHtml(const Report& report) {
  const Shape shape = ShapeOf(report);
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" +
      Escape(report.info.title) +
      "</title><style>"
      "body{font-family:system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:24px;"
      "color:#222;max-width:1100px}"
      "h1{font-size:22px}h2{font-size:18px;margin-top:28px}h3{font-size:15px}"
      "pre.meta{background:#f6f6f6;padding:10px;white-space:pre-wrap}"
      "table{border-collapse:collapse;margin:8px 0;font-size:13px}"
      "th,td{border:1px solid #ccc;padding:3px 8px}td.num{text-align:right}"
      "svg.chart{font-size:11px;margin:6px 12px 6px 0}svg .label{font-weight:600}"
      "svg .head{font-weight:600}svg .na{fill:#888}svg .value{fill:#333}"
      ".charts{display:flex;flex-wrap:wrap}"
      "</style></head><body>\n";
  out += "<h1>" + Escape(report.info.title) + "</h1>\n";
  out += "<pre class=\"meta\">" + Escape(Header(report.info)) + "</pre>\n";
  if (!report.info.notes.empty()) {
    out += "<ul>";
    for (const std::string& note : report.info.notes) out += "<li>" + Escape(note) + "</li>";
    out += "</ul>\n";
  }
  const bool tpch = report.info.benchmark == "tpch";
  for (const std::string& scale : shape.scales) {
    const std::vector<std::string> headline = HeadlineLines(report, shape, scale);
    if (headline.empty()) continue;
    out += "<h2>Headline, " + Escape(scale) + "</h2>\n<ul>";
    for (const std::string& line : headline) out += "<li>" + Escape(line) + "</li>";
    out += "</ul>\n";
  }
  if (!tpch) {
    out += "<h2>Headline</h2>\n<ul>";
    for (const std::string& line : FallbackSummaryLines(report)) {
      out += "<li>" + Escape(line) + "</li>";
    }
    out += "</ul>\n";
  }
  for (const std::string& scale : shape.scales) {
    out += "<h2>" + Escape(tpch ? "TPC-H " + scale : "fallback matrix, " + scale + " fact rows") +
           "</h2>\n";
    out += tpch ? BarChart(shape, scale) : MatrixChart(shape, scale);
    out += "\n" + HtmlTable(shape, scale) + "\n";
  }
  if (!tpch) {
    out += "<h2>crossover: time vs fact rows per mode</h2>\n<div class=\"charts\">";
    for (const std::string& group : shape.groups) out += CrossoverChart(report, shape, group);
    out += "</div>\n";
  }
  out +=
      "<p>Times are medians in ms; (Nx) is the ratio cpu time / mode time: above 1 the mode is "
      "faster than the CPU-only plan. Colours: green above 1, red below 1, grey not measured "
      "(n/a) or failed.</p>\n";
  return out + "</body></html>\n";
}

void FillRatios(Report* report) {
  std::map<std::tuple<std::string, std::string, std::string>, double> cpu;
  for (const ReportCell& c : report->cells) {
    if (c.ok() && c.mode == "cpu" && c.engine.rfind("tandem", 0) == 0) {
      cpu[{c.group, c.scale, c.engine}] = c.median_ms;
    }
  }
  for (ReportCell& c : report->cells) {
    c.ratio = 0;
    // Tandem cells against the cpu mode of the same engine and source; other engines (DuckDB)
    // against Tandem's cpu time from the same source (files, or tables in memory).
    const std::string reference = c.engine.rfind("tandem", 0) == 0 ? c.engine
                                  : c.mode == "hot"                ? "tandem-hot"
                                                                   : "tandem";
    auto it = cpu.find({c.group, c.scale, reference});
    if (c.ok() && c.median_ms > 0 && it != cpu.end()) c.ratio = it->second / c.median_ms;
  }
}

Status WriteReport(const std::string& dir, const Report& report) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Status::IOError("cannot create " + dir + ": " + ec.message());
  TANDEM_RETURN_NOT_OK(WriteFileAtomically(dir + "/results.csv", RenderCsv(report)));
  TANDEM_RETURN_NOT_OK(WriteFileAtomically(dir + "/results.md", RenderMarkdown(report)));
  return WriteFileAtomically(dir + "/report.html", RenderHtml(report));
}

}  // namespace tandem::bench
