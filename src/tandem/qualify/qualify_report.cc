// The reports of `tandem qualify` (see qualify_report.h).
#include "tandem/qualify/qualify_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>

#include "tandem/common/html.h"

namespace tandem::qualify {
namespace {

using html::Escape;
using html::Fixed;
using html::SvgRect;
using html::SvgText;
using spark::Json;

std::string Seconds(double ms) { return Fixed(ms / 1000.0, ms >= 100000 ? 0 : 1) + " s"; }
std::string X(double v) { return Fixed(v, 2) + "x"; }
std::string Range(double lo, double hi) { return Fixed(lo, 2) + "-" + Fixed(hi, 2) + "x"; }

std::string Label(const SqlExecution& x) {
  std::string d = x.description;
  if (d.size() > 60) d = d.substr(0, 57) + "...";
  return "SQL " + std::to_string(x.id) + (d.empty() ? "" : ": " + d);
}

// The most common reasons operators stay in Spark, over every application.
std::vector<std::pair<std::string, int>> TopReasons(const std::vector<AppQualification>& apps,
                                                    size_t limit) {
  std::map<std::string, int> counts;
  for (const AppQualification& a : apps) {
    for (const ExecutionAnalysis& x : a.executions) {
      for (const auto& [reason, n] : x.spark_reasons) counts[reason] += n;
    }
  }
  std::vector<std::pair<std::string, int>> out(counts.begin(), counts.end());
  std::sort(out.begin(), out.end(),
            [](const auto& a, const auto& b) { return a.second > b.second; });
  if (out.size() > limit) out.resize(limit);
  return out;
}

Json PredictionJson(const Prediction& p) {
  return {{"measured_ms", p.measured_ms},
          {"predicted_ms", p.predicted_ms},
          {"predicted_range_ms", {p.low_ms, p.high_ms}},
          {"speedup", p.speedup},
          {"speedup_range", {p.speedup_low, p.speedup_high}},
          {"category", p.category},
          {"reasons", p.reasons},
          {"time_split_ms",
           {{"driver", p.driver_ms},
            {"shuffle", p.shuffle_ms},
            {"python", p.python_ms},
            {"spark_operators", p.spark_ms},
            {"tandem_operators", p.tandem_ms}}}};
}

// A horizontal bar per row: the speedup, with its range as a whisker; 1.0 marked.
std::string SpeedupChart(const std::vector<std::string>& labels, const std::vector<double>& point,
                         const std::vector<double>& low, const std::vector<double>& high) {
  const double label_w = 330, plot_w = 420, row_h = 20, top = 24;
  double max_x = 2;
  for (double h : high) max_x = std::max(max_x, h);
  max_x = std::ceil(max_x);
  const double height = top + row_h * double(labels.size()) + 30;
  auto X0 = [&](double v) { return label_w + plot_w * std::min(v, max_x) / max_x; };
  std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" width=\"" +
                    Fixed(label_w + plot_w + 80, 0) + "\" height=\"" + Fixed(height, 0) + "\">";
  for (int t = 0; t <= static_cast<int>(max_x); ++t) {
    const double x = X0(t);
    svg += "<line x1=\"" + Fixed(x, 1) + "\" y1=\"" + Fixed(top - 6, 1) + "\" x2=\"" + Fixed(x, 1) +
           "\" y2=\"" + Fixed(height - 26, 1) + "\" class=\"" + (t == 1 ? "one" : "grid") + "\"/>";
    svg += SvgText(x - 4, top - 10, std::to_string(t) + "x", "class=\"tick\"");
  }
  for (size_t i = 0; i < labels.size(); ++i) {
    const double y = top + row_h * double(i);
    svg += SvgText(4, y + 14, labels[i], "class=\"label\"");
    const std::string fill = low[i] >= 1.3 ? "#2e7d32" : high[i] < 1.0 ? "#c62828" : "#f9a825";
    svg += SvgRect(label_w, y + 4, std::max(1.0, X0(point[i]) - label_w), row_h - 8, fill,
                   labels[i] + ": " + X(point[i]) + " (" + Range(low[i], high[i]) + ")");
    svg += "<line x1=\"" + Fixed(X0(low[i]), 1) + "\" y1=\"" + Fixed(y + row_h / 2, 1) +
           "\" x2=\"" + Fixed(X0(high[i]), 1) + "\" y2=\"" + Fixed(y + row_h / 2, 1) +
           "\" class=\"range\"/>";
    svg += SvgText(X0(high[i]) + 6, y + 14, X(point[i]), "class=\"value\"");
  }
  svg += SvgText(label_w, height - 8, "predicted speedup (bar), its range (line); 1x = as now");
  return svg + "</svg>";
}

// Stacked bars: where each application's measured time goes.
std::string SplitChart(const std::vector<AppQualification>& apps) {
  struct Part {
    const char* name;
    const char* colour;
  };
  const Part parts[] = {{"Tandem operators", "#2e7d32"},
                        {"operators left to Spark", "#c62828"},
                        {"Python UDFs", "#8e24aa"},
                        {"Spark shuffle", "#1565c0"},
                        {"driver", "#9e9e9e"}};
  const double label_w = 330, plot_w = 420, row_h = 22, top = 30;
  const double height = top + row_h * double(apps.size()) + 30;
  std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" width=\"" +
                    Fixed(label_w + plot_w + 40, 0) + "\" height=\"" + Fixed(height, 0) + "\">";
  double lx = label_w;
  for (const Part& p : parts) {
    svg += SvgRect(lx, 6, 10, 10, p.colour);
    svg += SvgText(lx + 13, 15, p.name, "class=\"legend\"");
    lx += 13 + 7.2 * double(std::string(p.name).size()) + 12;
  }
  for (size_t i = 0; i < apps.size(); ++i) {
    const AppQualification& a = apps[i];
    double v[5] = {0, 0, 0, 0, 0};
    for (const Prediction& p : a.predictions) {
      v[0] += p.tandem_ms;
      v[1] += p.spark_ms;
      v[2] += p.python_ms;
      v[3] += p.shuffle_ms;
      v[4] += p.driver_ms;
    }
    double total = 0;
    for (double x : v) total += x;
    const double y = top + row_h * double(i);
    svg += SvgText(4, y + 15, a.app->name.empty() ? a.app->id : a.app->name, "class=\"label\"");
    double x = label_w;
    for (int k = 0; k < 5; ++k) {
      const double w = total > 0 ? plot_w * v[k] / total : 0;
      if (w > 0) {
        svg += SvgRect(x, y + 4, w, row_h - 8, parts[k].colour,
                       std::string(parts[k].name) + ": " + Seconds(v[k]));
      }
      x += w;
    }
  }
  svg += SvgText(label_w, height - 8, "share of the measured time of the SQL executions");
  return svg + "</svg>";
}

std::string ReasonsChart(const std::vector<std::pair<std::string, int>>& reasons) {
  const double label_w = 560, plot_w = 200, row_h = 20, top = 10;
  int most = 1;
  for (const auto& [r, n] : reasons) most = std::max(most, n);
  const double height = top + row_h * double(reasons.size()) + 10;
  std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" width=\"" +
                    Fixed(label_w + plot_w + 60, 0) + "\" height=\"" + Fixed(height, 0) + "\">";
  for (size_t i = 0; i < reasons.size(); ++i) {
    const double y = top + row_h * double(i);
    std::string r = reasons[i].first;
    if (r.size() > 85) r = r.substr(0, 82) + "...";
    svg += SvgText(4, y + 14, r, "class=\"label\"");
    const double w = plot_w * double(reasons[i].second) / double(most);
    svg += SvgRect(label_w, y + 4, w, row_h - 8, "#c62828", reasons[i].first);
    svg += SvgText(label_w + w + 6, y + 14, std::to_string(reasons[i].second), "class=\"value\"");
  }
  return svg + "</svg>";
}

}  // namespace

std::string RenderSummary(const std::vector<AppQualification>& apps, const ReportContext& ctx) {
  std::string out =
      "Tandem qualification for target " + ctx.target->name + " (" + ctx.target->source + ")\n";
  for (const AppQualification& a : apps) {
    const Application& app = *a.app;
    out += "\n" + app.id + (app.name.empty() ? "" : " (" + app.name + ")") + ": " +
           std::to_string(a.executions.size()) + " SQL executions, " + Seconds(a.measured_ms) +
           " -> " + Seconds(a.predicted_ms) + ", speedup " + X(a.speedup) + " (" +
           Range(a.speedup_low, a.speedup_high) + "): " + a.category + "\n";
    for (const std::string& p : app.problems) out += "  note: " + p + "\n";
    if (a.cost_now > 0) {
      out += "  cost: " + Fixed(a.cost_now, 4) + " now, " + Fixed(a.cost_target, 4) +
             " with Tandem (" + ctx.target->name + ")\n";
    }
    for (size_t i = 0; i < a.executions.size(); ++i) {
      const Prediction& p = a.predictions[i];
      if (!a.executions[i].has_work()) continue;  // commands: nothing ran
      out += "  " + Label(*a.executions[i].execution) + ": " + Seconds(p.measured_ms) + " -> " +
             Seconds(p.predicted_ms) + ", " + X(p.speedup) + " (" +
             Range(p.speedup_low, p.speedup_high) + ") " + p.category + "\n";
      for (const std::string& r : p.reasons) out += "      " + r + "\n";
    }
  }
  return out;
}

Json RenderJson(const std::vector<AppQualification>& apps, const ReportContext& ctx) {
  Json list = Json::array();
  for (const AppQualification& a : apps) {
    const Application& app = *a.app;
    Json executions = Json::array();
    for (size_t i = 0; i < a.executions.size(); ++i) {
      const ExecutionAnalysis& x = a.executions[i];
      Json reasons = Json::object();
      for (const auto& [r, n] : x.spark_reasons) reasons[r] = n;
      Json e = PredictionJson(a.predictions[i]);
      e["id"] = x.execution->id;
      e["description"] = x.execution->description;
      e["failed"] = x.failed;
      e["command"] = !x.has_work();
      e["stages"] = x.stages.size();
      e["tandem_nodes"] = x.tandem_nodes;
      e["spark_nodes"] = x.spark_nodes;
      e["stays_in_spark_because"] = reasons;
      // What the model read, per stage (bench/qualify_accuracy.py fits the model on these).
      Json stages = Json::array();
      for (const StageAnalysis& s : x.stages) {
        stages.push_back({{"wall_ms", s.wall_ms},
                          {"exclusive_ms", s.exclusive_ms},
                          {"parallelism", s.parallelism},
                          {"run_ms", s.run_ms},
                          {"shuffle_write_ms", s.shuffle_write_ms},
                          {"fetch_wait_ms", s.fetch_wait_ms},
                          {"tandem_scan_ms", s.tandem_scan_ms},
                          {"tandem_aggregate_ms", s.tandem_aggregate_ms},
                          {"tandem_wide_aggregate_ms", s.tandem_wide_aggregate_ms},
                          {"tandem_decimal_aggregate_ms", s.tandem_decimal_aggregate_ms},
                          {"tandem_sort_ms", s.tandem_sort_ms},
                          {"tandem_other_ms", s.tandem_other_ms},
                          {"python_ms", s.python_ms},
                          {"spark_ms", s.spark_ms},
                          {"tasks", s.stats->tasks_ended},
                          {"rows_crossing", s.rows_out_of_tandem},
                          {"input_bytes", s.stats->input_bytes},
                          {"shuffle_read_bytes", s.stats->shuffle_read_bytes}});
      }
      e["model_inputs"] = {{"ran_in_tandem", x.ran_in_tandem}, {"stages", stages}};
      executions.push_back(std::move(e));
    }
    list.push_back({{"id", app.id},
                    {"name", app.name},
                    {"spark_version", app.spark_version},
                    {"measured_ms", a.measured_ms},
                    {"predicted_ms", a.predicted_ms},
                    {"predicted_range_ms", {a.low_ms, a.high_ms}},
                    {"speedup", a.speedup},
                    {"speedup_range", {a.speedup_low, a.speedup_high}},
                    {"category", a.category},
                    {"task_slots", a.slots},
                    {"cost_now", a.cost_now},
                    {"cost_with_tandem", a.cost_target},
                    {"log_truncated", app.truncated},
                    {"notes", app.problems},
                    {"recommended_settings", a.settings},
                    {"executions", executions}});
  }
  return Json{{"target", ctx.target->name},
              {"target_source", ctx.target->source},
              {"model_error_range", {ctx.target->error_p10, ctx.target->error_p90}},
              {"applications", list}};
}

std::string RenderCsv(const std::vector<AppQualification>& apps) {
  std::string out =
      "app_id,app_name,execution_id,description,measured_ms,predicted_ms,predicted_low_ms,"
      "predicted_high_ms,speedup,speedup_low,speedup_high,category,tandem_nodes,spark_nodes,"
      "reasons\n";
  for (const AppQualification& a : apps) {
    for (size_t i = 0; i < a.executions.size(); ++i) {
      const ExecutionAnalysis& x = a.executions[i];
      const Prediction& p = a.predictions[i];
      std::string reasons;
      for (const std::string& r : p.reasons) reasons += (reasons.empty() ? "" : "; ") + r;
      out += html::CsvField(a.app->id) + "," + html::CsvField(a.app->name) + "," +
             std::to_string(x.execution->id) + "," + html::CsvField(x.execution->description) +
             "," + Fixed(p.measured_ms, 0) + "," + Fixed(p.predicted_ms, 0) + "," +
             Fixed(p.low_ms, 0) + "," + Fixed(p.high_ms, 0) + "," + Fixed(p.speedup, 3) + "," +
             Fixed(p.speedup_low, 3) + "," + Fixed(p.speedup_high, 3) + "," + p.category + "," +
             std::to_string(x.tandem_nodes) + "," + std::to_string(x.spark_nodes) + "," +
             html::CsvField(reasons) + "\n";
    }
  }
  return out;
}

std::string RenderHtml(const std::vector<AppQualification>& apps, const ReportContext& ctx) {
  std::string h =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<title>Tandem qualification</title><style>"
      "body{font-family:sans-serif;margin:24px;max-width:1100px;color:#222}"
      "table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ccc;padding:3px 7px;"
      "font-size:13px}th{background:#f3f3f3}td.num{text-align:right}"
      ".chart text{font-size:12px;font-family:sans-serif}.chart .label{fill:#333}"
      ".chart .value,.chart .tick{fill:#555}.chart line.grid{stroke:#e0e0e0}"
      ".chart line.one{stroke:#333;stroke-dasharray:3 2}.chart line.range{stroke:#000;"
      "stroke-width:2}.recommended{color:#2e7d32;font-weight:bold}.maybe{color:#b26a00}"
      ".not{color:#c62828}</style></head><body>\n";
  h += "<h1>Tandem qualification</h1>\n<p>Target: <b>" + Escape(ctx.target->name) + "</b> (" +
       Escape(ctx.target->source) + "). Each speedup is the model's point with its range: the " +
       "model's measured errors (predicted times " + Fixed(100 * ctx.target->error_p10, 0) +
       " % to +" + Fixed(100 * ctx.target->error_p90, 0) +
       " % off the measured ones). The category follows the range's low end: "
       "<i>recommended</i> from " +
       Fixed(ctx.target->recommend_at, 1) +
       "x, <i>not recommended</i> when even the high end is below 1x.</p>\n";
  // Headline and the applications' chart.
  std::vector<std::string> labels;
  std::vector<double> point, low, high;
  for (const AppQualification& a : apps) {
    labels.push_back(a.app->name.empty() ? a.app->id : a.app->name);
    point.push_back(a.speedup);
    low.push_back(a.speedup_low);
    high.push_back(a.speedup_high);
  }
  h += "<h2>Applications</h2>\n<table><tr><th>application</th><th>SQL</th><th>measured</th>"
       "<th>with Tandem</th><th>speedup</th><th>range</th><th>category</th>";
  const bool costs = ctx.prices && ctx.prices->cpu_node_per_hour > 0;
  if (costs) h += "<th>cost now</th><th>cost with Tandem</th>";
  h += "</tr>\n";
  for (const AppQualification& a : apps) {
    const std::string cls = a.category == "recommended" ? "recommended"
                            : a.category == "maybe"     ? "maybe"
                                                        : "not";
    h += "<tr><td>" + Escape(a.app->id) + "<br><small>" + Escape(a.app->name) +
         "</small></td><td class=\"num\">" + std::to_string(a.executions.size()) +
         "</td><td class=\"num\">" + Seconds(a.measured_ms) + "</td><td class=\"num\">" +
         Seconds(a.predicted_ms) + "</td><td class=\"num\">" + X(a.speedup) +
         "</td><td class=\"num\">" + Range(a.speedup_low, a.speedup_high) + "</td><td class=\"" +
         cls + "\">" + Escape(a.category) + "</td>";
    if (costs) {
      h += "<td class=\"num\">" + Fixed(a.cost_now, 4) + "</td><td class=\"num\">" +
           Fixed(a.cost_target, 4) + "</td>";
    }
    h += "</tr>\n";
  }
  h += "</table>\n" + SpeedupChart(labels, point, low, high) + "\n";
  h += "<h2>Where the time goes</h2>\n" + SplitChart(apps) + "\n";
  const auto reasons = TopReasons(apps, 12);
  if (!reasons.empty()) {
    h += "<h2>Why operators stay in Spark</h2>\n<p>Operators of the executions' final plans, "
         "by reason.</p>\n" +
         ReasonsChart(reasons) + "\n";
  }
  for (const AppQualification& a : apps) {
    h += "<h2>" + Escape(a.app->id) + ": queries</h2>\n";
    if (!a.app->problems.empty()) {
      h += "<p>Reading the log:</p><ul>";
      for (const std::string& p : a.app->problems) h += "<li>" + Escape(p) + "</li>";
      h += "</ul>\n";
    }
    std::vector<std::string> ql;
    std::vector<double> qp, qlow, qhigh;
    h += "<table><tr><th>SQL</th><th>measured</th><th>with Tandem</th><th>speedup</th>"
         "<th>range</th><th>category</th><th>operators in Tandem / Spark</th><th>what limits "
         "it</th></tr>\n";
    for (size_t i = 0; i < a.executions.size(); ++i) {
      const ExecutionAnalysis& x = a.executions[i];
      const Prediction& p = a.predictions[i];
      if (!x.has_work()) continue;
      ql.push_back(Label(*x.execution));
      qp.push_back(p.speedup);
      qlow.push_back(p.speedup_low);
      qhigh.push_back(p.speedup_high);
      std::string why;
      for (const std::string& r : p.reasons) why += (why.empty() ? "" : "<br>") + Escape(r);
      h += "<tr><td>" + Escape(Label(*x.execution)) + "</td><td class=\"num\">" +
           Seconds(p.measured_ms) + "</td><td class=\"num\">" + Seconds(p.predicted_ms) +
           "</td><td class=\"num\">" + X(p.speedup) + "</td><td class=\"num\">" +
           Range(p.speedup_low, p.speedup_high) + "</td><td>" + Escape(p.category) +
           "</td><td class=\"num\">" + std::to_string(x.tandem_nodes) + " / " +
           std::to_string(x.spark_nodes) + "</td><td>" + why + "</td></tr>\n";
    }
    h += "</table>\n";
    if (!ql.empty()) h += SpeedupChart(ql, qp, qlow, qhigh) + "\n";
    h += "<p>Settings to start with:</p><ul>";
    for (const std::string& s : a.settings) h += "<li><code>" + Escape(s) + "</code></li>";
    h += "</ul>\n";
  }
  h += "</body></html>\n";
  return h;
}

std::string RenderExplain(const AppQualification& app, int64_t execution_id,
                          const ReportContext& ctx) {
  // A nested execution (the query inside a command) is explained with its root.
  auto nested = app.app->executions.find(execution_id);
  if (nested != app.app->executions.end() && nested->second.root_id >= 0) {
    execution_id = nested->second.root_id;
  }
  for (size_t i = 0; i < app.executions.size(); ++i) {
    const ExecutionAnalysis& x = app.executions[i];
    if (x.execution->id != execution_id) continue;
    const Prediction& p = app.predictions[i];
    std::string out = Label(*x.execution) + " (" + app.app->id + "), target " + ctx.target->name +
                      ": " + Seconds(p.measured_ms) + " -> " + Seconds(p.predicted_ms) + ", " +
                      X(p.speedup) + " (" + Range(p.speedup_low, p.speedup_high) + ") " +
                      p.category + "\n";
    std::function<void(const JudgedNode&, int)> walk = [&](const JudgedNode& n, int depth) {
      const char* mark = n.placement == Placement::kTandem     ? "*"
                         : n.placement == Placement::kSpark    ? "!"
                         : n.placement == Placement::kBoundary ? "@"
                                                               : " ";
      std::string line = std::string(static_cast<size_t>(depth) * 2, ' ') + mark + n.node->name;
      if (n.placement == Placement::kTandem) {
        line += "  will run on Tandem";
        if (n.region >= 0) line += " (region " + std::to_string(n.region) + ")";
      } else if (n.placement == Placement::kSpark) {
        line += "  stays in Spark because " + n.reason;
      }
      out += line + "\n";
      for (const JudgedNode* c : n.children) walk(*c, depth + 1);
    };
    walk(*x.plan.root, 0);
    for (const JudgedNode* inner : x.plan.nested_roots) walk(*inner, 1);
    for (const std::string& r : p.reasons) out += "limit: " + r + "\n";
    return out;
  }
  return "";
}

}  // namespace tandem::qualify
