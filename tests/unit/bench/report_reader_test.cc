// Reading a written report back (`tandem bench report`) and the TPC-H summary lines: a report
// written and read again renders the same CSV; the summary's sums, geomeans, auto's slower
// queries and the bandwidth floor come out of known cells.
#include "tandem/bench/report_reader.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>

#include "tandem/bench/tpch_summary.h"

namespace tandem::bench {
namespace {

namespace fs = std::filesystem;

ReportCell TpchCell(const std::string& query, const std::string& engine, const std::string& mode,
                    double ms, const std::string& devices = "") {
  ReportCell c;
  c.group = query;
  c.scale = "sf10";
  c.engine = engine;
  c.mode = mode;
  c.status = "ok";
  c.times_ms = {ms, ms * 1.1, ms * 0.9};
  c.median_ms = ms;
  c.check = mode == "cpu" ? "reference" : "ok";
  c.devices = devices;
  return c;
}

Report TpchReport() {
  Report r;
  r.info.benchmark = "tpch";
  r.info.title = "Tandem TPC-H sf 10";
  r.info.date = "2026-11-30 20:00 +0000";
  r.info.machine = "Test CPU, 16 cores, \"quoted\"";
  r.info.gpu = "NVIDIA H200, sm_90";
  r.info.version = "tandem 0.1.0";
  r.info.command = "tandem bench tpch --sf 10";
  r.info.notes = {"first note", "second note"};
  r.cells = {TpchCell("Q01", "tandem", "cpu", 400),
             TpchCell("Q01", "tandem", "auto", 200, "gpu 3"),
             TpchCell("Q01", "tandem-hot", "gpu", 6.42, "gpu 5, cpu 0, transitions 1"),
             TpchCell("Q01", "duckdb", "files", 300),
             TpchCell("Q06", "tandem", "cpu", 100),
             TpchCell("Q06", "tandem", "auto", 125, "cpu only"),
             TpchCell("Q06", "tandem-hot", "gpu", 3.91, "gpu 4, cpu 0, transitions 1"),
             TpchCell("Q06", "duckdb", "files", 100)};
  FillRatios(&r);
  return r;
}

TEST(BenchReportReader, SplitsQuotedCsvFields) {
  EXPECT_EQ(SplitCsvRecord("a,\"b, c\",\"say \"\"hi\"\"\",,d"),
            (std::vector<std::string>{"a", "b, c", "say \"hi\"", "", "d"}));
}

TEST(BenchReportReader, ReadsBackWhatWasWritten) {
  const fs::path dir =
      fs::temp_directory_path() / ("tandem_report_reader_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const Report written = TpchReport();
  ASSERT_TRUE(WriteReport(dir.string(), written).ok());
  Result<Report> read = ReadReport(dir.string());
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(RenderCsv(*read), RenderCsv(written));
  EXPECT_EQ(read->info.title, written.info.title);
  EXPECT_EQ(read->info.command, written.info.command);
  EXPECT_EQ(read->info.notes, written.info.notes);
  EXPECT_EQ(RenderMarkdown(*read), RenderMarkdown(written));
  fs::remove_all(dir);
}

// A report rendered from others' results has no command: it says so once, and reading it back
// and rendering it again neither repeats the line nor turns it into a note.
TEST(BenchReportReader, AReportWithoutACommandSaysSoOnceAfterEveryRerendering) {
  const fs::path dir =
      fs::temp_directory_path() / ("tandem_report_reader_nocmd_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  Report written = TpchReport();
  written.info.command.clear();
  ASSERT_TRUE(WriteReport(dir.string(), written).ok());
  for (int round = 0; round < 2; ++round) {
    Result<Report> read = ReadReport(dir.string());
    ASSERT_TRUE(read.ok()) << read.status().ToString();
    EXPECT_EQ(read->info.command, "");
    EXPECT_EQ(read->info.notes, written.info.notes);
    const std::string md = RenderMarkdown(*read);
    EXPECT_NE(md.find("- command: not recorded"), std::string::npos) << md;
    EXPECT_EQ(md.find("command: ``"), std::string::npos) << md;
    EXPECT_EQ(md.find("command:"), md.rfind("command:")) << md;
    ASSERT_TRUE(WriteReport(dir.string(), *read).ok());
  }
  fs::remove_all(dir);
}

TEST(BenchReportReader, RejectsWhatIsNotAResultsFile) {
  const fs::path dir =
      fs::temp_directory_path() / ("tandem_report_reader_bad_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  EXPECT_FALSE(ReadReport(dir.string()).ok());  // no results.csv
  {
    FILE* f = std::fopen((dir / "results.csv").c_str(), "w");
    std::fputs("a,b\n1,2\n", f);
    std::fclose(f);
  }
  Result<Report> bad = ReadReport(dir.string());
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("unexpected header"), std::string::npos);
  // A cell whose median is not a number: the file, line and column are named.
  {
    Report one = TpchReport();
    one.cells.resize(1);
    std::string csv = RenderCsv(one);
    const size_t at = csv.find("400.000");
    ASSERT_NE(at, std::string::npos);
    csv.replace(at, 7, "4o0.000");
    FILE* f = std::fopen((dir / "results.csv").c_str(), "w");
    std::fputs(csv.c_str(), f);
    std::fclose(f);
  }
  bad = ReadReport(dir.string());
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("results.csv:2: column median_ms: '4o0.000' is not a "
                                        "number"),
            std::string::npos)
      << bad.status().message();
  fs::remove_all(dir);
}

TEST(BenchReportReader, ReadsResultsFromBeforeTheDevicesColumn) {
  const fs::path dir =
      fs::temp_directory_path() / ("tandem_report_reader_old_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::string header, row;
  // The columns up to "version": a file from before the devices and peak_memory columns.
  for (size_t i = 0; i + 2 < CsvColumns().size(); ++i) header += (i ? "," : "") + CsvColumns()[i];
  row =
      "fallback,native,1000,1000,tandem,cpu,ok,1,2.000,2.000,2.000,2.000,1.0000,reference,"
      "2026-01-01,\"cpu, 2 cores\",none,tandem 0.1.0";
  {
    FILE* f = std::fopen((dir / "results.csv").c_str(), "w");
    std::fputs((header + "\n" + row + "\n").c_str(), f);
    std::fclose(f);
  }
  Result<Report> read = ReadReport(dir.string());
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  ASSERT_EQ(read->cells.size(), 1u);
  EXPECT_EQ(read->cells[0].devices, "");
  EXPECT_EQ(read->cells[0].peak_memory, "");
  EXPECT_EQ(read->info.machine, "cpu, 2 cores");
  EXPECT_DOUBLE_EQ(read->cells[0].median_ms, 2.0);
  fs::remove_all(dir);
}

TEST(BenchTpchSummary, SumsGeomeansSlowerQueriesAndTheFloor) {
  const std::vector<std::string> lines = TpchSummaryLines(TpchReport(), "sf10");
  std::string all;
  for (const auto& l : lines) all += l + "\n";
  EXPECT_NE(all.find("cpu: 500 ms / 200.0 ms"), std::string::npos) << all;
  // The spread across runs closes each series' line.
  EXPECT_NE(all.find("duckdb files: 400 ms / 173.2 ms; runs 155.9-190.5 ms (geomeans of each "
                     "query's fastest and slowest)"),
            std::string::npos)
      << all;
  // auto: 2.00x on Q01, 0.80x on Q06 (the all-CPU plan): geomean sqrt(1.6).
  EXPECT_NE(all.find("auto: 325 ms / 158.1 ms; vs cpu: geomean 1.26x (faster), lowest 0.80x (Q06); "
                     "slower than cpu on Q06 0.80x (cpu plan)"),
            std::string::npos)
      << all;
  EXPECT_NE(all.find("tandem-hot gpu: "), std::string::npos);
  // Q01 reads 46 bytes x 60M rows = 2.76 GB: 0.642 ms at 4.3 TB/s; 6.42 ms is 10x that.
  EXPECT_NE(all.find("Q01 bandwidth floor: 2.76 GB read at 4.3 TB/s (H200) = 0.642 ms; time / "
                     "floor: auto 311.6x, tandem-hot gpu 10.0x"),
            std::string::npos)
      << all;
  // On an H100 the floor is at its HBM3's 3.35 TB/s: 0.824 ms.
  Report h100 = TpchReport();
  h100.info.gpu = "NVIDIA H100 80GB HBM3, sm_90, 132 SMs, 79.2 GiB";
  std::string on_h100;
  for (const auto& l : TpchSummaryLines(h100, "sf10")) on_h100 += l + "\n";
  EXPECT_NE(on_h100.find("Q01 bandwidth floor: 2.76 GB read at 3.35 TB/s (H100) = 0.824 ms"),
            std::string::npos)
      << on_h100;
  EXPECT_TRUE(TpchSummaryLines(TpchReport(), "sf1").empty());
}

// A series with no measured cell (gpu on a machine without one) says so instead of sums of
// nothing and infinite ratios; ratios to DuckDB say which way they point.
TEST(BenchTpchSummary, AnUnmeasuredSeriesSaysWhyAndRatiosSayTheirWay) {
  Report r = TpchReport();
  for (const char* q : {"Q01", "Q06"}) {
    ReportCell gpu = TpchCell(q, "tandem", "gpu", 0);
    gpu.status = "n/a: no usable GPU";
    gpu.times_ms.clear();
    r.cells.push_back(gpu);
  }
  FillRatios(&r);
  std::string all;
  for (const auto& l : TpchSummaryLines(r, "sf10")) all += l + "\n";
  EXPECT_NE(all.find("\ngpu: not measured (n/a: no usable GPU)\n"), std::string::npos) << all;
  EXPECT_EQ(all.find("inf"), std::string::npos) << all;
  // cpu 400 + 100 ms against DuckDB's 300 + 100: sqrt(0.75) = 0.87.
  EXPECT_NE(all.find("cpu: 500 ms / 200.0 ms; vs DuckDB files: geomean 0.87x (slower)"),
            std::string::npos)
      << all;
}

TEST(BenchTpchSummary, ASlowerAutoQuerySaysWhenItsTimesOverlapCpus) {
  Report r = TpchReport();
  r.cells[5] = TpchCell("Q06", "tandem", "auto", 105, "gpu 4, cpu 1, transitions 1");
  FillRatios(&r);
  std::string all;
  for (const auto& l : TpchSummaryLines(r, "sf10")) all += l + "\n";
  // cpu 90..110 ms against auto 94.5..115.5 ms.
  EXPECT_NE(all.find("slower than cpu on Q06 0.95x (gpu plan, times overlap)"), std::string::npos)
      << all;
}

}  // namespace
}  // namespace tandem::bench
