// The benchmark report writer (HTML well-formed enough: tags balanced, values and charts
// present; CSV parses with one row per cell) and the answer check between modes.
#include "tandem/bench/report.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "tandem/bench/fallback_summary.h"
#include "tandem/bench/measure.h"
#include "tandem/bench/result_rows.h"

namespace tandem::bench {
namespace {

namespace fs = std::filesystem;

// Open tags minus close tags must balance, in order (a stack), ignoring <!DOCTYPE>, void
// elements and self-closing tags. Returns "" or the first problem.
std::string CheckTagsBalanced(const std::string& html) {
  std::vector<std::string> stack;
  size_t i = 0;
  while ((i = html.find('<', i)) != std::string::npos) {
    const size_t end = html.find('>', i);
    if (end == std::string::npos) return "unterminated tag";
    std::string tag = html.substr(i + 1, end - i - 1);
    i = end + 1;
    if (tag.empty() || tag[0] == '!') continue;
    const bool closing = tag[0] == '/';
    const bool self_closing = tag.back() == '/';
    std::string name = tag.substr(closing ? 1 : 0);
    name = name.substr(0, name.find_first_of(" /"));
    if (self_closing || name == "meta" || name == "br") continue;
    if (!closing) {
      stack.push_back(name);
    } else {
      if (stack.empty() || stack.back() != name) {
        return "</" + name + "> closes " + (stack.empty() ? "nothing" : "<" + stack.back() + ">");
      }
      stack.pop_back();
    }
  }
  return stack.empty() ? "" : "<" + stack.back() + "> never closed";
}

// RFC 4180 rows (quoted fields with "" and embedded commas/newlines).
std::vector<std::vector<std::string>> ParseCsv(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
  std::string field;
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field.push_back('"');
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field.push_back(c);
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      row.push_back(field);
      field.clear();
    } else if (c == '\n') {
      row.push_back(field);
      field.clear();
      rows.push_back(row);
      row.clear();
    } else {
      field.push_back(c);
    }
  }
  return rows;
}

ReportCell Cell(const std::string& group, int64_t rows, const std::string& mode, double ms,
                const std::string& status = "ok") {
  ReportCell c;
  c.group = group;
  c.scale = std::to_string(rows);
  c.rows = rows;
  c.engine = "tandem";
  c.mode = mode;
  c.status = status;
  if (status == "ok") {
    c.times_ms = {ms, ms * 1.1, ms * 0.9};
    c.median_ms = ms;
  }
  c.check = mode == "cpu" ? "reference" : "ok";
  return c;
}

Report FallbackReport() {
  Report r;
  r.info.benchmark = "fallback";
  r.info.title = "fallback <test> & co";
  r.info.date = "2026-05-01 10:00 +0000";
  r.info.machine = "Test CPU, 2 cores, 8.0 GiB";  // commas: quoted in the CSV
  r.info.gpu = "none usable (no CUDA device)";
  r.info.version = "tandem 0.1.0";
  r.info.command = "tandem bench fallback --rows 1000,2000";
  r.info.notes = {"a note with \"quotes\""};
  for (int64_t rows : {1000, 2000}) {
    r.cells.push_back(Cell("native", rows, "cpu", 40.0 * rows / 1000));
    r.cells.push_back(Cell("native", rows, "gpu", 0, "n/a: no usable GPU"));
    r.cells.push_back(Cell("native", rows, "auto", 20.0 * rows / 1000));
    r.cells.push_back(Cell("two_islands", rows, "cpu", 50));
    r.cells.push_back(Cell("two_islands", rows, "gpu", 0, "error: boom, it failed"));
    r.cells.push_back(Cell("two_islands", rows, "auto", 123.456));
  }
  r.cells.back().check = "DIFF: row 1, column x: 1 vs 2";
  FillRatios(&r);
  return r;
}

TEST(BenchReport, RatiosAreCpuTimeOverModeTime) {
  Report r = FallbackReport();
  EXPECT_DOUBLE_EQ(r.cells[0].ratio, 1.0);
  EXPECT_DOUBLE_EQ(r.cells[2].ratio, 2.0);  // 40 ms cpu / 20 ms auto
  EXPECT_EQ(r.cells[1].ratio, 0);           // n/a has no ratio
  EXPECT_NEAR(r.cells[5].ratio, 50 / 123.456, 1e-12);
}

TEST(BenchReport, HtmlIsSelfContainedBalancedAndHasTheValues) {
  const std::string html = RenderHtml(FallbackReport());
  EXPECT_EQ(CheckTagsBalanced(html), "");
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_NE(html.find("<style>"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("http://", html.find("<body")), html.find("http://www.w3.org/2000/svg"));
  EXPECT_EQ(html.find("https://"), std::string::npos);
  EXPECT_NE(html.find("fallback &lt;test&gt; &amp; co"), std::string::npos);  // escaped
  EXPECT_NE(html.find("123 ms"), std::string::npos);                          // 123.456 shown
  EXPECT_NE(html.find("2.00x"), std::string::npos);                           // the ratio
  EXPECT_NE(html.find("n/a"), std::string::npos);
  EXPECT_NE(html.find("DIFF: row 1"), std::string::npos);
  EXPECT_NE(html.find("Test CPU, 2 cores"), std::string::npos);
  EXPECT_NE(html.find("crossover"), std::string::npos);
  EXPECT_NE(html.find("<polyline"), std::string::npos);
}

TEST(BenchReport, TpchHtmlHasBarsPerQueryAndSeries) {
  Report r;
  r.info.benchmark = "tpch";
  r.info.title = "tpch";
  for (const char* q : {"Q01", "Q02"}) {
    ReportCell cpu = Cell(q, 0, "cpu", 10);
    cpu.scale = "sf1";
    ReportCell duck = cpu;
    duck.engine = "duckdb";
    duck.mode = "files";
    duck.median_ms = 5;
    r.cells.push_back(cpu);
    r.cells.push_back(duck);
  }
  FillRatios(&r);
  EXPECT_DOUBLE_EQ(r.cells[1].ratio, 2.0);
  const std::string html = RenderHtml(r);
  EXPECT_EQ(CheckTagsBalanced(html), "");
  EXPECT_NE(html.find("duckdb files"), std::string::npos);
  EXPECT_NE(html.find("<rect"), std::string::npos);
  EXPECT_NE(html.find("Q02"), std::string::npos);
}

// Each chart's legend items (a 12x12 swatch, then its label), with the chart's width: every
// label must end inside its chart (6.5 px a character, the writer's own estimate).
struct LegendItem {
  double x;
  std::string label;
  double chart_width;
};
std::vector<LegendItem> LegendItems(const std::string& html) {
  std::vector<LegendItem> items;
  const std::regex svg_re("<svg[^>]* width=\"([0-9.]+)\"");
  const std::regex item_re(
      "width=\"12\\.0\" height=\"12\\.0\" fill=\"[^\"]+\"/><text x=\"([0-9.]+)\" "
      "y=\"[0-9.]+\">([^<]+)</text>");
  std::smatch svg;
  std::string rest = html;
  while (std::regex_search(rest, svg, svg_re)) {
    const double width = std::stod(svg[1]);
    const size_t end = rest.find("</svg>", static_cast<size_t>(svg.position(0)));
    const std::string chart = rest.substr(static_cast<size_t>(svg.position(0)),
                                          end - static_cast<size_t>(svg.position(0)));
    for (std::sregex_iterator it(chart.begin(), chart.end(), item_re), stop; it != stop; ++it) {
      items.push_back({std::stod((*it)[1]), (*it)[2], width});
    }
    rest = rest.substr(end);
  }
  return items;
}

TEST(BenchReport, LegendsWrapInsideTheirCharts) {
  // Eight TPC-H series (three modes from files and from memory, DuckDB both ways): one row of
  // 120 px items ran past the 830 px bar chart and cut off the DuckDB labels.
  Report r;
  r.info.benchmark = "tpch";
  r.info.title = "tpch";
  for (const char* q : {"Q01", "Q06"}) {
    for (const char* engine : {"tandem", "tandem-hot"}) {
      for (const char* mode : {"cpu", "gpu", "auto"}) {
        ReportCell c = Cell(q, 0, mode, 10);
        c.scale = "sf10";
        c.engine = engine;
        r.cells.push_back(c);
      }
    }
    for (const char* mode : {"files", "hot"}) {
      ReportCell d = Cell(q, 0, mode, 12);
      d.scale = "sf10";
      d.engine = "duckdb";
      r.cells.push_back(d);
    }
  }
  FillRatios(&r);
  const std::string html = RenderHtml(r);
  EXPECT_EQ(CheckTagsBalanced(html), "");
  const std::vector<LegendItem> items = LegendItems(html);
  std::set<std::string> labels;
  for (const LegendItem& item : items) {
    labels.insert(item.label);
    EXPECT_LE(item.x + 6.5 * static_cast<double>(item.label.size()), item.chart_width)
        << item.label;
  }
  for (const char* want : {"cpu", "gpu", "auto", "tandem-hot cpu", "tandem-hot gpu",
                           "tandem-hot auto", "duckdb files", "duckdb hot"}) {
    EXPECT_TRUE(labels.count(want)) << want;
  }

  // The fallback matrix's crossover charts (440 px wide) with four series.
  Report f;
  f.info.benchmark = "fallback";
  f.info.title = "fallback";
  for (int64_t rows : {1000000, 10000000}) {
    for (const char* mode : {"cpu", "gpu", "auto"}) {
      f.cells.push_back(Cell("udf after filter", rows, mode, static_cast<double>(rows) / 1e5));
    }
    ReportCell d = Cell("udf after filter", rows, "files", static_cast<double>(rows) / 2e5);
    d.engine = "duckdb";
    f.cells.push_back(d);
  }
  FillRatios(&f);
  const std::vector<LegendItem> crossover = LegendItems(RenderHtml(f));
  EXPECT_FALSE(crossover.empty());
  for (const LegendItem& item : crossover) {
    EXPECT_LE(item.x + 6.5 * static_cast<double>(item.label.size()), item.chart_width)
        << item.label;
  }
}

TEST(BenchReport, TpchHeadlineComesFirstAndNamesWhatRanAgain) {
  // Q01 cached-fast on the GPU, Q02 slow with a part run again on the CPU: the times span
  // 400x, so the bars are on a log scale, and the headline above the tables names the cell.
  Report r;
  r.info.benchmark = "tpch";
  r.info.title = "tpch";
  ReportCell cpu1 = Cell("Q01", 0, "cpu", 100), gpu1 = Cell("Q01", 0, "gpu", 1);
  ReportCell cpu2 = Cell("Q02", 0, "cpu", 400), gpu2 = Cell("Q02", 0, "gpu", 300);
  gpu2.devices =
      "gpu 13, cpu 2, transitions 3; out of GPU memory: 1 part(s) of the plan ran "
      "again on the CPU";
  for (ReportCell* c : {&cpu1, &gpu1, &cpu2, &gpu2}) {
    c->scale = "sf1";
    r.cells.push_back(*c);
  }
  FillRatios(&r);
  const std::string md = RenderMarkdown(r);
  const size_t headline = md.find("## Headline, sf1");
  ASSERT_NE(headline, std::string::npos) << md;
  EXPECT_LT(headline, md.find("| query"));
  EXPECT_LT(headline, md.find("gpu: 301 ms"));
  EXPECT_NE(md.find("ran a part again after running out of memory: Q02 gpu: gpu 13"),
            std::string::npos)
      << md;
  const std::string html = RenderHtml(r);
  EXPECT_EQ(CheckTagsBalanced(html), "");
  EXPECT_LT(html.find("Headline, sf1"), html.find("<svg"));
  EXPECT_NE(html.find("log scale: times span 400x"), std::string::npos);
  // Times within 30x of each other stay on a linear scale; nothing ran again.
  r.cells[1].median_ms = 50;
  r.cells[3].devices = "gpu 13";
  EXPECT_EQ(RenderHtml(r).find("log scale"), std::string::npos);
  EXPECT_NE(RenderMarkdown(r).find("no query ran a part again"), std::string::npos);
}

TEST(BenchReport, TpchHeadlineNamesTheOperatorsGpuPlansKeptOnTheCpuAndWhy) {
  Report r;
  r.info.benchmark = "tpch";
  r.info.title = "tpch";
  ReportCell cpu1 = Cell("Q01", 0, "cpu", 100), gpu1 = Cell("Q01", 0, "gpu", 10);
  ReportCell auto1 = Cell("Q01", 0, "auto", 12);
  ReportCell cpu2 = Cell("Q02", 0, "cpu", 400), gpu2 = Cell("Q02", 0, "gpu", 300);
  gpu1.devices = "gpu 5, cpu 2, transitions 2; on the CPU: Window (window function ntile)";
  auto1.devices = gpu1.devices + "; GPU input in slices: 1 part(s)";
  gpu2.devices = "gpu 4, cpu 1, transitions 2; on the CPU: Scan (CSV files are parsed on the host)";
  for (ReportCell* c : {&cpu1, &gpu1, &auto1, &cpu2, &gpu2}) {
    c->scale = "sf1";
    r.cells.push_back(*c);
  }
  FillRatios(&r);
  std::string md = RenderMarkdown(r);
  EXPECT_NE(md.find("- kept on the CPU because the GPU cannot run them: Window (window function "
                    "ntile), in Q01 gpu, Q01 auto\n"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("- kept on the CPU because the GPU cannot run them: Scan (CSV files are "
                    "parsed on the host), in Q02 gpu\n"),
            std::string::npos)
      << md;
  // Plans that ran whole on the GPU say so; with no plan on the GPU, nothing is said.
  r.cells[1].devices = r.cells[2].devices = r.cells[4].devices = "gpu 5, cpu 0, transitions 1";
  md = RenderMarkdown(r);
  EXPECT_NE(md.find("every operator of the plans that used the GPU could run there"),
            std::string::npos)
      << md;
  EXPECT_EQ(md.find("kept on the CPU"), std::string::npos) << md;
  r.cells[1].devices = r.cells[2].devices = r.cells[4].devices = "cpu only";
  md = RenderMarkdown(r);
  EXPECT_EQ(md.find("could run there"), std::string::npos) << md;
}

TEST(BenchReport, CsvParsesWithOneRowPerCell) {
  const Report report = FallbackReport();
  const auto rows = ParseCsv(RenderCsv(report));
  ASSERT_EQ(rows.size(), report.cells.size() + 1);
  EXPECT_EQ(rows[0], CsvColumns());
  for (size_t i = 1; i < rows.size(); ++i) ASSERT_EQ(rows[i].size(), CsvColumns().size()) << i;
  EXPECT_EQ(rows[3][5], "auto");
  EXPECT_EQ(rows[3][8], "20.000");   // median_ms
  EXPECT_EQ(rows[3][12], "2.0000");  // ratio_vs_cpu
  EXPECT_EQ(rows[5][6], "error: boom, it failed");
  EXPECT_EQ(rows[1][15], "Test CPU, 2 cores, 8.0 GiB");
}

TEST(BenchReport, MarkdownHasTheMachineAndTheTable) {
  const std::string md = RenderMarkdown(FallbackReport());
  EXPECT_NE(md.find("- machine: Test CPU"), std::string::npos);
  EXPECT_NE(md.find("| two_islands | 50.0 ms | error: boom, it failed | 123 ms (0.41x)"),
            std::string::npos)
      << md;
}

TEST(BenchReport, FallbackSummaryNamesCellsBelowOneAndTheCrossover) {
  Report r = FallbackReport();
  r.cells[5].devices = "gpu 5, cpu 4, transitions 2";  // two_islands auto at 1000 rows
  const std::vector<std::string> lines = FallbackSummaryLines(r);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0],
            "auto against cpu: 2 of 4 cells at 1.0x or above; below: 1k two_islands 0.41x (gpu "
            "plan), 2k two_islands 0.41x");
  EXPECT_EQ(lines[1], "gpu faster than auto in: no cell");  // gpu never measured
  EXPECT_EQ(lines[2], "auto beats cpu (crossover): native from 1k; two_islands never");
  // At the top, before the first size's table.
  const std::string md = RenderMarkdown(r);
  EXPECT_LT(md.find("## Headline\n\n- auto against cpu: 2 of 4"), md.find("\n## 1000\n"));
  const std::string html = RenderHtml(r);
  EXPECT_LT(html.find("<h2>Headline</h2>\n<ul><li>auto against cpu: 2 of 4"),
            html.find("<h2>fallback matrix, 1000 fact rows"));
  EXPECT_TRUE(FallbackSummaryLines(Report{}).empty());
  // Measured at one size, a mode has a point, not a crossover: the line says so.
  Report one;
  one.info.benchmark = "fallback";
  for (const ReportCell& c : r.cells) {
    if (c.rows == 1000) one.cells.push_back(c);
  }
  FillRatios(&one);
  const std::vector<std::string> one_size = FallbackSummaryLines(one);
  ASSERT_EQ(one_size.size(), 3u);
  EXPECT_EQ(one_size[2],
            "auto beats cpu (crossover): native faster at the one size measured, 1k; "
            "two_islands not faster at the one size measured, 1k");
}

TEST(BenchReport, FallbackCrossoverNamesTheSmallerSizesAModeWonAt) {
  Report r = FallbackReport();
  for (ReportCell& c : r.cells) {  // two_islands auto faster than cpu at the smaller size only
    if (c.group == "two_islands" && c.mode == "auto") c.median_ms = c.rows == 1000 ? 10 : 500;
  }
  FillRatios(&r);
  const std::vector<std::string> lines = FallbackSummaryLines(r);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[2],
            "auto beats cpu (crossover): native from 1k; two_islands not at the largest size, 2k "
            "(faster at 1k only)");
}

TEST(BenchReport, GpuFasterThanAutoSaysWhetherTheProcessTimesOverlap) {
  Report r;
  r.info.benchmark = "fallback";
  // native: gpu 10 ms (9..11), auto 10.5 ms (9.45..11.55): the ranges overlap.
  // after_agg: gpu 5 ms (4.5..5.5), auto 8 ms (7.2..8.8): they do not.
  for (const char* group : {"native", "after_agg"}) {
    const bool native = std::string(group) == "native";
    r.cells.push_back(Cell(group, 1000000, "cpu", 30));
    r.cells.push_back(Cell(group, 1000000, "gpu", native ? 10 : 5));
    r.cells.push_back(Cell(group, 1000000, "auto", native ? 10.5 : 8));
  }
  FillRatios(&r);
  EXPECT_TRUE(TimesOverlap(r.cells[1], r.cells[2]));
  EXPECT_FALSE(TimesOverlap(r.cells[4], r.cells[5]));
  EXPECT_FALSE(TimesOverlap(r.cells[4], ReportCell{}));  // no times: no claim
  const std::vector<std::string> lines = FallbackSummaryLines(r);
  ASSERT_GE(lines.size(), 2u);
  EXPECT_EQ(lines[1],
            "gpu faster than auto in: 1M native (10.5 vs 10 ms, times overlap), 1M after_agg (8 "
            "vs 5 ms)");
}

TEST(BenchReport, WritesThreeFilesAtomically) {
  const fs::path dir =
      fs::temp_directory_path() / ("tandem_report_test_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  ASSERT_TRUE(WriteReport(dir.string(), FallbackReport()).ok());
  int files = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    ++files;
    EXPECT_EQ(e.path().string().find(".tmp"), std::string::npos) << e.path();
  }
  EXPECT_EQ(files, 3);
  EXPECT_TRUE(fs::exists(dir / "report.html"));
  EXPECT_TRUE(fs::exists(dir / "results.csv"));
  EXPECT_TRUE(fs::exists(dir / "results.md"));
  fs::remove_all(dir);
}

TEST(BenchResults, ComparesRowsWithToleranceAndTies) {
  auto a = ParseJsonLines(
      "{\"k\":\"x\",\"v\":1.0,\"d\":\"12.30\"}\n{\"k\":\"y\",\"v\":2.0,\"d\":null}\n");
  ASSERT_TRUE(a.ok());
  ASSERT_EQ(a->rows.size(), 2u);
  EXPECT_EQ(a->columns, (std::vector<std::string>{"k", "v", "d"}));  // in printed order
  auto same = ParseJsonLines(
      "{\"k\":\"x\",\"v\":1.0000000000001,\"d\":\"12.30\"}\n"
      "{\"k\":\"y\",\"v\":2.0,\"d\":null}\n");
  EXPECT_EQ(CompareResults(*a, *same), "");
  auto swapped = ParseJsonLines(
      "{\"k\":\"y\",\"v\":2.0,\"d\":null}\n"
      "{\"k\":\"x\",\"v\":1.0,\"d\":\"12.30\"}\n");
  EXPECT_EQ(CompareResults(*a, *swapped), "");  // order ties are not differences
  auto off = ParseJsonLines(
      "{\"k\":\"x\",\"v\":1.001,\"d\":\"12.30\"}\n"
      "{\"k\":\"y\",\"v\":2.0,\"d\":null}\n");
  EXPECT_EQ(CompareResults(*a, *off), "row 1, column v: 1.0 vs 1.001");
  auto decimal_off = ParseJsonLines(
      "{\"k\":\"x\",\"v\":1.0,\"d\":\"12.31\"}\n"
      "{\"k\":\"y\",\"v\":2.0,\"d\":null}\n");
  EXPECT_NE(CompareResults(*a, *decimal_off), "");
  auto fewer = ParseJsonLines("{\"k\":\"x\",\"v\":1.0,\"d\":\"12.30\"}\n");
  EXPECT_EQ(CompareResults(*a, *fewer), "2 vs 1 rows");
  auto null_vs_value = ParseJsonLines(
      "{\"k\":\"x\",\"v\":1.0,\"d\":\"12.30\"}\n"
      "{\"k\":\"y\",\"v\":2.0,\"d\":\"0.00\"}\n");
  EXPECT_NE(CompareResults(*a, *null_vs_value), "");
  // A rounded decimal (a reference engine's decimal average) matches the double it rounds.
  auto rounded = ParseJsonLines("{\"a\":\"25.358726\"}");
  auto full = ParseJsonLines("{\"a\":25.358725855642156}");
  EXPECT_EQ(CompareResults(*rounded, *full), "");
  EXPECT_FALSE(ParseJsonLines("not json\n").ok());
}

TEST(BenchMeasure, ParsesTimingLinesAndMedians) {
  EXPECT_EQ(ParseTimingLines("x\nTime: 1.5 ms\nTime: 2.000 ms\nTime: bad ms\n"),
            (std::vector<double>{1.5, 2.0}));
  EXPECT_DOUBLE_EQ(Median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(Median({4, 1, 2, 3}), 2.5);
  EXPECT_TRUE(SaysNoUsableGpu(
      "tandem: tandem.sql.device=gpu but no GPU is usable (no CUDA device); set ..."));
}

TEST(BenchMeasure, PairsDevicesLinesWithTheirStatements) {
  // A statement without a Devices line (CACHE TABLE, a marker row) gets "".
  EXPECT_EQ(ParseDevicesLines("Time: 1 ms\nDevices: cpu only\nTime: 2 ms\nTime: bad ms\n"
                              "Devices: gpu 3, cpu 1, transitions 1\nTime: 3 ms\nTime: 4 ms\n"),
            (std::vector<std::string>{"", "cpu only", "gpu 3, cpu 1, transitions 1", ""}));
}

}  // namespace
}  // namespace tandem::bench
