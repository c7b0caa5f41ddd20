// The reports of `tandem qualify`: a summary for the terminal, JSON and CSV for tools, and one
// self-contained HTML page (inline SVG charts, no scripts, nothing fetched) for people deciding:
// speedup per application and per query with ranges, where the time goes by support status,
// the most common reasons operators stay in Spark, and the settings to start with.
#pragma once

#include <string>
#include <vector>

#include "tandem/qualify/qualification.h"
#include "tandem/spark/fragment_json.h"

namespace tandem::qualify {

struct ReportContext {
  const TargetModel* target = nullptr;
  const Prices* prices = nullptr;
};

std::string RenderSummary(const std::vector<AppQualification>& apps, const ReportContext& ctx);
spark::Json RenderJson(const std::vector<AppQualification>& apps, const ReportContext& ctx);
std::string RenderCsv(const std::vector<AppQualification>& apps);
std::string RenderHtml(const std::vector<AppQualification>& apps, const ReportContext& ctx);

// One execution's plan with the marks of `tandem explain` (* in Tandem, ! stays in Spark with
// the reason, @ Spark's machinery), with the prediction.
std::string RenderExplain(const AppQualification& app, int64_t execution_id,
                          const ReportContext& ctx);

}  // namespace tandem::qualify
