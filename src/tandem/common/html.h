// Small pieces of the self-contained HTML reports (`tandem bench`, `tandem qualify`): escaping
// for HTML and CSV, fixed-point numbers, and the SVG elements the charts are drawn with (inline
// SVG, no scripts, so a report opens anywhere without fetching anything).
#pragma once

#include <string>

namespace tandem::html {

std::string Escape(const std::string& s);    // & < > " as entities
std::string CsvField(const std::string& s);  // quoted when it holds , " or a line break
std::string Fixed(double v, int digits);     // "%.*f"
std::string SvgText(double x, double y, const std::string& text, const std::string& attrs = "");
// A rectangle; with a title, the title shows when the pointer rests on it.
std::string SvgRect(double x, double y, double w, double h, const std::string& fill,
                    const std::string& title = "");

}  // namespace tandem::html
